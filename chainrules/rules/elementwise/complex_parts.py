"""Rules for the parts of complex numbers: the standard's ``conj``, ``real`` and ``imag``, and
NumPy's ``conjugate``, ``angle``, ``real_if_close`` and ``sort_complex``.

Maths notes
-----------
* ``conj``, ``real`` and ``imag`` are not holomorphic: their rules are written from
  ``dy = Re(conj(g) dz)``-style differentials.
* ``angle(z) = atan2(Im z, Re z)``: ``z_bar = i g z / |z|^2`` (0 at ``z = 0``), times
  ``180/pi`` for ``deg=True``; a real input has a zero derivative (0 or pi, piecewise constant).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import in_dtype
from .._util.elementwise import C_ANY, R, identity_pullback, unary, zeros_after
from .._util.numpy_like import numpy_like_module, numpy_primal

__all__: list[str] = []  # rules only


# --- conj, real, imag ---------------------------------------------------------------------------
# Each is R-linear in a complex x: its tangent is the function of the tangent, and its pullback
# the adjoint below. dL = y_bar * Re(dz) (real) or y_bar * Im(dz) = Re(conj(i y_bar) dz) (imag).
# Of a real x, conj and real are the identity (``of_real``) and imag is 0.
_PARTS: dict[str, tuple[Callable[[Any, Any, Any], Any], bool]] = {  # name: (adjoint, of_real)
    "conj": (lambda xp, x, y_bar: xp.conj(y_bar), True),
    "real": (lambda xp, x, y_bar: xp.astype(y_bar, x.dtype), True),
    "imag": (lambda xp, x, y_bar: xp.astype(y_bar, x.dtype) * 1j, False),
}


def _part_rules(name: str) -> Any:
    """The rrule and the frule of ``conj``, ``real`` or ``imag``."""
    adjoint, of_real = _PARTS[name]

    def part_rrule(x: Any, /, **kwargs: Any) -> Any:
        xp, proj, cplx = unary(name, x, kwargs)
        out = getattr(xp, name)(x)

        @pullback(out, (x,), name=name)
        def part_pullback(y_bar: Any) -> Any:
            if not proj.differentiable:
                return NO
            if not cplx:
                return proj(y_bar) if of_real else ZERO
            return proj(adjoint(xp, x, y_bar))

        return out, part_pullback

    def part_frule(tangents: Any, x: Any, /, **kwargs: Any) -> Any:
        xp, proj, cplx = unary(name, x, kwargs)
        f = getattr(xp, name)
        out = f(x)
        t = tangents_in(name, tangents, (x,))
        if t is None or not proj.differentiable or not (cplx or of_real):
            return out, ZERO
        return out, (f(t[0]) if cplx else t[0])

    return part_rrule, part_frule


for _names, _meta in (
    (("conj", "numpy:conjugate"), {"domain": (R,)}),
    (("real",), {"domain": (R,), "kind": "view"}),
    (("imag",), {"domain": None, "kind": "view"}),
):
    _r, _f = _part_rules(_names[0])
    register_rrule(*_names, complex=C_ANY, **_meta)(_r)
    register_frule(*_names, complex=C_ANY, **_meta)(_f)


# --- angle --------------------------------------------------------------------------------------
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
    y = numpy_like_module(z, xp).angle(*args, **kwargs)
    project = ProjectTo(z, xp)

    @pullback(y, args)
    def angle_pullback(g: Any) -> Any:
        if project.kind != "c":  # 0 or pi: piecewise constant
            return (xp.zeros_like(z) if project.differentiable else NO, *zeros_after(args, 1))
        return (project(1j * g * _angle_direction(xp, z, deg)), *zeros_after(args, 1))

    return y, angle_pullback


@register_frule("numpy:angle", examples=_angle_ex)
def angle_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    a = _ANGLE.bind(args, kwargs)
    z, deg = a["z"], bool(a["deg"])
    xp = namespace_of(z, fname="angle")
    y = numpy_like_module(z, xp).angle(*args, **kwargs)
    ts = tangents_in("angle", tangents[:2], (z,))
    if ts is None or not xp.isdtype(z.dtype, "complex floating"):
        return y, ZERO
    # d angle = Im(conj(z) dz) / |z|^2 = Re(conj(i z / |z|^2) dz)
    return y, in_dtype(xp, xp.real(xp.conj(1j * _angle_direction(xp, z, deg)) * ts[0]), y.dtype)


# --- real_if_close ------------------------------------------------------------------------------
_REAL_IF_CLOSE = signature("real_if_close", lambda a, tol=100: None)


def _real_if_close_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(4) + 0j,), {}),  # real output
        ((rng.standard_normal(4) + 1j * rng.standard_normal(4),), {}),  # stays complex
        ((rng.standard_normal((2, 3)),), {}),
    ]


@register_rrule("numpy:real_if_close", examples=_real_if_close_ex)
def real_if_close_rrule(*args: Any, **kwargs: Any) -> Any:
    # its dtype depends on the values (a host read)
    a, xp, y = numpy_primal("real_if_close", _REAL_IF_CLOSE, "a", args, kwargs)
    # y = a, or Re(a) when the imaginary parts are negligible: either way a_bar = y_bar
    return y, identity_pullback("real_if_close", y, args, a, xp)


@register_frule("numpy:real_if_close", examples=_real_if_close_ex)
def real_if_close_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    a, xp, y = numpy_primal("real_if_close", _REAL_IF_CLOSE, "a", args, kwargs)
    ts = tangents_in("real_if_close", tangents[:2], (a,))
    if ts is None:
        return y, ZERO
    t = ts[0]
    if xp.isdtype(t.dtype, "complex floating") and not xp.isdtype(y.dtype, "complex floating"):
        t = xp.real(t)
    return y, in_dtype(xp, t, y.dtype)


# --- sort_complex -------------------------------------------------------------------------------
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
    a, xp, y = numpy_primal("sort_complex", _SORT_COMPLEX, "a", args, kwargs, alone=True)
    project = ProjectTo(a, xp)
    perm = _sort_complex_perm(xp, a)

    @pullback(y, args)
    def sort_complex_pullback(g: Any) -> Any:
        return project(xp.take_along_axis(g, xp.argsort(perm, axis=-1), axis=-1))

    return y, sort_complex_pullback


@register_frule("numpy:sort_complex", examples=_sort_complex_ex)
def sort_complex_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    a, xp, y = numpy_primal("sort_complex", _SORT_COMPLEX, "a", args, kwargs, alone=True)
    ts = tangents_in("sort_complex", tangents[:2], (a,))
    if ts is None:
        return y, ZERO
    t = ts[0]
    idx = xp.broadcast_to(_sort_complex_perm(xp, a), tuple(t.shape))
    return y, in_dtype(xp, xp.take_along_axis(t, idx, axis=-1), y.dtype)
