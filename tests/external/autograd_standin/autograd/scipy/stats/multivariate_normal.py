"""``autograd.scipy.stats.multivariate_normal``: see ``autograd._source``."""

from autograd._source import exports

globals().update(exports("scipy.stats.multivariate_normal", __name__))
