"""``chainrules.ad.numpy.linalg``: ``numpy.linalg`` for code that ``chainrules.ad``
differentiates. Every name is NumPy's outside a transformation; inside one, a function that NumPy
dispatches takes lists of traced values where NumPy takes an array-like
(``norm([x[0], x[1]])``), as in :mod:`chainrules.ad.numpy`."""

from __future__ import annotations

import numpy.linalg as _linalg
from numpy.linalg import *  # noqa: F403

from ._dropin import dropin_names as _dropin_names

globals().update(_dropin_names(_linalg, _linalg.__all__))

__all__ = list(_linalg.__all__)
