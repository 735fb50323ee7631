"""``autograd.scipy.stats.norm``: ``chainrules.ad.scipy.stats.norm``."""

from chainrules.ad.scipy.stats.norm import *  # noqa: F403
