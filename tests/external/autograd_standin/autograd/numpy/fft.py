"""``autograd.numpy.fft``: see ``autograd._source`` (``numpy.fft``)."""

from autograd._source import exports

globals().update(exports("numpy.fft"))
