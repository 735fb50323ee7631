"""``autograd.numpy.random``: see ``autograd._source`` (``numpy.random``)."""

from autograd._source import exports

globals().update(exports("numpy.random"))
