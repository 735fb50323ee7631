"""``autograd.scipy.stats.poisson``: ``chainrules.ad.scipy.stats.poisson``."""

from chainrules.ad.scipy.stats.poisson import *  # noqa: F403
