"""``autograd.scipy.stats.multivariate_normal``: ``chainrules.ad.scipy.stats``'s."""

from chainrules.ad.scipy.stats.multivariate_normal import *  # noqa: F403
