"""Triangular solves with the backend's own function, where it has one.

The Array API standard has no triangular solve, so the generic ``cholesky`` rules (in
``chainrules.rules.linalg.decompositions``) stand in a general ``linalg.solve`` for each
``L^-1`` / ``L^-H``: an LU factorisation, about 2.7x the flops of a triangular solve, which made
the ``cholesky`` pullback 1.9x the hand-written ``solve_triangular`` formula. ``solve_lower_h``
(``L^-H b``) serves the pullback, ``solve_lower`` (``L^-1 b``) the pushforward. The libraries
that have one are used here:

* NumPy: ``scipy.linalg.solve_triangular`` when SciPy is importable (imported on first use, never
  at ``import chainrules``; SciPy >= 1.15 broadcasts batch axes);
* PyTorch: ``torch.linalg.solve_triangular``;
* JAX (concrete arrays and JAX's own tracers, so ``jax.grad``/``jit`` of a pullback still work):
  ``jax.scipy.linalg.solve_triangular``;
* CuPy: ``cupyx.scipy.linalg.solve_triangular`` (single matrices).

Each is differentiable by its own library (JAX, torch autograd), so a pullback that calls it can
be differentiated again there. A function returns ``None`` when no fast path applies -- another
library (array-api-strict, dask), a ``chainrules.ad`` tracer (the general solve has a rule; the
triangular one has none), mixed dtypes, a library missing -- and the caller takes the generic
path. Nothing reads an array value on the host. The library is found from ``sys.modules`` by the
array's type: this module imports none of them itself unless an array of theirs is passed.

``tests/core/test_linalg_fast.py`` checks that each fast path agrees with the general solve.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["solve_lower", "solve_lower_h"]

_SCIPY: list[Any] = []  # [scipy.linalg.solve_triangular or None], filled on first NumPy use


def _scipy_solve() -> Any:
    if not _SCIPY:
        try:
            import scipy
            from scipy.linalg import solve_triangular
        except ImportError:  # pragma: no cover - SciPy is optional
            solve_triangular = None
        else:
            major, minor = (int(v) for v in scipy.__version__.split(".")[:2])
            if (major, minor) < (1, 15):  # no broadcasting of batch axes before 1.15
                solve_triangular = _unbatched(solve_triangular)
        _SCIPY.append(solve_triangular)
    return _SCIPY[0]


def _unbatched(f: Any) -> Any:
    def solve(a: Any, b: Any, **kw: Any) -> Any:
        return f(a, b, **kw) if a.ndim == 2 and b.ndim == 2 else None

    return solve


def solve_lower_h(low: Any, b: Any) -> Any:
    """``L^-H b`` (``L^H x = b``) for a lower-triangular ``L`` (``(..., n, n)``) and ``b``
    (``(..., n, k)``, batch axes broadcast) with the library's triangular solve; ``None`` where
    there is none (the caller solves ``linalg.solve(L^H, b)``)."""
    return _solve_lower(low, b, adjoint=True)


def solve_lower(low: Any, b: Any) -> Any:
    """``L^-1 b`` (``L x = b``) for a lower-triangular ``L`` (``(..., n, n)``) and ``b``
    (``(..., n, k)``, batch axes broadcast) with the library's triangular solve; ``None`` where
    there is none (the caller solves ``linalg.solve(L, b)``)."""
    return _solve_lower(low, b, adjoint=False)


def _solve_lower(low: Any, b: Any, adjoint: bool) -> Any:
    """``L^-H b`` (``adjoint``) or ``L^-1 b`` with the library's triangular solve, else
    ``None``."""
    tl, tb = type(low), type(b)
    mod = tl.__module__.split(".", 1)[0]
    if tb.__module__.split(".", 1)[0] != mod:
        return None
    trans = "C" if adjoint else "N"
    if mod == "numpy":
        import numpy as np

        if tl is not np.ndarray or tb is not np.ndarray or low.dtype != b.dtype:
            return None
        solve = _scipy_solve()
        if solve is None or low.dtype.kind not in "fc":
            return None
        if low.size == 0 or b.size == 0:  # SciPy refuses zero-size batches: the empty result
            batch = np.broadcast_shapes(low.shape[:-2], b.shape[:-2])
            return np.zeros((*batch, *b.shape[-2:]), low.dtype)
        return solve(low, b, lower=True, trans=trans, check_finite=False)
    if mod == "torch":
        torch = sys.modules.get("torch")
        if torch is None or not isinstance(low, torch.Tensor) or low.dtype != b.dtype:
            return None
        if not (low.is_floating_point() or low.is_complex()):
            return None
        if low.ndim != b.ndim:  # torch broadcasts, but only over the batch axes both have
            batch = torch.broadcast_shapes(low.shape[:-2], b.shape[:-2])
            low = low.expand(*batch, *low.shape[-2:])
            b = b.expand(*batch, *b.shape[-2:])
        if adjoint:
            return torch.linalg.solve_triangular(low.mH, b, upper=True)
        return torch.linalg.solve_triangular(low, b, upper=False)
    if mod in ("jax", "jaxlib"):
        jax = sys.modules.get("jax")
        if jax is None or not isinstance(low, jax.Array) or not isinstance(b, jax.Array):
            return None
        if low.dtype != b.dtype:
            return None
        from jax.scipy.linalg import solve_triangular as jsolve

        return jsolve(low, b, lower=True, trans=trans)
    if mod == "cupy":
        if low.ndim != 2 or b.ndim != 2 or low.dtype != b.dtype:
            return None
        try:
            from cupyx.scipy.linalg import solve_triangular as csolve
        except ImportError:  # pragma: no cover
            return None
        return csolve(low, b, lower=True, trans=trans)
    return None
