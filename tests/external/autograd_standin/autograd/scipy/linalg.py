"""``autograd.scipy.linalg``: ``chainrules.ad.scipy.linalg``."""

from chainrules.ad.scipy.linalg import *  # noqa: F403
