"""``autograd.numpy.linalg``: ``chainrules.ad.numpy.linalg`` (under ``--plain``, ``numpy.linalg`` itself)."""

from autograd._source import exports

globals().update(exports("numpy.linalg"))
