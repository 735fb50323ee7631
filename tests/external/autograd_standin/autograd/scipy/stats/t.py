"""``autograd.scipy.stats.t``: ``chainrules.ad.scipy.stats.t``."""

from chainrules.ad.scipy.stats.t import *  # noqa: F403
