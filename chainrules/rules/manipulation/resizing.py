"""Rules for NumPy's functions that add or remove elements: ``append``, ``insert``, ``delete``,
``pad``, ``resize`` and ``trim_zeros``.

Maths note
----------
Every one is a gather (:mod:`chainrules.rules._util.gather`): an output element is a copy of an
input element or a constant (``pad``'s ``constant_values``), so the pullback is one
``scatter_add`` of the cotangent at the elements' sources (an element read ``k`` times --
``pad``'s edges, ``resize``'s cycles -- accumulates its ``k`` cotangents) and the pushforward one
``take``. ``delete`` with an index array or a mask and ``trim_zeros`` have data-dependent output
shapes: they synchronise once, in the primal (``trim_zeros`` finds its first kept position with an
``argmax`` on the device).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import axis_ints
from .._util.gather import (
    Gather,
    Source,
    axis_check,
    function,
    namespace,
    position,
    register_gather,
    simple_plan,
)
from .._util.shape import *

__all__: list[str] = []  # rules only: nothing to import from here

_M = __name__


# --- append ---------------------------------------------------------------------------------------
def _append_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(2, 2), r(3)), note="flattened"),
        ex((r(2, 2), r(1, 2)), {"axis": 0}, note="axis=0"),
        ex((r(3), 1.5), note="Python float"),
        ex((r(2, c=True), r(1, c=True)), note="complex"),
    ]


register_gather(
    "append",
    simple_plan(
        "append",
        lambda arr, values, axis=None: None,
        {"arr": "array", "values": "array"},
        axis_check("append", "arr"),
    ),
    _append_ex,
    _M,
)


# --- pad ------------------------------------------------------------------------------------------
_PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


def _pad_prepare(a: dict[str, Any], ikw: dict[str, Any]) -> None:
    mode, options = a["mode"], a["kwargs"]
    if mode not in _PAD_MODES:
        raise NotImplementedError(
            f"pad: the rule supports mode= {', '.join(map(repr, _PAD_MODES))} (gathers); got "
            f"mode={mode!r} ('empty' has undefined values; the statistic and ramp modes and "
            "callables are not gathers)"
        )
    if options.get("reflect_type", "even") != "even":
        raise NotImplementedError(
            "pad: the rule supports reflect_type='even' only (the 'odd' reflection is "
            "2 * edge - mirror, not a gather)"
        )
    if mode == "constant":  # the padding reads no element: position 0, the constants' slot
        ikw["constant_values"] = 0


def _pad_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(3), 2), note="constant"),
        ex((r(2, 3), ((1, 0), (0, 2))), {"constant_values": 1.5}, note="constant_values"),
        ex((r(3), (2, 3), "edge"), note="edge"),
        ex((r(2, 3), 2), {"mode": "wrap"}, note="wrap, past the length"),
        ex((r(4), (3, 2)), {"mode": "reflect"}, note="reflect"),
        ex((r(2, 3), 1), {"mode": "symmetric"}, note="symmetric"),
        ex((r(3, c=True), 1), {"mode": "reflect"}, note="complex"),
    ]


register_gather(
    "pad",
    simple_plan(
        "pad",
        lambda array, pad_width, mode="constant", **kwargs: None,
        {"array": "array"},
        _pad_prepare,
    ),
    _pad_ex,
    _M,
)


# --- resize, delete, insert -----------------------------------------------------------------------
def _resize_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(2, 2), (3, 3)), note="repeats"),
        ex((r(6), 4), note="shorter"),
        ex((r(3, c=True), (2, 4)), note="complex"),
    ]


register_gather(
    "resize",
    simple_plan("resize", lambda a, new_shape: None, {"a": "array"}),
    _resize_ex,
    _M,
)


def _delete_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(5), 1), note="int"),
        ex((r(3, 4), np.array([0, 2])), {"axis": 1}, note="index array"),
        ex((r(2, 3), slice(0, 2)), {"axis": 0}, note="slice"),
        ex((r(4, c=True), np.array([True, False, False, True])), note="mask, complex"),
    ]


_DELETE_JIT = (
    Expect(
        "jit",
        "jax.numpy.delete needs a concrete index array (its output shape depends on it)",
        kind="skip",
        example="index array",
    ),
    Expect("jit", "jax.numpy.delete needs a concrete mask", kind="skip", example="mask"),
)

register_gather(
    "delete",
    simple_plan(
        "delete",
        lambda arr, obj, axis=None, **library_options: None,
        {"arr": "array"},
        axis_check("delete", "arr", bool_ok=True),
        from_src=True,
    ),
    _delete_ex,
    _M,
    _DELETE_JIT,
)


def _insert_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(4), 1, r(2)), note="flattened"),
        ex((r(2, 3), np.array([0, 2]), r(2, 2)), {"axis": 1}, note="two columns"),
        ex((r(2, 2), 1, r(1, 2)), {"axis": 0}, note="broadcast values"),
        ex((r(3, c=True), 3, r(1, c=True)), note="complex"),
    ]


register_gather(
    "insert",
    simple_plan(
        "insert",
        lambda arr, obj, values, axis=None: None,
        {"arr": "array", "values": "array"},
        axis_check("insert", "arr", bool_ok=True),
    ),
    _insert_ex,
    _M,
)


# --- trim_zeros: a box of the array, its start found on the device --------------------------------
_TRIM_ZEROS = signature("trim_zeros", lambda filt, trim="fb", axis=None: None)


def _trim_zeros_plan(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Gather:
    a = _TRIM_ZEROS.bind(args, kwargs)
    filt, trim, axis = a["filt"], a["trim"], a["axis"]
    xp, like = namespace("trim_zeros", [filt])
    if axis is not None:  # NumPy takes True as 1
        axis = axis_ints(axis, "trim_zeros", ndim=getattr(filt, "ndim", None), bool_ok=True)
    y = function(fn, "trim_zeros", like, xp)(*args, **kwargs)  # syncs: its shape is data
    shape = tuple(filt.shape)
    nd = len(shape)
    axes = range(nd) if axis is None else [v % nd for v in axis]
    nz = filt != 0
    flat: Any = 0
    for d in range(nd):
        m = y.shape[d]
        pos = xp.arange(m, **device_kw(like))
        if d in axes and "f" in str(trim).lower() and m:
            other = tuple(i for i in range(nd) if i != d)
            row = xp.any(nz, axis=other) if other else nz
            first = xp.argmax(xp.astype(row, xp.int8))  # the first nonzero hyperplane
            pos = pos + xp.astype(first, pos.dtype)
        s = [1] * nd
        s[d] = m
        stride = math.prod(shape[d + 1 :])
        flat = flat + xp.reshape(pos * stride, tuple(s))  # host ints and device starts
    src = xp.broadcast_to(flat + 1, tuple(y.shape))
    return Gather(xp, y, src, (Source(filt, position(args, 0)),))


def _trim_zeros_ex(rng: np.random.Generator) -> list[Any]:
    # finite differences move a trimmed zero off zero (the output shape changes), so the
    # generated checks keep interior zeros only; hand tests check the trimming itself
    r = rng_arrays(rng)
    return [
        ex((np.array([1.5, 0.0, -2.0, 3.0]),), note="interior zero"),
        ex((np.array([1.5, -2.0, 0.5]), "b"), note="back"),
        ex((r(2, 3),), {"axis": 1}, note="2-D"),
        ex((np.array([1.0 + 2.0j, 0.0, 1.0]),), note="complex"),
    ]


register_gather(
    "trim_zeros",
    _trim_zeros_plan,
    _trim_zeros_ex,
    _M,
    (Expect("jit", "jax.numpy.trim_zeros has a data-dependent output shape", kind="skip"),),
)
