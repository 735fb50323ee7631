"""``autograd.scipy.stats.poisson``: ``chainrules.ad.scipy.stats.poisson`` (under ``--plain``, ``scipy.stats.poisson`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.stats.poisson"))
