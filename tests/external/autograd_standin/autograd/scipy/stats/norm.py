"""``autograd.scipy.stats.norm``: see ``autograd._source`` (``scipy.stats.norm``)."""

from autograd._source import exports

globals().update(exports("scipy.stats.norm", __name__))
