"""``autograd.scipy.signal``: ``chainrules.ad.scipy.signal`` (under ``--plain``, ``scipy.signal`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.signal"))
