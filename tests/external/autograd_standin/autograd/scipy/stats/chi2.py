"""``autograd.scipy.stats.chi2``: ``chainrules.ad.scipy.stats.chi2``."""

from chainrules.ad.scipy.stats.chi2 import *  # noqa: F403
