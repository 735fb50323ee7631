"""Central finite differences: the reference every rule is judged against.

A 5-point stencil, ``f'(0) ~ (f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / 12h``, has truncation error
``O(h^4)``; with ``h = 1e-3`` in float64 it is accurate to about 1e-10 for smooth functions, far
below the tolerances the testers use. When a library cannot compute in float64 the step grows to
``1e-2`` (and the testers' tolerances with it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["STEP", "central_difference", "directional_derivative", "gradient"]

# step of the stencil for the dtype the reference is computed in
STEP = {np.dtype(np.float64): 1e-3, np.dtype(np.float32): 1e-2}
_WEIGHTS = ((-2.0, 1.0), (-1.0, -8.0), (1.0, 8.0), (2.0, -1.0))


def central_difference(g: Callable[[float], Any], h: float) -> Any:
    """Derivative at 0 of ``g(t)`` by the 5-point stencil.

    ``g`` returns a scalar, a NumPy array, or a list of arrays (then a list is returned).
    """
    acc: Any = None
    for t, w in _WEIGHTS:
        val = g(t * h)
        if isinstance(val, list):
            terms = [w * np.asarray(v, dtype=np.complex128) for v in val]
            acc = terms if acc is None else [a + b for a, b in zip(acc, terms)]
        else:
            term = w * np.asarray(val, dtype=np.complex128)
            acc = term if acc is None else acc + term
    if isinstance(acc, list):
        return [a / (12.0 * h) for a in acc]
    return acc / (12.0 * h)


def directional_derivative(
    F: Callable[[list[Any]], Any], x: list[Any], v: list[Any], h: float
) -> Any:
    """``d/dt F(x + t v)`` at ``t = 0`` for lists of NumPy arrays ``x``, ``v`` (``None`` entries
    are held fixed)."""

    def g(t: float) -> Any:
        return F(
            [xi + t * vi if xi is not None and vi is not None else None for xi, vi in zip(x, v)]
        )

    return central_difference(g, h)


def gradient(g: Callable[[list[Any]], float], x: list[Any], which: int, h: float) -> Any:
    """Gradient of the real scalar ``g`` with respect to ``x[which]`` element by element.

    For a complex ``x[which]`` the real and imaginary parts are perturbed separately and the
    result is ``dg/dRe + i dg/dIm`` -- the cotangent convention of chainrules.
    """
    base = x[which]
    flat = np.ravel(base)
    out = np.zeros(flat.shape, dtype=np.complex128)
    cplx = np.iscomplexobj(base)
    directions = (1.0, 1j) if cplx else (1.0,)
    for k in range(flat.size):
        for d in directions:
            e = np.zeros(flat.shape, dtype=base.dtype)
            e[k] = d
            e = e.reshape(np.shape(base))

            def gk(t: float, e: Any = e) -> float:
                xs = list(x)
                xs[which] = base + t * e
                return g(xs)

            out[k] += np.real(central_difference(gk, h)) * (1.0 if d == 1.0 else 1j)
    res = out.reshape(np.shape(base))
    return res if cplx else res.real
