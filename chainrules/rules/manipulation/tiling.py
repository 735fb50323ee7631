"""Rules for tiling: the standard's ``repeat`` and ``tile``, with NumPy's signatures of the two.

Maths note
----------
Both are linear and copy elements, ``y = L x``; the pushforward is the same function of the
tangent, the pullback the sum of each element's copies:

* ``repeat`` (int repeats): ``reshape`` to ``(..., n, r, ...)`` and ``sum`` over ``r``;
* ``repeat`` (array repeats): ``scatter_add`` at the source positions (below);
* ``tile``: ``reshape`` to ``(r0, s0, r1, s1, ...)``, ``sum`` over the ``r_i``.

``repeat`` with an integer *array* of repeats never reads the repeats on the host: an output
position ``j`` came from the element ``src[j] = searchsorted(cumulative_sum(repeats), j,
side="right")``, computed on the device. The pullback is ``scatter_add(zeros, src, y_bar)`` (a
segment sum; repeats of 0 leave a zero), the pushforward ``take(t, src)``. A repeats array of
one element (broadcast) is a host-known ``r = y.shape[axis] // n`` and takes the int path.
Output shapes come from the primal, whose shape is host metadata; ``repeat`` or ``tile`` by 0
pulls back a zero of ``x``'s shape.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util.shape import *

__all__: list[str] = []  # rules only: nothing to import from here


# --- repeat ---------------------------------------------------------------------------------------
def _axis_key(xp: Any, shape: tuple[int, ...], ax: int, idx: Any, like: Any) -> tuple[Any, ...]:
    """The all-integer-array key ``k`` with ``x[k] == take(x, idx, axis=ax)`` for a result of
    ``shape`` (the form every Array API library accepts, array-api-strict included)."""
    nd = len(shape)
    keys = []
    for d, n in enumerate(shape):
        s = [1] * nd
        s[d] = n
        v = idx if d == ax else xp.arange(n, dtype=idx.dtype, **device_kw(like))
        keys.append(xp.reshape(v, tuple(s)))
    return tuple(keys)


def _repeat_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    ia = np.array
    out = [
        ex((r(3), 2), note="vector"),
        ex((r(2, 3), 2), {"axis": 1}, note="int, axis=1"),
        ex((r(2, 3), 3), note="int, flattened"),
        ex((r(2, 3), 0), {"axis": 0}, note="zero repeats"),
        ex((r(), 3), note="0-d"),
        ex((r(0, 2), 2), {"axis": 0}, note="zero-size"),
        ex((r(3), ia([2, 0, 3])), {"axis": 0}, note="array, with 0"),
        ex((r(2, 3), ia([1, 3, 2])), {"axis": -1}, note="array, axis=-1"),
        ex((r(2, 3), ia([1, 2])), {"axis": 0}, note="array, axis=0"),
        ex((r(2, 2), ia([1, 0, 2, 1])), note="array, flattened"),
        ex((r(2, 3), ia([2])), {"axis": 1}, note="one-element array"),
        ex((r(3, c=True), 2), note="complex"),
    ]
    if numpy:
        out += [ex((r(2, 3), 2, 0), note="positional axis")]
    return out


# jax.numpy.repeat needs its repeats on the host to know its output's shape
_TRACED_REPEATS = Expect(
    "jit", "jax.numpy.repeat cannot take traced repeats under jax.jit", "skip", "array"
)


@standard_and_numpy(
    "repeat",
    lambda x, /, repeats, *, axis=None: None,
    lambda x, /, repeats, axis=None: None,
    _repeat_ex,
    expect=_TRACED_REPEATS,
    linear=True,
)
def _repeat_rules(sig: Signature) -> Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """``(xp, x, y, ax, wshape, r, src)``: the repeat works on ``x`` in shape ``wshape``
        (flattened for ``axis=None``, as repeat itself does) along ``ax``; ``r`` is the one
        count of every element when the host knows it, else ``src`` (on the device) the source
        of each output position."""
        a = sig.bind(args, kwargs)
        xp, x = one_array("repeat", a["x"])
        repeats, axis = a["repeats"], a["axis"]
        if isinstance(repeats, (list, tuple)):  # host values: an array on x's device
            repeats = xp.asarray(repeats, **device_kw(x))
        ax = 0 if axis is None else axis_index("repeat", axis, x.ndim)  # checked before the call
        y = xp.repeat(x, repeats, axis=axis)
        xshape = tuple(x.shape)
        wshape = (math.prod(xshape),) if axis is None else xshape
        n, total = wshape[ax], tuple(y.shape)[ax]
        if not is_array(repeats) or math.prod(tuple(repeats.shape)) == 1:
            # one count for every element: known on the host from the shapes
            r = operator.index(repeats) if not is_array(repeats) else (total // n if n else 0)
            return xp, x, y, ax, wshape, r, None
        # counts on the device: the source of output position j is the number of cumulative
        # counts <= j (no host read of the counts)
        ends = xp.cumulative_sum(xp.reshape(repeats, (n,)))
        positions = xp.arange(total, dtype=ends.dtype, **device_kw(x))
        return xp, x, y, ax, wshape, 0, xp.searchsorted(ends, positions, side="right")

    def repeat_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, y, ax, wshape, r, src = primal(args, kwargs)
        xshape = tuple(x.shape)
        empty = math.prod(tuple(y.shape)) == 0  # host-known from the shapes
        like = output(x)  # x's shape, dtype and device, not x: the pullback must not keep x alive

        @linear_pullback("repeat", x, y, args, xp)
        def repeat_pullback(g: Any) -> Any:
            if empty:  # nothing was copied: no reshape of a zero-size cotangent (dask refuses)
                return zeros_on(xp, xshape, g.dtype, like)
            if src is None:  # the sum of each element's block of r copies
                blocks = xp.reshape(g, (*wshape[:ax], wshape[ax], r, *wshape[ax + 1 :]))
                return xp.reshape(xp.sum(blocks, axis=ax + 1), xshape)
            key = _axis_key(xp, tuple(g.shape), ax, src, like)
            zeros = zeros_on(xp, wshape, g.dtype, like)
            return xp.reshape(scatter_add(zeros, key, g), xshape)

        return y, repeat_pullback

    def repeat_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, y, ax, wshape, r, src = primal(args, kwargs)
        flatten = wshape != tuple(x.shape)

        def push(t: Any, extra: int) -> Any:
            if flatten:
                t = xp.reshape(t, lead_shape(t, extra) + wshape)
            if src is None:
                return xp.repeat(t, r, axis=ax + extra)
            return xp.take(t, src, axis=ax + extra)

        return y, pushforward("repeat", tangents, args, x, y, xp, push)

    return repeat_rrule, repeat_frule


# --- tile -----------------------------------------------------------------------------------------
def _tile_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex((r(3), (2,)), note="vector"),
        ex((r(2, 3), (2, 1)), note="matrix"),
        ex((r(2, 3), (3,)), note="fewer repetitions"),
        ex((r(3), (2, 2)), note="more repetitions"),
        ex((r(), (3,)), note="0-d"),
        ex((r(2, 3), (0, 1)), note="zero repetitions"),
        ex((r(0, 2), (2, 2)), note="zero-size"),
        ex((r(2, c=True), (2,)), note="complex"),
    ]
    if numpy:
        out += [ex((r(2, 2), 3), note="int reps")]
    return out


@standard_and_numpy(
    "tile",
    lambda x, /, repetitions: None,
    lambda x, /, reps: None,
    _tile_ex,
    linear=True,
)
def _tile_rules(sig: Signature) -> Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any, Any]:
        """``(xp, x, y, xs, rs)``: ``x``'s shape and the repetitions, both padded with leading
        ones to one length."""
        a = sig.bind(args, kwargs)
        what = "reps" if "reps" in a else "repetitions"
        xp, x = one_array("tile", a["x"])
        reps = int_tuple("tile", a[what], what)
        if any(r < 0 for r in reps):
            raise ValueError(f"tile: {what} must be non-negative, got {reps}")
        y = xp.tile(x, reps)
        d = max(len(reps), x.ndim)
        xs = (1,) * (d - x.ndim) + tuple(x.shape)
        rs = (1,) * (d - len(reps)) + reps
        return xp, x, y, xs, rs

    def tile_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, y, xs, rs = primal(args, kwargs)
        inter = tuple(v for pair in zip(rs, xs) for v in pair)  # (r0, s0, r1, s1, ...)
        empty = math.prod(tuple(y.shape)) == 0  # host-known from the shapes
        xshape = tuple(x.shape)  # the shape, not x: the pullback must not keep x alive
        like = output(x)

        @linear_pullback("tile", x, y, args, xp)
        def tile_pullback(g: Any) -> Any:
            if empty:  # nothing was copied: no reshape of a zero-size cotangent (dask refuses)
                return zeros_on(xp, xshape, g.dtype, like)
            summed = xp.sum(xp.reshape(g, inter), axis=tuple(range(0, len(inter), 2)))
            return xp.reshape(summed, xshape)

        return y, tile_pullback

    def tile_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, y, xs, rs = primal(args, kwargs)

        def push(t: Any, extra: int) -> Any:
            return xp.tile(xp.reshape(t, lead_shape(t, extra) + xs), (1,) * extra + rs)

        return y, pushforward("tile", tangents, args, x, y, xp, push)

    return tile_rrule, tile_frule
