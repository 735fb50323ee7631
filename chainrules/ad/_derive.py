"""The mode a function's rules lack, derived for chainrules.ad's own traces (issue 28: a rule with
only an rrule or only an frule works in every engine, this one included).

The derivations are the bridges' (:mod:`chainrules.interop._derived`): an rrule from an frule
transposes its pushforward, an frule from an rrule transposes its pullback, each with
``chainrules.ad.vjp``. What the engine adds is its forward trace's chunks: a pushforward here gets
tangents with leading chunk axes (``(*chunk, *x.shape)``, one tangent per row), which the derived
frule takes one row at a time -- a loop over the chunk's static size, stacked back (no value is
read on the host). A derived pushforward costs about three rrule calls per row; a registered
frule costs one call for the whole chunk, so registering both modes stays the fast way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..core.calls import output_leaves
from ..core.namespaces import is_array, namespace_of
from ..core.registry import find_frule, find_rrule
from ..core.tangents import AbstractZero, ZeroTangent, unthunk

__all__ = ["derived_rule"]

_ZERO = ZeroTangent()


def derived_rule(kind: str, fn: Any) -> Callable[..., Any] | None:
    """``fn``'s ``kind`` rule (``"rrule"`` or ``"frule"``) derived from its registered rule of the
    other mode; ``None`` when it has neither."""
    from ..interop._derived import frule_from_rrule, rrule_from_frule

    if kind == "rrule":
        frule = find_frule(fn)
        return None if frule is None else rrule_from_frule(frule)
    rrule = find_rrule(fn)
    return None if rrule is None else _by_rows(frule_from_rrule(rrule))


def _chunk(tangents: tuple[Any, ...], args: tuple[Any, ...]) -> tuple[int, ...]:
    """The leading chunk axes of the tangents (``()`` for plain tangents)."""
    for t, a in zip(tangents[1:], args, strict=False):
        t = unthunk(t)
        if is_array(t) and is_array(a) and t.ndim > a.ndim:
            return tuple(t.shape[: t.ndim - a.ndim])
    return ()


def _by_rows(frule: Callable[..., Any]) -> Callable[..., Any]:
    """``frule`` (which takes one tangent per argument) applied to each row of a chunk."""

    def chunked_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        chunk = _chunk(tangents, args)
        if not chunk:
            return frule(tangents, *args, **kwargs)
        n = math.prod(chunk)
        flat = [_rows(unthunk(t), a, n) for t, a in zip(tangents[1:], args, strict=False)]
        y: Any = None
        dots: list[Any] = []
        for i in range(n):
            row = tuple(t if isinstance(t, AbstractZero) or not is_array(t) else t[i] for t in flat)
            y, dot = frule((tangents[0], *row, *tangents[1 + len(flat) :]), *args, **kwargs)
            dots.append(unthunk(dot))
        if all(isinstance(d, AbstractZero) for d in dots):
            return y, _ZERO
        ys, rebuild = output_leaves(y)
        columns = [_leaves(d, len(ys)) for d in dots]
        stacked = []
        for k, leaf in enumerate(ys):
            xp = namespace_of(leaf)
            parts = [xp.zeros_like(leaf) if c[k] is None else c[k] for c in columns]
            stacked.append(xp.reshape(xp.stack(parts), chunk + tuple(leaf.shape)))
        return y, (stacked[0] if len(ys) == 1 and ys[0] is y else rebuild(stacked))

    return chunked_frule


def _rows(t: Any, a: Any, n: int) -> Any:
    """A chunked tangent as ``n`` rows of ``a``'s shape (a zero, or a non-array, as it is)."""
    if isinstance(t, AbstractZero) or not is_array(t) or not is_array(a):
        return t
    return namespace_of(t).reshape(t, (n, *a.shape))


def _leaves(dot: Any, n: int) -> list[Any]:
    """A pushforward's ``n`` output leaves, ``None`` for a zero."""
    if isinstance(dot, AbstractZero):
        return [None] * n
    if n == 1 and not isinstance(dot, (tuple, list)):
        return [dot]
    leaves, _ = output_leaves(dot)
    return [None if isinstance(unthunk(d), AbstractZero) else unthunk(d) for d in leaves]
