"""Hypothesis strategies for rule inputs (this module imports ``hypothesis``).

>>> import numpy as np, chainrules as cr
>>> from hypothesis import given, settings
>>> from chainrules.testing import test_rrule
>>> from chainrules.testing.strategies import elementwise_args
>>> reg = next(r for r in cr.registrations() if r.name == "log")
>>> @settings(max_examples=5, deadline=None)
... @given(elementwise_args(reg, np))
... def check_log(args):
...     test_rrule(np.log, *args)
>>> check_log()

Shapes include 0-d and empty arrays; values are drawn inside the function's domain (the
``domain`` / ``complex`` metadata stored with its registration); binary functions get mutually
broadcastable shapes. Elements are drawn one by one, so draw plain NumPy or array-api-strict
arrays and convert to a guarded device array afterwards.
"""

from __future__ import annotations

from typing import Any

import array_api_compat
import hypothesis.strategies as st
import numpy as np
from hypothesis.extra.array_api import make_strategies_namespace

from ..core.registry import Registration

__all__ = ["arrays_in", "elementwise_args", "shapes"]

_XPS: dict[Any, Any] = {}


def _strategies(xp: Any) -> Any:
    if hasattr(xp, "__name__") and xp.__name__ == "numpy":
        xp = array_api_compat.array_namespace(xp.empty(0))
    s = _XPS.get(xp)
    if s is None:
        s = _XPS[xp] = make_strategies_namespace(xp)
    return s


def shapes(min_dims: int = 0, max_dims: int = 3, max_side: int = 4) -> st.SearchStrategy[Any]:
    """Array shapes, including 0-d (``()``) and empty (a zero-length axis)."""
    return st.lists(st.integers(0, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


def arrays_in(
    xp: Any, spec: Any, shape: tuple[int, ...], dtype: str = "float64"
) -> st.SearchStrategy[Any]:
    """Arrays of ``xp`` with values inside ``spec``: ``(low, high)``, ``"int"`` or ``"bool"``; a
    4-tuple is a complex rectangle ``(re_low, re_high, im_low, im_high)``."""
    s = _strategies(xp)
    ns = array_api_compat.array_namespace(xp.empty(0)) if hasattr(xp, "empty") else xp
    if spec == "int":
        return s.arrays(ns.int64, shape, elements={"min_value": 0, "max_value": 7})
    if spec == "bool":
        return s.arrays(ns.bool, shape)
    if len(spec) == 4:
        lo_r, hi_r, lo_i, hi_i = spec
        real = s.arrays(ns.float64, shape, elements={"min_value": lo_r, "max_value": hi_r})
        imag = s.arrays(ns.float64, shape, elements={"min_value": lo_i, "max_value": hi_i})
        dt = getattr(ns, "complex64" if dtype.endswith("64") else "complex128")
        return st.tuples(real, imag).map(
            lambda ri: ns.astype(ri[0], dt) + ns.astype(ri[1], dt) * 1j
        )
    lo, hi = spec
    if dtype == "float32":  # bounds representable in float32, inside the interval
        lo = float(np.nextafter(np.float32(lo), np.float32(np.inf)))
        hi = float(np.nextafter(np.float32(hi), np.float32(-np.inf)))
    return s.arrays(getattr(ns, dtype), shape, elements={"min_value": lo, "max_value": hi})


def elementwise_args(
    reg: Registration, xp: Any, dtype: str = "float64", complex: bool = False
) -> st.SearchStrategy[tuple[Any, ...]]:
    """Positional arguments for an elementwise registration: one array per entry of its
    ``domain``, of mutually broadcastable shapes (0-d and empty ones included)."""
    domain = reg.domain
    if domain is None:
        raise ValueError(f"{reg.name} has no domain metadata to draw arguments from")
    rect = reg.complex_domain
    if complex and not rect:
        raise ValueError(f"{reg.name} does not take complex arguments")
    specs = [
        (rect if rect is not True else (-1.2, 1.2, -1.2, 1.2))
        if complex and s not in ("int", "bool")
        else s
        for s in domain
    ]
    s = _strategies(xp)
    return s.mutually_broadcastable_shapes(len(specs), min_dims=0, max_dims=3, min_side=0).flatmap(
        lambda shp: st.tuples(
            *(arrays_in(xp, spec, sh, dtype) for spec, sh in zip(specs, shp.input_shapes))
        )
    )
