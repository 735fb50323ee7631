"""``autograd.scipy.stats.chi2``: see ``autograd._source`` (``scipy.stats.chi2``)."""

from autograd._source import exports

globals().update(exports("scipy.stats.chi2", __name__))
