"""``autograd.scipy.stats.chi2``: ``chainrules.ad.scipy.stats.chi2`` (under ``--plain``, ``scipy.stats.chi2`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.stats.chi2"))
