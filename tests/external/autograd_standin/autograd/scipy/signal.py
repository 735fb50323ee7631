"""``autograd.scipy.signal``: see ``autograd._source`` (``scipy.signal``)."""

from autograd._source import exports

globals().update(exports("scipy.signal", __name__))
