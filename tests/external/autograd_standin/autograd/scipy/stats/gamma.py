"""``autograd.scipy.stats.gamma``: see ``autograd._source`` (``scipy.stats.gamma``)."""

from autograd._source import exports

globals().update(exports("scipy.stats.gamma", __name__))
