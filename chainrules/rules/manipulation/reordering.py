"""Rules for the functions that reorder elements: the standard's ``permute_dims``, ``moveaxis``,
``flip``, ``roll``; NumPy's names and signatures for them (``transpose``, ``swapaxes``); NumPy's
``rollaxis``, ``fliplr``, ``flipud`` and ``rot90``.

Maths note
----------
Each is a permutation of the elements, ``y = P x``: the pushforward is the same function of the
tangent (its axes shifted past a chunk's leading axes), the pullback the inverse permutation:

* ``permute_dims`` & co.: ``permute_dims`` with the inverse permutation;
* ``flip``: ``flip`` on the same axes; ``roll``: ``roll`` by the negated shift (``axis=None``:
  the flattened array, rolled, in ``x``'s shape);
* NumPy's ``rollaxis``, ``fliplr``, ``flipud``, ``rot90``: gathers
  (:mod:`chainrules.rules._util.gather`).

The matrix of every ``P`` is real, so a complex cotangent is pulled back by the same map (no
conjugation); a real input takes the real part (``ProjectTo``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util.gather import axis_check, register_gather, simple_plan
from .._util.shape import *

__all__: list[str] = []  # rules only: nothing to import from here

_M = __name__


# --- permutations: permute_dims, transpose, swapaxes, moveaxis ------------------------------------
def _permute_ex(name: str) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = rng_arrays(rng)
        if name == "swapaxes":
            return [
                ex((r(2, 3), 0, 1), note="matrix"),
                ex((r(2, 3, 4), -1, 0), note="3-D"),
                ex((r(2, 2), 1, 1), note="same axis"),
                ex((r(0, 3, 1), 0, 2), note="zero-size"),
                ex((r(2, 3, c=True), 1, 0), note="complex"),
            ]
        if name == "moveaxis":
            return [
                ex((r(2, 3, 4), 0, -1), note="first to last"),
                ex((r(2, 3, 4), (0, 1), (2, 0)), note="two axes"),
                ex((r(3), 0, 0), note="vector"),
                ex((r(2, 0, 3), 1, 0), note="zero-size"),
                ex((r(2, 3, c=True), 1, 0), note="complex"),
            ]
        out = [
            ex((r(2, 3, 4), (2, 0, 1)), note="3-D"),
            ex((r(2, 3), (1, 0)), note="matrix"),
            ex((r(), ()), note="0-d"),
            ex((r(0, 3), (1, 0)), note="zero-size"),
            ex((r(2, 3, c=True), (1, 0)), note="complex"),
            ex((r(6, 7), (1, 0)), note="large"),
        ]
        if name == "transpose":
            out += [ex((r(2, 3, 4),), note="axes=None"), ex((r(2, 3), [1, 0]), note="list")]
        return out

    return make


_PERMUTE_DIMS = signature("permute_dims", lambda x, /, axes: None)
# NumPy's transpose (= np.permute_dims) reverses the axes by default
_NUMPY_TRANSPOSE = signature("transpose", lambda x, /, axes=None: None)
_SWAPAXES = signature("swapaxes", lambda x, /, axis1, axis2: None)
_MOVEAXIS = signature("moveaxis", lambda x, /, source, destination: None)


def _permutation(name: str, a: dict[str, Any], nd: int) -> tuple[int, ...]:
    """The permutation of the axes of an array of rank ``nd`` that ``name`` makes."""
    if name == "swapaxes":
        i, j = axis_index(name, a["axis1"], nd, "axis1"), axis_index(name, a["axis2"], nd, "axis2")
        perm = list(range(nd))
        perm[i], perm[j] = perm[j], perm[i]
        return tuple(perm)
    if name == "moveaxis":
        src = axis_indices(name, a["source"], nd, "source")
        dst = axis_indices(name, a["destination"], nd, "destination")
        if len(src) != len(dst):
            raise ValueError("moveaxis: source and destination must have the same number of axes")
        order = [ax for ax in range(nd) if ax not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return tuple(order)
    axes = a["axes"]
    if axes is None:
        return tuple(reversed(range(nd)))
    if len(int_tuple(name, axes, "axes")) != nd:
        raise ValueError(f"{name}: axes {axes!r} do not match an array of rank {nd}")
    return axis_indices(name, axes, nd, "axes")


def _permute_rules(sig: Signature) -> Rules:
    name = sig.name

    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        a = sig.bind(args, kwargs)
        xp, x = one_array(name, a["x"])
        perm = _permutation(name, a, x.ndim)
        if sorted(perm) != list(range(x.ndim)):
            raise ValueError(
                f"{name}: axes {perm} are not a permutation of the axes of an array of rank "
                f"{x.ndim}"
            )
        return xp, x, perm, xp.permute_dims(x, perm)

    def permute_dims_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, perm, y = primal(args, kwargs)
        inverse = tuple(perm.index(i) for i in range(len(perm)))

        @linear_pullback(name, x, y, args, xp)
        def permute_dims_pullback(g: Any) -> Any:
            return xp.permute_dims(g, inverse)

        return y, permute_dims_pullback

    def permute_dims_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, perm, y = primal(args, kwargs)

        def push(t: Any, extra: int) -> Any:
            return xp.permute_dims(t, tuple(range(extra)) + shifted(perm, extra))

        return y, pushforward(name, tangents, args, x, y, xp, push)

    return permute_dims_rrule, permute_dims_frule


register_rules(
    ("permute_dims",), _permute_rules(_PERMUTE_DIMS), _permute_ex("permute_dims"), linear=True
)
# np.permute_dims is np.transpose: NumPy's rule serves both
_V = "view"  # NumPy returns views from these
register_rules(
    ("numpy:transpose",),
    _permute_rules(_NUMPY_TRANSPOSE),
    _permute_ex("transpose"),
    kind=_V,
    linear=True,
)
register_rules(
    ("numpy:swapaxes",), _permute_rules(_SWAPAXES), _permute_ex("swapaxes"), kind=_V, linear=True
)
register_rules(
    ("moveaxis", "numpy:moveaxis"),
    _permute_rules(_MOVEAXIS),
    _permute_ex("moveaxis"),
    kind=_V,
    linear=True,
)


# --- flip -----------------------------------------------------------------------------------------
def _flip_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex((r(5),), note="vector"),
        ex((r(2, 3),), {"axis": 1}, note="axis=1"),
        ex((r(2, 3, 2),), {"axis": (0, -1)}, note="two axes"),
        ex((r(2, 3),), note="all axes"),
        ex((r(),), note="0-d"),
        ex((r(0, 2),), {"axis": 0}, note="zero-size"),
        ex((r(4, c=True),), note="complex"),
    ]
    if numpy:
        out += [ex((r(2, 3), 0), note="positional axis")]
    return out


@standard_and_numpy(
    "flip",
    lambda x, /, *, axis=None: None,
    lambda x, /, axis=None: None,
    _flip_ex,
    linear=True,
)
def _flip_rules(sig: Signature) -> Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        a = sig.bind(args, kwargs)
        xp, x = one_array("flip", a["x"])
        axes = (
            tuple(range(x.ndim)) if a["axis"] is None else axis_indices("flip", a["axis"], x.ndim)
        )
        y = xp.flip(x, axis=axes) if axes else xp.reshape(x, tuple(x.shape))
        return xp, x, axes, numpy_result(y)

    def flip_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, y = primal(args, kwargs)

        @linear_pullback("flip", x, y, args, xp)
        def flip_pullback(g: Any) -> Any:
            return xp.flip(g, axis=axes) if axes else g

        return y, flip_pullback

    def flip_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, axes, y = primal(args, kwargs)

        def push(t: Any, extra: int) -> Any:
            return xp.flip(t, axis=shifted(axes, extra)) if axes else t

        return y, pushforward("flip", tangents, args, x, y, xp, push)

    return flip_rrule, flip_frule


# --- roll -----------------------------------------------------------------------------------------
def _roll_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex((r(5), 2), note="vector"),
        ex((r(2, 3), 1), {"axis": 1}, note="axis=1"),
        ex((r(2, 3), -4), {"axis": 0}, note="negative, past the length"),
        ex((r(2, 3, 2), (1, 2)), {"axis": (0, 1)}, note="two axes"),
        ex((r(2, 3), 4), note="flattened"),
        ex((r(), 1), note="0-d"),
        ex((r(0, 2), 1), {"axis": 1}, note="zero-size"),
        ex((r(4, c=True), 1), note="complex"),
    ]
    if numpy:
        out += [ex((r(2, 3), 1, 1), note="positional axis")]
    return out


@standard_and_numpy(
    "roll",
    lambda x, /, shift, *, axis=None: None,
    lambda x, /, shift, axis=None: None,
    _roll_ex,
    linear=True,
)
def _roll_rules(sig: Signature) -> Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        a = sig.bind(args, kwargs)
        xp, x = one_array("roll", a["x"])
        shift, axis = a["shift"], a["axis"]
        shifts = int_tuple("roll", shift, "shift")
        back: Any = tuple(-s for s in shifts) if isinstance(shift, (tuple, list)) else -shifts[0]
        if axis is None:  # the flattened array, rolled, in x's shape
            n = math.prod(tuple(x.shape))
            y = xp.reshape(xp.roll(xp.reshape(x, (n,)), shift, axis=0), tuple(x.shape))
            return xp, x, shift, back, None, y
        axes: Any = (
            axis_indices("roll", axis, x.ndim, unique=False)
            if isinstance(axis, (tuple, list))
            else axis_index("roll", axis, x.ndim)
        )
        return xp, x, shift, back, axes, xp.roll(x, shift, axis=axes)

    def roll_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, _, back, axes, y = primal(args, kwargs)
        xshape = tuple(x.shape)

        @linear_pullback("roll", x, y, args, xp)
        def roll_pullback(g: Any) -> Any:
            if axes is None:
                return xp.reshape(
                    xp.roll(xp.reshape(g, (math.prod(xshape),)), back, axis=0), xshape
                )
            return xp.roll(g, back, axis=axes)

        return y, roll_pullback

    def roll_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, shift, _, axes, y = primal(args, kwargs)
        xshape = tuple(x.shape)

        def push(t: Any, extra: int) -> Any:
            if axes is None:
                lead = lead_shape(t, extra)
                flat = xp.roll(xp.reshape(t, (*lead, math.prod(xshape))), shift, axis=extra)
                return xp.reshape(flat, lead + xshape)
            ax = shifted(axes, extra) if isinstance(axes, tuple) else axes + extra
            return xp.roll(t, shift, axis=ax)

        return y, pushforward("roll", tangents, args, x, y, xp, push)

    return roll_rrule, roll_frule


# --- NumPy's rollaxis, fliplr, flipud, rot90: gathers ---------------------------------------------
def _fliplr_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(2, 3),), note="matrix"),
        ex((r(2, 3, 2),), note="3-D"),
        ex((r(2, 2, c=True),), note="complex"),
    ]


for _name in ("fliplr", "flipud"):
    register_gather(_name, simple_plan(_name, lambda m: None, {"m": "array"}), _fliplr_ex, _M)


def _rot90_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(2, 3),), note="k=1"),
        ex((r(2, 3), 3), note="k=3"),
        ex((r(2, 3, 2),), {"k": 2, "axes": (1, 2)}, note="axes"),
        ex((r(2, 2, c=True), -1), note="complex"),
    ]


register_gather(
    "rot90",
    simple_plan(
        "rot90",
        lambda m, k=1, axes=(0, 1): None,
        {"m": "array"},
        axis_check("rot90", "m", "axes", count=2),
    ),
    _rot90_ex,
    _M,
)


def _rollaxis_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(2, 3, 4), 2), note="last to front"),
        ex((r(2, 3, 4), 0, 2), note="start"),
        ex((r(2, 3, c=True), 1), note="complex"),
    ]


register_gather(
    "rollaxis",
    simple_plan(
        "rollaxis",
        lambda a, axis, start=0: None,
        {"a": "array"},
        axis_check("rollaxis", "a", bool_ok=True),
    ),
    _rollaxis_ex,
    _M,
)
