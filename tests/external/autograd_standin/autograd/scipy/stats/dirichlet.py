"""``autograd.scipy.stats.dirichlet``: ``chainrules.ad.scipy.stats.dirichlet``."""

from chainrules.ad.scipy.stats.dirichlet import *  # noqa: F403
