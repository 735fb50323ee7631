"""``autograd.scipy.special``: see ``autograd._source`` (``scipy.special``)."""

from autograd._source import exports

globals().update(exports("scipy.special", __name__))
