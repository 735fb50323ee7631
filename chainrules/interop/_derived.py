"""The mode a function's rules lack, derived from the one they have (issue 28: every bridge takes
every rule).

A bridge needs both modes: torch's ``autograd.Function`` has a ``backward`` and a ``jvp``, an
autograd primitive a VJP and a JVP, Keras's ``custom_gradient`` and the JAX bridge's
``mode="vjp"`` a pullback. A function registered with one rule only gets the other here:

* **an frule from an rrule.** The pullback ``pb(u) = J^H u`` is linear in the cotangent ``u``;
  its transpose, taken by ``chainrules.ad.vjp`` of ``pb`` (traced once, at a zero cotangent), is
  ``t -> J t``. Cost: one rrule call, one traced call of its pullback and one backward pass
  through it -- the pushforward of a derived frule costs about three rrule calls.
* **an rrule from an frule.** The pushforward ``t -> J t`` is linear in the tangents; its
  transpose, by ``chainrules.ad.vjp`` of the frule as a function of the tangents (the primal
  arguments held constant), is the pullback ``y_bar -> J^H y_bar``. Cost: one call of the
  function itself for the value (not of the frule: an frule need not accept zero markers for
  its whole tangent), and for each pullback call one traced frule call and one backward pass.

Both need the rule's own pullback (pushforward) to be written with functions that have rules,
which is what a Hessian needs of every rule already.

Arguments and results are pytrees (``chainrules.core.pytree``: tuples, lists, named tuples and
dicts, nested). Every floating or complex array leaf of a positional argument is differentiated,
wherever it sits: a container argument's tangent and cotangent are structural, as the bridges
build and read them (``core.calls``: ``Split.tangents`` and ``Split.cotangents``; a ``Tangent``
indexed like a tuple or named tuple, a ``Tangent`` of named fields for a dict with string keys,
a plain dict otherwise), and a container result's are the result's own structure (a tuple, list,
named tuple or dict of leaves). Keywords, integers and axes get ``NoTangent()`` (the bridges move
a keyword argument holding an array to its position first: ``core.calls.bind_keywords``). The
tangents and cotangents are the bridge's plain ones, with no chunk axes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..core.calls import Rules, Split, output_leaves, split, tangent_output_leaves
from ..core.namespaces import dtype_kind, is_array, namespace_of
from ..core.tangents import NoTangent, ZeroTangent, unthunk

__all__ = ["complete", "frule_from_rrule", "rrule_from_frule"]

_NO = NoTangent()
_ZERO = ZeroTangent()


def complete(rules: Rules) -> Rules:
    """``rules`` with the missing mode derived from the other (unchanged when it has both)."""
    if rules.frule is None and rules.rrule is not None:
        return dataclasses.replace(rules, frule=frule_from_rrule(rules.rrule))
    if rules.rrule is None and rules.frule is not None:
        return dataclasses.replace(rules, rrule=rrule_from_frule(rules.frule, rules.f))
    return rules


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
    from .. import ad

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

        _, back = ad.vjp(transposed, *(_zeros_like(ys[k]) for k in outs))
        pushed = back(tuple(leaf_t[i] for i in live))
        full_dot: list[Any] = [_ZERO] * len(ys)
        for k, v in zip(outs, pushed, strict=True):
            full_dot[k] = v
        return y, rebuild(full_dot)

    return derived_frule


def rrule_from_frule(frule: Callable[..., Any], f: Callable[..., Any]) -> Callable[..., Any]:
    """An rrule of ``f`` whose pullback is the transpose of ``frule``'s pushforward."""
    from .. import ad

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
            _, back = ad.vjp(pushforward, *(_zeros_like(sp.leaves[i]) for i in live))
            return (_NO, *sp.tangents(dict(zip(live, back(tuple(bars)), strict=True)), _NO))

        return y, derived_pullback

    return derived_rrule
