"""The rule for NumPy's ``cross``.

``cross`` is bilinear: ``a_bar = conj(b) x g``, ``b_bar = g x conj(a)``, computed with the vector
axes moved last and 2-vectors padded with a zero third component.
"""

from __future__ import annotations

from typing import Any

from ...core.prelude import *
from .._util import axis_int, in_dtype, moveaxis
from .._util.elementwise import lift, zeros_after
from .._util.numpy_like import numpy_like_module

__all__: list[str] = []  # rules only


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
    y = numpy_like_module(a, xp).cross(a, b, axisa=axa, axisb=axb, axisc=axc)
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
    a3 = _pad3(xp, moveaxis(xp, a, axa, -1))
    b3 = _pad3(xp, moveaxis(xp, b, axb, -1))
    na, nb = a.shape[axa], b.shape[axb]

    @pullback(y, args)
    def cross_pullback(g: Any) -> Any:
        if axc is None:  # two 2-vectors: the output is the third component
            z = xp.zeros_like(g)
            g3 = xp.stack((z, z, g), axis=-1)
        else:
            g3 = moveaxis(xp, g, axc, -1)
        a_bar = _cross3(xp, xp.conj(b3), g3)[..., :na]
        b_bar = _cross3(xp, g3, xp.conj(a3))[..., :nb]
        a_bar = _unbroadcast_moved(xp, a_bar, a, axa)
        b_bar = _unbroadcast_moved(xp, b_bar, b, axb)
        return (pa(a_bar), pb(b_bar), *zeros_after(args, 2))

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
    return moveaxis(xp, v, -1, ax)


@register_frule("numpy:cross", examples=_cross_ex)
def cross_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, b, axa, axb, axc, y = _cross_parts(args, kwargs)
    ts = tangents_in("cross", tangents[:3], (a, b))
    if ts is None:
        return y, ZERO
    e = ts.extra
    a3 = _pad3(xp, moveaxis(xp, a, axa, -1))
    b3 = _pad3(xp, moveaxis(xp, b, axb, -1))
    nd = max(a.ndim, b.ndim)  # the chunk axes go before both operands' broadcast axes
    out: Any = None
    if not is_zero(ts[0]):
        out = _cross3(xp, lift(xp, _pad3(xp, moveaxis(xp, ts[0], axa + e, -1)), e, nd), b3)
    if not is_zero(ts[1]):
        t = _cross3(xp, a3, lift(xp, _pad3(xp, moveaxis(xp, ts[1], axb + e, -1)), e, nd))
        out = t if out is None else out + t
    if axc is None:  # two 2-vectors: only the third component
        out = xp.reshape(out[..., 2:3], tuple(out.shape[:-1]))
    else:
        out = moveaxis(xp, out, -1, axc + e)
    lead = ts.lead()
    return y, in_dtype(xp, xp.broadcast_to(out, lead + tuple(y.shape)), y.dtype)
