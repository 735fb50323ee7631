"""Rules for the trigonometric and hyperbolic functions: the standard's ``sin``, ``cos``,
``tan``, ``asin``, ``acos``, ``atan``, ``atan2``, ``hypot``, ``sinh``, ``cosh``, ``tanh``,
``asinh``, ``acosh``, ``atanh`` (NumPy's ``arcsin``, ... ``arctan2`` too) and NumPy's ``deg2rad``
(``radians``), ``rad2deg`` (``degrees``) and ``unwrap``.

Maths notes
-----------
* The holomorphic ones are ``scalar_rule``\\ s (see the package's notes for the complex
  convention); ``atan``, ``asinh`` and ``atanh`` are written through ``x / max(|Re x|, |Im x|, 1)``
  so that ``x^2`` never overflows.
* ``hypot`` and ``atan2`` at the origin give 0 (the minimum-norm subgradient).
* ``unwrap``'s added multiples of the period are constants: its derivative is the identity, also
  at the threshold.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import axis_int, in_dtype, safe
from .._util.elementwise import (
    C_ANY,
    C_UNIT,
    POS,
    SZ,
    TORCH_NO_SCALAR,
    UNIT,
    R,
    identity_pullback,
    real_sign,
)
from .._util.numpy_like import numpy_like_module

__all__: list[str] = []  # rules only


# --- trigonometric functions and their inverses -----------------------------------------------
scalar_rule("sin", lambda xp, out, x: xp.cos(x), domain=(R,), complex=C_ANY)
scalar_rule("cos", lambda xp, out, x: -xp.sin(x), domain=(R,), complex=C_ANY)
scalar_rule("tan", lambda xp, out, x: 1 + out * out, domain=((-1.2, 1.2),), complex=C_ANY)
scalar_rule(
    ("asin", "numpy:arcsin"),
    lambda xp, out, x: 1 / xp.sqrt(1 - x * x),
    domain=(UNIT,),
    complex=C_UNIT,
    **SZ,
)
scalar_rule(
    ("acos", "numpy:arccos"),
    lambda xp, out, x: -1 / xp.sqrt(1 - x * x),
    domain=(UNIT,),
    complex=C_UNIT,
    **SZ,
)


def _scaled(xp: Any, x: Any) -> tuple[Any, Any]:
    """``(r, u)`` with ``r = 1 / s`` and ``u = x / s`` for ``s = max(|Re x|, |Im x|, 1)`` (real,
    >= 1): ``1 + x^2 = s^2 (r^2 + u^2)`` with no overflow in ``x^2`` at ``|x| ~ 1e300``, and
    ``s = 1``, so the same arithmetic as before, wherever ``|x| <= 1``. For real ``x``,
    ``u = x / max(|x|, 1)`` is ``clip(x, -1, 1)`` exactly, also at ``±inf`` (``inf / inf`` would
    be NaN): ``r = 0, u = ±1`` there, so ``atan'`` and ``asinh'`` give their limit 0."""
    if xp.isdtype(x.dtype, "complex floating"):
        a = xp.maximum(xp.abs(xp.real(x)), xp.abs(xp.imag(x)))
        s = xp.where(a > 1, a, xp.ones_like(a))
        return 1 / s, x / s
    a, one = xp.abs(x), xp.ones_like(x)
    # clip(x, -1, 1) by where, not minimum/maximum: at x = ±1 their tie gives the bound half the
    # derivative, and atan'' and asinh'' at ±1 came out half theirs (NumPy's clip also refuses a
    # non-native byte order, casting='no')
    return 1 / xp.where(a > 1, a, one), xp.where(x > 1, one, xp.where(x < -1, -one, x))


def _atan_dx(xp: Any, out: Any, x: Any) -> Any:
    r, u = _scaled(xp, x)  # 1 / (1 + x^2) = r (r / (r^2 + u^2))
    return r * (r / (r * r + u * u))


def _asinh_dx(xp: Any, out: Any, x: Any) -> Any:
    r, u = _scaled(xp, x)  # 1 / sqrt(1 + x^2) = r / sqrt(r^2 + u^2): s > 0 keeps the branch
    return r / xp.sqrt(r * r + u * u)


def _atanh_dx(xp: Any, out: Any, x: Any) -> Any:
    r, u = _scaled(xp, x)  # 1 / (1 - x^2) = r (r / (r^2 - u^2))
    return r * (r / (r * r - u * u))


scalar_rule(("atan", "numpy:arctan"), _atan_dx, domain=(R,), complex=C_UNIT)


def _atan2_d(sign: int, which: int) -> Any:
    def d(xp: Any, out: Any, x1: Any, x2: Any) -> Any:
        r2 = x1 * x1 + x2 * x2
        num = x2 if which == 0 else x1
        # 0 at the origin (the minimum-norm subgradient) and at an infinite num (the limit of
        # num / r2 ~ 1 / num; the formula is inf / inf there)
        q = sign * num / safe(xp, r2)
        return xp.where(xp.isinf(num), xp.zeros_like(q), q)

    return d


# (0.2, 2) for x2 keeps finite differences off the branch cut along the negative x2 axis
scalar_rule(
    ("atan2", "numpy:arctan2"),
    _atan2_d(1, 0),
    _atan2_d(-1, 1),
    domain=(R, POS),
    expect=TORCH_NO_SCALAR,
)


# --- hypot --------------------------------------------------------------------------------------
def _hypot_d(which: int) -> Any:
    def d(xp: Any, out: Any, x1: Any, x2: Any) -> Any:
        # x / hypot, 0 at the origin; at an infinite x its limit sign(x) / sqrt(k) for k
        # infinite arguments (vector_norm's convention: 1/sqrt(2) each at (inf, inf))
        x = x1 if which == 0 else x2
        q = x / safe(xp, out)
        both = xp.isinf(x1) & xp.isinf(x2)
        sgn = real_sign(xp, x)
        lim = xp.where(both, math.sqrt(0.5) * sgn, sgn)
        # 0 at the origin with no derivative (abs's convention: x / 1 there differentiated to 1)
        return xp.where(out == 0, xp.zeros_like(q), xp.where(xp.isinf(x), lim, q))

    return d


scalar_rule("hypot", _hypot_d(0), _hypot_d(1), domain=(R, R), expect=TORCH_NO_SCALAR)


# --- hyperbolic functions and their inverses --------------------------------------------------
def _tanh_dx(xp: Any, out: Any, x: Any) -> Any:
    # 1 - y*y, written so that the second operation takes a temporary as its left operand: NumPy
    # then reuses its buffer (one fresh array, not two; a - b is exactly -(b - a) in IEEE)
    return -(out * out - 1)


scalar_rule("sinh", lambda xp, out, x: xp.cosh(x), domain=(R,), complex=C_ANY, **SZ)
scalar_rule("cosh", lambda xp, out, x: xp.sinh(x), domain=(R,), complex=C_ANY, **SZ)
scalar_rule("tanh", _tanh_dx, domain=(R,), complex=C_ANY)
scalar_rule(("asinh", "numpy:arcsinh"), _asinh_dx, domain=(R,), complex=C_UNIT)
# sqrt(x - 1) * sqrt(x + 1), not sqrt(x*x - 1): the principal branch of acosh for complex x
scalar_rule(
    ("acosh", "numpy:arccosh"),
    lambda xp, out, x: 1 / (xp.sqrt(x - 1) * xp.sqrt(x + 1)),
    domain=((1.2, 3.0),),
    complex=(1.2, 2.5, -1.0, 1.0),
    **SZ,
)
scalar_rule(("atanh", "numpy:arctanh"), _atanh_dx, domain=(UNIT,), complex=C_UNIT, **SZ)


# --- NumPy's angle conversions and unwrap ------------------------------------------------------
scalar_rule(("numpy:deg2rad", "numpy:radians"), math.pi / 180, domain=(R,))
scalar_rule(("numpy:rad2deg", "numpy:degrees"), 180 / math.pi, domain=(R,))


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
    y = numpy_like_module(p, xp).unwrap(*args, **kwargs)
    # y = p + k * period with k piecewise constant: the identity (also at the threshold)
    return y, identity_pullback("unwrap", y, args, p, xp)


@register_frule("numpy:unwrap", examples=_unwrap_ex)
def unwrap_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    p = _unwrap_p(args, kwargs)
    xp = namespace_of(p, fname="unwrap")
    y = numpy_like_module(p, xp).unwrap(*args, **kwargs)
    ts = tangents_in("unwrap", tangents[:2], (p,))
    return y, (ZERO if ts is None else in_dtype(xp, ts[0], y.dtype))
