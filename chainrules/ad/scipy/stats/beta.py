"""``scipy.stats.beta`` for code that ``chainrules.ad`` differentiates: the distribution's
attributes, its methods with rules :func:`chainrules.traceable` (see
:mod:`chainrules.ad.scipy.stats`)."""

from __future__ import annotations

import scipy.stats as _stats

from .._route import distribution as _distribution

globals().update(_distribution(_stats.beta))

__all__ = sorted(n for n in globals() if not n.startswith("_") and n != "annotations")
