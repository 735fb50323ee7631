"""The mode a function's rules lack, derived from the one they have (issue 28: a rule with only an
rrule or only an frule works in every engine).

Every engine needs both modes at times: torch's ``autograd.Function`` has a ``backward`` and a
``jvp``, an autograd primitive a VJP and a JVP, Keras's ``custom_gradient`` and the JAX bridge's
``mode="vjp"`` a pullback, and ``chainrules.ad`` itself a pullback for ``grad`` and a pushforward
for ``jvp``. A function registered with one rule only gets the other here (public as
``chainrules.ad.frule_from_rrule`` / ``rrule_from_frule``; the bridges' ``complete`` in
``chainrules/interop/_derived.py``, the engine's lookup in :func:`derived_rule`):

* **an frule from an rrule.** The pullback ``pb(u) = J^H u`` is linear in the cotangent ``u``;
  its transpose, the engine's ``rrule_via_ad`` of ``pb`` (traced once, at a zero cotangent),
  is ``t -> J t``. Cost: one rrule call, one traced call of its pullback and one backward pass
  through it -- the pushforward of a derived frule costs about three rrule calls.
* **an rrule from an frule.** The pushforward ``t -> J t`` is linear in the tangents; its
  transpose, by the engine's ``rrule_via_ad`` of the frule as a function of the tangents (the primal
  arguments held constant), is the pullback ``y_bar -> J^H y_bar``. Cost: one call of the
  function itself for the value, and for each pullback call one traced frule call and one
  backward pass.

Both need the rule's own pullback (pushforward) to be written with functions that have rules,
which is what a Hessian needs of every rule already. A derived rrule takes its value from the
function itself (an frule need not accept zero markers for its whole tangent).

Arguments and results are pytrees (``chainrules.core.pytree``: tuples, lists, named tuples and
dicts, nested). Every floating or complex array leaf of a positional argument is differentiated,
wherever it sits: a container argument's tangent and cotangent are structural, as the bridges
build and read them (``core.calls``: ``Split.tangents`` and ``Split.cotangents``; a ``Tangent``
indexed like a tuple or named tuple, a ``Tangent`` of named fields for a dict with string keys,
a plain dict otherwise), and a container result's are the result's own structure (a tuple, list,
named tuple or dict of leaves). Keywords, integers and axes get ``NoTangent()`` (the bridges move
a keyword argument holding an array to its position first: ``core.calls.bind_keywords``).

The tangents and cotangents are plain, with no chunk axes; the engine's forward trace pushes a
chunk of tangents (``(*chunk, *x.shape)``, one tangent per row), which :func:`derived_rule`'s
frule takes one row at a time -- a loop over the chunk's static size, stacked back (no value is
read on the host). A registered frule takes the chunk in one call, so registering both modes
stays the fast way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..core.calls import Split, output_leaves, split, tangent_output_leaves
from ..core.namespaces import dtype_kind, is_array, namespace_of
from ..core.registry import find_frule, find_rrule
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._config import AD_CONFIG

__all__ = ["derived_rule", "frule_from_rrule", "rrule_from_frule"]

_NO = NoTangent()
_ZERO = ZeroTangent()


def derived_rule(kind: str, fn: Any) -> Callable[..., Any] | None:
    """``fn``'s ``kind`` rule (``"rrule"`` or ``"frule"``) derived from its registered rule of the
    other mode; ``None`` when it has neither."""
    if kind == "rrule":
        frule = find_frule(fn)
        return None if frule is None else rrule_from_frule(frule, fn)
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
        columns = [tangent_output_leaves(d, len(ys), y) for d in dots]
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


def _inexact(v: Any) -> bool:
    return is_array(v) and dtype_kind(v.dtype, namespace_of(v)) in "fc"


def _zeros_like(v: Any) -> Any:
    return namespace_of(v).zeros_like(v)


def _leaves(sp: Split, per_arg: Any, args: tuple[Any, ...]) -> list[Any]:
    """``(f_part, *arg_parts)`` -- the tangents a bridge passes or the cotangents a pullback
    returns, structural for container arguments -- as one entry per leaf of ``args``, forced
    (``None`` for a zero); missing trailing entries are zeros."""
    per_arg = tuple(per_arg) + (_ZERO,) * (len(args) + 1 - len(per_arg))
    return [None if v is None else unthunk(v) for v in sp.cotangents(per_arg, args)]


def frule_from_rrule(rrule: Callable[..., Any]) -> Callable[..., Any]:
    """An frule whose pushforward is the transpose of ``rrule``'s pullback."""

    def derived_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        y, pullback = rrule(*args, **kwargs)
        sp = split(args, {}, _inexact)  # the floating array leaves, wherever they sit
        leaf_t = _leaves(sp, tangents, args)
        live = [i for i in sp.dynamic if is_array(leaf_t[i])]  # a tangent, not a zero marker
        ys, rebuild = output_leaves(y)
        outs = [k for k, v in enumerate(ys) if _inexact(v)]
        if not live or not outs:
            return y, _ZERO

        def transposed(*us: Any) -> tuple[Any, ...]:
            full: list[Any] = [_ZERO] * len(ys)
            for k, u in zip(outs, us, strict=True):
                full[k] = u
            bars = _leaves(sp, pullback(rebuild(full)), args)
            return tuple(_zeros_like(sp.leaves[i]) if bars[i] is None else bars[i] for i in live)

        _, back = AD_CONFIG.rrule_via_ad(transposed, *(_zeros_like(ys[k]) for k in outs))
        pushed = back(tuple(leaf_t[i] for i in live))[1:]
        full_dot: list[Any] = [_ZERO] * len(ys)
        for k, v in zip(outs, pushed, strict=True):
            full_dot[k] = v
        return y, rebuild(full_dot)

    return derived_frule


def rrule_from_frule(frule: Callable[..., Any], f: Callable[..., Any]) -> Callable[..., Any]:
    """An rrule of ``f`` whose pullback is the transpose of ``frule``'s pushforward."""

    def derived_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        n = len(args)
        y = f(*args, **kwargs)
        sp = split(args, {}, _inexact)  # the floating array leaves, wherever they sit
        live = sp.dynamic
        ys, _ = output_leaves(y)

        def pushforward(*ts: Any) -> tuple[Any, ...]:
            tangents = sp.tangents(dict(zip(live, ts, strict=True)), _NO)
            _, y_dot = frule((_NO, *tangents), *args, **kwargs)
            dots = tangent_output_leaves(y_dot, len(ys), y)
            return tuple(_zeros_like(v) if d is None else d for v, d in zip(ys, dots, strict=True))

        def derived_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not live:
                return (_NO, *([_NO] * n))
            bars = [
                _zeros_like(v) if b is None else b
                for v, b in zip(ys, tangent_output_leaves(y_bar, len(ys), y), strict=True)
            ]
            _, back = AD_CONFIG.rrule_via_ad(
                pushforward, *(_zeros_like(sp.leaves[i]) for i in live)
            )
            bars_in = back(tuple(bars))[1:]
            return (_NO, *sp.tangents(dict(zip(live, bars_in, strict=True)), _NO))

        return y, derived_pullback

    return derived_rrule
