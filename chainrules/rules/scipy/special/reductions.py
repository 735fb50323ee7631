"""``scipy.special``'s reductions: ``logsumexp``, ``softmax`` and ``log_softmax``
(``"scipy:special.NAME"``). They compute with namespace operations: SciPy's own versions write in
place and convert with ``np.asarray``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ....core.prelude import *
from ....core.registry import Source
from ....core.scalar_rule import align_tangent
from ..._util import conj, normalize_axis
from ..._util.special import NO, ZERO

# --- reductions: logsumexp, softmax, log_softmax --------------------------------------------------
_LOGSUMEXP = signature(
    "logsumexp",
    lambda a, axis=None, b=None, keepdims=False, return_sign=False, where=None: None,
    ("where",),
)


def _axes(axis: Any, ndim: int, name: str) -> tuple[int, ...]:
    """The reduced axes; none for a 0-d array, which SciPy reduces "along" axis 0 or -1."""
    axes = normalize_axis(axis, ndim, name)
    return axes if ndim else ()


def _keep(xp: Any, v: Any, axes: tuple[int, ...], ndim: int) -> Any:
    """A reduction over ``axes`` (without keepdims) reshaped to broadcast against the input."""
    shape = list(v.shape)
    for a in axes:
        shape.insert(a, 1)
    return xp.reshape(v, tuple(shape))


def _lse(xp: Any, a: Any, b: Any, axes: tuple[int, ...]) -> tuple[Any, Any, Any, Any]:
    """``log |sum(b exp(a))|`` over ``axes`` (kept as length-1 axes), the sum's sign, and what
    the cotangent weight is built from: ``exp(a - max)`` and the sum. For complex ``a``: the
    complex ``log(sum(b exp(a)))`` (its phase in ``(-pi, pi]``, SciPy's) and the sign ``s / |s|``,
    whose shift is the largest real part (as SciPy's)."""
    cplx = xp.isdtype(a.dtype, "complex floating")
    ar = xp.real(a) if cplx else a
    if any(a.shape[ax] == 0 for ax in axes):  # an empty sum: no max; lse = log(0) = -inf
        kept = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
        m = xp.zeros(kept, dtype=ar.dtype, device=device_of(a))
    else:
        m = xp.max(ar, axis=axes, keepdims=True) if axes else ar
    m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    e0 = xp.exp(a - m)
    e = e0 if b is None else b * e0
    s = xp.sum(e, axis=axes, keepdims=True) if axes else e
    return (xp.log(s) if cplx else xp.log(xp.abs(s))) + m, xp.sign(s), e0, s


def _logsumexp_bind(obj: Any, kind: str, src: Source | None) -> Callable[..., Any]:
    """``logsumexp``'s rule for ``obj``, the library's own function, found in ``src``
    (``bind_in=``; ``None``: the registration's own rule, which computes the namespace formula).
    SciPy's function (``src.library == "scipy"``) gives its own primal (:func:`_scipy_primal`)."""
    scipy = obj if src is not None and src.library == "scipy" else None
    if kind == "r":

        def logsumexp_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
            return _logsumexp_rrule(scipy, args, kwargs)

        return logsumexp_rrule

    def logsumexp_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> Any:
        return _logsumexp_frule(scipy, tangents, args, kwargs)

    return logsumexp_frule


def _scipy_primal(scipy: Any, args: tuple[Any, ...], kwargs: dict[str, Any], y: Any) -> Any:
    """SciPy's own value when ``scipy`` is SciPy's function (not ``None``) and every array
    argument is a NumPy array (SciPy splits off the maximal terms and uses ``log1p``: its last
    bit differs from the namespace formula's); else ``y``. SciPy's converts with ``np.asarray``
    and writes in place, so another library's arrays keep the namespace formula."""
    if scipy is not None and all(
        type(v) is np.ndarray or not is_array(v) for v in (*args, *kwargs.values())
    ):
        return scipy(*args, **kwargs)
    return y


def _logsumexp_rrule(
    scipy: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Callable[[Any], Any]]:
    bound = _LOGSUMEXP.bind(args, kwargs)
    a, b = bound["a"], bound["b"]
    xp = namespace_of(*(v for v in (a, b) if is_array(v)), fname="logsumexp")
    y, w, sgn, axes, ndim = _logsumexp_forward(xp, bound)
    y = _scipy_primal(scipy, args, kwargs, y)
    proj_a = ProjectTo(a, xp)
    proj_b = ProjectTo(b, xp) if b is not None and len(args) > 2 else None
    pargs = list(args)
    if len(pargs) > 2 and b is None:
        pargs[2] = NO

    @pullback(y, pargs, name="logsumexp")
    def logsumexp_pullback(y_bar: Any) -> Any:
        if bound["return_sign"]:
            y_bar = _lse_signed_bar(xp, y_bar[0], y_bar[1], sgn)
        if isinstance(y_bar, AbstractZero):
            return tuple(zero_tangent(v) for v in pargs)
        g = y_bar if bound["keepdims"] else _keep(xp, y_bar, axes, ndim)
        # w = exp(a - lse) * sign = d lse / d b, b w = d lse / d a (holomorphic for complex a:
        # the cotangent is conj(derivative) * y_bar, docs/conventions.md)
        gw = g * conj(xp, w)
        res: list[Any] = [proj_a(gw if b is None else gw * conj(xp, b))]
        if len(args) > 1:
            res.append(NO)
        if len(args) > 2:
            res.append(NO if proj_b is None else proj_b(gw))
        res.extend(NO for _ in args[3:])
        return res[0] if len(res) == 1 else tuple(res)

    return y, logsumexp_pullback


def _lse_signed_bar(xp: Any, mag_bar: Any, sign_bar: Any, sgn: Any) -> Any:
    """The cotangent of ``log S`` from those of ``return_sign``'s two outputs, ``log|S| =
    Re(log S)`` and ``sign = S / |S| = exp(i Im(log S))``. A real sign is piecewise constant (no
    cotangent); a complex one moves with the phase: ``d sign = i sign d Im(log S)``, so its
    cotangent adds ``i Im(sign_bar conj(sign))``."""
    if isinstance(sign_bar, AbstractZero) or not xp.isdtype(sgn.dtype, "complex floating"):
        return mag_bar
    phase_bar = xp.imag(sign_bar * xp.conj(sgn))
    if isinstance(mag_bar, AbstractZero):
        return 1j * phase_bar
    return mag_bar + 1j * phase_bar


def _logsumexp_forward(xp: Any, bound: dict[str, Any]) -> tuple[Any, Any, Any, Any, int]:
    a, b = bound["a"], bound["b"]
    if not is_array(a):
        a = xp.asarray(a)
    if not xp.isdtype(a.dtype, ("real floating", "complex floating")):
        a = xp.astype(a, _default_float(xp, a))  # SciPy computes bool / int in floating point
    if b is not None:
        if not is_array(b):
            b = xp.asarray(b, dtype=a.dtype)
        a, b = xp.broadcast_arrays(a, b)
    ndim = a.ndim
    axes = _axes(bound["axis"], ndim, "logsumexp")
    lse_k, sgn_k, e0, s = _lse(xp, a, b, axes)
    if any(a.shape[ax] == 0 for ax in axes):
        sgn_k = xp.full_like(sgn_k, -1)  # SciPy's sign of an empty sum is sign(-inf)
    # the cotangent weight exp(a - lse) * sign = exp(a - max) / sum, from the forward's
    # exponentials (a second exp over a costs 1.3x native JAX's jit(grad) at n = 1e6); every
    # term zero (sum = 0, lse = -inf) gives 0, not NaN
    nz = s != 0
    w = e0 * xp.where(nz, 1 / xp.where(nz, s, xp.ones_like(s)), xp.zeros_like(s))
    if bound["return_sign"] and xp.isdtype(lse_k.dtype, "complex floating"):
        lse_k = xp.real(lse_k)  # log|S|, the phase in the sign
    lse = lse_k if bound["keepdims"] else xp.reshape(lse_k, _squeezed(lse_k.shape, axes))
    if bound["return_sign"]:
        sgn = sgn_k if bound["keepdims"] else xp.reshape(sgn_k, _squeezed(sgn_k.shape, axes))
        return (numpy_result(lse), numpy_result(sgn)), w, sgn, axes, ndim
    if b is not None and not xp.isdtype(lse.dtype, "complex floating"):
        # a negative sum has no real logarithm: NaN, as SciPy gives
        neg = xp.reshape(sgn_k, lse.shape) < 0
        lse = xp.where(neg, xp.full_like(lse, math.nan), lse)
    return numpy_result(lse), w, None, axes, ndim


def _default_float(xp: Any, a: Any) -> Any:
    """The namespace's default real floating dtype (SciPy's ``force_floating``)."""
    info = getattr(xp, "__array_namespace_info__", None)
    if info is None:
        return xp.float64
    return info().default_dtypes(device=device_of(a))["real floating"]


def _squeezed(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _logsumexp_frule(
    scipy: Any, tangents: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any]:
    bound = _LOGSUMEXP.bind(args, kwargs)
    a, b = bound["a"], bound["b"]
    xp = namespace_of(*(v for v in (a, b) if is_array(v)), fname="logsumexp")
    y, w, sgn, axes, ndim = _logsumexp_forward(xp, bound)
    y = _scipy_primal(scipy, args, kwargs, y)
    diffs = [a] + ([b] if len(args) > 2 and b is not None else [])
    ts = [tangents[1]] + ([tangents[3]] if len(diffs) > 1 else [])
    dots = tangents_in("logsumexp", (tangents[0], *ts), diffs)
    y0 = y[0] if bound["return_sign"] else y
    if dots is None:
        return y, (Tangent(ZERO, NO, primal_type=tuple) if bound["return_sign"] else ZERO)
    extra = dots.extra
    acc: Any = None
    for i, t in enumerate(dots):
        if isinstance(t, AbstractZero):
            continue
        t = align_tangent(xp, t, getattr(diffs[i], "ndim", 0), ndim)
        term = w * t * (b if i == 0 and b is not None else 1)
        acc = term if acc is None else acc + term
    red = tuple(ax + extra for ax in axes)
    y_dot = xp.sum(acc, axis=red, keepdims=bool(bound["keepdims"])) if red else acc
    if not bound["return_sign"]:
        return y, finish_tangent(xp, y_dot, y0)
    if not xp.isdtype(sgn.dtype, "complex floating"):  # a real sign is piecewise constant
        return y, Tangent(finish_tangent(xp, y_dot, y0), NO, primal_type=tuple)
    # complex input: log|S| = Re(log S) and sign = exp(i Im(log S)) move with d log S = y_dot
    mag_dot = finish_tangent(xp, xp.real(y_dot), y0)
    sign_dot = finish_tangent(xp, 1j * xp.imag(y_dot) * sgn, y[1])
    return y, Tangent(mag_dot, sign_dot, primal_type=tuple)


def _logsumexp_examples(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(5),), {}),
        ((rng.standard_normal((2, 3)),), {"axis": 1}),
        ((rng.standard_normal((2, 3)), 0, rng.uniform(0.5, 2.0, (2, 3))), {"keepdims": True}),
        ((rng.standard_normal((2, 3)), -1, rng.uniform(0.5, 2.0, 3)), {}),
    ]


_LSE_META: dict[str, Any] = {"examples": _logsumexp_examples, "bind_in": _logsumexp_bind}
register_rrule("scipy:special.logsumexp", **_LSE_META)(_logsumexp_bind(None, "r", None))
register_frule("scipy:special.logsumexp", **_LSE_META)(_logsumexp_bind(None, "f", None))


_SOFTMAX = signature("softmax", lambda x, axis=None: None)
_LOG_SOFTMAX = signature("log_softmax", lambda x, axis=None: None)


def _softmax_examples(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(5),), {}),
        ((rng.standard_normal((2, 3)),), {"axis": 1}),
        ((rng.standard_normal((2, 3)),), {"axis": 0}),
    ]


def _softmax_setup(
    name: str, sig: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any, tuple[int, ...], Any]:
    bound = sig.bind(args, kwargs)
    x = bound["x"]
    xp = namespace_of(x, fname=name)
    axes = _axes(bound["axis"], x.ndim, name)
    # SciPy's own formulas, so that the primal is f's to the last bit (int input included)
    m = xp.max(x, axis=axes, keepdims=True) if axes else x
    if name == "softmax":  # exp(x - max) / sum: the max is not guarded, as in SciPy
        e = xp.exp(x - m)
        return xp, x, axes, e / (xp.sum(e, axis=axes, keepdims=True) if axes else e)
    t = x - xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    et = xp.exp(t)
    return xp, x, axes, t - xp.log(xp.sum(et, axis=axes, keepdims=True) if axes else et)


@register_rrule("scipy:special.softmax", examples=_softmax_examples)
def softmax_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
    xp, x, axes, y = _softmax_setup("softmax", _SOFTMAX, args, kwargs)
    proj = ProjectTo(x, xp)

    @pullback(y, args, name="softmax")
    def softmax_pullback(y_bar: Any) -> Any:
        # J = diag(y) - y y^T (symmetric, holomorphic): x_bar = conj(J) y_bar
        yc = conj(xp, y)
        gy = y_bar * yc
        g = proj(gy - yc * xp.sum(gy, axis=axes, keepdims=True))
        return g if len(args) == 1 else (g, NO)

    return y, softmax_pullback


@register_frule("scipy:special.softmax", examples=_softmax_examples)
def softmax_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    xp, x, axes, y = _softmax_setup("softmax", _SOFTMAX, args, kwargs)
    dots = tangents_in("softmax", tangents[:2], (x,))
    if dots is None:
        return y, ZERO
    (t,) = dots
    red = tuple(a + dots.extra for a in axes)
    ty = y * t
    return y, finish_tangent(xp, ty - y * xp.sum(ty, axis=red, keepdims=True), y)


@register_rrule("scipy:special.log_softmax", examples=_softmax_examples)
def log_softmax_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
    xp, x, axes, y = _softmax_setup("log_softmax", _LOG_SOFTMAX, args, kwargs)
    proj = ProjectTo(x, xp)

    @pullback(y, args, name="log_softmax")
    def log_softmax_pullback(y_bar: Any) -> Any:
        # J = I - 1 softmax^T (holomorphic): x_bar = y_bar - conj(softmax) sum(y_bar)
        g = proj(y_bar - conj(xp, xp.exp(y)) * xp.sum(y_bar, axis=axes, keepdims=True))
        return g if len(args) == 1 else (g, NO)

    return y, log_softmax_pullback


@register_frule("scipy:special.log_softmax", examples=_softmax_examples)
def log_softmax_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    xp, x, axes, y = _softmax_setup("log_softmax", _LOG_SOFTMAX, args, kwargs)
    dots = tangents_in("log_softmax", tangents[:2], (x,))
    if dots is None:
        return y, ZERO
    (t,) = dots
    red = tuple(a + dots.extra for a in axes)
    return y, finish_tangent(xp, t - xp.sum(xp.exp(y) * t, axis=red, keepdims=True), y)
