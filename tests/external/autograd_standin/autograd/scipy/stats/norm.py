"""``autograd.scipy.stats.norm``: ``chainrules.ad.scipy.stats.norm`` (under ``--plain``, ``scipy.stats.norm`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.stats.norm"))
