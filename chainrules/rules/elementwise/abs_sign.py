"""Rules for magnitudes and signs: the standard's ``abs``, ``sign`` and ``copysign``, and NumPy's
``absolute``, ``fabs`` and ``heaviside``.

Maths notes
-----------
* ``abs`` and ``sign`` are not holomorphic and have rules of their own, written from
  ``dy = Re(conj(g) dz)``-style differentials.
* Kinks take the minimum-norm subgradient, never NaN: ``abs'(0) = 0``; ``copysign(x, y)`` has
  derivative 0 in ``x`` at ``x = 0``; ``sign`` of a real argument has derivative zero.
* ``heaviside(x1, x2)`` is a step in ``x1`` (derivative 0); the value ``x2`` is taken where
  ``x1 == 0``.
"""

from __future__ import annotations

from typing import Any

import array_api_compat
import numpy as np

from ...core import scalar_kind
from ...core.namespaces import numpy_forms
from ...core.prelude import *
from .._util import safe, unit
from .._util.elementwise import C_ANY, POS, TORCH_NO_SCALAR_FIRST, UNARY, R, lift, real_sign, unary
from .._util.numpy_like import numpy_primal2

__all__: list[str] = []  # rules only


# --- abs and fabs -------------------------------------------------------------------------------
@specialise
def abs_rrule(x: Any, /, **kwargs: Any) -> Any:
    xp, _, _ = unary("abs", x, kwargs)
    out = xp.abs(x)
    return out, _abs_pullback(xp, x, out)


def _abs_pullback(xp: Any, x: Any, out: Any) -> Any:
    """The pullback of ``out = abs(x)`` in namespace ``xp``, for every library."""
    proj = ProjectTo(x, xp)

    @pullback(out, (x,))
    def abs_pullback(y_bar: Any) -> Any:
        if not proj.differentiable:
            return NO
        return proj(y_bar * unit(xp, x, out))

    return abs_pullback


@abs_rrule.method("numpy")
def _abs_rrule_numpy(x: Any, /, **kwargs: Any) -> Any:
    """A real NumPy array or NumPy scalar: ``abs`` and the pullback ``y_bar * sign(x)`` written
    out, for a NumPy cotangent of ``x``'s shape and dtype (either form of a 0-d one; any other
    goes to the generic pullback, built then): ``np.sign`` is what ``unit`` computes for a real
    array (±1, 0 at ±0, ±1 at ±inf, NaN at NaN) in one pass, where unit's masks, division and
    clip take six. The generic rule's binding and ``pullback`` bookkeeping cost about 3 us
    around a sub-microsecond ``np.abs`` at n=10, in test functions that call it often (of
    ``abs(x[0])``, a NumPy scalar, too: population dev half, 44 of 59 calls of ``abs`` took
    the generic rule before 0-d values came here).
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.83, median of 52
    cells (0.71 at best)."""
    tx = type(x)
    if kwargs or (tx is not np.ndarray and not isinstance(x, np.floating)) or x.dtype.kind != "f":
        return NotImplemented
    out = np.absolute(x)
    forms = numpy_forms(x)

    def abs_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, Any]:
        plain = not chunk and type(y_bar) in forms
        if plain and y_bar.shape == x.shape and y_bar.dtype == x.dtype:
            return NO, y_bar * np.sign(x)
        return _abs_pullback(namespace_of(x), x, out)(y_bar, chunk=chunk)

    return out, abs_pullback


register_rrule("abs", "numpy:absolute", domain=(R,), complex=C_ANY)(abs_rrule)


@register_frule("abs", "numpy:absolute", domain=(R,), complex=C_ANY)
def abs_frule(tangents: Any, x: Any, /, **kwargs: Any) -> Any:
    xp, proj, cplx = unary("abs", x, kwargs)
    out = xp.abs(x)
    t = tangents_in("abs", tangents, (x,))
    if t is None or not proj.differentiable:
        return out, ZERO
    u = unit(xp, x, out)
    return out, (xp.real(xp.conj(u) * t[0]) if cplx else u * t[0])


# fabs is abs for real arguments only; of integers and booleans it is a float (float16 for
# booleans and 8-bit integers, as NumPy's ufunc loops give), with no tangent
def _fabs_of_int(x: Any, kwargs: dict[str, Any]) -> Any:
    """``fabs(x)`` for an integer or boolean ``x`` (no tangent space), else ``None``."""
    xp = namespace_of(x, fname="fabs")
    if scalar_kind(x, xp) not in "ib":
        return None
    if kwargs:
        UNARY["abs"].bind((x,), kwargs)
    return xp.fabs(x)


@register_rrule("numpy:fabs", domain=(R,))
def fabs_rrule(x: Any, /, **kwargs: Any) -> Any:
    out = _fabs_of_int(x, kwargs)
    if out is None:
        return abs_rrule(x, **kwargs)

    @pullback(out, (x,))
    def fabs_pullback(y_bar: Any) -> Any:
        return NO

    return out, fabs_pullback


@register_frule("numpy:fabs", domain=(R,))
def fabs_frule(tangents: Any, x: Any, /, **kwargs: Any) -> Any:
    out = _fabs_of_int(x, kwargs)
    return abs_frule(tangents, x, **kwargs) if out is None else (out, ZERO)


# --- sign ---------------------------------------------------------------------------------------
def _sign_tangent(xp: Any, x: Any, out: Any, v: Any) -> Any:
    # s = z/|z|: ds = (dz - s Re(conj(s) dz)) / |z|; self-adjoint, so pullback and pushforward
    # share it. 0 at z = 0.
    r = xp.abs(x)
    return (v - out * xp.real(xp.conj(out) * v)) / safe(xp, r) * xp.astype(r != 0, r.dtype)


def _sign(xp: Any, x: Any, cplx: bool) -> Any:
    # for complex z the standard's sign is z/|z| (0 at 0); array_api_compat's NumPy wrapper
    # warns at 0, so it is computed here. NumPy's own (NumPy >= 2) is the unit along an
    # infinite part where z/|z| is inf/inf, so NumPy arrays take it: the primal is NumPy's
    if cplx and array_api_compat.is_numpy_namespace(xp):
        return np.sign(x)
    return unit(xp, x, xp.abs(x)) if cplx else real_sign(xp, x)


@register_rrule(
    "sign",
    domain=(R,),
    complex=C_ANY,
    expect=Expect("torch", "torch.sign takes no complex input (torch.sgn does)", "skip", "complex"),
)
def sign_rrule(x: Any, /, **kwargs: Any) -> Any:
    xp, proj, cplx = unary("sign", x, kwargs)
    out = _sign(xp, x, cplx)

    @pullback(out, (x,))
    def sign_pullback(y_bar: Any) -> Any:
        if not proj.differentiable:
            return NO
        if not cplx:
            return ZERO  # real sign is piecewise constant
        return proj(_sign_tangent(xp, x, out, y_bar))

    return out, sign_pullback


@register_frule("sign", domain=(R,), complex=C_ANY)
def sign_frule(tangents: Any, x: Any, /, **kwargs: Any) -> Any:
    xp, _, cplx = unary("sign", x, kwargs)
    out = _sign(xp, x, cplx)
    t = tangents_in("sign", tangents, (x,))
    if t is None or not cplx:
        return out, ZERO
    return out, _sign_tangent(xp, x, out, t[0])


# --- copysign -----------------------------------------------------------------------------------
def _copysign_dx(xp: Any, out: Any, x1: Any, x2: Any) -> Any:
    # copysign(x1, x2) = |x1| * sgn(x2): derivative sgn(x1) * sgn(x2), and 0 at the kink x1 = 0
    s = xp.copysign(xp.ones_like(x1), x1) * xp.copysign(xp.ones_like(x2), x2)
    return xp.where(x1 == 0, xp.zeros_like(s), s)


scalar_rule("copysign", _copysign_dx, 0, domain=(POS, R), expect=TORCH_NO_SCALAR_FIRST)


# --- heaviside ----------------------------------------------------------------------------------
_HEAVISIDE = signature("heaviside", lambda x1, x2, /, out=None, **ufunc: None)


def _heaviside_ex(rng: Any) -> list[Any]:
    x = rng.uniform(0.5, 1.5, 6) * np.array([1, -1, 1, -1, 1, -1])
    return [((x, rng.standard_normal(6)), {}), ((x[:3], 0.5), {})]


@register_rrule("numpy:heaviside", examples=_heaviside_ex)
def heaviside_rrule(*args: Any, **kwargs: Any) -> Any:
    x1, x2, xp, y = numpy_primal2("heaviside", _HEAVISIDE, args, kwargs)
    p2 = ProjectTo(x2, xp)

    @pullback(y, args)
    def heaviside_pullback(g: Any) -> Any:
        # a step in x1 (derivative 0); the value x2 is taken where x1 == 0
        x2_bar = p2(xp.where(x1 == 0, g, xp.zeros_like(g))) if p2.differentiable else NO
        return zero_tangent(x1), x2_bar

    return y, heaviside_pullback


@register_frule("numpy:heaviside", examples=_heaviside_ex)
def heaviside_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x1, x2, xp, y = numpy_primal2("heaviside", _HEAVISIDE, args, kwargs)
    ts = tangents_in("heaviside", tangents[:3], (x1, x2))
    if ts is None or is_zero(ts[1]) or not xp.isdtype(y.dtype, "real floating"):
        return y, ZERO
    t = lift(xp, xp.asarray(ts[1], dtype=y.dtype), ts.extra, y.ndim)
    return y, xp.broadcast_to(xp.where(x1 == 0, t, xp.zeros_like(t)), ts.lead() + tuple(y.shape))
