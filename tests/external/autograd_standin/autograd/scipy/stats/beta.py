"""``autograd.scipy.stats.beta``: ``chainrules.ad.scipy.stats.beta``."""

from chainrules.ad.scipy.stats.beta import *  # noqa: F403
