"""``autograd.scipy.stats.t``: see ``autograd._source`` (``scipy.stats.t``)."""

from autograd._source import exports

globals().update(exports("scipy.stats.t", __name__))
