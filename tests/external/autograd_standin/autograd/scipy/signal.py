"""autograd.scipy.signal: SciPy's, through chainrules.ad's rules."""

import scipy.signal as _m

from ._route import routed as _routed

globals().update(_routed(_m))
