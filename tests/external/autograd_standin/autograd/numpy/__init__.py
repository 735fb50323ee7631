"""``autograd.numpy``: see ``autograd._source`` (``numpy``)."""

from autograd._source import exports

globals().update(exports("numpy"))
