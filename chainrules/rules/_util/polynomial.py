"""Polynomial maths of NumPy's polynomial rules (:mod:`chainrules.rules.polynomial`): the
convolution's output offsets, powers and their derivatives, the steps of ``polyder``/``polyint``,
the synthetic-division quotients of ``poly`` and the convolution (Toeplitz) matrix of
``polydiv`` -- built from standard functions with rules, so that the pullbacks that call them
differentiate again."""

from __future__ import annotations

from typing import Any

from ...core.prelude import *
from . import conj


def _is_zero(t: Any) -> bool:
    return isinstance(t, AbstractZero)


def _zeros(xp: Any, n: int, like: Any) -> Any:
    return xp.zeros((n,), dtype=like.dtype, device=device_of(like))


def _vec(xp: Any, v: Any, name: str, what: str) -> None:
    if getattr(v, "ndim", None) != 1:
        raise ValueError(f"{name}: {what} must be 1-D, got shape {tuple(getattr(v, 'shape', ()))}")


def _conv_start(n: int, m: int, out_len: int, mode: str, corr: bool) -> int:
    """Where NumPy's ``same``/``valid`` output starts in the full one."""
    full = n + m - 1
    if out_len == full:
        return 0
    lo = min(n, m)
    if mode == "valid":
        return lo - 1
    if corr and n < m:  # NumPy's correlate swaps and reverses its operands then
        return full - out_len - (lo - 1) // 2
    return (lo - 1) // 2


def _exponents(xp: Any, n: int, increasing: bool, like: Any) -> Any:
    e = xp.arange(n, dtype=like.dtype, device=device_of(like))
    return e if increasing else xp.flip(e)


def _powers(xp: Any, x: Any, e: Any) -> Any:
    """``x[..., None] ** e`` (``0 ** 0 = 1``)."""
    return xp.pow(x[..., None], e)


def _dpowers(xp: Any, x: Any, e: Any) -> Any:
    """``d x^e / dx = e x^(e - 1)``, 0 for ``e = 0`` (no ``0 * inf`` at ``x = 0``)."""
    return e * xp.pow(x[..., None], xp.where(e > 0, e - 1, 0 * e))


def _float_of(xp: Any, x: Any) -> Any:
    return (
        x
        if xp.isdtype(x.dtype, ("real floating", "complex floating"))
        else xp.astype(x, xp.float64)
    )


def _steps(xp: Any, n: int, m: int, up: bool, like: Any) -> list[Any]:
    """The factors ``n-1, ..., 1`` of each differentiation step (``len, ..., 1`` for
    integration), for ``m`` steps starting from length ``n``."""
    out = []
    for _ in range(m):
        size = n if up else max(n - 1, 0)
        out.append(xp.flip(xp.arange(1, size + 1, dtype=like.dtype, device=device_of(like))))
        n = n + 1 if up else size
    return out


def _quotients(xp: Any, r: Any, c: Any) -> Any:
    """``P[j, k] = sum_{m <= k} c_m r_j^(k - m)``: the coefficients of ``c / (x - r_j)`` (a power
    matrix times a Toeplitz matrix of ``c``, built by a gather)."""
    n = r.shape[0]
    dt = xp.result_type(r.dtype, c.dtype)
    e = xp.arange(n, device=device_of(r))
    powers = xp.pow(xp.astype(r, dt)[:, None], xp.astype(e, dt))  # (n, n): r_j^s
    s = xp.arange(n, device=device_of(r))
    idx = s[None, :] - s[:, None]  # k - s
    toe = xp.take(xp.astype(c, dt), xp.reshape(xp.clip(idx, 0, n), (-1,)))
    toe = xp.where(xp.reshape(idx >= 0, (-1,)), toe, 0 * toe)
    return powers @ xp.reshape(toe, (n, n))


def _ht(xp: Any, a: Any) -> Any:
    """The conjugate transpose of the last two axes."""
    return xp.matrix_transpose(conj(xp, a))


def _toeplitz(xp: Any, c: Any, rows: int, cols: int) -> Any:
    """``T[i, j] = c[i - j]`` (0 outside ``0 <= i - j < len(c)``): ``T @ x`` is ``convolve(c,
    x)`` for ``len(x) = cols`` (a gather, so that it differentiates again)."""
    n = c.shape[0]
    i = xp.arange(rows, device=device_of(c))
    j = xp.arange(cols, device=device_of(c))
    idx = i[:, None] - j[None, :]
    vals = xp.reshape(xp.take(c, xp.reshape(xp.clip(idx, 0, n - 1), (-1,))), (rows, cols))
    return xp.where((idx >= 0) & (idx < n), vals, 0 * vals)


def _polyder1(xp: Any, p: Any) -> Any:
    """The coefficients of ``p'``."""
    n = p.shape[0]
    return p[: n - 1] * xp.flip(xp.arange(1, n, dtype=_float_of(xp, p).dtype, device=device_of(p)))


def _normal_inverse(xp: Any, v: Any, cplx: bool) -> Any:
    """``b -> (V^H V)^-1 b`` for the Vandermonde matrix ``V`` of a polynomial fit."""
    scale = xp.sqrt(xp.sum(xp.real(conj(xp, v) * v) if cplx else v * v, axis=0))
    # (V^H V)^-1 b = S^-1 R^-1 R^-H S^-1 b with V S^-1 = QR: columns scaled as NumPy's polyfit
    # does, and triangular solves instead of the normal equations (float32 needs both)
    r = xp.linalg.qr(v / scale).R
    rt = _ht(xp, r)

    def ginv(b: Any) -> Any:
        sc = scale[:, None]
        return xp.linalg.solve(r, xp.linalg.solve(rt, b / sc)) / sc

    return ginv
