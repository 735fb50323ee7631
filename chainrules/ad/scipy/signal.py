"""``chainrules.ad.scipy.signal``: ``scipy.signal``'s names, each function with a registered rule
made :func:`chainrules.traceable` (see :mod:`chainrules.ad.scipy`); the rest, ufuncs included,
are SciPy's own objects."""

from __future__ import annotations

import scipy.signal as _scipy_module

from ._route import routed as _routed

globals().update(_routed(_scipy_module))

__all__ = sorted(n for n in globals() if not n.startswith("_") and n != "annotations")
