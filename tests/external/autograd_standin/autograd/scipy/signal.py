"""``autograd.scipy.signal``: ``chainrules.ad.scipy.signal``."""

from chainrules.ad.scipy.signal import *  # noqa: F403
