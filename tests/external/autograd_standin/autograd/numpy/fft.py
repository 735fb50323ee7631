"""``autograd.numpy.fft``: ``chainrules.ad.numpy.fft`` (under ``--plain``, ``numpy.fft`` itself)."""

from autograd._source import exports

globals().update(exports("numpy.fft"))
