"""``autograd.scipy.stats.poisson``: see ``autograd._source`` (``scipy.stats.poisson``)."""

from autograd._source import exports

globals().update(exports("scipy.stats.poisson", __name__))
