"""autograd.scipy.special: SciPy's, through chainrules.ad's rules."""

import scipy.special as _m

from ._route import routed as _routed

globals().update(_routed(_m))
