"""``autograd.scipy.stats.multivariate_normal``: ``chainrules.ad.scipy.stats.multivariate_normal`` (under ``--plain``, ``scipy.stats.multivariate_normal`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.stats.multivariate_normal"))
