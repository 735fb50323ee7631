"""``autograd.scipy.stats.beta``: ``chainrules.ad.scipy.stats.beta`` (under ``--plain``, ``scipy.stats.beta`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.stats.beta"))
