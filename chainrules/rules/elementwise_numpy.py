"""Rules for NumPy's elementwise and numeric functions beyond the standard (those ``jax.numpy``
has): ``angle``, ``cross``, ``divmod``, ``frexp``, ``ldexp``, ``modf``, ``heaviside``, ``i0``,
``nan_to_num``, ``real_if_close``, ``unwrap``, ``sort_complex``, ``gradient``, ``trapezoid``,
``interp`` and ``ediff1d``; ``spacing`` has a zero derivative; ``gcd``, ``lcm`` and
``bitwise_count`` are non-differentiable. Every name is registered as ``"numpy:NAME"`` (NumPy,
``jax.numpy`` and CuPy); the primal is the library's own function.

Maths notes
-----------
* ``angle(z) = atan2(Im z, Re z)``: ``z_bar = i g z / |z|^2`` (0 at ``z = 0``), times
  ``180/pi`` for ``deg=True``; a real input has a zero derivative (0 or pi, piecewise constant).
* ``cross`` is bilinear: ``a_bar = conj(b) x g``, ``b_bar = g x conj(a)``, computed with the
  vector axes moved last and 2-vectors padded with a zero third component.
* ``divmod = (floor_divide, mod)``: the quotient is piecewise constant; ``mod`` has partials
  ``1`` and ``-floor(x1 / x2)``. ``modf`` and ``frexp``: the fractional part and the mantissa
  have derivatives ``1`` and ``2^-e``; the integral part and the exponent have none.
* ``i0' = i1``, computed from ``I1(x) = (1/pi) int_0^pi exp(x cos t) cos t dt`` with the
  trapezoidal rule on 129 nodes (exponentially accurate for a periodic analytic integrand: the
  aliasing error is ``I_256(x) / I_1(x) < 1e-16`` up to ``|x| = 713``, where ``i0`` overflows)
  scaled by ``exp(|x|)``, and from its power series for ``|x| < 1``. Built from ``exp``, ``cos``
  and ``sum``: differentiable again.
* ``gradient`` is linear in ``f``: each output entry is ``sum_d w_d[i] f[i + d]`` for offsets
  ``d`` in ``-2..2`` (NumPy's second-order stencils, edges included), with weights computed from
  the spacings. The pullback is ``sum_d shift_{-d}(w_d g)``. A scalar spacing ``h`` scales every
  weight by ``1/h`` (``h_bar = -sum(g conj(y)) / h``); the weights' partials in the coordinate
  arrays are exact rational functions.
* ``trapezoid(y, x)`` is ``sum w_i y_i`` with ``w = (d_{i-1} + d_i) / 2``, ``d = diff(x)``;
  ``x_bar_j = dbar_{j-1} - dbar_j`` with ``dbar_i = sum g (y_i + y_{i+1}) / 2``.
* ``interp``: on the interval ``[xp_i, xp_{i+1})`` found by ``searchsorted`` (on the device),
  ``y = (1 - t) fp_i + t fp_{i+1}``; the cotangents of ``fp`` and ``xp`` are scattered
  (``scatter_add``), ``x_bar = g * slope``; outside ``[xp_0, xp_-1]`` ``y`` is ``left``/``right``
  (``fp_0``/``fp_-1`` by default) and only those get cotangents.

Conventions at kinks (see docs/rules/numpy-elementwise-polynomial.md): ``angle`` at 0 gives 0;
``unwrap``'s added multiples of the period are constants (derivative: the identity, also at the
threshold); ``interp`` takes the right-hand slope at a knot (the left-hand one at the last knot);
``nan_to_num`` passes the cotangent through finite entries and gives replaced ones (and, when
positional, the replacement values) the rest; ``modf`` at an integer: derivative 1 for the
fractional part.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.examples import Example, Expect
from ..core.namespaces import device_of, namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import non_differentiable, scalar_rule, zero_derivative
from ..core.scatter import scatter_add
from ..core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent
from ..core.toolkit import pullback, signature, tangents_in, zero_tangent
from ._util import axis_int, axis_ints, bessel_i1, in_dtype
from ._util.numpy_like import numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()
R = (-2.0, 2.0)


# --- shared helpers (thin users of the toolkit) ------------------------------------------------
def _np(x: Any, xp: Any) -> Any:
    """The module of NumPy-signature functions for ``x`` (NumPy, ``jax.numpy``, CuPy)."""
    return numpy_like_module(x, xp)


def _is_zero(t: Any) -> bool:
    return isinstance(t, AbstractZero)


def _lift(xp: Any, t: Any, extra: int, nd: int) -> Any:
    """A tangent with ``extra`` chunk axes, given axes after them so that it broadcasts against
    an output of rank ``nd``."""
    k = t.ndim - extra
    if extra and k < nd:
        s = tuple(t.shape)
        t = xp.reshape(t, s[:extra] + (1,) * (nd - k) + s[extra:])
    return t


def _rest(args: tuple[Any, ...], start: int) -> tuple[Any, ...]:
    """Zero cotangents for ``args[start:]`` (constants of the rule)."""
    return tuple(zero_tangent(a) for a in args[start:])


def _real_dtype(xp: Any, dtype: Any) -> Any:
    return xp.float32 if dtype in (xp.float32, xp.complex64) else xp.float64


# --- angle ---------------------------------------------------------------------------------------
_ANGLE = signature("angle", lambda z, deg=False: None)


def _angle_direction(xp: Any, z: Any, deg: bool) -> Any:
    """``i z / |z|^2`` (0 at 0), times 180/pi for degrees: ``angle``'s Wirtinger direction."""
    r2 = xp.real(z * xp.conj(z)) if xp.isdtype(z.dtype, "complex floating") else z * z
    r2 = xp.where(r2 == 0, xp.ones_like(r2), r2)
    d = z / r2
    return d * (180.0 / math.pi) if deg else d


def _angle_ex(rng: Any) -> list[Any]:
    z = rng.standard_normal(5) + 1j * rng.standard_normal(5)
    m = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    return [((z,), {}), ((m, True), {}), ((m,), {"deg": True}), ((np.array([0.5, -1.5]),), {})]


@register_rrule("numpy:angle", examples=_angle_ex)
def angle_rrule(*args: Any, **kwargs: Any) -> Any:
    a = _ANGLE.bind(args, kwargs)
    z, deg = a["z"], bool(a["deg"])
    xp = namespace_of(z, fname="angle")
    y = _np(z, xp).angle(*args, **kwargs)
    project = ProjectTo(z, xp)

    @pullback(y, args)
    def angle_pullback(g: Any) -> Any:
        if project.kind != "c":  # 0 or pi: piecewise constant
            return (xp.zeros_like(z) if project.differentiable else _NO, *_rest(args, 1))
        return (project(1j * g * _angle_direction(xp, z, deg)), *_rest(args, 1))

    return y, angle_pullback


@register_frule("numpy:angle", examples=_angle_ex)
def angle_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    a = _ANGLE.bind(args, kwargs)
    z, deg = a["z"], bool(a["deg"])
    xp = namespace_of(z, fname="angle")
    y = _np(z, xp).angle(*args, **kwargs)
    ts = tangents_in("angle", tangents[:2], (z,))
    if ts is None or not xp.isdtype(z.dtype, "complex floating"):
        return y, _ZERO
    # d angle = Im(conj(z) dz) / |z|^2 = Re(conj(i z / |z|^2) dz)
    return y, in_dtype(xp, xp.real(xp.conj(1j * _angle_direction(xp, z, deg)) * ts[0]), y.dtype)


# --- cross ---------------------------------------------------------------------------------------
_CROSS = signature("cross", lambda a, b, axisa=-1, axisb=-1, axisc=-1, axis=None: None)


def _cross_parts(args: Any, kwargs: Any) -> Any:
    s = _CROSS.bind(args, kwargs)
    a, b = s["a"], s["b"]
    xp = namespace_of(a, b, fname="cross")
    axa, axb, axc = s["axisa"], s["axisb"], s["axisc"]
    names = ("axisa", "axisb", "axisc")
    if s["axis"] is not None:
        axa = axb = axc = s["axis"]
        names = ("axis",) * 3
    axa, axb = (
        axis_int(ax, "cross", nm, ndim=v.ndim, bool_ok=True)  # NumPy takes True as 1
        for v, ax, nm in ((a, axa, names[0]), (b, axb, names[1]))
    )
    for v, ax, nm in ((a, axa, names[0]), (b, axb, names[1])):
        if v.shape[ax] not in (2, 3):
            raise ValueError(
                f"cross: the vectors must have 2 or 3 components, got {v.shape[ax]} along {nm}"
            )
    na, nb = a.shape[axa], b.shape[axb]
    vec_out = not (na == 2 and nb == 2)
    if vec_out:  # NumPy reads axisc only for a vector result (rank max(a.ndim, b.ndim))
        axc = axis_int(axc, "cross", names[2], ndim=max(a.ndim, b.ndim), bool_ok=True)
    y = _np(a, xp).cross(a, b, axisa=axa, axisb=axb, axisc=axc)
    return xp, a, b, axa % a.ndim, axb % b.ndim, (axc % y.ndim if vec_out else None), y


def _pad3(xp: Any, v: Any) -> Any:
    """Vectors along the last axis with a zero third component when they have two."""
    if v.shape[-1] == 3:
        return v
    z = xp.zeros((*v.shape[:-1], 1), dtype=v.dtype, device=device_of(v))
    return xp.concat((v, z), axis=-1)


def _cross3(xp: Any, u: Any, v: Any) -> Any:
    """``u x v`` along the last axis (3 components), from slices (rules of their own; length-1
    slices, never single-element reads)."""
    u0, u1, u2 = u[..., 0:1], u[..., 1:2], u[..., 2:3]
    v0, v1, v2 = v[..., 0:1], v[..., 1:2], v[..., 2:3]
    return xp.concat((u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0), axis=-1)


def _cross_ex(rng: Any) -> list[Any]:
    def r(*s: int) -> Any:
        return rng.standard_normal(s)

    c = r(3) + 1j * r(3)
    return [
        ((r(3), r(3)), {}),
        ((r(2, 3), r(3)), {}),
        ((r(3, 2), r(2, 3)), {"axisa": 0, "axisc": 0}),
        ((r(3, 2), r(3, 2)), {"axis": 0}),
        ((c, r(3) + 1j * r(3)), {}),
    ]


@register_rrule("numpy:cross", examples=_cross_ex)
def cross_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, a, b, axa, axb, axc, y = _cross_parts(args, kwargs)
    pa, pb = ProjectTo(a, xp), ProjectTo(b, xp)
    a3 = _pad3(xp, xp.moveaxis(a, axa, -1))
    b3 = _pad3(xp, xp.moveaxis(b, axb, -1))
    na, nb = a.shape[axa], b.shape[axb]

    @pullback(y, args)
    def cross_pullback(g: Any) -> Any:
        if axc is None:  # two 2-vectors: the output is the third component
            z = xp.zeros_like(g)
            g3 = xp.stack((z, z, g), axis=-1)
        else:
            g3 = xp.moveaxis(g, axc, -1)
        a_bar = _cross3(xp, xp.conj(b3), g3)[..., :na]
        b_bar = _cross3(xp, g3, xp.conj(a3))[..., :nb]
        a_bar = _unbroadcast_moved(xp, a_bar, a, axa)
        b_bar = _unbroadcast_moved(xp, b_bar, b, axb)
        return (pa(a_bar), pb(b_bar), *_rest(args, 2))

    return y, cross_pullback


def _unbroadcast_moved(xp: Any, v: Any, x: Any, ax: int) -> Any:
    """``v`` (``x`` with its vector axis moved last, broadcast against the other operand) summed
    back to ``x``'s moved shape and the axis moved home."""
    target = (*tuple(s for i, s in enumerate(x.shape) if i != ax), x.shape[ax])
    lead = v.ndim - len(target)
    if lead:
        v = xp.sum(v, axis=tuple(range(lead)))
    axes = tuple(i for i, (s, t) in enumerate(zip(v.shape, target)) if t == 1 and s != 1)
    if axes:
        v = xp.sum(v, axis=axes, keepdims=True)
    return xp.moveaxis(v, -1, ax)


@register_frule("numpy:cross", examples=_cross_ex)
def cross_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, b, axa, axb, axc, y = _cross_parts(args, kwargs)
    ts = tangents_in("cross", tangents[:3], (a, b))
    if ts is None:
        return y, _ZERO
    e = ts.extra
    a3 = _pad3(xp, xp.moveaxis(a, axa, -1))
    b3 = _pad3(xp, xp.moveaxis(b, axb, -1))
    nd = max(a.ndim, b.ndim)  # the chunk axes go before both operands' broadcast axes
    out: Any = None
    if not _is_zero(ts[0]):
        out = _cross3(xp, _lift(xp, _pad3(xp, xp.moveaxis(ts[0], axa + e, -1)), e, nd), b3)
    if not _is_zero(ts[1]):
        t = _cross3(xp, a3, _lift(xp, _pad3(xp, xp.moveaxis(ts[1], axb + e, -1)), e, nd))
        out = t if out is None else out + t
    if axc is None:  # two 2-vectors: only the third component
        out = xp.reshape(out[..., 2:3], tuple(out.shape[:-1]))
    else:
        out = xp.moveaxis(out, -1, axc + e)
    lead = ts.lead()
    return y, in_dtype(xp, xp.broadcast_to(out, lead + tuple(y.shape)), y.dtype)


# --- divmod, modf, frexp, ldexp ------------------------------------------------------------------
_DIVMOD = signature("divmod", lambda x1, x2, /, out=None, **ufunc: None)


def _divmod_ex(rng: Any) -> list[Any]:
    x1 = rng.uniform(2.2, 2.8, (2, 3))
    return [((x1, rng.uniform(1.0, 1.04, 3)), {}), ((rng.uniform(-2.8, -2.2, 4), 1.02), {})]


@register_rrule("numpy:divmod", examples=_divmod_ex)
def divmod_rrule(*args: Any, **kwargs: Any) -> Any:
    s = _DIVMOD.bind(args, kwargs)
    x1, x2 = s["x1"], s["x2"]
    xp = namespace_of(x1, x2, fname="divmod")
    y = _np(x1 if hasattr(x1, "shape") else x2, xp).divmod(x1, x2)
    q = y[0]
    p1, p2 = ProjectTo(x1, xp), ProjectTo(x2, xp)

    @pullback(y, args)
    def divmod_pullback(g: Any) -> Any:
        g_r = g[1]
        if _is_zero(g_r):  # the quotient is piecewise constant
            return zero_tangent(x1), zero_tangent(x2)
        return p1(g_r), p2(-q * g_r)

    return y, divmod_pullback


@register_frule("numpy:divmod", examples=_divmod_ex)
def divmod_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    s = _DIVMOD.bind(args, kwargs)
    x1, x2 = s["x1"], s["x2"]
    xp = namespace_of(x1, x2, fname="divmod")
    y = _np(x1 if hasattr(x1, "shape") else x2, xp).divmod(x1, x2)
    ts = tangents_in("divmod", tangents[:3], (x1, x2))
    if ts is None or not xp.isdtype(y[1].dtype, "real floating"):
        return y, _ZERO
    q, r = y
    e, nd = ts.extra, r.ndim
    r_dot: Any = xp.zeros(ts.lead() + tuple(r.shape), dtype=r.dtype, device=device_of(r))
    if not _is_zero(ts[0]):
        r_dot = r_dot + _lift(xp, xp.asarray(ts[0]), e, nd)
    if not _is_zero(ts[1]):
        r_dot = r_dot - q * _lift(xp, xp.asarray(ts[1]), e, nd)
    return y, Tangent(_ZERO, in_dtype(xp, r_dot, y[1].dtype), primal_type=type(y))


def _modf_ex(rng: Any) -> list[Any]:
    return [
        ((rng.uniform(0.2, 0.8, 5) + np.arange(5) - 2,), {}),
        ((rng.uniform(1.2, 1.8, (2, 3)),), {}),
    ]


_ONE_ARG = signature("modf", lambda x, /, out=None, **ufunc: None)


@register_rrule("numpy:modf", examples=_modf_ex)
def modf_rrule(*args: Any, **kwargs: Any) -> Any:
    x = _ONE_ARG.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="modf")
    y = _np(x, xp).modf(x)
    project = ProjectTo(x, xp)

    @pullback(y, args)
    def modf_pullback(g: Any) -> Any:
        # frac = x - trunc(x): derivative 1 (also at integers); the integral part: 0
        return zero_tangent(x) if _is_zero(g[0]) else project(g[0])

    return y, modf_pullback


@register_frule("numpy:modf", examples=_modf_ex)
def modf_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x = _ONE_ARG.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="modf")
    y = _np(x, xp).modf(x)
    ts = tangents_in("modf", tangents[:2], (x,))
    if ts is None:
        return y, _ZERO
    return y, Tangent(in_dtype(xp, ts[0], y[0].dtype), _ZERO, primal_type=type(y))


def _frexp_ex(rng: Any) -> list[Any]:
    return [
        ((rng.uniform(0.3, 7.0, 5) * np.array([1, -1, 1, -1, 1]),), {}),
        ((rng.uniform(1.1, 60.0, (2, 3)),), {}),
    ]


def _pow2(xp: Any, e: Any, dtype: Any) -> Any:
    """``2^e`` for an integer array ``e``, in ``dtype`` (exact)."""
    return xp.pow(xp.asarray(2.0, dtype=dtype), xp.astype(e, dtype))


@register_rrule("numpy:frexp", examples=_frexp_ex)
def frexp_rrule(*args: Any, **kwargs: Any) -> Any:
    x = _ONE_ARG.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="frexp")
    y = _np(x, xp).frexp(x)
    project = ProjectTo(x, xp)
    m, e = y

    @pullback(y, args)
    def frexp_pullback(g: Any) -> Any:
        # mantissa = x * 2^-e, e piecewise constant; the exponent is an integer: no tangent
        return zero_tangent(x) if _is_zero(g[0]) else project(g[0] * _pow2(xp, -e, m.dtype))

    return y, frexp_pullback


@register_frule("numpy:frexp", examples=_frexp_ex)
def frexp_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x = _ONE_ARG.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="frexp")
    y = _np(x, xp).frexp(x)
    ts = tangents_in("frexp", tangents[:2], (x,))
    if ts is None:
        return y, _ZERO
    m_dot = in_dtype(xp, ts[0] * _pow2(xp, -y[1], y[0].dtype), y[0].dtype)
    return y, Tangent(m_dot, _NO, primal_type=type(y))


scalar_rule(
    "numpy:ldexp",
    lambda xp, out, x1, x2: _pow2(xp, xp.asarray(x2), out.dtype),
    0,
    domain=(R, "int"),
)

# --- piecewise constant and integer functions ----------------------------------------------------
non_differentiable("numpy:gcd", "numpy:lcm", domain=("int", "int"))
non_differentiable("numpy:bitwise_count", domain=("int",))
zero_derivative("numpy:spacing", domain=(R,))

_HEAVISIDE = signature("heaviside", lambda x1, x2, /, out=None, **ufunc: None)


def _heaviside_ex(rng: Any) -> list[Any]:
    x = rng.uniform(0.5, 1.5, 6) * np.array([1, -1, 1, -1, 1, -1])
    return [((x, rng.standard_normal(6)), {}), ((x[:3], 0.5), {})]


@register_rrule("numpy:heaviside", examples=_heaviside_ex)
def heaviside_rrule(*args: Any, **kwargs: Any) -> Any:
    s = _HEAVISIDE.bind(args, kwargs)
    x1, x2 = s["x1"], s["x2"]
    xp = namespace_of(x1, x2, fname="heaviside")
    y = _np(x1, xp).heaviside(x1, x2)
    p2 = ProjectTo(x2, xp)

    @pullback(y, args)
    def heaviside_pullback(g: Any) -> Any:
        # a step in x1 (derivative 0); the value x2 is taken where x1 == 0
        x2_bar = p2(xp.where(x1 == 0, g, xp.zeros_like(g))) if p2.differentiable else _NO
        return zero_tangent(x1), x2_bar

    return y, heaviside_pullback


@register_frule("numpy:heaviside", examples=_heaviside_ex)
def heaviside_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    s = _HEAVISIDE.bind(args, kwargs)
    x1, x2 = s["x1"], s["x2"]
    xp = namespace_of(x1, x2, fname="heaviside")
    y = _np(x1, xp).heaviside(x1, x2)
    ts = tangents_in("heaviside", tangents[:3], (x1, x2))
    if ts is None or _is_zero(ts[1]) or not xp.isdtype(y.dtype, "real floating"):
        return y, _ZERO
    t = _lift(xp, xp.asarray(ts[1], dtype=y.dtype), ts.extra, y.ndim)
    return y, xp.broadcast_to(xp.where(x1 == 0, t, xp.zeros_like(t)), ts.lead() + tuple(y.shape))


# --- i0 ------------------------------------------------------------------------------------------
# strong_zero: I1 overflows to inf at finite x (|x| > ~713; docs/conventions.md)
scalar_rule(
    "numpy:i0", lambda xp, out, x: bessel_i1(xp, x), domain=((-3.0, 3.0),), strong_zero=True
)


# --- nan_to_num, real_if_close, unwrap, sort_complex ---------------------------------------------
_NAN_TO_NUM = signature("nan_to_num", lambda x, copy=True, nan=0.0, posinf=None, neginf=None: None)


def _nan_to_num_ex(rng: Any) -> list[Any]:
    # finite values only: finite differences cannot judge NaN or infinite entries (the masks
    # are pinned by the tests)
    x = rng.standard_normal(6)
    z = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    return [((x,), {}), ((x, True, 1.5, 2.0, -3.0), {}), ((x,), {"nan": -1.0}), ((z,), {})]


def _finite_parts(xp: Any, x: Any) -> Any:
    """The masks of finite entries (of the real and imaginary parts for complex ``x``)."""
    if xp.isdtype(x.dtype, "complex floating"):
        return xp.isfinite(xp.real(x)), xp.isfinite(xp.imag(x))
    f = xp.isfinite(x)
    return f, None


@register_rrule("numpy:nan_to_num", examples=_nan_to_num_ex)
def nan_to_num_rrule(*args: Any, **kwargs: Any) -> Any:
    x = _NAN_TO_NUM.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="nan_to_num")
    y = _np(x, xp).nan_to_num(*args, **kwargs)
    project = ProjectTo(x, xp)
    fin_re, fin_im = _finite_parts(xp, x)

    @pullback(y, args)
    def nan_to_num_pullback(g: Any) -> Any:
        zero = xp.zeros_like(g)
        if fin_im is None:
            x_bar = xp.where(fin_re, g, zero)
            parts = (g, g)
        else:
            gr, gi = xp.real(g), xp.imag(g)
            x_bar = xp.where(fin_re, gr, 0 * gr) + 1j * xp.where(fin_im, gi, 0 * gi)
            parts = (gr, gi)
        rest = []
        re = xp.real(x) if fin_im is not None else x
        im = xp.imag(x) if fin_im is not None else None
        for i, test in ((2, xp.isnan), (3, lambda v: v == math.inf), (4, lambda v: v == -math.inf)):
            if i >= len(args):
                break
            if not ProjectTo(args[i], xp).differentiable:
                rest.append(zero_tangent(args[i]))
                continue
            s = xp.sum(xp.where(test(re), parts[0], xp.zeros_like(parts[0])))
            if im is not None:
                s = s + xp.sum(xp.where(test(im), parts[1], xp.zeros_like(parts[1])))
            rest.append(ProjectTo(args[i], xp)(xp.real(s) if fin_im is None else s))
        return (project(x_bar), *_rest(args[:2], 1), *rest)

    return y, nan_to_num_pullback


@register_frule("numpy:nan_to_num", examples=_nan_to_num_ex)
def nan_to_num_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x = _NAN_TO_NUM.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="nan_to_num")
    y = _np(x, xp).nan_to_num(*args, **kwargs)
    ts = tangents_in("nan_to_num", tangents, args)
    if ts is None:
        return y, _ZERO
    fin_re, fin_im = _finite_parts(xp, x)
    lead = ts.lead()
    out = xp.zeros(lead + tuple(y.shape), dtype=y.dtype, device=device_of(y))
    t = ts[0]
    if not _is_zero(t):
        if fin_im is None:
            out = out + xp.where(fin_re, t, xp.zeros_like(t))
        else:
            out = out + (
                xp.where(fin_re, xp.real(t), 0 * xp.real(t))
                + 1j * xp.where(fin_im, xp.imag(t), 0 * xp.imag(t))
            )
    re = xp.real(x) if fin_im is not None else x
    im = xp.imag(x) if fin_im is not None else None
    for i, test in ((2, xp.isnan), (3, lambda v: v == math.inf), (4, lambda v: v == -math.inf)):
        if i >= len(args) or _is_zero(ts[i]) or not ProjectTo(args[i], xp).differentiable:
            continue
        d = _lift(xp, xp.asarray(ts[i]), ts.extra, y.ndim)
        out = out + xp.where(test(re), d, 0 * d)
        if im is not None:
            out = out + 1j * xp.where(test(im), d, 0 * d)
    return y, in_dtype(xp, out, y.dtype)


_REAL_IF_CLOSE = signature("real_if_close", lambda a, tol=100: None)


def _real_if_close_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(4) + 0j,), {}),  # real output
        ((rng.standard_normal(4) + 1j * rng.standard_normal(4),), {}),  # stays complex
        ((rng.standard_normal((2, 3)),), {}),
    ]


@register_rrule("numpy:real_if_close", examples=_real_if_close_ex)
def real_if_close_rrule(*args: Any, **kwargs: Any) -> Any:
    a = _REAL_IF_CLOSE.bind(args, kwargs)["a"]
    xp = namespace_of(a, fname="real_if_close")
    y = _np(a, xp).real_if_close(*args, **kwargs)  # its dtype depends on the values (a host read)
    project = ProjectTo(a, xp)

    @pullback(y, args)
    def real_if_close_pullback(g: Any) -> Any:
        # y = a, or Re(a) when the imaginary parts are negligible: either way a_bar = g
        return (project(g), *_rest(args, 1))

    return y, real_if_close_pullback


@register_frule("numpy:real_if_close", examples=_real_if_close_ex)
def real_if_close_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    a = _REAL_IF_CLOSE.bind(args, kwargs)["a"]
    xp = namespace_of(a, fname="real_if_close")
    y = _np(a, xp).real_if_close(*args, **kwargs)
    ts = tangents_in("real_if_close", tangents[:2], (a,))
    if ts is None:
        return y, _ZERO
    t = ts[0]
    if xp.isdtype(t.dtype, "complex floating") and not xp.isdtype(y.dtype, "complex floating"):
        t = xp.real(t)
    return y, in_dtype(xp, t, y.dtype)


_UNWRAP = signature("unwrap", lambda p, discont=None, axis=-1, *, period=2 * math.pi: None)


def _unwrap_p(args: Any, kwargs: Any) -> Any:
    """``p``, its ``axis`` checked (NumPy refuses a bool there)."""
    s = _UNWRAP.bind(args, kwargs)
    axis_int(s["axis"], "unwrap", ndim=getattr(s["p"], "ndim", None))
    return s["p"]


def _unwrap_ex(rng: Any) -> list[Any]:
    p = np.cumsum(rng.uniform(0.9, 1.4, 8)) * 1.5  # crosses several multiples of pi
    m = np.cumsum(rng.uniform(0.9, 1.4, (2, 6)), axis=0) * 2.0
    return [((p,), {}), ((m, None, 0), {}), ((p, 4.0), {}), ((p,), {"period": 4.0})]


@register_rrule("numpy:unwrap", examples=_unwrap_ex)
def unwrap_rrule(*args: Any, **kwargs: Any) -> Any:
    p = _unwrap_p(args, kwargs)
    xp = namespace_of(p, fname="unwrap")
    y = _np(p, xp).unwrap(*args, **kwargs)
    project = ProjectTo(p, xp)

    @pullback(y, args)
    def unwrap_pullback(g: Any) -> Any:
        # y = p + k * period with k piecewise constant: the identity (also at the threshold)
        return (project(g), *_rest(args, 1))

    return y, unwrap_pullback


@register_frule("numpy:unwrap", examples=_unwrap_ex)
def unwrap_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    p = _unwrap_p(args, kwargs)
    xp = namespace_of(p, fname="unwrap")
    y = _np(p, xp).unwrap(*args, **kwargs)
    ts = tangents_in("unwrap", tangents[:2], (p,))
    return y, (_ZERO if ts is None else in_dtype(xp, ts[0], y.dtype))


_SORT_COMPLEX = signature("sort_complex", lambda a: None)


def _sort_complex_perm(xp: Any, a: Any) -> Any:
    """The stable lexicographic (real, then imaginary part) sorting permutation along the last
    axis: two stable argsorts, on the device."""
    if not xp.isdtype(a.dtype, "complex floating"):
        return xp.argsort(a, axis=-1, stable=True)
    i1 = xp.argsort(xp.imag(a), axis=-1, stable=True)
    re = xp.take_along_axis(xp.real(a), i1, axis=-1)
    return xp.take_along_axis(i1, xp.argsort(re, axis=-1, stable=True), axis=-1)


def _sort_complex_ex(rng: Any) -> list[Any]:
    z = rng.standard_normal(6) + 1j * rng.standard_normal(6)  # ties: in the tests
    return [((z,), {}), ((rng.standard_normal(5),), {}), ((rng.standard_normal((2, 4)) + 1j,), {})]


@register_rrule("numpy:sort_complex", examples=_sort_complex_ex)
def sort_complex_rrule(*args: Any, **kwargs: Any) -> Any:
    a = _SORT_COMPLEX.bind(args, kwargs)["a"]
    xp = namespace_of(a, fname="sort_complex")
    y = _np(a, xp).sort_complex(a)
    project = ProjectTo(a, xp)
    perm = _sort_complex_perm(xp, a)

    @pullback(y, args)
    def sort_complex_pullback(g: Any) -> Any:
        return project(xp.take_along_axis(g, xp.argsort(perm, axis=-1), axis=-1))

    return y, sort_complex_pullback


@register_frule("numpy:sort_complex", examples=_sort_complex_ex)
def sort_complex_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    a = _SORT_COMPLEX.bind(args, kwargs)["a"]
    xp = namespace_of(a, fname="sort_complex")
    y = _np(a, xp).sort_complex(a)
    ts = tangents_in("sort_complex", tangents[:2], (a,))
    if ts is None:
        return y, _ZERO
    t = ts[0]
    idx = xp.broadcast_to(_sort_complex_perm(xp, a), tuple(t.shape))
    return y, in_dtype(xp, xp.take_along_axis(t, idx, axis=-1), y.dtype)


# --- gradient ------------------------------------------------------------------------------------
_GRADIENT = signature("gradient", lambda f, *varargs, axis=None, edge_order=1: None)


def _shift(xp: Any, v: Any, d: int, ax: int) -> Any:
    """``s[i] = v[i + d]`` along ``ax`` (axis of ``v``), zero outside."""
    if d == 0:
        return v
    n = v.shape[ax]
    pad = list(v.shape)
    pad[ax] = min(abs(d), n)
    z = xp.zeros(tuple(pad), dtype=v.dtype, device=device_of(v))
    key = [slice(None)] * v.ndim
    if d > 0:
        key[ax] = slice(min(d, n), None)
        return xp.concat((v[tuple(key)], z), axis=ax)
    key[ax] = slice(0, max(n + d, 0))
    return xp.concat((z, v[tuple(key)]), axis=ax)


def _stencil(xp: Any, dx: Any, edge_order: int) -> dict[int, tuple[Any, Any, Any]]:
    """NumPy's finite-difference stencils for the spacings ``dx`` (length ``n - 1``): for each
    offset ``d``, the weights ``w_d`` (length ``n``) and their partials in ``dx`` as
    ``(w_d, [(piece, du, dv)] ...)``: see :func:`_stencil_dx`. Every weight is a sum of ``1/u``,
    ``1/v`` and ``1/(u + v)`` for the two spacings ``u, v`` around the point."""
    pieces = _stencil_pieces(xp, dx, edge_order)
    out: dict[int, Any] = {}
    for d in range(-2, 3):
        ws = [p[d][0] if d in p else None for p in pieces]
        if all(w is None for w in ws):
            continue
        full = [w if w is not None else xp.zeros_like(pieces[k][0][0]) for k, w in enumerate(ws)]
        out[d] = xp.concat(full, axis=0)
    return out


def _stencil_pieces(xp: Any, dx: Any, edge_order: int) -> list[dict[int, Any]]:
    """Three pieces (first point, interior, last point), each ``d -> (w, dw/du, dw/dv, u_slice,
    v_slice)`` with ``u``, ``v`` the spacings before and after the point (slices of ``dx``)."""
    n1 = dx.shape[0]
    if edge_order == 1:
        su, sv = slice(0, 1), slice(0, 1)
        u = dx[su]
        iu = 1 / u
        first = {0: (-iu, iu * iu, 0 * iu, su, sv), 1: (iu, -iu * iu, 0 * iu, su, sv)}
        eu, ev = slice(n1 - 1, n1), slice(n1 - 1, n1)
        v = dx[ev]
        iv = 1 / v
        last = {-1: (-iv, 0 * iv, iv * iv, eu, ev), 0: (iv, 0 * iv, -iv * iv, eu, ev)}
    else:
        su, sv = slice(0, 1), slice(1, 2)
        iu, iv = 1 / dx[su], 1 / dx[sv]
        i_s = 1 / (dx[su] + dx[sv])
        u2, v2, s2 = iu * iu, iv * iv, i_s * i_s
        first = {
            0: (-iu - i_s, u2 + s2, s2, su, sv),
            1: (iu + iv, -u2, -v2, su, sv),
            2: (-iv + i_s, -s2, v2 - s2, su, sv),
        }
        eu, ev = slice(n1 - 2, n1 - 1), slice(n1 - 1, n1)
        iu, iv = 1 / dx[eu], 1 / dx[ev]
        i_s = 1 / (dx[eu] + dx[ev])
        u2, v2, s2 = iu * iu, iv * iv, i_s * i_s
        last = {
            -2: (iu - i_s, -u2 + s2, s2, eu, ev),
            -1: (-iu - iv, u2, v2, eu, ev),
            0: (iv + i_s, -s2, -v2 - s2, eu, ev),
        }
    mu, mv = slice(0, n1 - 1), slice(1, n1)
    iu, iv = 1 / dx[mu], 1 / dx[mv]
    i_s = 1 / (dx[mu] + dx[mv])
    u2, v2, s2 = iu * iu, iv * iv, i_s * i_s
    interior = {
        -1: (-iu + i_s, u2 - s2, -s2, mu, mv),
        0: (iu - iv, -u2, v2, mu, mv),
        1: (iv - i_s, s2, -v2 + s2, mu, mv),
    }
    return [first, interior, last]


def _place(xp: Any, v: Any, s: slice, n1: int) -> Any:
    """``v`` (values for ``dx[s]``) placed into a zero vector of length ``n1``."""
    parts = []
    if s.start:
        parts.append(xp.zeros((s.start,), dtype=v.dtype, device=device_of(v)))
    parts.append(v)
    if n1 - s.stop:
        parts.append(xp.zeros((n1 - s.stop,), dtype=v.dtype, device=device_of(v)))
    return xp.concat(parts, axis=0) if len(parts) > 1 else v


def _along(xp: Any, w: Any, ax: int, nd: int) -> Any:
    """A vector along axis ``ax`` of an array of rank ``nd`` (length-1 axes elsewhere)."""
    return xp.reshape(w, (1,) * ax + (w.shape[-1],) + (1,) * (nd - ax - 1))


def _conj_scalar(xp: Any, v: Any) -> Any:
    """``conj(v)`` for a complex array or Python complex; a real ``v`` (a Python float keeps its
    weak dtype) as it is."""
    if isinstance(v, complex):
        return v.conjugate()
    if hasattr(v, "dtype") and xp.isdtype(v.dtype, "complex floating"):
        return xp.conj(v)
    return v


def _gradient_parts(args: Any, kwargs: Any) -> Any:
    s = _GRADIENT.bind(args, kwargs)
    f, varargs, axis, edge_order = s["f"], s["varargs"], s["axis"], s["edge_order"]
    xp = namespace_of(f, *(v for v in varargs if hasattr(v, "shape")), fname="gradient")
    nd = f.ndim
    axes = tuple(range(nd)) if axis is None else axis_ints(axis, "gradient", ndim=nd, bool_ok=True)
    axes = tuple(a % nd for a in axes)
    if len(varargs) == 0:
        spacing: tuple[Any, ...] = (None,) * len(axes)
        slots: tuple[int | None, ...] = (None,) * len(axes)
    elif len(varargs) == 1 and getattr(varargs[0], "ndim", 0) == 0:
        spacing, slots = (varargs[0],) * len(axes), (1,) * len(axes)
    elif len(varargs) == len(axes):
        spacing, slots = tuple(varargs), tuple(range(1, len(axes) + 1))
    else:
        raise TypeError(
            f"gradient: expected 0, 1 or {len(axes)} spacings (one per axis), got {len(varargs)}"
        )
    y = _np(f, xp).gradient(*args, **kwargs)
    parts = []
    for ax, h, slot in zip(axes, spacing, slots):
        n = f.shape[ax]
        coords = h is not None and getattr(h, "ndim", 0) == 1
        if coords:
            dx = (
                xp.diff(h)
                if h.dtype == f.dtype or not xp.isdtype(f.dtype, "real floating")
                else xp.astype(xp.diff(h), f.dtype)
            )
        else:
            dt = _real_dtype(xp, f.dtype)
            dx = xp.ones((n - 1,), dtype=dt, device=device_of(f))
        pieces = _stencil_pieces(xp, dx, edge_order)
        w = _stencil(xp, dx, edge_order)
        parts.append((ax, h, slot, coords, dx, pieces, w))
    ys = y if isinstance(y, (tuple, list)) else (y,)
    return xp, f, y, ys, parts, nd


def _gradient_ex(rng: Any) -> list[Any]:
    x = np.cumsum(rng.uniform(0.5, 1.5, 6))
    return [
        Example((rng.standard_normal(6),), {}),
        Example((rng.standard_normal((3, 4)), 0.5), {}),
        Example((rng.standard_normal(6), x), {"edge_order": 2}, note="edge_order=2"),
        Example((rng.standard_normal((4, 3)), x[:4], 2.0), {}),
        Example((rng.standard_normal((3, 5)),), {"axis": 1, "edge_order": 2}, note="edge_order=2"),
        Example((rng.standard_normal(5), x[:5]), {}),
    ]


_GRADIENT_EXPECT = (
    Expect("jax", "jax.numpy.gradient does not take edge_order", kind="skip", example="edge_order"),
    # under jit the refusal is a NotImplementedError inside the traced call: a declared failure
    Expect("jit", "jax.numpy.gradient does not take edge_order", example="edge_order"),
)


@register_rrule("numpy:gradient", examples=_gradient_ex, expect=_GRADIENT_EXPECT)
def gradient_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, f, y, ys, parts, nd = _gradient_parts(args, kwargs)
    pf = ProjectTo(f, xp)
    pargs = [ProjectTo(a, xp) for a in args]

    @pullback(y, args)
    def gradient_pullback(g: Any) -> Any:
        gs = g if isinstance(y, (tuple, list)) else (g,)
        f_bar: Any = None
        bars: list[Any] = [zero_tangent(a) for a in args[1:]]
        for gk, yk, (ax, h, slot, coords, dx, pieces, w) in zip(gs, ys, parts):
            if _is_zero(gk):
                continue
            gh = gk if coords or h is None else gk / _conj_scalar(xp, h)
            # the adjoint of sum_d w_d shift_d (the weights are complex for complex coordinates)
            fb = sum(
                (
                    _shift(xp, _along(xp, _conj_scalar(xp, wd), ax, nd) * gh, -d, ax)
                    for d, wd in w.items()
                ),
                start=xp.zeros_like(gk),
            )
            f_bar = fb if f_bar is None else f_bar + fb
            if slot is None or not pargs[slot].differentiable:
                continue
            if not coords:  # y = L(f) / h
                hb = -xp.sum(gk * xp.conj(yk)) / xp.conj(xp.asarray(h))
                bars[slot - 1] = (
                    bars[slot - 1] + pargs[slot](hb)
                    if not _is_zero(bars[slot - 1])
                    else pargs[slot](hb)
                )
                continue
            others = tuple(i for i in range(nd) if i != ax)
            n1 = dx.shape[0]
            dx_bar = xp.zeros((n1,), dtype=dx.dtype, device=device_of(dx))
            rows = (slice(0, 1), slice(1, n1), slice(n1, n1 + 1))
            # w is holomorphic in dx: dx_bar = conj(dw/du) sum(g conj(f)) (complex coordinates
            # too; real ones take the real part, in the projection)
            cx = xp.isdtype(dx.dtype, "complex floating")
            for piece, rs in zip(pieces, rows):
                for d, (_wd, du, dv, su, sv) in piece.items():
                    r = gk * xp.conj(_shift(xp, f, d, ax))
                    r = r if cx or not xp.isdtype(r.dtype, "complex floating") else xp.real(r)
                    r = xp.sum(r, axis=others) if others else r
                    r = r[rs]
                    if cx:
                        du, dv = xp.conj(du), xp.conj(dv)
                    dx_bar = dx_bar + _place(xp, r * du, su, n1) + _place(xp, r * dv, sv, n1)
            zero = xp.zeros((1,), dtype=dx.dtype, device=device_of(dx))
            hb = xp.concat((zero, dx_bar), axis=0) - xp.concat((dx_bar, zero), axis=0)
            prev = bars[slot - 1]
            bars[slot - 1] = pargs[slot](hb) if _is_zero(prev) else prev + pargs[slot](hb)
        return (_ZERO if f_bar is None else pf(f_bar), *bars)

    return y, gradient_pullback


@register_frule("numpy:gradient", examples=_gradient_ex, expect=_GRADIENT_EXPECT)
def gradient_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, f, y, ys, parts, nd = _gradient_parts(args, kwargs)
    ts = tangents_in("gradient", tangents, args)
    if ts is None:
        return y, _ZERO
    e, lead = ts.extra, ts.lead()
    outs = []
    for yk, (ax, h, slot, coords, dx, pieces, w) in zip(ys, parts):
        acc = xp.zeros(lead + tuple(yk.shape), dtype=yk.dtype, device=device_of(yk))
        tf = ts[0]
        if not _is_zero(tf):
            lin = sum(
                (_along(xp, wd, ax, nd) * _shift(xp, tf, d, ax + e) for d, wd in w.items()),
                start=xp.zeros_like(acc),
            )
            acc = acc + (lin if coords or h is None else lin / h)
        th = ts[slot] if slot is not None else _ZERO
        if not _is_zero(th) and ProjectTo(args[slot], xp).differentiable:
            if not coords:
                acc = acc - yk * (_lift(xp, xp.asarray(th), e, yk.ndim) / h)
            else:
                ddx = th[..., 1:] - th[..., :-1]  # (lead, n - 1)
                n1 = dx.shape[0]
                rows = (slice(0, 1), slice(1, n1), slice(n1, n1 + 1))
                for piece, rs in zip(pieces, rows):
                    for d, (_wd, du, dv, su, sv) in piece.items():
                        dw = du * ddx[..., su] + dv * ddx[..., sv]  # (lead, rows)
                        fs = _shift(xp, f, d, ax)
                        key = [slice(None)] * nd
                        key[ax] = rs
                        dwa = xp.reshape(
                            dw, lead + (1,) * ax + (dw.shape[-1],) + (1,) * (nd - ax - 1)
                        )
                        piece_out = dwa * fs[tuple(key)]
                        full = [piece_out]
                        if rs.start:
                            shp = list(lead + tuple(f.shape))
                            shp[ax + e] = rs.start
                            full.insert(
                                0, xp.zeros(tuple(shp), dtype=yk.dtype, device=device_of(yk))
                            )
                        tail = f.shape[ax] - min(rs.stop, f.shape[ax])
                        if tail:
                            shp = list(lead + tuple(f.shape))
                            shp[ax + e] = tail
                            full.append(xp.zeros(tuple(shp), dtype=yk.dtype, device=device_of(yk)))
                        acc = acc + (xp.concat(full, axis=ax + e) if len(full) > 1 else piece_out)
        outs.append(in_dtype(xp, acc, yk.dtype))
    if isinstance(y, (tuple, list)):
        return y, Tangent(*outs, primal_type=type(y))
    return y, outs[0]


# --- trapezoid -----------------------------------------------------------------------------------
_TRAPEZOID = signature("trapezoid", lambda y, x=None, dx=1.0, axis=-1: None)


def _pad_both(xp: Any, d: Any, ax: int) -> tuple[Any, Any]:
    """``d`` with a zero slice put before it, and after it, along ``ax``."""
    shape = list(d.shape)
    shape[ax] = 1
    z = xp.zeros(tuple(shape), dtype=d.dtype, device=device_of(d))
    return xp.concat((z, d), axis=ax), xp.concat((d, z), axis=ax)


def _trapezoid_parts(args: Any, kwargs: Any) -> Any:
    s = _TRAPEZOID.bind(args, kwargs)
    yv, x, dx = s["y"], s["x"], s["dx"]
    xp = namespace_of(yv, x, fname="trapezoid")
    nd = yv.ndim
    ax = axis_int(s["axis"], "trapezoid", ndim=nd) % nd  # NumPy refuses a bool there
    out = _np(yv, xp).trapezoid(*args, **kwargs)
    n = yv.shape[ax]
    if x is None:
        d = xp.ones((max(n - 1, 0),), dtype=_real_dtype(xp, yv.dtype), device=device_of(yv))
        d = _along(xp, d, ax, nd)
    else:
        xb = _along(xp, x, ax, nd) if x.ndim == 1 else x
        d = xp.diff(xb, axis=ax)
    lo, hi = _pad_both(xp, d, ax)
    w = (lo + hi) / 2  # the trapezoid weights (times dx when x is None)
    if n == 0:  # no node: no weight (the padding above made one)
        w = w[tuple(slice(0, 0) if i == ax else slice(None) for i in range(nd))]
    return xp, yv, x, dx, ax, nd, out, w


def _trapezoid_ex(rng: Any) -> list[Any]:
    x = np.cumsum(rng.uniform(0.5, 1.5, 5))
    m = rng.standard_normal((3, 5))
    return [
        ((rng.standard_normal(6),), {}),
        ((m, x), {}),  # positional x: differentiated
        ((m, None, 0.5), {}),  # positional dx: differentiated
        ((m,), {"dx": 0.3, "axis": 0}),
        ((m, np.cumsum(rng.uniform(0.5, 1.5, (3, 5)), axis=1)), {}),
        ((m + 1j * rng.standard_normal((3, 5)), x), {}),
    ]


@register_rrule("numpy:trapezoid", examples=_trapezoid_ex)
def trapezoid_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, yv, x, dx, ax, nd, out, w = _trapezoid_parts(args, kwargs)
    py = ProjectTo(yv, xp)
    x_pos = len(args) > 1 and x is not None
    dx_pos = len(args) > 2 and x is None
    px = ProjectTo(x, xp) if x_pos else None
    pdx = ProjectTo(dx, xp) if dx_pos else None
    scale = 1.0 if x is not None else dx

    @pullback(out, args)
    def trapezoid_pullback(g: Any) -> Any:
        ge = xp.expand_dims(g, axis=ax)
        bars: list[Any] = [py(ge * (w * scale))]
        bars.extend(_rest(args, 1))
        if px is not None and px.differentiable:
            lo, hi = _pad_both(xp, yv, ax)  # d_bar_i = g (y_i + y_{i+1}) / 2
            key = [slice(None)] * nd
            key[ax] = slice(1, yv.shape[ax])
            db = ge * xp.conj((lo + hi)[tuple(key)] / 2)
            a, b = _pad_both(xp, db, ax)
            xb = a - b
            if x.ndim == 1 and nd > 1:
                xb = xp.reshape(xp.sum(xb, axis=tuple(i for i in range(nd) if i != ax)), x.shape)
            bars[1] = px(xb)
        if pdx is not None and pdx.differentiable:
            unit = xp.sum(yv * w, axis=ax)
            bars[2] = pdx(xp.sum(g * xp.conj(unit)))
        return tuple(bars)

    return out, trapezoid_pullback


@register_frule("numpy:trapezoid", examples=_trapezoid_ex)
def trapezoid_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, yv, x, dx, ax, nd, out, w = _trapezoid_parts(args, kwargs)
    ts = tangents_in("trapezoid", tangents, args)
    if ts is None:
        return out, _ZERO
    e, lead = ts.extra, ts.lead()
    acc = xp.zeros(lead + tuple(out.shape), dtype=out.dtype, device=device_of(yv))
    scale = 1.0 if x is not None else dx
    if not _is_zero(ts[0]):
        acc = acc + xp.sum(ts[0] * (w * scale), axis=ax + e)
    if len(args) > 1 and x is not None and not _is_zero(ts[1]):
        tx = ts[1]
        if x.ndim == 1 and nd > 1:
            tx = xp.reshape(tx, lead + (1,) * ax + (x.shape[0],) + (1,) * (nd - ax - 1))
        dd = xp.diff(tx, axis=ax + e)
        lo, hi = _pad_both(xp, yv, ax)
        key = [slice(None)] * nd
        key[ax] = slice(1, yv.shape[ax])
        acc = acc + xp.sum(dd * ((lo + hi)[tuple(key)] / 2), axis=ax + e)
    if len(args) > 2 and x is None and not _is_zero(ts[2]):
        unit = xp.sum(yv * w, axis=ax)
        acc = acc + unit * _lift(xp, xp.asarray(ts[2]), e, unit.ndim)
    return out, in_dtype(xp, acc, out.dtype)


# --- interp --------------------------------------------------------------------------------------
_INTERP = signature("interp", lambda x, xp, fp, left=None, right=None, period=None: None)


def _interp_parts(args: Any, kwargs: Any) -> Any:
    s = _INTERP.bind(args, kwargs)
    x, xk, fk, left, right = s["x"], s["xp"], s["fp"], s["left"], s["right"]
    if s["period"] is not None:
        raise NotImplementedError(
            "interp: period= is not supported by its rule (use np.mod on x and xp and extend "
            "them by one period first)"
        )
    ns = namespace_of(x, xk, fk, fname="interp")
    y = _np(fk, ns).interp(*args, **kwargs)
    n = xk.shape[0]
    if xk.ndim != 1 or fk.ndim != 1 or fk.shape[0] != n or n < 2:
        raise ValueError(
            "interp: xp and fp must be 1-D of the same length (at least 2 in the rule), got "
            f"shapes {tuple(xk.shape)} and {tuple(fk.shape)}"
        )
    xa = ns.asarray(x)
    xf = ns.reshape(xa, (-1,))
    # the interval of each x: xp[i] <= x < xp[i + 1] (the last one closed), on the device
    i = ns.searchsorted(xk, xf, side="right") - 1
    i = ns.clip(i, 0, n - 2)
    xl, xr = ns.take(xk, i), ns.take(xk, i + 1)
    fl, fr = ns.take(fk, i), ns.take(fk, i + 1)
    h = xr - xl
    h = ns.where(h == 0, ns.ones_like(h), h)
    t = (xf - xl) / h
    slope = (fr - fl) / h
    below, above = xf < xk[0:1], xf > xk[n - 1 : n]
    inside = ~(below | above)
    return ns, x, xk, fk, left, right, y, n, i, t, slope, below, above, inside


def _interp_ex(rng: Any) -> list[Any]:
    xk = np.cumsum(rng.uniform(0.5, 1.5, 6))
    fk = rng.standard_normal(6)
    x = rng.uniform(xk[0] + 0.05, xk[-1] - 0.05, 7)
    out = np.concatenate([x[:4], [xk[0] - 1.0, xk[-1] + 0.7]])
    return [
        ((x, xk, fk), {}),
        ((out, xk, fk), {}),  # outside the knots: fp[0], fp[-1]
        ((out, xk, fk, -2.0, 3.0), {}),  # positional left/right: differentiated
        ((x[:4].reshape(2, 2), xk, fk), {"left": 0.0}),
    ]  # complex fp (with real x): in the tests; a complex example makes every argument complex


@register_rrule("numpy:interp", examples=_interp_ex)
def interp_rrule(*args: Any, **kwargs: Any) -> Any:
    ns, x, xk, fk, left, right, y, n, i, t, slope, below, above, inside = _interp_parts(
        args, kwargs
    )
    px, pk, pf = ProjectTo(x, ns), ProjectTo(xk, ns), ProjectTo(fk, ns)
    pl = ProjectTo(args[3], ns) if len(args) > 3 else None
    pr = ProjectTo(args[4], ns) if len(args) > 4 else None

    @pullback(y, args)
    def interp_pullback(g: Any) -> Any:
        gf = ns.reshape(g, (-1,))
        zero = ns.zeros_like(gf)
        gi = ns.where(inside, gf, zero)
        bars: list[Any] = [_NO] * len(args)
        if px.differentiable:
            bars[0] = px(ns.reshape(gi * ns.conj(slope), tuple(getattr(x, "shape", ()))))
        first = ns.arange(n, device=device_of(fk)) == 0
        last = ns.arange(n, device=device_of(fk)) == n - 1
        if pf.differentiable:
            dest = ns.zeros(fk.shape, dtype=gf.dtype, device=device_of(fk))
            fb = scatter_add(dest, i, gi * (1 - t)) + scatter_add(dest, i + 1, gi * t)
            if left is None:
                fb = fb + ns.where(first, ns.sum(ns.where(below, gf, zero)), 0 * fb)
            if right is None:
                fb = fb + ns.where(last, ns.sum(ns.where(above, gf, zero)), 0 * fb)
            bars[2] = pf(fb)
        if pk.differentiable:
            dest = ns.zeros(xk.shape, dtype=gf.dtype, device=device_of(xk))
            c = ns.conj(slope)
            bars[1] = pk(
                scatter_add(dest, i, gi * c * (t - 1)) + scatter_add(dest, i + 1, -gi * c * t)
            )
        for k, p, mask in ((3, pl, below), (4, pr, above)):
            if p is not None:
                bars[k] = p(ns.sum(ns.where(mask, gf, zero))) if p.differentiable else _NO
        return tuple(bars)

    return y, interp_pullback


@register_frule("numpy:interp", examples=_interp_ex)
def interp_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    ns, x, _xk, fk, left, right, y, n, i, t, slope, below, above, inside = _interp_parts(
        args, kwargs
    )
    ts = tangents_in("interp", tangents, args)
    if ts is None:
        return y, _ZERO
    e, lead = ts.extra, ts.lead()
    m = i.shape[0]
    acc = ns.zeros((*lead, m), dtype=y.dtype, device=device_of(fk))
    zero = ns.zeros_like(acc)
    if not _is_zero(ts[0]):
        acc = acc + slope * ns.reshape(ts[0], (*lead, m))
    if not _is_zero(ts[1]):
        dl, dr = ns.take(ts[1], i, axis=-1), ns.take(ts[1], i + 1, axis=-1)
        acc = acc + slope * ((t - 1) * dl - t * dr)
    tf = ts[2]
    if not _is_zero(tf):
        acc = acc + (1 - t) * ns.take(tf, i, axis=-1) + t * ns.take(tf, i + 1, axis=-1)
    acc = ns.where(inside, acc, zero)
    ends = ((3, left, below, 0), (4, right, above, n - 1))
    for k, val, mask, j in ends:
        if val is None and not _is_zero(tf):  # fp's end value is taken there
            acc = acc + ns.where(mask, tf[..., j : j + 1], zero)
        elif k < len(args) and not _is_zero(ts[k]) and ProjectTo(args[k], ns).differentiable:
            acc = acc + ns.where(mask, _lift(ns, ns.asarray(ts[k]), e, 1), zero)
    shape = tuple(getattr(x, "shape", ()))
    return y, in_dtype(ns, ns.reshape(acc, lead + shape), y.dtype)


# --- ediff1d -------------------------------------------------------------------------------------
_EDIFF1D = signature("ediff1d", lambda ary, to_end=None, to_begin=None: None)


def _size(v: Any) -> int:
    return 0 if v is None else math.prod(getattr(v, "shape", ()))


def _ediff1d_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((2, 3))
    return [
        ((rng.standard_normal(5),), {}),
        ((m, rng.standard_normal(2), rng.standard_normal(1)), {}),
        ((m, None, 0.5), {}),
        ((m,), {"to_begin": 1.5}),  # a keyword: a constant
    ]


@register_rrule("numpy:ediff1d", examples=_ediff1d_ex)
def ediff1d_rrule(*args: Any, **kwargs: Any) -> Any:
    s = _EDIFF1D.bind(args, kwargs)
    a, end, begin = s["ary"], s["to_end"], s["to_begin"]
    xp = namespace_of(a, end, begin, fname="ediff1d")
    y = _np(a, xp).ediff1d(*args, **kwargs)
    nb, m = _size(begin), max(_size(a) - 1, 0)
    projects: list[Any] = [ProjectTo(v, xp) if v is not None else None for v in args]

    @pullback(y, args)
    def ediff1d_pullback(g: Any) -> Any:
        mid = g[nb : nb + m]
        z = xp.zeros((1,), dtype=g.dtype, device=device_of(g))
        a_bar = xp.concat((z, mid), axis=0) - xp.concat((mid, z), axis=0) if _size(a) else mid
        bars = [projects[0](xp.reshape(a_bar, tuple(a.shape)))]
        for k, v, part in ((1, end, g[nb + m :]), (2, begin, g[:nb])):
            if k < len(args):
                p = projects[k]
                shape = tuple(getattr(v, "shape", ()))
                ok = p is not None and p.differentiable
                bars.append(p(xp.reshape(part, shape)) if ok else zero_tangent(v))
        return tuple(bars)

    return y, ediff1d_pullback


@register_frule("numpy:ediff1d", examples=_ediff1d_ex)
def ediff1d_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    s = _EDIFF1D.bind(args, kwargs)
    a, end, begin = s["ary"], s["to_end"], s["to_begin"]
    xp = namespace_of(a, end, begin, fname="ediff1d")
    y = _np(a, xp).ediff1d(*args, **kwargs)
    ts = tangents_in("ediff1d", tangents, args)
    if ts is None:
        return y, _ZERO
    lead = ts.lead()
    dev = device_of(y)

    def flat(k: int, v: Any) -> Any:
        t = ts[k] if k < len(args) else _ZERO
        if v is None:
            return None
        if _is_zero(t) or not ProjectTo(v, xp).differentiable:
            return xp.zeros((*lead, _size(v)), dtype=y.dtype, device=dev)
        return in_dtype(xp, xp.reshape(xp.asarray(t), (*lead, _size(v))), y.dtype)

    ta = flat(0, a)
    parts = [flat(2, begin), xp.diff(ta, axis=-1) if _size(a) else ta[..., :0], flat(1, end)]
    return y, xp.concat([p for p in parts if p is not None], axis=-1)


# --- comparisons of whole arrays and bit packing: no tangent space -------------------------------
def _pair_ex(rng: Any) -> list[Any]:
    x = rng.standard_normal((2, 3))
    return [((x, x + 1e-9), {}), ((x, rng.standard_normal(3)), {})]


def _bits_ex(rng: Any) -> list[Any]:
    return [((rng.integers(0, 2, (2, 8)),), {}), ((np.arange(4) > 1,), {})]


# bool outputs (NumPy's "logic functions"): a Python bool, a host read by the function's nature
_HOST_BOOL = Expect(
    "scalar-free", "the function returns a Python bool: it reads the device by its nature"
)
numpy_non_differentiable(
    "allclose", "array_equal", "array_equiv", examples=_pair_ex, expect=_HOST_BOOL
)
# bits in, uint8 out
numpy_non_differentiable("packbits", examples=_bits_ex)


def _unpackbits_ex(rng: Any) -> list[Any]:
    return [
        ((np.array([5, 200, 3], dtype=np.uint8),), {}),
        ((np.array([[1, 255], [128, 7]], dtype=np.uint8),), {"axis": 1, "count": 12}),
    ]


# uint8 in, uint8 out. The backend columns pass integer example arrays as int64, which
# unpackbits refuses; the scalar-free and jit columns keep uint8 (and the tests call it on NumPy
# and JAX uint8 arrays)
numpy_non_differentiable(
    "unpackbits",
    examples=_unpackbits_ex,
    expect=tuple(
        Expect(
            column,
            "the checkers pass integer example arrays as int64, and unpackbits takes uint8 only",
            kind="skip",
        )
        for column in ("numpy", "jax")
    ),
)
