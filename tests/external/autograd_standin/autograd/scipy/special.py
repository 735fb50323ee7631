"""``autograd.scipy.special``: ``chainrules.ad.scipy.special`` (under ``--plain``, ``scipy.special`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.special"))
