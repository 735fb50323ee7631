"""``autograd.scipy.stats.beta``: see ``autograd._source`` (``scipy.stats.beta``)."""

from autograd._source import exports

globals().update(exports("scipy.stats.beta", __name__))
