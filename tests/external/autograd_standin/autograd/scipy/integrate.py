"""autograd.scipy.integrate: SciPy's, through chainrules.ad's rules."""

import scipy.integrate as _m

from ._route import routed as _routed

globals().update(_routed(_m))
