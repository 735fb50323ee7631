"""``chainrules.ad.numpy.random``: ``numpy.random``, as it is (its arrays are data: plain
NumPy arrays inside a transformation too), so that ``import chainrules.ad.numpy.random as npr``
works where code imported ``autograd.numpy.random``."""

from __future__ import annotations

import numpy.random as _random
from numpy.random import *  # noqa: F403

__all__ = list(_random.__all__)
