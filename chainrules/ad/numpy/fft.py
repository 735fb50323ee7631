"""``chainrules.ad.numpy.fft``: ``numpy.fft`` for code that ``chainrules.ad`` differentiates.
Every name is NumPy's outside a transformation; inside one, a function that NumPy dispatches
takes lists of traced values where NumPy takes an array-like, as in :mod:`chainrules.ad.numpy`."""

from __future__ import annotations

import numpy.fft as _fft
from numpy.fft import *  # noqa: F403

from ._dropin import dropin_names as _dropin_names

globals().update(_dropin_names(_fft, _fft.__all__))

__all__ = list(_fft.__all__)
