"""``autograd.numpy.random``: ``chainrules.ad.numpy.random`` (under ``--plain``, ``numpy.random`` itself)."""

from autograd._source import exports

globals().update(exports("numpy.random"))
