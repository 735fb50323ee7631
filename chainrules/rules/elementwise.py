"""Rules for the standard's elementwise functions (``elementwise_functions``) and NumPy's names.

Maths notes
-----------
* Holomorphic functions (``sin``, ``exp``, ``log``, ``pow``, ...) are ``scalar_rule``\\ s:
  ``x_bar = y_bar * conj(f'(x))`` and ``y_dot = f'(x) * x_dot``. For complex arguments that is the
  cotangent ``dL/dRe + i dL/dIm`` (ChainRules' and PyTorch's convention; JAX's is its conjugate).
* ``abs``, ``sign``, ``conj``, ``real`` and ``imag`` are not holomorphic and have rules of their
  own, written from ``dy = Re(conj(g) dz)``-style differentials.
* Kinks take the minimum-norm subgradient, never NaN: ``abs'(0) = 0``; ``hypot`` and ``atan2`` at
  the origin give 0; ``copysign(x, y)`` has derivative 0 in ``x`` at ``x = 0``;
  ``d pow(x, y) / dy = 0`` at ``x = 0``.
* Ties: ``maximum``/``minimum`` (and ``clip`` at its bounds, and ``fmax``/``fmin``) give half of the
  cotangent to each tied argument, as JAX does.
* Rounding functions (``floor``, ``ceil``, ``trunc``, ``round``, ``floor_divide``) and ``sign`` of a
  real argument have derivative zero: their pullbacks return ``ZeroTangent()``.
* Comparisons, logical and bitwise functions and predicates (``isnan``) are non-differentiable:
  ``NoTangent()`` for every argument.

Partials are functions ``(xp, out, *args)``; Python-float arguments arrive as 0-d arrays of the
output's dtype, so formulas can call ``xp`` functions on every argument.
"""

from __future__ import annotations

import math
from typing import Any

from ..core.namespaces import namespace_of, scalar_kind
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import (
    _align,
    _reject_out,
    finish_tangent,
    non_differentiable,
    scalar_rule,
    zero_derivative,
)
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._util import cotangent, safe, unit

_NO = NoTangent()
_ZERO = ZeroTangent()

# Example domains used by testers (python -m chainrules check); complex rectangles are
# (re_low, re_high, im_low, im_high), chosen away from branch cuts and poles.
R = (-2.0, 2.0)
POS = (0.2, 2.5)
UNIT = (-0.85, 0.85)
C_ANY = (-1.2, 1.2, -1.2, 1.2)
C_RIGHT = (0.3, 2.0, -1.2, 1.2)  # right half-plane: log, sqrt, reciprocal
C_UNIT = (-0.6, 0.6, -0.6, 0.6)  # asin, acos, atanh, atan, asinh


# --- holomorphic unary functions --------------------------------------------------------------
scalar_rule("sin", lambda xp, out, x: xp.cos(x), domain=(R,), complex=C_ANY)
scalar_rule("cos", lambda xp, out, x: -xp.sin(x), domain=(R,), complex=C_ANY)
scalar_rule("tan", lambda xp, out, x: 1 + out * out, domain=((-1.2, 1.2),), complex=C_ANY)
scalar_rule("sinh", lambda xp, out, x: xp.cosh(x), domain=(R,), complex=C_ANY)
scalar_rule("cosh", lambda xp, out, x: xp.sinh(x), domain=(R,), complex=C_ANY)
scalar_rule("tanh", lambda xp, out, x: 1 - out * out, domain=(R,), complex=C_ANY)
scalar_rule(
    ("asin", "numpy:arcsin"),
    lambda xp, out, x: 1 / xp.sqrt(1 - x * x),
    domain=(UNIT,),
    complex=C_UNIT,
)
scalar_rule(
    ("acos", "numpy:arccos"),
    lambda xp, out, x: -1 / xp.sqrt(1 - x * x),
    domain=(UNIT,),
    complex=C_UNIT,
)
scalar_rule(
    ("atan", "numpy:arctan"), lambda xp, out, x: 1 / (1 + x * x), domain=(R,), complex=C_UNIT
)
scalar_rule(
    ("asinh", "numpy:arcsinh"),
    lambda xp, out, x: 1 / xp.sqrt(1 + x * x),
    domain=(R,),
    complex=C_UNIT,
)
# sqrt(x - 1) * sqrt(x + 1), not sqrt(x*x - 1): the principal branch of acosh for complex x
scalar_rule(
    ("acosh", "numpy:arccosh"),
    lambda xp, out, x: 1 / (xp.sqrt(x - 1) * xp.sqrt(x + 1)),
    domain=((1.2, 3.0),),
    complex=(1.2, 2.5, -1.0, 1.0),
)
scalar_rule(
    ("atanh", "numpy:arctanh"), lambda xp, out, x: 1 / (1 - x * x), domain=(UNIT,), complex=C_UNIT
)
scalar_rule("exp", lambda xp, out, x: out, domain=(R,), complex=C_ANY)
scalar_rule("expm1", lambda xp, out, x: out + 1, domain=(R,), complex=C_ANY)
scalar_rule("log", lambda xp, out, x: 1 / x, domain=(POS,), complex=C_RIGHT)
scalar_rule("log1p", lambda xp, out, x: 1 / (1 + x), domain=((-0.6, 2.0),), complex=C_RIGHT)
scalar_rule("log2", lambda xp, out, x: 1 / (x * math.log(2)), domain=(POS,), complex=C_RIGHT)
scalar_rule("log10", lambda xp, out, x: 1 / (x * math.log(10)), domain=(POS,), complex=C_RIGHT)
scalar_rule("sqrt", lambda xp, out, x: 1 / (2 * out), domain=(POS,), complex=C_RIGHT)
scalar_rule("square", lambda xp, out, x: 2 * x, domain=(R,), complex=C_ANY)
scalar_rule("reciprocal", lambda xp, out, x: -(out * out), domain=(POS,), complex=C_RIGHT)
scalar_rule("negative", -1, domain=(R,), complex=C_ANY)
scalar_rule("positive", 1, domain=(R,), complex=C_ANY)
# nextafter(x, y) moves x by one unit in the last place: derivative 1 in x, 0 in y
scalar_rule("nextafter", 1, 0, domain=(R, R))

# --- holomorphic binary functions -------------------------------------------------------------
scalar_rule("add", 1, 1, domain=(R, R), complex=C_ANY)
scalar_rule("subtract", 1, -1, domain=(R, R), complex=C_ANY)
scalar_rule(
    "multiply", lambda xp, out, x, y: y, lambda xp, out, x, y: x, domain=(R, R), complex=C_ANY
)
scalar_rule(
    ("divide", "numpy:true_divide"),
    lambda xp, out, x, y: 1 / y,
    lambda xp, out, x, y: -out / y,
    domain=(R, POS),
    complex=C_RIGHT,
)


def _pow_dx(xp: Any, out: Any, x: Any, y: Any) -> Any:
    return y * xp.pow(x, y - 1)


def _pow_dy(xp: Any, out: Any, x: Any, y: Any) -> Any:
    # x**y * log(x), continued by 0 at x == 0 (where x**y -> 0 for y > 0) instead of 0 * -inf
    return out * xp.log(safe(xp, x))


scalar_rule(("pow", "numpy:power"), _pow_dx, _pow_dy, domain=(POS, R), complex=C_RIGHT)
scalar_rule("numpy:float_power", _pow_dx, _pow_dy, domain=(POS, R), complex=C_RIGHT)


# --- real binary functions --------------------------------------------------------------------
def _atan2_d(sign: int, which: int) -> Any:
    def d(xp: Any, out: Any, x1: Any, x2: Any) -> Any:
        r2 = x1 * x1 + x2 * x2
        num = x2 if which == 0 else x1
        return sign * num / safe(xp, r2)  # 0 at the origin: the minimum-norm subgradient

    return d


# (0.2, 2) for x2 keeps finite differences off the branch cut along the negative x2 axis
scalar_rule(("atan2", "numpy:arctan2"), _atan2_d(1, 0), _atan2_d(-1, 1), domain=(R, POS))
scalar_rule(
    "hypot",
    lambda xp, out, x1, x2: x1 / safe(xp, out),
    lambda xp, out, x1, x2: x2 / safe(xp, out),
    domain=(R, R),
)


def _copysign_dx(xp: Any, out: Any, x1: Any, x2: Any) -> Any:
    # copysign(x1, x2) = |x1| * sgn(x2): derivative sgn(x1) * sgn(x2), and 0 at the kink x1 = 0
    s = xp.copysign(xp.ones_like(x1), x1) * xp.copysign(xp.ones_like(x2), x2)
    return xp.where(x1 == 0, xp.zeros_like(s), s)


scalar_rule("copysign", _copysign_dx, 0, domain=(POS, R))
scalar_rule(
    "logaddexp",
    lambda xp, out, x1, x2: xp.exp(x1 - out),
    lambda xp, out, x1, x2: xp.exp(x2 - out),
    domain=(R, R),
)
scalar_rule(
    "numpy:logaddexp2",
    lambda xp, out, x1, x2: xp.exp2(x1 - out),
    lambda xp, out, x1, x2: xp.exp2(x2 - out),
    domain=(R, R),
)


def _tie_weight(xp: Any, a: Any, b: Any, out: Any, greater: bool) -> Any:
    """1 where ``a`` wins, 1/2 where ``a`` and ``b`` tie, 0 where ``b`` wins (out's dtype)."""
    win = (a > b) if greater else (a < b)
    return xp.astype(win, out.dtype) + 0.5 * xp.astype(a == b, out.dtype)


def _nan_aware(xp: Any, w: Any, other: Any) -> Any:
    """``fmax``/``fmin`` ignore a NaN operand: all of the cotangent goes to the other one."""
    return xp.where(xp.isnan(other), xp.ones_like(w), w)


scalar_rule(
    "maximum",
    lambda xp, out, x1, x2: _tie_weight(xp, x1, x2, out, True),
    lambda xp, out, x1, x2: _tie_weight(xp, x2, x1, out, True),
    domain=(R, R),
)
scalar_rule(
    "minimum",
    lambda xp, out, x1, x2: _tie_weight(xp, x1, x2, out, False),
    lambda xp, out, x1, x2: _tie_weight(xp, x2, x1, out, False),
    domain=(R, R),
)
scalar_rule(
    "numpy:fmax",
    lambda xp, out, x1, x2: _nan_aware(xp, _tie_weight(xp, x1, x2, out, True), x2),
    lambda xp, out, x1, x2: _nan_aware(xp, _tie_weight(xp, x2, x1, out, True), x1),
    domain=(R, R),
)
scalar_rule(
    "numpy:fmin",
    lambda xp, out, x1, x2: _nan_aware(xp, _tie_weight(xp, x1, x2, out, False), x2),
    lambda xp, out, x1, x2: _nan_aware(xp, _tie_weight(xp, x2, x1, out, False), x1),
    domain=(R, R),
)
# remainder(x1, x2) = x1 - floor(x1 / x2) * x2; the domain keeps x1 / x2 off the integers
scalar_rule(
    ("remainder", "numpy:mod"),
    1,
    lambda xp, out, x1, x2: -xp.floor(x1 / x2),
    domain=((2.2, 2.8), (1.0, 1.04)),
)
scalar_rule(
    "numpy:fmod", 1, lambda xp, out, x1, x2: -xp.trunc(x1 / x2), domain=((2.2, 2.8), (1.0, 1.04))
)
scalar_rule("floor_divide", 0, 0, domain=((2.2, 2.8), (1.0, 1.04)))

# --- NumPy-only real functions ----------------------------------------------------------------
scalar_rule("numpy:exp2", lambda xp, out, x: out * math.log(2), domain=(R,), complex=C_ANY)
scalar_rule("numpy:cbrt", lambda xp, out, x: 1 / (3 * out * out), domain=(POS,))
scalar_rule(("numpy:deg2rad", "numpy:radians"), math.pi / 180, domain=(R,))
scalar_rule(("numpy:rad2deg", "numpy:degrees"), 180 / math.pi, domain=(R,))


def _sinc_d(xp: Any, out: Any, x: Any) -> Any:
    # d/dx sin(pi x)/(pi x) = (cos(pi x) - sinc(x)) / x, continued by 0 at x = 0
    return xp.where(x == 0, xp.zeros_like(out), (xp.cos(math.pi * x) - out) / safe(xp, x))


scalar_rule("numpy:sinc", _sinc_d, domain=(R,))

# --- zero derivative almost everywhere --------------------------------------------------------
# examples stay inside (0.2, 0.4) so that finite differences do not straddle a jump
_STEPS = ((0.2, 0.4),)
for _name in ("floor", "ceil", "trunc"):
    scalar_rule(_name, 0, domain=_STEPS)
zero_derivative("round", "numpy:around", "numpy:rint", "numpy:fix", domain=_STEPS)

# --- non-differentiable -----------------------------------------------------------------------
_FLOAT2 = (R, R)
non_differentiable(
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "numpy:isclose",
    domain=_FLOAT2,
)
non_differentiable(
    "isfinite",
    "isinf",
    "isnan",
    "signbit",
    "numpy:isneginf",
    "numpy:isposinf",
    "numpy:isreal",
    "numpy:iscomplex",
    domain=(R,),
)
non_differentiable("logical_and", "logical_or", "logical_xor", domain=("bool", "bool"))
non_differentiable("logical_not", domain=("bool",))
non_differentiable(
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "numpy:left_shift",
    "numpy:right_shift",
    domain=("int", "int"),
)
non_differentiable("bitwise_invert", "numpy:invert", "numpy:bitwise_not", domain=("int",))


# --- non-holomorphic rules: abs, sign, conj, real, imag ---------------------------------------
def _unary_setup(name: str, x: Any, kwargs: dict[str, Any]) -> tuple[Any, ProjectTo, bool]:
    if kwargs:
        _reject_out(name, kwargs)
    xp = namespace_of(x, fname=name)
    proj = ProjectTo(x, xp)
    return xp, proj, proj.kind == "c"


def _tangent(name: str, xp: Any, x_dot: Any, x: Any) -> Any:
    x_dot = unthunk(x_dot)
    if isinstance(x_dot, AbstractZero):
        return x_dot
    return _align(xp, x_dot, x.ndim, x.ndim, name, x.shape)


@register_rrule("abs", "numpy:absolute", domain=(R,), complex=C_ANY)
def _abs_rrule(x: Any, /, **kwargs: Any) -> Any:
    xp, proj, _ = _unary_setup("abs", x, kwargs)
    out = xp.abs(x)

    def abs_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero) or not proj.differentiable:
            return _NO, (_ZERO if proj.differentiable else _NO)
        y_bar = cotangent("abs", y_bar, out)
        return _NO, proj(y_bar * unit(xp, x, out))

    return out, abs_pullback


@register_frule("abs", "numpy:absolute", domain=(R,), complex=C_ANY)
def _abs_frule(tangents: Any, x: Any, /, **kwargs: Any) -> Any:
    xp, proj, cplx = _unary_setup("abs", x, kwargs)
    out = xp.abs(x)
    x_dot = _tangent("abs", xp, tangents[1], x)
    if isinstance(x_dot, AbstractZero) or not proj.differentiable:
        return out, _ZERO
    u = unit(xp, x, out)
    return out, (xp.real(xp.conj(u) * x_dot) if cplx else u * x_dot)


# fabs is abs for real arguments only
register_rrule("numpy:fabs", domain=(R,))(_abs_rrule)
register_frule("numpy:fabs", domain=(R,))(_abs_frule)


def _sign_tangent(xp: Any, x: Any, out: Any, v: Any) -> Any:
    # s = z/|z|: ds = (dz - s Re(conj(s) dz)) / |z|; self-adjoint, so pullback and pushforward
    # share it. 0 at z = 0.
    r = xp.abs(x)
    return (v - out * xp.real(xp.conj(out) * v)) / safe(xp, r) * xp.astype(r != 0, r.dtype)


def _sign(xp: Any, x: Any, cplx: bool) -> Any:
    # for complex z the standard's sign is z/|z| (0 at 0); array_api_compat's NumPy wrapper
    # warns at 0, so it is computed here
    return unit(xp, x, xp.abs(x)) if cplx else xp.sign(x)


@register_rrule("sign", domain=(R,), complex=C_ANY)
def _sign_rrule(x: Any, /, **kwargs: Any) -> Any:
    xp, proj, cplx = _unary_setup("sign", x, kwargs)
    out = _sign(xp, x, cplx)

    def sign_pullback(y_bar: Any) -> tuple[Any, Any]:
        if not isinstance(y_bar, AbstractZero):
            y_bar = cotangent("sign", y_bar, out)
        if not proj.differentiable:
            return _NO, _NO
        if isinstance(y_bar, AbstractZero) or not cplx:
            return _NO, _ZERO  # real sign is piecewise constant
        return _NO, proj(_sign_tangent(xp, x, out, y_bar))

    return out, sign_pullback


@register_frule("sign", domain=(R,), complex=C_ANY)
def _sign_frule(tangents: Any, x: Any, /, **kwargs: Any) -> Any:
    xp, _, cplx = _unary_setup("sign", x, kwargs)
    out = _sign(xp, x, cplx)
    x_dot = _tangent("sign", xp, tangents[1], x)
    if isinstance(x_dot, AbstractZero) or not cplx:
        return out, _ZERO
    return out, _sign_tangent(xp, x, out, x_dot)


@register_rrule("conj", "numpy:conjugate", domain=(R,), complex=C_ANY)
def _conj_rrule(x: Any, /, **kwargs: Any) -> Any:
    xp, proj, cplx = _unary_setup("conj", x, kwargs)
    out = xp.conj(x)

    def conj_pullback(y_bar: Any) -> tuple[Any, Any]:
        if isinstance(y_bar, AbstractZero) or not proj.differentiable:
            return _NO, (_ZERO if proj.differentiable else _NO)
        y_bar = cotangent("conj", y_bar, out)
        return _NO, proj(xp.conj(y_bar) if cplx else y_bar)

    return out, conj_pullback


@register_frule("conj", "numpy:conjugate", domain=(R,), complex=C_ANY)
def _conj_frule(tangents: Any, x: Any, /, **kwargs: Any) -> Any:
    xp, proj, cplx = _unary_setup("conj", x, kwargs)
    x_dot = _tangent("conj", xp, tangents[1], x)
    if isinstance(x_dot, AbstractZero) or not proj.differentiable:
        return xp.conj(x), _ZERO
    return xp.conj(x), (xp.conj(x_dot) if cplx else x_dot)


def _real_imag(name: str, imag: bool) -> None:
    # imag of a real array is an error in some libraries (torch): examples are complex only
    domain = None if imag else (R,)

    @register_rrule(name, domain=domain, complex=C_ANY)
    def part_rrule(x: Any, /, **kwargs: Any) -> Any:
        xp, proj, cplx = _unary_setup(name, x, kwargs)
        out = getattr(xp, name)(x)

        def part_pullback(y_bar: Any) -> tuple[Any, Any]:
            if isinstance(y_bar, AbstractZero) or not proj.differentiable:
                return _NO, (_ZERO if proj.differentiable else _NO)
            y_bar = cotangent(name, y_bar, out)
            if not cplx:  # real(x) of a real x is x; imag(x) is 0
                return _NO, (_ZERO if imag else proj(y_bar))
            # dL = y_bar * Re(dz) (real) or y_bar * Im(dz) = Re(conj(i y_bar) dz) (imag)
            c = xp.astype(y_bar, x.dtype)
            return _NO, proj(c * 1j if imag else c)

        part_pullback.__qualname__ = f"{name}_pullback"
        return out, part_pullback

    @register_frule(name, domain=domain, complex=C_ANY)
    def part_frule(tangents: Any, x: Any, /, **kwargs: Any) -> Any:
        xp, proj, cplx = _unary_setup(name, x, kwargs)
        out = getattr(xp, name)(x)
        x_dot = _tangent(name, xp, tangents[1], x)
        if isinstance(x_dot, AbstractZero) or not proj.differentiable or (imag and not cplx):
            return out, _ZERO
        return out, (getattr(xp, name)(x_dot) if cplx else x_dot)


_real_imag("real", imag=False)
_real_imag("imag", imag=True)


# --- clip: min(max(x, low), high), ties split like maximum/minimum ----------------------------
def _clip_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(x, low, high) from the standard's clip(x, min, max) or NumPy's clip(a, a_min, a_max)."""
    x, *bounds = args
    if len(bounds) > 2:
        raise TypeError(f"clip takes at most 3 positional arguments, got {len(args)}")
    low = bounds[0] if bounds else kwargs.get("min", kwargs.get("a_min"))
    high = bounds[1] if len(bounds) > 1 else kwargs.get("max", kwargs.get("a_max"))
    return x, low, high


def _clip_weights(xp: Any, x: Any, low: Any, high: Any, out: Any) -> tuple[Any, Any, Any]:
    """Weights of x, low and high in d clip: they sum to 1 everywhere."""
    one = xp.ones_like(out)
    if low is None:
        m, wx, wl = x, one, None
    else:
        m = xp.maximum(x, low)
        wx = _tie_weight(xp, x, low, out, True)
        wl = one - wx
    if high is None:
        return wx, wl, None
    wm = _tie_weight(xp, m, high, out, False)
    return wx * wm, (None if wl is None else wl * wm), one - wm


def _clip_namespace(args: tuple[Any, ...]) -> Any:
    return namespace_of(*args, fname="clip")


@register_rrule("clip", domain=(R, (-1.0, -0.2), (0.2, 1.0)))
def _clip_rrule(*args: Any, **kwargs: Any) -> Any:
    _reject_out("clip", kwargs)
    x, low, high = _clip_args(args, kwargs)
    xp = _clip_namespace((x, low, high))
    out = xp.clip(*args, **kwargs)
    projs = [ProjectTo(a, xp) if a is not None else None for a in args]

    def clip_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return (_NO, *(_ZERO if p is not None and p.differentiable else _NO for p in projs))
        y_bar = cotangent("clip", y_bar, out)
        weights = _clip_weights(xp, x, low, high, out)
        res: list[Any] = [_NO]
        for p, w in zip(projs, weights):
            if p is None or not p.differentiable or w is None:
                res.append(_NO)
            else:
                res.append(p(y_bar * w))
        return tuple(res)

    return out, clip_pullback


@register_frule("clip", domain=(R, (-1.0, -0.2), (0.2, 1.0)))
def _clip_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    _reject_out("clip", kwargs)
    x, low, high = _clip_args(args, kwargs)
    xp = _clip_namespace((x, low, high))
    out = xp.clip(*args, **kwargs)
    weights = _clip_weights(xp, x, low, high, out)
    acc: Any = None
    for a, t, w in zip(args, tangents[1:], weights):
        t = unthunk(t)
        if a is None or w is None or isinstance(t, AbstractZero) or scalar_kind(a, xp) in "ib":
            continue
        t = _align(xp, t, getattr(a, "ndim", 0), out.ndim, "clip", getattr(a, "shape", ()))
        acc = w * t if acc is None else acc + w * t
    return out, finish_tangent(xp, acc, out)
