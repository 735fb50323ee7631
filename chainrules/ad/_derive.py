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
  arguments held constant), is the pullback ``y_bar -> J^H y_bar``. Cost: one frule call for the
  value (all tangents zero), and for each pullback call one traced frule call and one backward
  pass.

Both need the rule's own pullback (pushforward) to be written with functions that have rules,
which is what a Hessian needs of every rule already. Positional floating or complex array
arguments are differentiated; keywords, integers and axes get ``NoTangent()``; a positional
container (tuple, list, dict) that holds floating arrays is refused with a ``TypeError``, never
given a silent zero. The tangents and cotangents are plain, with no chunk axes; the engine's
forward trace pushes a chunk of tangents (``(*chunk, *x.shape)``, one tangent per row), which
:func:`derived_rule`'s frule takes one row at a time -- a loop over the chunk's static size,
stacked back (no value is read on the host). A registered frule takes the chunk in one call, so
registering both modes stays the fast way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..core.calls import output_leaves
from ..core.namespaces import dtype_kind, is_array, namespace_of
from ..core.pytree import flatten
from ..core.registry import find_frule, find_rrule
from ..core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, unthunk
from ._config import AD_CONFIG

__all__ = ["derived_rule", "frule_from_rrule", "rrule_from_frule"]

_NO = NoTangent()
_ZERO = ZeroTangent()


def derived_rule(kind: str, fn: Any) -> Callable[..., Any] | None:
    """``fn``'s ``kind`` rule (``"rrule"`` or ``"frule"``) derived from its registered rule of the
    other mode; ``None`` when it has neither."""
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


def _inexact(v: Any) -> bool:
    return is_array(v) and dtype_kind(v.dtype, namespace_of(v)) in "fc"


def _refuse_containers(args: tuple[Any, ...], mode: str) -> None:
    """A derived rule differentiates positional arrays only: a positional container (tuple,
    list, dict) holding floating arrays would get no derivative, silently. Refused instead."""
    for i, a in enumerate(args):
        if not is_array(a) and any(_inexact(v) for v in flatten(a)[0]):
            raise TypeError(
                f"chainrules: the {mode} derived for this function differentiates "
                f"positional arrays only, and argument {i} is a {type(a).__name__} holding "
                "floating arrays: register the missing rule, or pass the arrays positionally"
            )


def _zeros_like(v: Any) -> Any:
    return namespace_of(v).zeros_like(v)


def _leaves_of(ct: Any, n: int) -> list[Any]:
    """The ``n`` output leaves of a cotangent (a ``Tangent`` or a tuple for a tuple output)."""
    ct = unthunk(ct)
    if n == 1 and not isinstance(ct, (Tangent, tuple, list)):
        return [ct]
    if isinstance(ct, AbstractZero):
        return [_ZERO] * n
    if isinstance(ct, Tangent):
        parts = list(ct._elements or ())
        if not parts and ct._fields:
            parts = list(ct._fields.values())
        ct = parts
    out: list[Any] = []
    for e in ct:
        out.extend(_leaves_of(e, len(output_leaves(e)[0])) if isinstance(e, (tuple, list)) else [e])
    return [unthunk(e) for e in out]


def frule_from_rrule(rrule: Callable[..., Any]) -> Callable[..., Any]:
    """An frule whose pushforward is the transpose of ``rrule``'s pullback."""

    def derived_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        _refuse_containers(args, "frule")
        y, pullback = rrule(*args, **kwargs)
        ts = [unthunk(t) for t in tangents[1 : 1 + len(args)]]
        live = [
            i
            for i, t in enumerate(ts)
            if not isinstance(t, AbstractZero) and _inexact(args[i]) and is_array(t)
        ]
        ys, rebuild = output_leaves(y)
        outs = [k for k, v in enumerate(ys) if _inexact(v)]
        if not live or not outs:
            return y, _ZERO

        def transposed(*us: Any) -> tuple[Any, ...]:
            full: list[Any] = [_ZERO] * len(ys)
            for k, u in zip(outs, us, strict=True):
                full[k] = u
            bars = pullback(rebuild(full))
            return tuple(
                _zeros_like(args[i]) if isinstance(b, AbstractZero) else b
                for i, b in ((i, unthunk(bars[1 + i])) for i in live)
            )

        _, back = AD_CONFIG.rrule_via_ad(transposed, *(_zeros_like(ys[k]) for k in outs))
        pushed = back(tuple(ts[i] for i in live))[1:]
        full_dot: list[Any] = [_ZERO] * len(ys)
        for k, v in zip(outs, pushed, strict=True):
            full_dot[k] = v
        return y, (full_dot[0] if len(ys) == 1 and ys[0] is y else rebuild(full_dot))

    return derived_frule


def rrule_from_frule(frule: Callable[..., Any]) -> Callable[..., Any]:
    """An rrule whose pullback is the transpose of ``frule``'s pushforward."""

    def derived_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        _refuse_containers(args, "rrule")
        n = len(args)
        y, _ = frule((_NO, *([_ZERO] * n)), *args, **kwargs)
        live = [i for i, a in enumerate(args) if _inexact(a)]
        ys, _ = output_leaves(y)

        def pushforward(*ts: Any) -> tuple[Any, ...]:
            tangents: list[Any] = [_ZERO] * n
            for i, t in zip(live, ts, strict=True):
                tangents[i] = t
            _, y_dot = frule((_NO, *tangents), *args, **kwargs)
            dots = _leaves_of(y_dot, len(ys))
            return tuple(
                _zeros_like(v) if isinstance(d, AbstractZero) else d
                for v, d in zip(ys, dots, strict=True)
            )

        def derived_pullback(y_bar: Any) -> tuple[Any, ...]:
            out: list[Any] = [_NO] * n
            if not live:
                return (_NO, *out)
            bars = [
                _zeros_like(v) if isinstance(b, AbstractZero) else b
                for v, b in zip(ys, _leaves_of(y_bar, len(ys)), strict=True)
            ]
            _, back = AD_CONFIG.rrule_via_ad(pushforward, *(_zeros_like(args[i]) for i in live))
            for i, b in zip(live, back(tuple(bars))[1:], strict=True):
                out[i] = b
            return (_NO, *out)

        return y, derived_pullback

    return derived_rrule
