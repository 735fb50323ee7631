"""``autograd.numpy.linalg``: see ``autograd._source`` (``numpy.linalg``)."""

from autograd._source import exports

globals().update(exports("numpy.linalg"))
