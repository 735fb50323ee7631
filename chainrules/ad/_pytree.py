"""Calls of a ``@chainrules.traceable`` function whose traced arrays sit in a pytree or a keyword.

The engine records a call as one operation over its positional arguments: a tracer there, or in
a tuple or list there, gets its cotangent from the rule's pullback (``(f_bar, *arg_bars)``) and
passes its tangent to the frule. A call such as ``f({"w": x})``, ``f(((x, y), z))``,
``f(Params(w=x))`` or ``f(x=x, w=w)`` holds its tracers where that scheme does not look. Such a
call becomes a :class:`FlatCall`: a call over the traced (and raw array) leaves of the arguments,
with keyword arguments that hold a differentiated array moved to their positions first, whose
rules are derived from the function's own (:meth:`FlatCall.__chainrules_rule__`): rebuild the
arguments, call the function's rule, and read the cotangent of each leaf out of the structural
cotangent (or build the structural tangent from the leaves' tangents). The traces record the flat
call like any other, so every transformation, nested ones included (a flat call's rules run on
the tracers of the outer trace), uses the function's rules.

The walk of the arguments, the binding of keywords and the reading of structural cotangents are
the ones the bridges use (``chainrules.core.calls``: ``split``, ``bind_keywords``,
``Split.tangents``, ``Split.cotangents``), imported when the first such call is made.

A keyword argument holding a differentiated array that cannot be passed positionally (a
keyword-only parameter, one caught by ``**kwargs``, or a rule that takes it by keyword only) is a
``TypeError`` naming the function and the argument: a rule returns cotangents for positional
arguments only, and the engine never runs the body instead.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..core.pytree import flatten, is_named_tuple, map_leaves
from ..core.registry import (
    entry_of,
    find_frule,
    find_rrule,
    function_name,
    mark_chunked,
    takes_chunks,
)
from ..core.tangents import NoTangent, ZeroTangent
from ._errors import no_rule
from ._lift import _liftable
from ._tracer import ABOVE, Tracer, dispatch, is_constant, primal

__all__ = ["FlatCall", "call_pytree", "is_flat"]

_NO = NoTangent()
_ZERO = ZeroTangent()
_NODES = (tuple, list, dict)


def _is_node(x: Any) -> bool:
    """A tuple, list, named tuple or dict: an inner node of the pytree (``core.pytree``)."""
    return type(x) in _NODES or is_named_tuple(x)


def _holds_tracer(x: Any) -> bool:
    return any(isinstance(e, Tracer) for e in flatten(x)[0])


def _differentiated(x: Any) -> bool:
    """A tracer that depends on some trace's inputs (at any level)."""
    return isinstance(x, Tracer) and not is_constant(x)


def is_flat(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether the engine's flat scheme sees every tracer of the call: positional tracers, the
    elements of tuple and list arguments, and keyword tracers that no trace differentiates."""
    for a in args:
        if isinstance(a, Tracer):
            continue
        ta = type(a)
        if ta is tuple or ta is list:
            for e in a:
                if not isinstance(e, Tracer) and _is_node(e) and _holds_tracer(e):
                    return False
        elif _is_node(a) and _holds_tracer(a):
            return False
    if kwargs:
        for v in kwargs.values():
            if isinstance(v, Tracer):
                if not is_constant(v):
                    return False
            elif _is_node(v) and _holds_tracer(v):
                return False
    return True


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def keyword_error(name: str, keywords: list[str]) -> TypeError:
    """The error for differentiated arrays in keyword arguments ``keywords`` of ``name`` that
    cannot be bound to positions."""
    which = ", ".join(repr(k) for k in keywords)
    s = "s" if len(keywords) > 1 else ""
    return TypeError(
        f"chainrules.ad: {name} was called with a differentiated array in its keyword "
        f"argument{s} {which}, but a rule returns cotangents (and takes tangents) for "
        f"positional arguments only, and {which} cannot be passed to {name} and its rules "
        f"positionally (a keyword-only parameter, one caught by **kwargs, or a rule that takes "
        f"it by keyword only). Pass it positionally (and make the parameter positional in "
        f"{name} and its rules), or pass a constant array"
    )


def call_pytree(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Record ``fn(*args, **kwargs)`` -- a call that :func:`is_flat` refuses -- as a
    :class:`FlatCall` over the array leaves of the positional arguments, keyword arguments holding
    a differentiated array moved to their positions first."""
    from ..core.calls import Rules, bind_keywords, split

    name = function_name(fn)
    rules = Rules(fn, name, find_rrule(fn), find_frule(fn), _signature(fn))
    args, kwargs, unbound = bind_keywords(rules, args, kwargs, _differentiated)
    if unbound:
        raise keyword_error(name, unbound)
    if is_flat(args, kwargs):  # f(x=x, w=w) bound to f(x, w): fn's own call, its own rules
        return dispatch(fn, args, kwargs)
    if kwargs:  # what stays a keyword holds no differentiated array (checked just above)
        kwargs = {
            k: map_leaves(primal, v) if _is_node(v) and _holds_tracer(v) else v
            for k, v in kwargs.items()
        }
    sp = split(args, {}, _dynamic)
    flat = FlatCall(fn, sp, name)
    return dispatch(flat, [sp.leaves[i] for i in sp.dynamic], kwargs)


def _dynamic(x: Any) -> bool:
    """A leaf the flat call takes as an argument: a tracer, or a raw array (which the traces
    make a constant of their level, as they do for arrays passed flat)."""
    return isinstance(x, Tracer) or _liftable(x)


class FlatCall:
    """``fn`` called with the arguments ``split`` describes, their array leaves given
    positionally: ``FlatCall(fn, sp, name)(*leaves, **kwargs)`` is
    ``fn(*sp.rebuild(leaves)[0], **kwargs)``. Its rules, derived from ``fn``'s, are what
    :meth:`__chainrules_rule__` returns; ``chainrules.ad`` asks for them (``lookup_rule``) when
    the registry has no entry for a function."""

    __slots__ = ("__name__", "__qualname__", "fn", "name", "split")

    def __init__(self, fn: Any, sp: Any, name: str) -> None:
        self.fn = fn
        self.split = sp
        self.name = name
        self.__name__ = getattr(fn, "__name__", name)
        self.__qualname__ = getattr(fn, "__qualname__", name)

    def __repr__(self) -> str:
        return f"<the flat call of {self.name}>"

    def __call__(self, *leaves: Any, **kwargs: Any) -> Any:
        args, _ = self.split.rebuild(leaves)
        return self.fn(*args, **kwargs)

    def __chainrules_rule__(self, kind: str) -> Any:
        """The ``kind`` (``"rrule"`` or ``"frule"``) of this flat call, derived from ``fn``'s;
        ``NoRuleError`` naming ``fn`` when it has none. A function whose registration says its
        result carries no derivative gets rules that give zeros."""
        e = entry_of(self.fn)
        if e is not None and e.constant:
            return self._constant_rrule if kind == "rrule" else self._constant_frule
        if kind == "rrule":
            rule = find_rrule(self.fn)
            if rule is None:
                raise no_rule(kind, self.fn)
            return self._rrule(rule)
        rule = find_frule(self.fn)
        if rule is None:
            raise no_rule(kind, self.fn)
        return self._frule(rule)

    def _rrule(self, rule: Any) -> Any:
        sp = self.split
        name = self.name

        def flat_rrule(*leaves: Any, **kwargs: Any) -> Any:
            args, _ = sp.rebuild(leaves)
            y, pb = rule(*args, **kwargs)

            def flat_pullback(ct: Any, **chunk: Any) -> Any:
                cts = pb(ct, **chunk)
                if not isinstance(cts, tuple | list) or len(cts) < len(args) + 1:
                    got = f"{len(cts)} entries" if isinstance(cts, tuple | list) else type(cts)
                    raise TypeError(
                        f"chainrules.ad: the pullback of the rrule of {name} returned {got}; a "
                        f"pullback returns (f_bar, *arg_bars): {len(args) + 1} entries here"
                    )
                per_leaf = sp.cotangents(cts, args)
                return (_NO, *(_ZERO if per_leaf[i] is None else per_leaf[i] for i in sp.dynamic))

            return y, flat_pullback

        if takes_chunks(rule):
            mark_chunked(flat_rrule)
        return flat_rrule

    def _frule(self, rule: Any) -> Any:
        sp = self.split

        def flat_frule(tangents: Any, *leaves: Any, **kwargs: Any) -> Any:
            args, _ = sp.rebuild(leaves)
            per_leaf = {i: tangents[k + 1] for k, i in enumerate(sp.dynamic)}
            return rule((tangents[0], *sp.tangents(per_leaf, _NO)), *args, **kwargs)

        return flat_frule

    def _constant_rrule(self, *leaves: Any, **kwargs: Any) -> Any:
        n = len(leaves)

        def constant_pullback(ct: Any, **chunk: Any) -> Any:
            return (_NO,) + (_ZERO,) * n

        return self(*leaves, **kwargs), mark_chunked(constant_pullback)

    def _constant_frule(self, tangents: Any, *leaves: Any, **kwargs: Any) -> Any:
        return self(*leaves, **kwargs), _ZERO


ABOVE.is_flat = is_flat
ABOVE.call_pytree = call_pytree
