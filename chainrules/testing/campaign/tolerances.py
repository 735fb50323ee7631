"""Every tolerance of the differential campaign, per dtype and per kind of comparison.

Three kinds:

* ``same``: two ways of computing the same thing in one engine (an argument against the same
  value closed over; ``grad`` against ``vjp``; ``jacobian(mode="rev")`` against ``mode="fwd"``).
  They run the same rules on the same library's kernels, so only summation order differs.
* ``oracle``: another engine's own derivative of the same program (JAX, torch), and a bridge
  against the native engine: the bridges run the same rules, but on their library's kernels
  (``jax.numpy``, torch's own functions), whose special functions round differently from
  NumPy's and SciPy's (torch's ``polygamma(1, x)`` is 4.7e-10 from SciPy's, relative: seed
  4649). Their formulas or kernels differ from ours, and rounding with them.
* ``fd``: finite differences (5-point stencil, float64, step 1e-3): truncation error included.

float32 and complex64 programs are compared against the float64 program (the campaign never
judges single precision against finite differences taken in single precision): ``single``
is that comparison's tolerance.

A comparison passes when ``|got - want| <= atol + rtol * |want|`` elementwise, with ``atol``
scaled by the largest magnitude in ``want`` (so a gradient of size 1e6 is not judged by an
absolute 1e-8).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["TOLERANCES", "close", "worst"]

# (rtol, atol relative to max|want|)
TOLERANCES: dict[str, tuple[float, float]] = {
    "same": (1e-9, 1e-11),
    "oracle": (1e-7, 1e-9),
    "fd": (1e-5, 1e-6),
    "single": (2e-3, 2e-4),
}


def _as_complex(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=np.complex128)


def close(got: Any, want: Any, kind: str) -> bool:
    """Whether ``got`` matches ``want`` under the ``kind`` tolerance (shapes must be equal;
    NaN matches only NaN at the same place)."""
    g, w = _as_complex(got), _as_complex(want)
    if g.shape != w.shape:
        return False
    if g.size == 0:
        return True
    rtol, atol = TOLERANCES[kind]
    gn, wn = np.isnan(g), np.isnan(w)
    if np.any(gn != wn):
        return False
    ok = ~wn
    g, w = g[ok], w[ok]
    if g.size == 0:
        return True
    finite = np.isfinite(w)
    if np.any(g[~finite] != w[~finite]):
        return False
    g, w = g[finite], w[finite]
    scale = float(np.max(np.abs(w), initial=0.0))
    return bool(np.all(np.abs(g - w) <= atol * max(scale, 1.0) + rtol * np.abs(w)))


def worst(got: Any, want: Any) -> str:
    """A short description of the largest difference (for reports)."""
    g, w = _as_complex(got), _as_complex(want)
    if g.shape != w.shape:
        return f"shapes {g.shape} vs {w.shape}"
    if g.size == 0:
        return "empty"
    diff = np.abs(g - w)
    diff = np.where(np.isnan(diff), np.inf, diff)
    i = int(np.argmax(diff))
    return f"max |diff| {diff.flat[i]:.3g} at {i}: got {g.flat[i]:.6g}, want {w.flat[i]:.6g}"
