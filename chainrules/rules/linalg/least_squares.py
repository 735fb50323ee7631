"""Rules for the least-squares solvers: the ``linalg`` extension's ``pinv``, NumPy's
``linalg.pinv`` (``rcond``, ``hermitian``) and ``linalg.lstsq`` (``"numpy:linalg.NAME"``, which
covers NumPy, ``jax.numpy`` and CuPy).

Maths notes
-----------
``A^H`` is the conjugate transpose; cotangents follow DESIGN.md (``x_bar = dL/dRe + i dL/dIm``).

* ``pinv(A)``: ``X = pinv(A)``: ``A_bar = -X^H X_bar X^H + (I - A X) X_bar^H X X^H
  + X^H X X_bar^H (I - X A)`` (Golub and Pereyra). Valid where the rank is locally constant --
  the cutoff (``rtol``) decides the rank, and the formula differentiates that fixed-rank branch;
  ``rtol`` itself gets no cotangent.
* ``lstsq`` (``x = P b``, ``P = pinv(A)`` at the cutoff ``rcond``, from the SVD
  ``A = U S V^H``; ``r = b - A x``): ``b_bar = P^H x_bar``, ``A_bar = -b_bar x^H + r (P b_bar)^H
  + (P^H x) ((I - P A) x_bar)^H`` (the pinv rule of Golub and Pereyra applied to ``P b``); the
  residuals ``||r_j||^2``: ``b_bar += 2 r res_bar``, ``A_bar -= 2 (r res_bar) x^H`` and
  ``x_bar -= 2 A^H (r res_bar)`` before the above; the singular values: ``A_bar += U diag(s_bar)
  V^H``. ``rank`` is an integer: no tangent. The rank is fixed (the cutoff decides it).
"""

from __future__ import annotations

from typing import Any

from ...core.prelude import *
from .._util import in_dtype, lazy
from .._util.linalg import _as, _conj, _h, _matrix_arg, _normal, _re, _well
from .._util.numpy_like import numpy_module


# --- small helpers -------------------------------------------------------------------------------
def _matrix2(name: str, what: str, x: Any) -> None:
    if getattr(x, "ndim", 0) != 2:
        raise ValueError(
            f"{name}: {what} must be a matrix (2-D), got shape {tuple(getattr(x, 'shape', ()))}"
        )


# --- eig, eigvals --------------------------------------------------------------------------------
# --- lstsq ---------------------------------------------------------------------------------------
# NumPy's lstsq(a, b, rcond=None); JAX's adds numpy_resid= (keyword-only)
_LSTSQ = signature("linalg.lstsq", lambda a, b, rcond=None, *, numpy_resid=False: None)


def _lstsq(args: Any, kwargs: Any) -> tuple[Any, ...]:
    p = _LSTSQ.bind(args, kwargs)
    a, b, rcond = p["a"], p["b"], p["rcond"]
    xp = namespace_of(a, b, fname="linalg.lstsq")
    _matrix2("linalg.lstsq", "a", a)
    if getattr(b, "ndim", 0) not in (1, 2):
        raise ValueError(
            f"linalg.lstsq: b must be 1-D or 2-D, got shape {tuple(getattr(b, 'shape', ()))}"
        )
    y = numpy_module(a).linalg.lstsq(*args, **kwargs)
    return xp, a, b, rcond, tuple(y)


def _lstsq_factors(xp: Any, a: Any, rcond: Any) -> tuple[Any, Any, Any, Any, Any]:
    """``(U, s, Vh, mask, 1/s)`` of ``a``: the reduced SVD and the singular values kept by the
    cutoff ``rcond * s_max`` (``rcond=None``: ``eps max(m, n)``; negative: ``eps``), as LAPACK's
    ``gelsd`` decides the rank. Masks and ``where``: nothing is read on the host."""
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    eps = float(xp.finfo(s.dtype).eps)
    if rcond is None:
        cut: Any = eps * max(a.shape)
    elif isinstance(rcond, (int, float)):
        cut = eps if rcond < 0 else float(rcond)
    else:  # an array cutoff (JAX)
        cut = xp.where(rcond < 0, eps, rcond)
    mask = s > 0 if s.shape[-1] == 0 else s > cut * xp.max(s, axis=-1, keepdims=True)
    sinv = xp.where(mask, 1 / xp.where(mask, s, xp.ones_like(s)), xp.zeros_like(s))
    return u, s, vh, mask, sinv


def _col(xp: Any, v: Any, vec: bool) -> Any:
    return xp.expand_dims(v, axis=-1) if vec else v


def _lstsq_back(
    xp: Any,
    a: Any,
    b: Any,
    y: tuple[Any, ...],
    f: tuple[Any, ...],
    bars: list[Any],
    need_a: bool = True,
) -> tuple[Any, Any]:
    """``(A_bar, b_bar)`` of ``lstsq`` (maths notes); ``None`` entries of ``bars`` are zero.
    Without ``need_a``, ``A_bar`` is not computed (``None``)."""
    u, _, vh, mask, sinv = f
    x_bar, res_bar, _, s_bar = bars
    vec = b.ndim == 1
    dt = u.dtype
    xm = _as(xp, _col(xp, y[0], vec), dt)
    bm = _as(xp, _col(xp, b, vec), dt)
    v, uh = _h(xp, vh), _h(xp, u)
    a_bar: Any = None
    b_bar: Any = None
    xb: Any = None if x_bar is None else _as(xp, _col(xp, x_bar, vec), dt)
    r = bm - _as(xp, a, dt) @ xm
    if res_bar is not None and y[1].shape[-1] != 0:
        rr = r * _as(xp, res_bar, dt)  # r diag(res_bar)
        b_bar = 2 * rr
        if need_a:
            a_bar = -2 * (rr @ _h(xp, xm))
        t = -2 * (_h(xp, _as(xp, a, dt)) @ rr)
        xb = t if xb is None else xb + t
    if xb is not None:
        bx = u @ (sinv[:, None] * (vh @ xb))  # P^H xb
        if need_a:
            pb = v @ (sinv[:, None] * (uh @ bx))  # P bx
            px = u @ (sinv[:, None] * (vh @ xm))  # P^H x
            rest = xb - v @ (xp.astype(mask, dt)[:, None] * (vh @ xb))  # (I - P A) xb
            g = -(bx @ _h(xp, xm)) + r @ _h(xp, pb) + px @ _h(xp, rest)
            a_bar = g if a_bar is None else a_bar + g
        b_bar = bx if b_bar is None else b_bar + bx
    if s_bar is not None and need_a:
        g = (u * _as(xp, s_bar, dt)[None, :]) @ vh
        a_bar = g if a_bar is None else a_bar + g
    if vec and b_bar is not None:
        b_bar = b_bar[:, 0]
    return (ZERO if a_bar is None else a_bar), (ZERO if b_bar is None else b_bar)


def _lstsq_dot(
    xp: Any, a: Any, b: Any, y: tuple[Any, ...], f: tuple[Any, ...], da: Any, db: Any
) -> tuple[Any, Any, Any]:
    """``(x_dot, residuals_dot, s_dot)``; chunk axes lead in ``da`` / ``db`` (``None``: 0)."""
    u, s, vh, mask, sinv = f
    vec = b.ndim == 1
    dt = u.dtype
    am = _as(xp, a, dt)
    xm = _as(xp, _col(xp, y[0], vec), dt)
    r = _as(xp, _col(xp, b, vec), dt) - am @ xm
    v, uh = _h(xp, vh), _h(xp, u)

    def p(z: Any) -> Any:
        return v @ (sinv[:, None] * (uh @ z))

    def ph(z: Any) -> Any:
        return u @ (sinv[:, None] * (vh @ z))

    dx: Any = None
    dr: Any = None
    ds: Any = None
    if da is not None:
        da = _as(xp, da, dt)
        dah = _h(xp, da)
        t = dah @ ph(xm)
        dx = -p(da @ xm) + p(ph(dah @ r)) + t - v @ (xp.astype(mask, dt)[:, None] * (vh @ t))
        dr = -(da @ xm)
        ds = in_dtype(xp, _re(xp, xp.sum(_conj(xp, u) * (da @ v), axis=-2)), s.dtype)
    if db is not None:
        dbm = _as(xp, _col(xp, db, vec), dt)
        dx = p(dbm) if dx is None else dx + p(dbm)
        dr = dbm if dr is None else dr + dbm
    dr = dr - am @ dx
    res = y[1]
    d_res: Any = ZERO
    if res.shape[-1] != 0:
        d_res = in_dtype(xp, 2 * _re(xp, xp.sum(_conj(xp, r) * dr, axis=-2)), res.dtype)
    if vec:
        dx = dx[..., 0]
    return in_dtype(xp, dx, y[0].dtype), d_res, (ZERO if ds is None else ds)


def _lstsq_ex(rng: Any) -> list[Any]:
    import numpy as np

    r = rng.standard_normal
    return [
        ((r((4, 2)), r(4)), {}),  # tall, full rank: residuals
        ((r((4, 3)), r((4, 2))), {"rcond": None}),
        ((r((2, 3)), r((2, 2))), {}),  # wide: no residuals
        ((r((3, 2)) + 1j * r((3, 2)), r(3) + 1j * r(3)), {}),
        ((np.eye(3)[:, :2] * 2.0 + 0.1 * r((3, 2)), r((3, 1))), {"rcond": -1}),
    ]


_LSTSQ_WIDE = Expect(
    "jit",
    "jax.numpy.linalg.lstsq gives a wide system residuals of shape (k,) where NumPy gives (0,): "
    "the jit check's cotangent, shaped as NumPy's output, does not fit JAX's",
    example="#2",
)


@register_rrule("numpy:linalg.lstsq", examples=_lstsq_ex, expect=_LSTSQ_WIDE)
def lstsq_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, a, b, rcond, y = _lstsq(args, kwargs)
    pa, pb = ProjectTo(a, xp), ProjectTo(b, xp)
    rest = (ZERO if isinstance(rcond, float) else NO,) * (len(args) - 2)

    @pullback(y, args, name="linalg.lstsq")
    def lstsq_pullback(y_bar: tuple[Any, ...]) -> tuple[Any, ...]:
        bars = [None if isinstance(p, AbstractZero) else p for p in y_bar]
        bars[2] = None  # rank: an integer
        if all(p is None for p in bars):
            return (pa(ZERO), pb(ZERO), *rest)
        # deferred (docs/conventions.md, only the cotangents asked for): the factors are shared,
        # b's cotangent alone skips A's products, and A's computes b's with it
        memo: dict[str, Any] = {}

        def factors() -> Any:
            if "f" not in memo:
                memo["f"] = _lstsq_factors(xp, a, rcond)
            return memo["f"]

        def both() -> Any:
            if "both" not in memo:
                memo["both"] = _lstsq_back(xp, a, b, y, factors(), bars)
            return memo["both"]

        def b_bar() -> Any:
            if "both" in memo:
                return pb(memo["both"][1])
            return pb(_lstsq_back(xp, a, b, y, factors(), bars, need_a=False)[1])

        return (lazy(pa, lambda: pa(both()[0])), lazy(pb, b_bar), *rest)

    return y, lstsq_pullback


@register_frule("numpy:linalg.lstsq", examples=_lstsq_ex, expect=_LSTSQ_WIDE)
def lstsq_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, b, rcond, y = _lstsq(args, kwargs)
    t = tangents_in("linalg.lstsq", tangents[:3], (a, b))  # rcond: a static cutoff
    if t is None:
        return y, ZERO
    da, db = (None if isinstance(d, AbstractZero) else d for d in t)
    f = _lstsq_factors(xp, a, rcond)
    dx, d_res, ds = _lstsq_dot(xp, a, b, y, f, da, db)
    return y, Tangent(dx, d_res, NO, ds, primal_type=type(y))


# --- multi_dot -----------------------------------------------------------------------------------
# --- cond ----------------------------------------------------------------------------------------
# --- tensorsolve, tensorinv ----------------------------------------------------------------------


# --- pinv (the standard's and NumPy's) ----------------------------------------------------
def _pinv_back(xp: Any, a: Any, x: Any, x_bar: Any) -> Any:
    """``A_bar`` of ``X = pinv(A)`` (fixed rank), ordered so no product is larger than needed."""
    xh, t = _h(xp, x), _h(xp, x_bar)
    a_bar = -xp.matmul(xh, xp.matmul(x_bar, xh))
    w = xp.matmul(xp.matmul(t, x), xh)  # X_bar^H X X^H
    a_bar = a_bar + (w - xp.matmul(a, xp.matmul(x, w)))  # (I - A X) X_bar^H X X^H
    v = xp.matmul(xh, xp.matmul(x, t))  # X^H X X_bar^H
    return a_bar + (v - xp.matmul(xp.matmul(v, x), a))  # ... (I - X A)


def _pinv_forward(xp: Any, a: Any, x: Any, da: Any) -> Any:
    """``X_dot`` of ``X = pinv(A)``: ``-X dA X + X X^H dA^H (I - A X) + (I - X A) dA^H X^H X``."""
    xh, dah = _h(xp, x), _h(xp, da)
    out = -xp.matmul(x, xp.matmul(da, x))
    out = out + xp.matmul(x, xp.matmul(xh, dah - xp.matmul(xp.matmul(dah, a), x)))
    return out + xp.matmul(dah - xp.matmul(x, xp.matmul(a, dah)), xp.matmul(xh, x))


def _symmetrised(xp: Any, g: Any) -> Any:
    return (g + _h(xp, g)) / 2


# the standard's pinv(x, /, *, rtol=None); NumPy's pinv(a, rcond=None, hermitian=False, *,
# rtol=...) -- JAX's (a, rtol, hermitian) binds the same way -- is called as it was given
_PINV = signature("linalg.pinv", lambda x, /, *, rtol=None: None)


_NP_PINV = signature(
    "linalg.pinv", lambda x, /, rcond=None, hermitian=False, *, rtol=None, out=None: None
)


def _pinv(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
    """``(xp, x, pinv(x))`` of a call of the standard's ``pinv``."""
    if len(args) > 1:
        raise TypeError(
            f"linalg.pinv takes 1 positional argument, got {len(args)} (rtol is keyword-only)"
        )
    a = _PINV.bind(args, kwargs)
    x, rtol = a["x"], a["rtol"]
    xp = namespace_of(x, fname="linalg.pinv")
    _matrix_arg("linalg.pinv", x)
    return xp, x, xp.linalg.pinv(x) if rtol is None else xp.linalg.pinv(x, rtol=rtol)


def _np_pinv(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, bool]:
    """``(xp, x, pinv(x, ...), hermitian)`` of a call of NumPy's ``pinv``."""
    a = _NP_PINV.bind(args, kwargs)
    x, hermitian = a["x"], a["hermitian"]
    xp = namespace_of(x, fname="linalg.pinv")
    _matrix_arg("linalg.pinv", x)
    if not isinstance(hermitian, bool):
        raise TypeError(f"linalg.pinv: hermitian must be a Python bool, got {hermitian!r}")
    return xp, x, numpy_module(x).linalg.pinv(*args, **kwargs), hermitian


def _pinv_pullback(xp: Any, x: Any, y: Any, args: tuple[Any, ...], hermitian: bool) -> Any:
    """The pullback of ``y = pinv(x, *args[1:])``: the cutoff (``rcond``, ``rtol``) has a zero
    derivative where the rank is constant, flags have none."""
    project = ProjectTo(x, xp)
    rest = tuple(NO if a is None or isinstance(a, bool) else ZERO for a in args[1:])

    @pullback(y, args, name="linalg.pinv")
    def pinv_pullback(y_bar: Any) -> tuple[Any, ...]:
        g = _pinv_back(xp, x, y, y_bar)
        if hermitian:  # the primal reads one triangle: the symmetrised cotangent
            g = _symmetrised(xp, g)
        return (project(g), *rest)

    return pinv_pullback


def _pinv_dot(xp: Any, x: Any, y: Any, tangents: Any, hermitian: bool) -> Any:
    t = tangents_in("linalg.pinv", tangents[:2], (x,))  # the other arguments are static
    if t is None:
        return ZERO
    dx = _symmetrised(xp, t[0]) if hermitian else t[0]
    return in_dtype(xp, _pinv_forward(xp, x, y, dx), y.dtype)


@register_rrule("linalg.pinv", examples=lambda rng: _pinv_ex(rng))
def _pinv_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x, y = _pinv(args, kwargs)
    return y, _pinv_pullback(xp, x, y, args, False)


@register_frule("linalg.pinv", examples=lambda rng: _pinv_ex(rng))
def _pinv_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, y = _pinv(args, kwargs)
    return y, _pinv_dot(xp, x, y, tangents, False)


@register_rrule("numpy:linalg.pinv", examples=lambda rng: _np_pinv_ex(rng))
def _np_pinv_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x, y, hermitian = _np_pinv(args, kwargs)
    return y, _pinv_pullback(xp, x, y, args, hermitian)


@register_frule("numpy:linalg.pinv", examples=lambda rng: _np_pinv_ex(rng))
def _np_pinv_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, y, hermitian = _np_pinv(args, kwargs)
    return y, _pinv_dot(xp, x, y, tangents, hermitian)


def _pinv_ex(rng: Any) -> list[Any]:
    return [
        ((_normal(rng, (4, 3)),), {}),  # tall
        ((_normal(rng, (2, 4)),), {}),  # wide
        ((_well(rng, (3, 3)),), {}),  # square
        ((_normal(rng, (2, 4, 2)),), {"rtol": 1e-10}),
        ((_normal(rng, (3, 2), True),), {}),
        ((_normal(rng, (2, 3), True),), {}),
        ((_normal(rng, (0, 3)),), {}),
        ((_normal(rng, (2, 0, 0)),), {}),
    ]


def _np_pinv_ex(rng: Any) -> list[Any]:
    return [
        ((_normal(rng, (4, 3)),), {}),
        ((_normal(rng, (2, 3)), 1e-12), {}),  # the cutoff positionally: ZeroTangent for it
        ((_well(rng, (2, 3, 3)),), {"rtol": 1e-10}),
        ((_normal(rng, (3, 2), True), None, False), {}),
        ((_normal(rng, (0, 2)),), {}),
    ]
