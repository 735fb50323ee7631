"""``autograd.scipy.stats.gamma``: ``chainrules.ad.scipy.stats.gamma``."""

from chainrules.ad.scipy.stats.gamma import *  # noqa: F403
