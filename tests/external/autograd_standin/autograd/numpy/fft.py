"""``autograd.numpy.fft``: ``chainrules.ad.numpy.fft``."""

from chainrules.ad.numpy.fft import *  # noqa: F403
