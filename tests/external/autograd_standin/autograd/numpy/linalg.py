"""``autograd.numpy.linalg``: ``chainrules.ad.numpy.linalg``."""

from chainrules.ad.numpy.linalg import *  # noqa: F403
