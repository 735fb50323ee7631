"""``autograd.numpy``: the public drop-in namespace ``chainrules.ad.numpy``."""

from chainrules.ad.numpy import *  # noqa: F403
from chainrules.ad.numpy import __version__  # noqa: F401
