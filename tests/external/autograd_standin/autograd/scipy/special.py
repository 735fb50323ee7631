"""``autograd.scipy.special``: ``chainrules.ad.scipy.special``."""

from chainrules.ad.scipy.special import *  # noqa: F403
