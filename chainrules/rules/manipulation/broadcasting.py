"""Rules for broadcasting: the standard's ``broadcast_to`` and ``broadcast_arrays``, with
NumPy's signatures of the two.

Maths note
----------
``y = broadcast_to(x, shape)`` copies each element of ``x`` along the broadcast axes: the
pushforward broadcasts the tangent (behind a chunk's leading axes), the pullback sums the
cotangent over the broadcast axes (``keepdims``) and reshapes it to ``x``'s shape. A tuple output
(``broadcast_arrays``) takes a ``Tangent`` (or a tuple) with one entry per output, and
``ZeroTangent()`` entries count as zeros. NumPy's ``subok=True`` is refused with a ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util.shape import *

__all__: list[str] = []  # rules only: nothing to import from here

_S = "sequence"  # broadcast_arrays takes its arrays as separate arguments and returns a tuple


def _no_subok(name: str, subok: Any) -> None:
    if subok:
        raise TypeError(f"{name}: the rule does not support subok=True")


# --- broadcast_to ---------------------------------------------------------------------------------
def _unbroadcast(xp: Any, g: Any, xshape: tuple[int, ...]) -> Any:
    """The transpose of ``broadcast_to(x, g.shape)``: ``g`` summed over the axes ``x`` was
    broadcast along, in ``x``'s shape."""
    gshape = tuple(g.shape)
    lead = len(gshape) - len(xshape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(xshape) if n == 1 and gshape[lead + i] != 1
    )
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    return xp.reshape(g, xshape) if tuple(g.shape) != xshape else g


def _broadcast_tangent(xp: Any, t: Any, extra: int, xshape: tuple, yshape: tuple) -> Any:
    """``broadcast_to`` of a tangent with ``extra`` leading chunk axes to ``yshape``."""
    lead = lead_shape(t, extra)
    new = len(yshape) - len(xshape)
    if extra and new:
        t = xp.reshape(t, lead + (1,) * new + xshape)
    return xp.broadcast_to(t, lead + yshape)


def _broadcast_to_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex((r(3), (2, 3)), note="new leading axis"),
        ex((r(2, 1), (2, 4)), note="length-1 axis"),
        ex((r(1, 3, 1), (2, 2, 3, 4)), note="both"),
        ex((r(), (2, 3)), note="0-d"),
        ex((r(1, 3), (0, 3)), note="to zero-size"),
        ex((r(3), (3,)), note="same shape"),
        ex((r(2, 1, c=True), (2, 3)), note="complex"),
    ]
    if numpy:
        out += [ex((r(1), 4), note="int shape")]
    return out


@standard_and_numpy(
    "broadcast_to",
    lambda x, /, shape: None,
    lambda x, /, shape, subok=None: None,
    _broadcast_to_ex,
    linear=True,
)
def _broadcast_to_rules(sig: Signature) -> Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        a = sig.bind(args, kwargs)
        _no_subok("broadcast_to", a.get("subok"))
        xp, x = one_array("broadcast_to", a["x"])
        shape = int_tuple("broadcast_to", a["shape"], "shape")
        return xp, x, shape, xp.broadcast_to(x, shape)

    def broadcast_to_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, _, y = primal(args, kwargs)
        xshape = tuple(x.shape)  # the shape, not x: the pullback must not keep x alive

        @linear_pullback("broadcast_to", x, y, args, xp)
        def broadcast_to_pullback(g: Any) -> Any:
            return _unbroadcast(xp, g, xshape)

        return y, broadcast_to_pullback

    def broadcast_to_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, shape, y = primal(args, kwargs)

        def push(t: Any, extra: int) -> Any:
            return _broadcast_tangent(xp, t, extra, tuple(x.shape), shape)

        return y, pushforward("broadcast_to", tangents, args, x, y, xp, push)

    return broadcast_to_rrule, broadcast_to_frule


# --- broadcast_arrays -----------------------------------------------------------------------------
def _broadcast_arrays_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    """The same examples for both: NumPy's ``subok`` takes only its default."""
    r = rng_arrays(rng)
    return [
        ex((r(3), r(2, 1)), note="two"),
        ex((r(2, 3), r(), r(1, 3)), note="three with 0-d"),
        ex((r(0, 1), r(3)), note="zero-size"),
        ex((r(2, 2),), note="one"),
        ex((r(2, 1, c=True), r(3, c=True)), note="complex"),
    ]


@standard_and_numpy(
    "broadcast_arrays",
    lambda *arrays: None,
    lambda *arrays, subok=None: None,
    _broadcast_arrays_ex,
    kind=_S,
)
def _broadcast_arrays_rules(sig: Signature) -> Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
        a = sig.bind(args, kwargs)
        _no_subok("broadcast_arrays", a.get("subok"))
        if not args:
            raise TypeError("broadcast_arrays needs at least one array")
        xp = namespace_of(*args, fname="broadcast_arrays")
        arrays = tuple(to_array(xp, v) for v in args)
        return xp, arrays, xp.broadcast_arrays(*arrays)

    def broadcast_arrays_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, ys = primal(args, kwargs)
        projects = [ProjectTo(v, xp) for v in arrays]
        yprojects = [ProjectTo(y, xp) for y in ys]
        shapes = [tuple(v.shape) for v in arrays]  # not the arrays: the pullback must not keep them

        @pullback(ys, args)
        def broadcast_arrays_pullback(y_bar: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(
                NO
                if not p.differentiable
                else ZERO
                if isinstance(e, AbstractZero)
                else p(_unbroadcast(xp, py(e), shape))
                for e, shape, p, py in zip(y_bar, shapes, projects, yprojects)
            )

        return ys, broadcast_arrays_pullback

    def broadcast_arrays_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, ys = primal(args, kwargs)
        zero = ZERO if any(differentiable(v, xp) for v in arrays) else NO
        dots = tangents_in("broadcast_arrays", tangents, arrays)
        if dots is None:
            return ys, zero
        out = [
            NO
            if not differentiable(v, xp)
            else ZERO
            if isinstance(t, AbstractZero)
            else _broadcast_tangent(xp, t, dots.extra, tuple(v.shape), tuple(y.shape))
            for t, v, y in zip(dots, arrays, ys)
        ]
        if all(isinstance(o, AbstractZero) for o in out):
            return ys, zero
        return ys, Tangent(*out, primal_type=type(ys))

    return broadcast_arrays_rrule, broadcast_arrays_frule
