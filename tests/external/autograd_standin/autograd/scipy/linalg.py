"""``autograd.scipy.linalg``: see ``autograd._source`` (``scipy.linalg``)."""

from autograd._source import exports

globals().update(exports("scipy.linalg", __name__))
