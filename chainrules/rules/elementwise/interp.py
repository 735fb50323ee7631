"""The rule for NumPy's ``interp``.

On the interval ``[xp_i, xp_{i+1})`` found by ``searchsorted`` (on the device),
``y = (1 - t) fp_i + t fp_{i+1}``; the cotangents of ``fp`` and ``xp`` are scattered
(``scatter_add``), ``x_bar = g * slope``; outside ``[xp_0, xp_-1]`` ``y`` is ``left``/``right``
(``fp_0``/``fp_-1`` by default) and only those get cotangents. At a knot the right-hand slope is
taken (the left-hand one at the last knot).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import in_dtype
from .._util.elementwise import lift
from .._util.numpy_like import numpy_like_module

__all__: list[str] = []  # rules only


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
    y = numpy_like_module(fk, ns).interp(*args, **kwargs)
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
        bars: list[Any] = [NO] * len(args)
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
                bars[k] = p(ns.sum(ns.where(mask, gf, zero))) if p.differentiable else NO
        return tuple(bars)

    return y, interp_pullback


@register_frule("numpy:interp", examples=_interp_ex)
def interp_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    ns, x, _xk, fk, left, right, y, n, i, t, slope, below, above, inside = _interp_parts(
        args, kwargs
    )
    ts = tangents_in("interp", tangents, args)
    if ts is None:
        return y, ZERO
    e, lead = ts.extra, ts.lead()
    m = i.shape[0]
    acc = ns.zeros((*lead, m), dtype=y.dtype, device=device_of(fk))
    zero = ns.zeros_like(acc)
    if not is_zero(ts[0]):
        acc = acc + slope * ns.reshape(ts[0], (*lead, m))
    if not is_zero(ts[1]):
        dl, dr = ns.take(ts[1], i, axis=-1), ns.take(ts[1], i + 1, axis=-1)
        acc = acc + slope * ((t - 1) * dl - t * dr)
    tf = ts[2]
    if not is_zero(tf):
        acc = acc + (1 - t) * ns.take(tf, i, axis=-1) + t * ns.take(tf, i + 1, axis=-1)
    acc = ns.where(inside, acc, zero)
    ends = ((3, left, below, 0), (4, right, above, n - 1))
    for k, val, mask, j in ends:
        if val is None and not is_zero(tf):  # fp's end value is taken there
            acc = acc + ns.where(mask, tf[..., j : j + 1], zero)
        elif k < len(args) and not is_zero(ts[k]) and ProjectTo(args[k], ns).differentiable:
            acc = acc + ns.where(mask, lift(ns, ns.asarray(ts[k]), e, 1), zero)
    shape = tuple(getattr(x, "shape", ()))
    return y, in_dtype(ns, ns.reshape(acc, lead + shape), y.dtype)
