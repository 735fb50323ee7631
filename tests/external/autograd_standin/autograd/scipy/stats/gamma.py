"""``autograd.scipy.stats.gamma``: ``chainrules.ad.scipy.stats.gamma`` (under ``--plain``, ``scipy.stats.gamma`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.stats.gamma"))
