"""``autograd.scipy.integrate``: see ``autograd._source`` (``scipy.integrate``)."""

from autograd._source import exports

globals().update(exports("scipy.integrate", __name__))
