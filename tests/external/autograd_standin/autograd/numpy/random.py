"""``autograd.numpy.random``: ``chainrules.ad.numpy.random``."""

from chainrules.ad.numpy.random import *  # noqa: F403
