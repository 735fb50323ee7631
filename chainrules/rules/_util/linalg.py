"""Linear-algebra maths shared by rule modules (the ``linalg`` extension's, SciPy's ``linalg``):
conjugate transposes, the derivatives of ``cholesky``, ``eigh``, ``svd`` and ``qr`` as functions
of their factors, guarded SVDs and solves, and example matrices. The maths notes of each
derivative are in the docstring of :mod:`chainrules.rules.linalg.decompositions`.

Every function is built from standard functions that have rules, so the pullbacks that call them
can be differentiated again, and none reads a value on the host.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from ...core.prelude import *
from . import in_dtype, moveaxis


def _complex(xp: Any, x: Any) -> bool:
    return bool(xp.isdtype(x.dtype, "complex floating"))


def _h(xp: Any, x: Any) -> Any:
    """``x^H``: the conjugate transpose of the last two axes."""
    t = xp.matrix_transpose(x)
    return xp.conj(t) if _complex(xp, t) else t


def _bcast(xp: Any, v: Any) -> Any:
    """``v`` (one value per matrix) with two length-1 axes, to scale a stack of matrices."""
    return xp.expand_dims(xp.expand_dims(v, axis=-1), axis=-1)


def _square_any(name: str, x: Any) -> None:
    """Refuses ``x`` unless it is a (stack of) square matrices (also when it is no array)."""
    if getattr(x, "ndim", 0) < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"{name}: expected a (stack of) square matrices, got shape "
            f"{tuple(getattr(x, 'shape', ()))}"
        )


def _herm(xp: Any, x: Any) -> Any:
    """The Hermitian part ``(x + x^H) / 2``."""
    return (x + _h(xp, x)) / 2


def _re(xp: Any, x: Any) -> Any:
    return xp.real(x) if _complex(xp, x) else x


def _eye_times(xp: Any, v: Any, dtype: Any) -> Any:
    """``diag(v)`` over the last axis of ``v`` (stacked), in ``dtype``."""
    n = v.shape[-1]
    return xp.eye(n, dtype=dtype, device=device_of(v)) * v[..., None, :]


def _tolerance(xp: Any, w: Any, n: int) -> Any:
    """``10 max(n, 1) eps max|w|`` per matrix, shaped ``(..., 1, 1)``: gaps below it are ties."""
    eps = float(xp.finfo(w.dtype).eps)
    if w.shape[-1] == 0:
        return xp.zeros((*w.shape[:-1], 1, 1), dtype=w.dtype, device=device_of(w))
    scale = xp.max(xp.abs(w), axis=-1, keepdims=True)
    return (10.0 * max(n, 1) * eps) * scale[..., None]


def _inverse_gaps(xp: Any, w: Any, n: int, plus: bool = False) -> Any:
    """``F_ij = 1 / (w_j - w_i)`` (``1 / (w_j + w_i)`` with ``plus``) over the last axis of
    ``w``, stacked: 0 on the diagonal and wherever the denominator is within
    ``10 max(n, 1) eps max|w|`` of 0 (a repeated eigen- or singular value: the gauge-dependent
    term is dropped, never NaN). A mask and ``where``: nothing is read on the host."""
    d = w[..., None, :] + w[..., :, None] if plus else w[..., None, :] - w[..., :, None]
    small = xp.abs(d) <= _tolerance(xp, w, n)
    if plus:
        small = small | xp.astype(xp.eye(w.shape[-1], dtype=w.dtype, device=device_of(w)), xp.bool)
    return xp.where(small, xp.zeros_like(d), 1 / xp.where(small, xp.ones_like(d), d))


def _safe_inverse(xp: Any, s: Any, n: int) -> Any:
    """``1 / s`` with 0 where ``s`` is within the tie tolerance of 0 (a zero singular value)."""
    small = s <= _tolerance(xp, s, n)[..., 0]
    return xp.where(small, xp.zeros_like(s), 1 / xp.where(small, xp.ones_like(s), s))


def _solve(xp: Any, a: Any, b: Any, solve2: Any = None) -> Any:
    """``linalg.solve(a, b)`` for stacks of right-hand sides ``b`` (``(..., n, k)``) whose batch
    axes extend ``a``'s (a chunk of tangents).

    One matrix ``a`` against a stack ``b`` is one 2-D solve with all the columns side by side
    (the stack axes moved into the columns, then back): one factorisation instead of one per
    matrix of the stack, and dask's ``lu`` (behind its ``solve``) takes 2-D arrays only. A stack
    ``a`` is broadcast to ``b``'s batch axes first, as CuPy requires. ``solve2(a, b)``, where
    given, solves instead of ``linalg.solve`` (a triangular solve)."""
    solve = xp.linalg.solve if solve2 is None else solve2
    batch = tuple(b.shape[:-2])
    if a.ndim == 2 and batch:
        n, k = b.shape[-2:]
        cols = xp.reshape(moveaxis(xp, b, -2, 0), (n, math.prod(batch) * k))
        return moveaxis(xp, xp.reshape(solve(a, cols), (n, *batch, k)), 0, -2)
    # the batch axes of both, broadcast: b's may also be narrower than a's (the tangent of a
    # right-hand side that broadcast against a stack a: (1, n, k) beside a (2, n, n))
    batch = tuple(np.broadcast_shapes(tuple(a.shape[:-2]), batch))
    if tuple(a.shape[:-2]) != batch:
        a = xp.broadcast_to(a, (*batch, *a.shape[-2:]))
    if tuple(b.shape[:-2]) != batch:
        b = xp.broadcast_to(b, (*batch, *b.shape[-2:]))
    return solve(a, b)


def _phi(xp: Any, m: Any) -> Any:
    """``Φ(M)``: the lower triangle with the diagonal halved."""
    return (xp.tril(m) + xp.tril(m, k=-1)) / 2


def cholesky_back(factor: Any, factor_bar: Any, upper: bool = False) -> Any:
    """The pullback of ``cholesky``: the Hermitian cotangent of ``A`` given the factor
    (``L``, or ``U = L^H`` with ``upper``) and its cotangent.

    ``A_bar = L^-H (P + P^H) L^-1 / 2`` with ``P = Φ(L^H tril(L_bar))``, built from ``matmul``,
    ``linalg.solve``, ``matrix_transpose``, ``conj`` and ``tril`` only, so that it can be
    differentiated again. The two solves by ``L^H`` are the library's own triangular solve where
    it has one (:func:`solve_lower`'s methods: SciPy for NumPy, torch, JAX, CuPy -- each
    differentiable by its library), else general solves, which the standard has.
    """
    xp = namespace_of(factor, factor_bar)
    if upper:
        factor, factor_bar = _h(xp, factor), _h(xp, factor_bar)
    lh = _h(xp, factor)
    p = _phi(xp, lh @ xp.tril(factor_bar))
    x1 = solve_lower(factor, p + _h(xp, p), adjoint=True)  # L^-H S
    a0 = solve_lower(factor, _h(xp, x1), adjoint=True)  # L^-H S L^-1, conj-transposed (Hermitian)
    return (a0 + _h(xp, a0)) / 4


@specialise
def solve_lower(low: Any, b: Any, adjoint: bool = False) -> Any:
    """``L^-H b`` (``adjoint``) or ``L^-1 b`` for a lower-triangular ``L`` (``(..., n, n)``) and
    ``b`` (``(..., n, k)``, batch axes broadcast). The standard has no triangular solve, so the
    generic way is ``linalg.solve`` (an LU factorisation, about 2.7x the flops): with it the
    ``cholesky`` pullback took 1.9x the hand-written ``solve_triangular`` formula at n = 200
    (``benchmarks/linalg_decompositions.py``). The methods below are the libraries' own
    triangular solves, each differentiable by its library (so a pullback that calls one can be
    differentiated again there)."""
    xp = namespace_of(low, b)
    return xp.linalg.solve(_h(xp, low) if adjoint else low, b)


_SCIPY_SOLVE: list[Any] = []  # [scipy.linalg.solve_triangular or None], filled on first use


def _scipy_solve_triangular() -> Any:
    if not _SCIPY_SOLVE:
        try:
            import scipy
            from scipy.linalg import solve_triangular
        except ImportError:  # pragma: no cover - SciPy is optional
            solve_triangular = None
        else:
            major, minor = (int(v) for v in scipy.__version__.split(".")[:2])
            if (major, minor) < (1, 15):  # no broadcasting of batch axes before 1.15
                plain = solve_triangular

                def solve_triangular(a: Any, b: Any, **kw: Any) -> Any:
                    return plain(a, b, **kw) if a.ndim == 2 and b.ndim == 2 else NotImplemented

        _SCIPY_SOLVE.append(solve_triangular)
    return _SCIPY_SOLVE[0]


@solve_lower.method("numpy")
def _solve_lower_numpy(low: Any, b: Any, adjoint: bool = False) -> Any:
    """SciPy's ``solve_triangular`` (imported on first use), for NumPy arrays of one floating
    dtype; SciPy refuses zero-size batches, whose result is the empty array.
    Population: 1.03 of the generic path's time in the 2 cells it runs in (b20bb44, n <= 10): kept
    for the triangular solve itself, which the standard lacks (O(n^2) against ``solve``'s O(n^3), no
    pivoting)."""
    import numpy as np

    if type(low) is not np.ndarray or type(b) is not np.ndarray or low.dtype != b.dtype:
        return NotImplemented
    solve = _scipy_solve_triangular()
    if solve is None or low.dtype.kind not in "fc":
        return NotImplemented
    if low.size == 0 or b.size == 0:
        batch = np.broadcast_shapes(low.shape[:-2], b.shape[:-2])
        return np.zeros((*batch, *b.shape[-2:]), low.dtype)
    return solve(low, b, lower=True, trans="C" if adjoint else "N", check_finite=False)


@solve_lower.method("torch")
def _solve_lower_torch(low: Any, b: Any, adjoint: bool = False) -> Any:
    """``torch.linalg.solve_triangular``, which broadcasts only over batch axes both have."""
    import torch

    if not isinstance(b, torch.Tensor) or low.dtype != b.dtype:
        return NotImplemented
    if not (low.is_floating_point() or low.is_complex()):
        return NotImplemented
    if low.ndim != b.ndim:
        batch = torch.broadcast_shapes(low.shape[:-2], b.shape[:-2])
        low = low.expand(*batch, *low.shape[-2:])
        b = b.expand(*batch, *b.shape[-2:])
    if adjoint:
        return torch.linalg.solve_triangular(low.mH, b, upper=True)
    return torch.linalg.solve_triangular(low, b, upper=False)


@solve_lower.method("jax")
def _solve_lower_jax(low: Any, b: Any, adjoint: bool = False) -> Any:
    """``jax.scipy.linalg.solve_triangular`` (concrete arrays and JAX's tracers alike)."""
    import jax
    from jax.scipy.linalg import solve_triangular

    if not isinstance(b, jax.Array) or low.dtype != b.dtype:
        return NotImplemented
    return solve_triangular(low, b, lower=True, trans="C" if adjoint else "N")


@solve_lower.method("cupy")
def _solve_lower_cupy(low: Any, b: Any, adjoint: bool = False) -> Any:  # pragma: no cover
    """``cupyx.scipy.linalg.solve_triangular``: single matrices only."""
    if low.ndim != 2 or b.ndim != 2 or low.dtype != b.dtype:
        return NotImplemented
    from cupyx.scipy.linalg import solve_triangular

    return solve_triangular(low, b, lower=True, trans="C" if adjoint else "N")


def _cholesky_dot(xp: Any, factor: Any, x_dot: Any, upper: bool) -> Any:
    low = _h(xp, factor) if upper else factor
    y = _solve(xp, low, _herm(xp, x_dot), solve_lower)  # L^-1 dA
    z = _solve(xp, low, _h(xp, y), solve_lower)  # (L^-1 dA L^-H)^H = L^-1 dA L^-H
    d = low @ _phi(xp, z)
    return _h(xp, d) if upper else d


def _eigh_back(xp: Any, w: Any, v: Any, w_bar: Any, v_bar: Any) -> Any:
    """``herm(V (diag(w_bar) + F ∘ (V^H V_bar)) V^H)``; ``None`` stands for a zero cotangent."""
    inner = None
    if v_bar is not None:
        inner = _inverse_gaps(xp, w, w.shape[-1]) * (_h(xp, v) @ v_bar)
    if w_bar is not None:
        d = _eye_times(xp, w_bar, v.dtype)
        inner = d if inner is None else inner + d
    return _herm(xp, v @ inner @ _h(xp, v))


def _eigh_dot(xp: Any, w: Any, v: Any, x_dot: Any, vectors: bool) -> tuple[Any, Any]:
    k = _h(xp, v) @ _herm(xp, x_dot) @ v
    w_dot = _re(xp, xp.linalg.diagonal(k))
    v_dot = v @ (_inverse_gaps(xp, w, w.shape[-1]) * k) if vectors else None
    return in_dtype(xp, w_dot, w.dtype), v_dot


def _complement_dot(xp: Any, q1: Any, q2: Any, dq1: Any) -> Any:
    """``dQ2 = -Q1 (dQ1^H Q2)``: the smallest tangent keeping ``[Q1 Q2]`` orthonormal."""
    return -(q1 @ (_h(xp, dq1) @ q2))


def _complement_back(xp: Any, q1: Any, q2: Any, q1_bar: Any, q2_bar: Any) -> Any:
    """The adjoint of :func:`_complement_dot`: ``Q1_bar - Q2 (Q2_bar^H Q1)``."""
    if q2_bar is None:
        return q1_bar
    extra = -(q2 @ (_h(xp, q2_bar) @ q1))
    return extra if q1_bar is None else q1_bar + extra


def finite_svd(xp: Any, x: Any, full_matrices: bool = True) -> Any:
    """``xp.linalg.svd(x, full_matrices=...)``, with every factor NaN for a matrix holding a
    non-finite entry. The SVD with vectors of a matrix holding an ``inf`` never returns in some
    OpenBLAS builds (and raises ``LinAlgError`` at a NaN), so the SVD is taken of a finite
    stand-in -- non-finite entries replaced by zero -- and its results for the non-finite
    matrices replaced by NaN: masks and ``where`` on the device, no host read. At a finite ``x``
    the result is that of ``xp.linalg.svd`` itself, of the same result type."""
    ok = xp.isfinite(x)
    good = xp.all(ok, axis=(-2, -1))
    res = xp.linalg.svd(xp.where(ok, x, xp.zeros_like(x)), full_matrices=full_matrices)
    u, s, vh = res[0], res[1], res[2]
    s = xp.where(good[..., None], s, xp.full_like(s, float("nan")))
    u = xp.where(good[..., None, None], u, xp.full_like(u, float("nan")))
    vh = xp.where(good[..., None, None], vh, xp.full_like(vh, float("nan")))
    if hasattr(res, "_fields"):  # NumPy's and JAX's SVDResult
        return type(res)(u, s, vh)
    if type(res) is not tuple:  # torch's return type (a struct sequence)
        return type(res)((u, s, vh))
    return u, s, vh


def _svd_factors(res: Any, full: bool) -> tuple[Any, Any, Any, Any, Any]:
    """``(U, s, Vh, U2, Vh2)`` of ``svd``'s result (``full``: it has full matrices)."""
    u, s, vh = res[0], res[1], res[2]
    m, n = u.shape[-2], vh.shape[-1]
    k = min(m, n)
    u2 = u[..., :, k:] if full and m > k else None
    vh2 = vh[..., k:, :] if full and n > k else None
    return u[..., :, :k], s, vh[..., :k, :], u2, vh2


def _svd_back(xp: Any, f: tuple[Any, ...], u_bar: Any, s_bar: Any, vh_bar: Any) -> Any:
    """``A_bar`` of ``svd`` (see the maths notes) from the factors ``f``; ``None`` stands for a
    zero cotangent."""
    u, s, vh, u2, vh2 = f
    m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
    dtype = u.dtype
    if u2 is not None and u_bar is not None:
        u_bar, u2_bar = u_bar[..., :, :k], u_bar[..., :, k:]
        u_bar = _complement_back(xp, u, u2, u_bar, u2_bar)
    if vh2 is not None and vh_bar is not None:
        vh_bar, vh2_bar = vh_bar[..., :k, :], vh_bar[..., k:, :]
        v_bar = _complement_back(xp, _h(xp, vh), _h(xp, vh2), _h(xp, vh_bar), _h(xp, vh2_bar))
        vh_bar = _h(xp, v_bar)
    v = _h(xp, vh)
    inner = None
    outer = None  # terms outside U (...) V^H
    sinv = _safe_inverse(xp, s, max(m, n))
    ja = la = None  # J - J^H, L - L^H
    if u_bar is not None:
        j = _h(xp, u) @ u_bar
        ja = j - _h(xp, j)
        if _complex(xp, j):
            dj = xp.linalg.diagonal(j)
            inner = _eye_times(xp, (dj - xp.conj(dj)) / 2 * sinv, dtype)
        if m > k:
            outer = ((u_bar - u @ j) * sinv[..., None, :]) @ vh
    if vh_bar is not None:
        v_bar = _h(xp, vh_bar)
        lm = vh @ v_bar
        la = lm - _h(xp, lm)
        if n > k:
            o = u @ (sinv[..., :, None] * _h(xp, v_bar - v @ lm))
            outer = o if outer is None else outer + o
    if ja is not None or la is not None:
        # F_ij (Ja_ij s_j + s_i La_ij), F = 1 / (s_j^2 - s_i^2), split by partial fractions
        # so that a tie (s_i = s_j) drops only the term that the outputs do not determine
        both = ja if la is None else (la if ja is None else ja + la)
        diff = ja if la is None else (-la if ja is None else ja - la)
        term = (
            _inverse_gaps(xp, s, max(m, n)) * both + _inverse_gaps(xp, s, max(m, n), True) * diff
        ) / 2
        inner = term if inner is None else inner + term
    if s_bar is not None:
        d = _eye_times(xp, s_bar, dtype)
        inner = d if inner is None else inner + d
    g = u @ inner @ vh
    return g if outer is None else g + outer


def _svd_back_s(xp: Any, f: tuple[Any, ...], s_bar: Any) -> Any:
    """``U diag(s_bar) V^H`` (the pullback of the singular values alone)."""
    u, vh = f[0], f[2]
    return (u * xp.astype(s_bar, u.dtype)[..., None, :]) @ vh


def _svd_dot(xp: Any, f: tuple[Any, ...], x_dot: Any, vectors: bool) -> tuple[Any, Any, Any]:
    u, s, vh, u2, vh2 = f
    m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
    v = _h(xp, vh)
    av = x_dot @ v
    p = _h(xp, u) @ av
    s_dot = in_dtype(xp, _re(xp, xp.linalg.diagonal(p)), s.dtype)
    if not vectors:
        return None, s_dot, None
    sinv = _safe_inverse(xp, s, max(m, n))
    ph = _h(xp, p)
    # F ∘ (P S + S P^H) and F ∘ (S P + P^H S), F_ij = 1 / (s_j^2 - s_i^2), by partial
    # fractions: (P + P^H) / (2 (s_j - s_i)) +- (P - P^H) / (2 (s_j + s_i))
    fm = _inverse_gaps(xp, s, max(m, n)) * (p + ph) / 2
    fp = _inverse_gaps(xp, s, max(m, n), True) * (p - ph) / 2
    inner_u = fm + fp
    if _complex(xp, p):
        dp = xp.linalg.diagonal(p)
        inner_u = inner_u + _eye_times(xp, (dp - xp.conj(dp)) / 2 * sinv, u.dtype)
    du = u @ inner_u
    if m > k:
        du = du + (av - u @ p) * sinv[..., None, :]
    dv = v @ (fm - fp)
    if n > k:
        ahu = _h(xp, x_dot) @ u
        dv = dv + (ahu - v @ ph) * sinv[..., None, :]
    if u2 is not None:
        du = xp.concat([du, _complement_dot(xp, u, u2, du)], axis=-1)
    if vh2 is not None:
        dv = xp.concat([dv, _complement_dot(xp, v, _h(xp, vh2), dv)], axis=-1)
    return du, s_dot, _h(xp, dv)


def named_singular(name: str, why: str, call: Any) -> Any:
    """``call()``, with the backend's ``LinAlgError`` at a singular matrix re-raised (the same
    type: NumPy's is a ``ValueError``) naming the rule and why it needs an inverse. No value is
    read; a backend that does not raise there (JAX) gives inf / NaN."""
    try:
        return call()
    except _linalg_errors() as e:
        raise type(e)(f"{name}: {why}, and the matrix is singular ({e})") from e


def _linalg_errors() -> tuple[type[Exception], ...]:
    """The backends' ``LinAlgError`` types: NumPy's (SciPy's, CuPy's, array-api-strict's and
    dask's are NumPy's) and, when torch is imported, ``torch.linalg.LinAlgError``."""
    torch = sys.modules.get("torch")
    if torch is None:
        return (np.linalg.LinAlgError,)
    return (np.linalg.LinAlgError, torch.linalg.LinAlgError)


def _qr_square_back(xp: Any, q: Any, r: Any, q_bar: Any, r_bar: Any) -> Any:
    """``(Q_bar + Q herm_u(R_bar R^H - Q^H Q_bar)) R^-H`` for ``m >= n`` (``R`` square)."""
    m = None
    if r_bar is not None:
        m = xp.triu(r_bar) @ _h(xp, r)
    if q_bar is not None:
        qq = _h(xp, q) @ q_bar
        m = -qq if m is None else m - qq
    if m is None:
        return None
    upper = (xp.triu(m) + xp.triu(m, k=1)) / 2
    xb = q @ (upper + _h(xp, upper))
    if q_bar is not None:
        xb = xb + q_bar
    return _h(xp, xp.linalg.solve(r, _h(xp, xb)))  # X_bar R^-H = (R^-1 X_bar^H)^H


def _qr_square_dot(xp: Any, q: Any, r: Any, x_dot: Any) -> tuple[Any, Any]:
    x = _h(xp, _solve(xp, _h(xp, r), _h(xp, x_dot)))  # dA R^-1
    c = _h(xp, q) @ x
    low = xp.tril(c, k=-1)
    omega = low - _h(xp, low)
    if _complex(xp, c):
        omega = omega + _eye_times(
            xp, (xp.linalg.diagonal(c) - xp.conj(xp.linalg.diagonal(c))) / 2, c.dtype
        )
    return q @ (omega - c) + x, (c - omega) @ r


def _qr_back(
    xp: Any, x: Any, f: tuple[Any, Any, Any], q_bar: Any, r_bar: Any, name: str = "linalg.qr"
) -> Any:
    """``A_bar`` of ``qr`` from the factors ``f``; ``None`` stands for a zero cotangent. At a
    rank-deficient ``A`` the backend's LinAlgError is re-raised naming ``name``."""
    return named_singular(name, _QR_WHY, lambda: _qr_back_raw(xp, x, f, q_bar, r_bar))


def _qr_back_raw(xp: Any, x: Any, f: tuple[Any, Any, Any], q_bar: Any, r_bar: Any) -> Any:
    q, r, q2 = f
    m, n, k = x.shape[-2], x.shape[-1], r.shape[-2]
    if q2 is not None:
        if q_bar is not None:
            q_bar = _complement_back(xp, q, q2, q_bar[..., :, :k], q_bar[..., :, k:])
        if r_bar is not None:
            r_bar = r_bar[..., :k, :]  # the rows below are 0 whatever A is
    if m >= n:
        return _qr_square_back(xp, q, r, q_bar, r_bar)
    # wide: A = [X | Y], X = Q R1, R2 = Q^H Y
    r1, y = r[..., :, :m], x[..., :, m:]
    r1_bar = None if r_bar is None else r_bar[..., :, :m]
    y_bar = None
    if r_bar is not None:
        r2_bar = r_bar[..., :, m:]
        extra = y @ _h(xp, r2_bar)
        q_bar = extra if q_bar is None else q_bar + extra
        y_bar = q @ r2_bar
    x_bar = _qr_square_back(xp, q, r1, q_bar, r1_bar)
    if y_bar is None:
        y_bar = xp.zeros_like(y)
    return xp.concat([x_bar, y_bar], axis=-1)


def _qr_dot(
    xp: Any, x: Any, f: tuple[Any, Any, Any], x_dot: Any, name: str = "linalg.qr"
) -> tuple[Any, Any]:
    """``(dQ, dR)`` of ``qr``; at a rank-deficient ``A`` a LinAlgError naming ``name``."""
    return named_singular(name, _QR_WHY, lambda: _qr_dot_raw(xp, x, f, x_dot))


def _qr_dot_raw(xp: Any, x: Any, f: tuple[Any, Any, Any], x_dot: Any) -> tuple[Any, Any]:
    q, r, q2 = f
    m, n = x.shape[-2], x.shape[-1]
    if m >= n:
        dq, dr = _qr_square_dot(xp, q, r, x_dot)
    else:
        dq, dr1 = _qr_square_dot(xp, q, r[..., :, :m], x_dot[..., :, :m])
        dr2 = _h(xp, dq) @ x[..., :, m:] + _h(xp, q) @ x_dot[..., :, m:]
        dr = xp.concat([dr1, dr2], axis=-1)
    if q2 is not None:
        dq = xp.concat([dq, _complement_dot(xp, q, q2, dq)], axis=-1)
        dr = xp.concat(
            [dr, xp.zeros((*dr.shape[:-2], m - n, n), dtype=dr.dtype, device=device_of(dr))],
            axis=-2,
        )
    return dq, dr


# the derivative of Q is not defined at a rank-deficient matrix (Q's columns past the rank are
# arbitrary there): no finite limit, a clear error
_QR_WHY = "the derivative needs R^-1 (Q is not differentiable below full rank)"


def hermitian(rng: Any, shape: tuple[int, ...], cplx: bool = False, spread: float = 1.0) -> Any:
    """A random Hermitian (real symmetric) matrix stack with well-separated eigenvalues
    (``0.5 spread`` apart at least): ``Q diag(w) Q^H``."""
    import numpy as np

    n = shape[-1]
    z = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    q, _ = np.linalg.qr(z)
    w = spread * (np.arange(n) - (n - 1) / 2) + rng.uniform(-0.2, 0.2, (*shape[:-2], n)) * spread
    a = (q * w[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2))
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2


def positive_definite(rng: Any, shape: tuple[int, ...], cplx: bool = False) -> Any:
    """A random Hermitian positive-definite matrix stack, ``B B^H + n I``."""
    import numpy as np

    n = shape[-1]
    b = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    return b @ np.conj(np.swapaxes(b, -1, -2)) + n * np.eye(n)


def _general(rng: Any, shape: tuple[int, ...], cplx: bool = False) -> Any:
    """A matrix stack with well-separated singular values (for the gauge-dependent vectors)."""
    import numpy as np

    m, n = shape[-2], shape[-1]
    k = min(m, n)
    zu = rng.standard_normal((*shape[:-2], m, m)) + (
        1j * rng.standard_normal((*shape[:-2], m, m)) if cplx else 0
    )
    zv = rng.standard_normal((*shape[:-2], n, n)) + (
        1j * rng.standard_normal((*shape[:-2], n, n)) if cplx else 0
    )
    u, _ = np.linalg.qr(zu)
    v, _ = np.linalg.qr(zv)
    s = 1.0 + np.arange(k)[::-1] + rng.uniform(0, 0.3, (*shape[:-2], k))
    return (u[..., :, :k] * s[..., None, :]) @ np.conj(np.swapaxes(v[..., :, :k], -1, -2))


def _conj(xp: Any, x: Any) -> Any:
    return xp.conj(x) if _complex(xp, x) else x


def _as(xp: Any, x: Any, dtype: Any) -> Any:
    """``x`` in ``dtype``, without the copy ``astype`` makes when it already is."""
    return x if x.dtype == dtype else xp.astype(x, dtype)


def _well(rng: Any, shape: tuple[int, ...], cplx: bool = False) -> Any:
    """Well-conditioned square matrices: ``2 I`` plus a perturbation of norm about 1."""
    n = shape[-1]
    a = rng.standard_normal(shape) / max(n, 1) ** 0.5 * 0.6
    if cplx:
        a = a + 1j * rng.standard_normal(shape) / max(n, 1) ** 0.5 * 0.6
    import numpy as np

    return a + 2 * np.eye(n)


def _normal(rng: Any, shape: tuple[int, ...], cplx: bool = False) -> Any:
    a = rng.standard_normal(shape)
    return a + 1j * rng.standard_normal(shape) if cplx else a


def _matrix_arg(name: str, x: Any) -> None:
    if getattr(x, "ndim", 0) < 2:
        raise ValueError(
            f"{name}: x must be a (stack of) matrices of rank >= 2, got shape "
            f"{tuple(getattr(x, 'shape', ()))}"
        )
