"""Rules for arithmetic, powers and roots: the standard's ``add``, ``subtract``, ``multiply``,
``divide``, ``negative``, ``positive``, ``pow``, ``sqrt``, ``square``, ``reciprocal``,
``remainder`` and ``floor_divide``, and NumPy's ``true_divide``, ``power``, ``float_power``,
``cbrt``, ``mod``, ``fmod`` and ``divmod``.

Maths notes
-----------
* ``d pow(x, y) / dy = 0`` at ``x = 0``, and ``d pow(x, y) / dx = 0`` where ``y = 0``.
* ``remainder(x1, x2) = x1 - q * x2`` (``fmod`` likewise): partials ``1`` and ``-q``, with ``q``
  read back from the library's own result; ``floor_divide`` has derivative zero.
* ``divmod = (floor_divide, mod)``: the quotient is piecewise constant; ``mod`` has partials
  ``1`` and ``-floor(x1 / x2)``.
"""

from __future__ import annotations

import math
from typing import Any

from ...core.prelude import *
from ...core.scalar_rule import takes_numbers
from .._util import in_dtype, safe
from .._util.elementwise import C_ANY, C_RIGHT, POS, SZ, R, lift
from .._util.numpy_like import numpy_primal2

__all__: list[str] = []  # rules only


# --- sums, products, quotients ------------------------------------------------------------------
scalar_rule("add", 1, 1, domain=(R, R), complex=C_ANY)
scalar_rule("subtract", 1, -1, domain=(R, R), complex=C_ANY)
# the partials take a Python-number operand as it is (takes_numbers): x * 2.0's partial is 2.0,
# with no 0-d array made for it at every call
scalar_rule(
    "multiply",
    takes_numbers(lambda xp, out, x, y: y),
    takes_numbers(lambda xp, out, x, y: x),
    domain=(R, R),
    complex=C_ANY,
    **SZ,
)
scalar_rule(
    ("divide", "numpy:true_divide"),
    takes_numbers(lambda xp, out, x, y: 1 / y),
    takes_numbers(lambda xp, out, x, y: -out / y),
    domain=(R, POS),
    complex=C_RIGHT,
    **SZ,
)
scalar_rule("negative", -1, domain=(R,), complex=C_ANY)
scalar_rule("positive", 1, domain=(R,), complex=C_ANY)


# --- powers and roots ---------------------------------------------------------------------------
_NUMBERS = (int, float, complex)


@takes_numbers  # a Python-number exponent as it is: x ** 2.0's partial is 2.0 * x, one operation
def _pow_dx(xp: Any, out: Any, x: Any, y: Any) -> Any:
    # y * x**(y - 1), and 0 where y == 0 (x**0 is constant; at 0**0 the formula is 0 * inf):
    # the exponent is made 1 there, so no inf is ever formed; and 0 at an infinite y where
    # x**(y - 1) is 0 (the limit, where the product is inf * 0: 0.5**inf, 2**-inf). Only there:
    # a mask p == 0 at finite y would also pick p at x = 0 (2.0 * x**1.0), whose derivative
    # (y - 1) x**(y - 2) is not the partial's, y (y - 1) x**(y - 2): the Hessian of x**2.0 was 1
    # at x = 0, not 2
    # x ** 1 is x, bit for bit (inf, NaN and -0 included): x ** 2's partial is one product, a
    # forward tracer's one operation in a Hessian, not two
    if type(x) in _NUMBERS:  # a number base (2.0 ** t): asked for by a direct caller only
        x = xp.asarray(x, dtype=out.dtype)
    if type(y) is int:
        return y * (x if y == 2 else xp.pow(x, y - 1)) if y != 0 else xp.zeros_like(out)
    if type(y) is float:
        if y == 0:
            return xp.zeros_like(out)
        p = x if y == 2 else xp.pow(x, y - 1)
        return y * p if math.isfinite(y) else xp.where(p == 0, p, y * p)
    if type(y) is complex:
        y = xp.asarray(y, dtype=out.dtype)
    p = xp.pow(x, xp.where(y == 0, xp.ones_like(y), y) - 1)
    return xp.where((p == 0) & xp.isinf(y), p, y * p)


@takes_numbers
def _pow_dy(xp: Any, out: Any, x: Any, y: Any) -> Any:
    # x**y * log(x), continued by 0 at x == 0 (where x**y -> 0 for y > 0) instead of 0 * -inf,
    # and 0 wherever x**y is 0 (its limit at x = inf for y < 0: x**y log x -> 0). At a real
    # x < 0 the partial is not real: NaN, without log's warning (x**2.0 of a negative x warns
    # nowhere, and its constant exponent's partial is never read)
    if type(x) in _NUMBERS:
        x = xp.asarray(x, dtype=out.dtype)
    if xp.isdtype(x.dtype, "complex floating"):
        return xp.where(out == 0, xp.zeros_like(out), out * xp.log(safe(xp, x)))
    d = out * xp.log(xp.where(x > 0, x, xp.ones_like(x)))
    return xp.where(out == 0, xp.zeros_like(out), xp.where(x < 0, xp.nan, d))


# the exponent's cotangent is a Thunk at every size (deferred=(1,)): a constant exponent (x ** 2.0,
# x ** c for a data array c) is never differentiated, so no log pass is made for it
_POW = dict(domain=(POS, R), complex=C_RIGHT, deferred=(1,), **SZ)
scalar_rule(("pow", "numpy:power"), _pow_dx, _pow_dy, **_POW)
scalar_rule("numpy:float_power", _pow_dx, _pow_dy, **_POW)
scalar_rule("sqrt", lambda xp, out, x: 1 / (2 * out), domain=(POS,), complex=C_RIGHT, **SZ)
scalar_rule("square", lambda xp, out, x: 2 * x, domain=(R,), complex=C_ANY)
scalar_rule("reciprocal", lambda xp, out, x: -(out * out), domain=(POS,), complex=C_RIGHT, **SZ)
scalar_rule("numpy:cbrt", lambda xp, out, x: 1 / (3 * out * out), domain=(POS,), **SZ)


# --- remainder, fmod, floor_divide, divmod --------------------------------------------------------
def _quotient(xp: Any, out: Any, x1: Any, x2: Any) -> Any:
    """The integer ``q`` with ``out = x1 - q * x2``, read back from the library's own result:
    ``floor(x1 / x2)`` can disagree with it (``remainder(0.25, 0.001)`` is computed with
    quotient 249, while ``0.25 / 0.001`` rounds to 250, and torch's autograd, which takes
    ``trunc(x1 / x2)``, says 250). Each term is divided on its own: ``|out / x2| <= 1``, so the
    difference cannot overflow where ``x1 - out`` does (``remainder(0.9 * fmax, -0.8 * fmax)``
    has ``out = -1.26e308`` and quotient -2; ``(x1 - out) / x2`` gave -inf). At an infinite
    ``x2`` the result is ``x1`` (``q = 0``) or, for ``remainder`` with signs that differ, ``x2``
    itself (``q = -1``, where ``out / x2`` is ``inf / inf``)."""
    q = xp.round(x1 / x2 - out / x2)
    return xp.where(xp.isinf(x2) & (out == x2), -xp.ones_like(q), q)


# remainder(x1, x2) = x1 - q * x2 (q = floor(x1 / x2)), fmod likewise with q = trunc(x1 / x2):
# derivatives 1 and -q; the domain keeps x1 / x2 off the integers
scalar_rule(
    ("remainder", "numpy:mod"),
    1,
    lambda xp, out, x1, x2: -_quotient(xp, out, x1, x2),
    domain=((2.2, 2.8), (1.0, 1.04)),
)
scalar_rule(
    "numpy:fmod",
    1,
    lambda xp, out, x1, x2: -_quotient(xp, out, x1, x2),
    domain=((2.2, 2.8), (1.0, 1.04)),
)
scalar_rule("floor_divide", 0, 0, domain=((2.2, 2.8), (1.0, 1.04)))


_DIVMOD = signature("divmod", lambda x1, x2, /, out=None, **ufunc: None)


def _divmod_ex(rng: Any) -> list[Any]:
    x1 = rng.uniform(2.2, 2.8, (2, 3))
    return [((x1, rng.uniform(1.0, 1.04, 3)), {}), ((rng.uniform(-2.8, -2.2, 4), 1.02), {})]


@register_rrule("numpy:divmod", examples=_divmod_ex)
def divmod_rrule(*args: Any, **kwargs: Any) -> Any:
    x1, x2, xp, y = numpy_primal2("divmod", _DIVMOD, args, kwargs)
    q = y[0]
    p1, p2 = ProjectTo(x1, xp), ProjectTo(x2, xp)

    @pullback(y, args)
    def divmod_pullback(g: Any) -> Any:
        g_r = g[1]
        if is_zero(g_r):  # the quotient is piecewise constant
            return zero_tangent(x1), zero_tangent(x2)
        return p1(g_r), p2(-q * g_r)

    return y, divmod_pullback


@register_frule("numpy:divmod", examples=_divmod_ex)
def divmod_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x1, x2, xp, y = numpy_primal2("divmod", _DIVMOD, args, kwargs)
    ts = tangents_in("divmod", tangents[:3], (x1, x2))
    if ts is None or not xp.isdtype(y[1].dtype, "real floating"):
        return y, ZERO
    q, r = y
    e, nd = ts.extra, r.ndim
    r_dot: Any = xp.zeros(ts.lead() + tuple(r.shape), dtype=r.dtype, device=device_of(r))
    if not is_zero(ts[0]):
        r_dot = r_dot + lift(xp, xp.asarray(ts[0]), e, nd)
    if not is_zero(ts[1]):
        r_dot = r_dot - q * lift(xp, xp.asarray(ts[1]), e, nd)
    return y, Tangent(ZERO, in_dtype(xp, r_dot, y[1].dtype), primal_type=type(y))
