"""Rules for splitting an array: the standard's ``unstack``, and NumPy's ``split``,
``array_split``, ``hsplit``, ``vsplit`` and ``dsplit``.

Maths note
----------
Each is linear and returns a tuple of pieces of ``x``; its pullback puts the pieces' cotangents
back in place. ``unstack``'s is ``stack`` (each the other's transpose); a tuple output takes a
``Tangent`` (or a tuple) with one entry per output, and ``ZeroTangent()`` entries count as zeros.
NumPy's splits are gathers (:mod:`chainrules.rules._util.gather`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import in_dtype, unstack
from .._util.gather import axis_check, register_gather, simple_plan
from .._util.shape import *

__all__: list[str] = []  # rules only: nothing to import from here

_S = "sequence"  # registered as taking sequences, as concat and stack (its transposes) are
_M = __name__


# --- unstack: the transpose of stack --------------------------------------------------------------
def _unstack_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(3, 2),), note="rows"),
        ex((r(2, 3, 2),), {"axis": 1}, note="axis=1"),
        ex((r(2, 3),), {"axis": -1}, note="axis=-1"),
        ex((r(3),), note="to 0-d"),
        ex((r(2, 0),), note="zero-size pieces"),
        ex((r(2, 2, c=True),), note="complex"),
    ]


_UNSTACK = signature("unstack", lambda x, /, *, axis=0: None)


def _unstack(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, int, Any]:
    a = _UNSTACK.bind(args, kwargs)
    xp, x = one_array("unstack", a["x"])
    axis = axis_index("unstack", a["axis"], x.ndim)
    return xp, x, axis, unstack(xp, x, axis)


def _cast_like(xp: Any, e: Any, x: Any) -> Any:
    """A cotangent piece in ``x``'s dtype (the real part for a real ``x``)."""
    if dtype_kind(x.dtype, xp) == "f" and dtype_kind(e.dtype, xp) == "c":
        e = xp.real(e)
    return in_dtype(xp, e, x.dtype)


@register_rrule("unstack", examples=_unstack_ex, kind=_S)
def unstack_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x, axis, ys = _unstack(args, kwargs)
    project = ProjectTo(x, xp)
    piece = tuple(s for i, s in enumerate(x.shape) if i != axis)
    like = output(x)  # x's shape, dtype and device, not x: the pullback must not keep x alive

    @pullback(ys, args)
    def unstack_pullback(y_bar: tuple[Any, ...]) -> Any:
        if not project.differentiable:
            return NO
        parts = [
            zeros_on(xp, piece, like.dtype, like)
            if isinstance(e, AbstractZero)
            else _cast_like(xp, e, like)
            for e in y_bar
        ]
        return project(xp.stack(parts, axis=axis))

    return ys, unstack_pullback


@register_frule("unstack", examples=_unstack_ex, kind=_S)
def unstack_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, axis, ys = _unstack(args, kwargs)
    if not differentiable(x, xp):
        return ys, NO
    dots = tangents_in("unstack", tangents, (x,))
    if dots is None:
        return ys, ZERO
    return ys, Tangent(*unstack(xp, dots[0], axis + dots.extra), primal_type=type(ys))


# --- NumPy's split, array_split, hsplit, vsplit, dsplit: gathers (tuple outputs) ------------------
def _split_ex(name: str) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = rng_arrays(rng)
        shape = {"hsplit": (2, 4), "vsplit": (4, 2), "dsplit": (1, 2, 4)}.get(name, (4, 2))
        out = [
            ex((r(*shape), 2), note="sections"),
            ex((r(*shape), [1, 3]), note="indices"),
            ex((r(*shape, c=True), 2), note="complex"),
        ]
        if name in ("split", "array_split"):
            out.append(ex((r(2, 6), [2, 3]), {"axis": 1}, note="axis=1"))
        if name == "array_split":
            out.append(ex((r(5), 3), note="uneven"))
        return out

    return make


_split_templates: tuple[tuple[str, Callable[..., None]], ...] = (
    ("split", lambda ary, indices_or_sections, axis=0: None),
    ("array_split", lambda ary, indices_or_sections, axis=0: None),
    ("hsplit", lambda ary, indices_or_sections: None),
    ("vsplit", lambda ary, indices_or_sections: None),
    ("dsplit", lambda ary, indices_or_sections: None),
)
for _name, _template in _split_templates:
    register_gather(
        _name,
        simple_plan(_name, _template, {"ary": "array"}, axis_check(_name, "ary", bool_ok=True)),
        _split_ex(_name),
        _M,
    )
