"""chainrules: differentiation rules with GPU-safe pullbacks for every Array API library.

>>> import numpy as np, chainrules as cr
>>> y, pullback = cr.rrule(np.sin, np.array([0.0, 1.0]))
>>> pullback(np.ones(2))[1]
array([1.        , 0.54030231])
"""

from . import core
from . import rules as _rules  # noqa: F401  (registers the library's rules)
from .core import *  # noqa: F403  (the public API is core's, listed once in core/__init__.py)

__version__ = "0.1.0"

__all__ = ["__version__"]
__all__ += core.__all__
