"""``autograd.scipy.integrate``: ``chainrules.ad.scipy.integrate`` (under ``--plain``, ``scipy.integrate`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.integrate"))
