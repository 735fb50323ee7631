"""``autograd.scipy.integrate``: ``chainrules.ad.scipy.integrate``."""

from chainrules.ad.scipy.integrate import *  # noqa: F403
