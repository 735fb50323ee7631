"""``autograd.scipy.stats.dirichlet``: see ``autograd._source`` (``scipy.stats.dirichlet``)."""

from autograd._source import exports

globals().update(exports("scipy.stats.dirichlet", __name__))
