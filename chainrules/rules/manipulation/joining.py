"""Rules for joining arrays: the standard's ``concat`` and ``stack``, NumPy's names and
signatures for them (``concatenate``), and NumPy's ``vstack``, ``hstack``, ``dstack``,
``column_stack``, ``row_stack`` and ``block``.

Maths note
----------
Each is linear, and its pullback cuts the cotangent back into the arrays joined:

* ``concat``: slices of ``y_bar`` (``operator.getitem``), one per array (``axis=None``: slices of
  the flat cotangent, reshaped);
* ``stack``: ``unstack`` of ``y_bar`` (each the other's transpose);
* NumPy's ``vstack`` & co. and ``block``: gathers (:mod:`chainrules.rules._util.gather`).

The cotangent of a tuple or list argument is a ``Tangent`` that indexes like that sequence;
``ZeroTangent()`` entries of a tangent count as zeros. NumPy's ``out=`` and ``dtype=``, and a
``casting=`` other than ``"same_kind"``, are refused with a ``TypeError``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core import TangentsIn
from ...core.namespaces import SequenceExpectedError
from ...core.prelude import *
from ...core.toolkit import tuple_entries
from .._util import along, in_dtype, unstack
from .._util.gather import register_gather, simple_plan
from .._util.shape import *

__all__: list[str] = []  # rules only: nothing to import from here

_S = "sequence"  # these take their arrays as one sequence argument
_M = __name__

# concat's and stack's signatures, the standard's and NumPy's
_JOINING = (
    lambda arrays, /, *, axis=0: None,
    lambda arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind": None,
)


def _no_dtype(name: str, a: dict[str, Any]) -> None:
    if a.get("dtype") is not None:
        raise TypeError(f"{name}: the rule does not support dtype= (cast the result instead)")
    if a.get("casting", "same_kind") != "same_kind":
        raise TypeError(f"{name}: the rule does not support casting={a['casting']!r}")


def _no_dtype_check(name: str) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    """:func:`_no_dtype` as a ``prepare`` of :func:`simple_plan` (the gathers' checks)."""

    def check(a: dict[str, Any], ikw: dict[str, Any]) -> None:
        _no_dtype(name, a)

    return check


# --- concat, stack: several arrays, one sequence argument -----------------------------------------
def _elements(name: str, bar: Any, n: int) -> tuple[Any, ...]:
    """The entries of a structural tangent of ``n`` arrays (a ``Tangent`` or a tuple)."""
    return tuple_entries(name, bar.elements() if isinstance(bar, Tangent) else bar, n, None)


def _sequence(name: str, arrays: Any) -> tuple[Any, Any]:
    """``(xp, arrays)`` of a sequence argument, each element an array of ``xp``."""
    if is_array(arrays) or not isinstance(arrays, (tuple, list)):
        error = SequenceExpectedError if is_array(arrays) else TypeError
        raise error(f"{name}: expected a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{name}: needs at least one array")
    xp = namespace_of(*arrays, fname=name)
    return xp, type(arrays)(to_array(xp, a) for a in arrays)


def _sequence_tangents(
    name: str, xp: Any, tangents: Sequence[Any], arrays: Sequence[Any], dtype: Any
) -> tuple[list[Any], int] | None:
    """The tangents of a sequence argument (its tangent is a ``Tangent`` or a tuple, one entry
    per array: the local step before ``tangents_in``), zeros filled in, in ``dtype``, and their
    number of leading chunk axes; ``None`` when all are zero."""
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero):
        return None
    dots: TangentsIn | None = tangents_in(name, (NO, *_elements(name, t, len(arrays))), arrays)
    if dots is None:
        return None
    lead = dots.lead()
    out = [
        zeros_on(xp, lead + tuple(a.shape), dtype, a)
        if isinstance(d, AbstractZero)
        else in_dtype(xp, d, dtype)
        for d, a in zip(dots, arrays)
    ]
    return out, dots.extra


def _concat_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex(((r(2), r(3)),), note="vectors"),
        ex(((r(2, 3), r(1, 3), r(4, 3)),), {"axis": 0}, note="rows"),
        ex(([r(2, 1), r(2, 3)],), {"axis": -1}, note="list, columns"),
        ex(((r(2, 2), r(3)),), {"axis": None}, note="axis=None flattens"),
        ex(((r(), r()),), {"axis": None}, note="0-d, axis=None"),
        ex(((r(0, 2), r(2, 2)),), note="zero-size"),
        ex(((r(2),),), note="one array"),
        ex(((r(2, c=True), r(1, c=True)),), note="complex"),
        ex(((r(20, 2), r(20, 2)),), {"axis": 1}, note="large"),
    ]
    if numpy:
        out += [ex(((r(2, 2), r(2, 1)), 1), note="positional axis")]
    return out


# np.concat is np.concatenate: NumPy's rule serves both
@standard_and_numpy(
    "concat",
    *_JOINING,
    _concat_ex,
    numpy_name="concatenate",
    kind=_S,
)
def _concat_rules(sig: Signature) -> Rules:
    name = sig.name

    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        """``(xp, arrays, axis, y)``; ``axis`` None: the arrays flattened."""
        a = sig.bind(args, kwargs)
        _no_dtype(name, a)
        xp, arrays = _sequence(name, a["arrays"])
        axis = a["axis"]
        if axis is None:
            flat = [xp.reshape(v, (math.prod(v.shape),)) for v in arrays]
            return xp, arrays, None, xp.concat(flat, axis=0)
        ndims = {v.ndim for v in arrays}
        if len(ndims) != 1 or 0 in ndims:
            raise ValueError(f"{name}: the arrays must have one rank >= 1, got ranks {ndims}")
        axis = axis_index(name, axis, ndims.pop())
        return xp, arrays, axis, xp.concat(list(arrays), axis=axis)

    def concat_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = primal(args, kwargs)
        projects = [ProjectTo(v, xp) for v in arrays]
        project_y = ProjectTo(y, xp)
        sizes = [math.prod(v.shape) if axis is None else v.shape[axis] for v in arrays]
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        kind, rest = type(arrays), (NO,) * (len(args) - 1)
        shapes = [tuple(v.shape) for v in arrays]  # not the arrays: the pullback must not keep them

        @pullback(y, args, name=name)
        def concat_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project_y.differentiable:
                return (Tangent(*(NO for _ in shapes), primal_type=kind), *rest)
            g = project_y(y_bar)
            parts = []
            for shape, p, s, n in zip(shapes, projects, starts, sizes):
                if axis is None:  # a slice of the flat cotangent, in the array's shape
                    piece = xp.reshape(g[s : s + n], shape)
                else:
                    piece = g[along(axis, slice(s, s + n))]
                parts.append(p(piece))
            return (Tangent(*parts, primal_type=kind), *rest)

        return y, concat_pullback

    def concat_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = primal(args, kwargs)
        if not differentiable(y, xp):
            return y, NO
        dots = _sequence_tangents(name, xp, tangents, arrays, y.dtype)
        if dots is None:
            return y, ZERO
        ts, extra = dots
        if axis is None:
            flat = [
                xp.reshape(t, (*lead_shape(t, extra), math.prod(v.shape)))
                for t, v in zip(ts, arrays)
            ]
            return y, xp.concat(flat, axis=extra)
        return y, xp.concat(ts, axis=axis + extra)

    return concat_rrule, concat_frule


def _stack_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex(((r(3), r(3)),), note="vectors"),
        ex(([r(2, 3), r(2, 3), r(2, 3)],), {"axis": 1}, note="list, axis=1"),
        ex(((r(2, 3), r(2, 3)),), {"axis": -1}, note="axis=-1"),
        ex(((r(), r()),), note="0-d"),
        ex(((r(0, 2), r(0, 2)),), note="zero-size"),
        ex(((r(2),),), note="one array"),
        ex(((r(2, c=True), r(2, c=True)),), note="complex"),
    ]
    if numpy:
        out += [ex(((r(2), r(2)), 1), note="positional axis")]
    return out


@standard_and_numpy(
    "stack",
    *_JOINING,
    _stack_ex,
    kind=_S,
)
def _stack_rules(sig: Signature) -> Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        a = sig.bind(args, kwargs)
        _no_dtype("stack", a)
        xp, arrays = _sequence("stack", a["arrays"])
        shapes = {tuple(v.shape) for v in arrays}
        if len(shapes) != 1:
            raise ValueError(f"stack: the arrays must have one shape, got {sorted(shapes)}")
        axis = axis_index("stack", a["axis"], arrays[0].ndim + 1)
        return xp, arrays, axis, xp.stack(list(arrays), axis=axis)

    def stack_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = primal(args, kwargs)
        projects = [ProjectTo(v, xp) for v in arrays]
        project_y = ProjectTo(y, xp)
        kind, rest = type(arrays), (NO,) * (len(args) - 1)

        @pullback(y, args)
        def stack_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project_y.differentiable:
                return (Tangent(*(NO for _ in projects), primal_type=kind), *rest)
            parts = unstack(xp, project_y(y_bar), axis)
            return (Tangent(*(p(e) for p, e in zip(projects, parts)), primal_type=kind), *rest)

        return y, stack_pullback

    def stack_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = primal(args, kwargs)
        if not differentiable(y, xp):
            return y, NO
        dots = _sequence_tangents("stack", xp, tangents, arrays, y.dtype)
        if dots is None:
            return y, ZERO
        ts, extra = dots
        return y, xp.stack(ts, axis=axis + extra)

    return stack_rrule, stack_frule


# --- NumPy's vstack, hstack, dstack, column_stack, row_stack, block: gathers ----------------------
def _vstack_ex(name: str) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = rng_arrays(rng)
        out = [
            ex(((r(3), r(3)),), note="vectors"),
            ex(([r(2, 3), r(1, 3)],), note="list of matrices"),
            ex(((r(2), r(2, c=True)),), note="complex"),
        ]
        if name in ("hstack", "dstack", "column_stack"):
            out[1] = ex(([r(2, 3), r(2, 1)],), note="list of matrices")
        if name == "dstack":
            out[1] = ex(([r(2, 3), r(2, 3, 2)],), note="list of matrices")
        return out

    return make


for _name, _template, _with in (
    ("vstack", lambda tup, *, dtype=None, casting="same_kind": None, None),
    ("hstack", lambda tup, *, dtype=None, casting="same_kind": None, None),
    ("dstack", lambda tup: None, None),
    ("column_stack", lambda tup: None, None),
    # NumPy documents row_stack as vstack's alias (deprecated in NumPy 2.0; jax.numpy has none)
    ("row_stack", lambda tup, *, dtype=None, casting="same_kind": None, "vstack"),
):
    register_gather(
        _name,
        simple_plan(
            _name, _template, {"tup": "sequence"}, _no_dtype_check(_name), computes_with=_with
        ),
        _vstack_ex(_name),
        _M,
        kind="sequence",
    )


def _block_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex(([r(2), r(3)],), note="one level"),
        # nested lists: the testers take a list of lists as opaque; a hand test checks them
        ex(([r(2, c=True), r(1, c=True)],), note="complex"),
    ]


register_gather(
    "block", simple_plan("block", lambda arrays: None, {"arrays": "sequence"}),
    _block_ex, _M, kind="sequence",
)  # fmt: skip
