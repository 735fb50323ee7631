"""Rules for rounding and NumPy's floating-point routines: the standard's ``floor``, ``ceil``,
``trunc``, ``round`` and ``nextafter``, and NumPy's ``around``, ``rint``, ``fix``, ``modf``,
``frexp``, ``ldexp``, ``spacing`` and ``nan_to_num``.

Maths notes
-----------
* The rounding functions (and ``spacing``) have derivative zero: their pullbacks return
  ``ZeroTangent()``.
* ``nextafter(x, y)`` moves ``x`` by one unit in the last place: derivative 1 in ``x``, 0 in ``y``.
* ``modf`` and ``frexp``: the fractional part and the mantissa have derivatives ``1`` and
  ``2^-e``; the integral part and the exponent have none. ``modf`` at an integer: derivative 1
  for the fractional part.
* ``nan_to_num`` passes the cotangent through finite entries and gives replaced ones (and, when
  positional, the replacement values) the rest.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import in_dtype
from .._util.elementwise import TORCH_NO_SCALAR, R, lift, zeros_after
from .._util.numpy_like import numpy_primal

__all__: list[str] = []  # rules only


# --- rounding: zero derivative almost everywhere ------------------------------------------------
# examples stay inside (0.2, 0.4) so that finite differences do not straddle a jump
_STEPS = ((0.2, 0.4),)
for _name in ("floor", "ceil", "trunc"):
    scalar_rule(_name, 0, domain=_STEPS)
zero_derivative("round", "numpy:around", "numpy:rint", "numpy:fix", domain=_STEPS)


# --- floating-point parts: modf, frexp, ldexp, spacing, nextafter -------------------------------
def _modf_ex(rng: Any) -> list[Any]:
    return [
        ((rng.uniform(0.2, 0.8, 5) + np.arange(5) - 2,), {}),
        ((rng.uniform(1.2, 1.8, (2, 3)),), {}),
    ]


def _frexp_ex(rng: Any) -> list[Any]:
    return [
        ((rng.uniform(0.3, 7.0, 5) * np.array([1, -1, 1, -1, 1]),), {}),
        ((rng.uniform(1.1, 60.0, (2, 3)),), {}),
    ]


def _pow2(xp: Any, e: Any, dtype: Any) -> Any:
    """``2^e`` for an integer array ``e``, in ``dtype`` (exact)."""
    return xp.pow(xp.asarray(2.0, dtype=dtype), xp.astype(e, dtype))


def _modf_first(xp: Any, y: Any, t: Any) -> Any:
    # frac = x - trunc(x): derivative 1 (also at integers); the integral part: 0
    return t


def _frexp_first(xp: Any, y: Any, t: Any) -> Any:
    # mantissa = x * 2^-e, e piecewise constant; the exponent is an integer: no tangent
    return t * _pow2(xp, -y[1], y[0].dtype)


def _two_part_rules(name: str, first: Callable[[Any, Any, Any], Any], second: Any) -> Any:
    """The rules of ``modf`` and ``frexp``, two outputs of which only the first moves: ``first(xp,
    y, t)`` is its tangent (or cotangent: the derivative is real) from ``x``'s ``t``, and
    ``second`` the other output's tangent (``ZeroTangent()`` for a float, ``NoTangent()`` for an
    integer)."""
    sig = signature(name, lambda x, /, out=None, **ufunc: None)  # errors name the function

    def two_part_rrule(*args: Any, **kwargs: Any) -> Any:
        x, xp, y = numpy_primal(name, sig, "x", args, kwargs, alone=True)
        project = ProjectTo(x, xp)

        @pullback(y, args, name=name)
        def two_part_pullback(g: Any) -> Any:
            return zero_tangent(x) if is_zero(g[0]) else project(first(xp, y, g[0]))

        return y, two_part_pullback

    def two_part_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        x, xp, y = numpy_primal(name, sig, "x", args, kwargs, alone=True)
        ts = tangents_in(name, tangents[:2], (x,))
        if ts is None:
            return y, ZERO
        t = in_dtype(xp, first(xp, y, ts[0]), y[0].dtype)
        return y, Tangent(t, second, primal_type=type(y))

    return two_part_rrule, two_part_frule


for _name, _ex, _first, _second in (
    ("modf", _modf_ex, _modf_first, ZERO),
    ("frexp", _frexp_ex, _frexp_first, NO),
):
    _r, _f = _two_part_rules(_name, _first, _second)
    register_rrule(f"numpy:{_name}", examples=_ex)(_r)
    register_frule(f"numpy:{_name}", examples=_ex)(_f)

scalar_rule(
    "numpy:ldexp",
    lambda xp, out, x1, x2: _pow2(xp, xp.asarray(x2), out.dtype),
    0,
    domain=(R, "int"),
)
zero_derivative("numpy:spacing", domain=(R,))

# nextafter(x, y) moves x by one unit in the last place: derivative 1 in x, 0 in y
scalar_rule("nextafter", 1, 0, domain=(R, R), expect=TORCH_NO_SCALAR)


# --- nan_to_num ---------------------------------------------------------------------------------
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
    x, xp, y = numpy_primal("nan_to_num", _NAN_TO_NUM, "x", args, kwargs)
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
        return (project(x_bar), *zeros_after(args[:2], 1), *rest)

    return y, nan_to_num_pullback


@register_frule("numpy:nan_to_num", examples=_nan_to_num_ex)
def nan_to_num_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x, xp, y = numpy_primal("nan_to_num", _NAN_TO_NUM, "x", args, kwargs)
    ts = tangents_in("nan_to_num", tangents, args)
    if ts is None:
        return y, ZERO
    fin_re, fin_im = _finite_parts(xp, x)
    lead = ts.lead()
    out = xp.zeros(lead + tuple(y.shape), dtype=y.dtype, device=device_of(y))
    t = ts[0]
    if not is_zero(t):
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
        if i >= len(args) or is_zero(ts[i]) or not ProjectTo(args[i], xp).differentiable:
            continue
        d = lift(xp, xp.asarray(ts[i]), ts.extra, y.ndim)
        out = out + xp.where(test(re), d, 0 * d)
        if im is not None:
            out = out + 1j * xp.where(test(im), d, 0 * d)
    return y, in_dtype(xp, out, y.dtype)
