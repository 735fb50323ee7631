"""Signature adapters: a foreign library's function that is the standard's function under other
parameter names (``torch.linalg.vector_norm(x, ord, dim, keepdim)`` is the standard's
``vector_norm(x, *, axis, keepdims, ord)``) gets the standard's rules through a declared adapter,
not rules of its own.

``register_adapter(target, counterpart, sig, rename=..., positional=...)`` registers an rrule and
an frule for ``target`` that bind the call with ``sig`` (the foreign signature), rename its
parameters (``dim`` -> ``axis``), and call the rules of ``counterpart(xp)`` -- the counterpart
in the namespace ``xp`` of the arguments, so the rule is the one the standard's function of that
library has. The counterpart's cotangents come back at the foreign call's positions; parameters
the counterpart takes by keyword get ``NoTangent()`` (rules never differentiate keywords).
A foreign parameter the counterpart has no use for must hold its default (``dtype=None``);
any other value is refused, naming the function and the parameter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .namespaces import namespace_of
from .registry import find_frule, find_rrule, register_frule, register_rrule
from .signature import Signature
from .tangents import NoTangent, ZeroTangent

__all__ = ["register_adapter"]

_NO = NoTangent()
_ZERO = ZeroTangent()


def register_adapter(
    target: Any,
    counterpart: Callable[[Any], Any],
    sig: Signature,
    *,
    rename: Mapping[str, str],
    positional: tuple[str, ...],
    dropped: Mapping[str, Any] | None = None,
    module: str,
    **meta: Any,
) -> None:
    """Register ``target``'s rules as ``counterpart(xp)``'s, through the renaming ``rename``
    (foreign parameter -> the counterpart's); ``positional``: the counterpart's parameters
    passed positionally (in order), the rest by keyword; ``dropped``: foreign parameters the
    counterpart lacks, with the only value they may hold; ``module``: the declaring module's
    name (``__name__``), where reports file the rules. ``meta`` goes to the registrations
    (``examples=``, ``expect=``)."""
    dropped = dict(dropped or {})
    name = sig.name

    def adapt(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, tuple, dict, list]:
        bound = sig.bind(args, kwargs)
        call_kw: dict[str, Any] = {}
        for p, v in bound.items():
            if p in dropped:
                if v is not dropped[p] and v != dropped[p]:
                    raise TypeError(
                        f"{name}: {p}={v!r} has no counterpart in the rule it is adapted to "
                        f"(only {p}={dropped[p]!r})"
                    )
                continue
            call_kw[rename.get(p, p)] = v
        call_args = tuple(call_kw.pop(q) for q in positional)
        xp = namespace_of(call_args[0], fname=name)
        # where each foreign positional argument goes: its index among the counterpart's
        # positional ones, or -1 (a keyword of the counterpart: no tangent)
        names = sig.names
        where = [
            positional.index(rename.get(p, p)) if rename.get(p, p) in positional else -1
            for p in names[: len(args)]
        ]
        return counterpart(xp), call_args, call_kw, where

    def adapter_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        fn, call_args, call_kw, where = adapt(args, kwargs)
        rule = find_rrule(fn)
        if rule is None:
            raise TypeError(f"{name}: its counterpart {fn!r} has no rrule")
        y, pb = rule(*call_args, **call_kw)

        def adapter_pullback(y_bar: Any) -> tuple[Any, ...]:
            bars = pb(y_bar)
            return (_NO, *(bars[1 + j] if j >= 0 else _NO for j in where))

        return y, adapter_pullback

    def adapter_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        fn, call_args, call_kw, where = adapt(args, kwargs)
        rule = find_frule(fn)
        if rule is None:
            raise TypeError(f"{name}: its counterpart {fn!r} has no frule")
        ts: list[Any] = [_ZERO] * len(call_args)
        for i, j in enumerate(where):
            if j >= 0 and 1 + i < len(tangents):
                ts[j] = tangents[1 + i]
        return rule((_NO, *ts), *call_args, **call_kw)

    for rule, kind in ((adapter_rrule, "rrule"), (adapter_frule, "frule")):
        rule.__module__ = module
        rule.__qualname__ = rule.__name__ = f"{name.replace('.', '_')}_adapter_{kind}"
    register_rrule(target, **meta)(adapter_rrule)
    register_frule(target, **meta)(adapter_frule)
