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

import dataclasses
import inspect
from typing import Any

from ..core.pytree import flatten, is_node, map_leaves, unregistered_dataclass
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


def _is_node(x: Any) -> bool:
    """An inner node of the pytree (``core.pytree``: a tuple, list, named tuple, dict or
    registered dataclass), or an unregistered dataclass: a call holding a tracer in one goes to
    :func:`call_pytree`, whose ``split`` raises naming the argument."""
    return is_node(x) or unregistered_dataclass(x)


def _holds_tracer(x: Any) -> bool:
    for e in flatten(x)[0]:
        if isinstance(e, Tracer):
            return True
        if unregistered_dataclass(e) and any(
            _holds_tracer(getattr(e, f.name, None)) for f in dataclasses.fields(e)
        ):
            return True
    return False


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


def call_pytree(
    fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], flat_ok: bool = True
) -> Any:
    """Record ``fn(*args, **kwargs)`` -- a call that :func:`is_flat` refuses -- as a
    :class:`FlatCall` over the array leaves of the positional arguments, keyword arguments holding
    a differentiated array moved to their positions first. ``flat_ok=False``: as a flat call even
    where the arguments are flat once the keywords are bound (:func:`call_tree`)."""
    from ..core.calls import Rules, bind_keywords, split

    name = function_name(fn)
    rules = Rules(fn, name, find_rrule(fn), find_frule(fn), _signature(fn))
    args, kwargs, unbound = bind_keywords(rules, args, kwargs, _differentiated)
    where = f"chainrules.ad: {name}"
    if unbound:
        raise keyword_error(name, unbound)
    if flat_ok and is_flat(args, kwargs):  # f(x=x, w=w) bound to f(x, w): fn's own call
        return dispatch(fn, args, kwargs)
    if kwargs:  # what stays a keyword holds no differentiated array (checked just above)
        kwargs = {
            k: map_leaves(primal, v) if _is_node(v) and _holds_tracer(v) else v
            for k, v in kwargs.items()
        }
    sp = split(args, {}, _dynamic, where)
    flat = FlatCall(fn, sp, name)
    y = dispatch(flat, [sp.leaves[i] for i in sp.dynamic], kwargs)
    return y if flat.out is None else flat.out(list(y))


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

    __slots__ = ("__name__", "__qualname__", "fn", "name", "out", "split")

    def __init__(self, fn: Any, sp: Any, name: str) -> None:
        self.fn = fn
        self.split = sp
        self.name = name
        # the rebuilder of a result the traces cannot hold as it is (a dict, a registered
        # dataclass, nested containers), which the flat call returns as the tuple of its leaves
        # (set by _flat_result); None for an array or a flat tuple or list of them
        self.out: Any = None
        self.__name__ = getattr(fn, "__name__", name)
        self.__qualname__ = getattr(fn, "__qualname__", name)

    def __repr__(self) -> str:
        return f"<the flat call of {self.name}>"

    def __call__(self, *leaves: Any, **kwargs: Any) -> Any:
        args, _ = self.split.rebuild(leaves)
        return self._flat_result(self.fn(*args, **kwargs))[0]

    def _flat_result(self, y: Any) -> tuple[Any, Any]:
        """``(y, None)`` for a result the traces hold (an array, a flat tuple or list of
        them); else ``(tuple of y's leaves, rebuilder)``, the rebuilder kept in ``out``."""
        if not _deep(y):
            return y, None
        from ..core.calls import output_leaves

        ys, rebuild = output_leaves(y)
        self.out = rebuild
        return tuple(ys), rebuild

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
            y, rebuild = self._flat_result(y)

            def flat_pullback(ct: Any, **chunk: Any) -> Any:
                if rebuild is not None:  # the cotangent of the leaves' tuple, as the structure
                    ct = rebuild([_ZERO if c is None else c for c in _leaf_parts(ct, len(y))])
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
            y, y_dot = rule((tangents[0], *sp.tangents(per_leaf, _NO)), *args, **kwargs)
            ys, rebuild = self._flat_result(y)
            if rebuild is None:
                return y, y_dot
            from ..core.calls import tangent_output_leaves

            dots = tangent_output_leaves(y_dot, len(ys), y)
            return ys, tuple([_ZERO if d is None else d for d in dots])

        return flat_frule

    def _constant_rrule(self, *leaves: Any, **kwargs: Any) -> Any:
        n = len(leaves)

        def constant_pullback(ct: Any, **chunk: Any) -> Any:
            return (_NO,) + (_ZERO,) * n

        return self(*leaves, **kwargs), mark_chunked(constant_pullback)

    def _constant_frule(self, tangents: Any, *leaves: Any, **kwargs: Any) -> Any:
        return self(*leaves, **kwargs), _ZERO


def _deep(y: Any) -> bool:
    """A rule's result that the traces do not hold as it is: a dict, a registered dataclass, or
    a tuple or list with a container in it (they hold an array, or a tuple or list of arrays)."""
    if not is_node(y):
        return False
    if isinstance(y, (tuple, list)):
        return any(is_node(e) for e in y)
    return True


def _leaf_parts(ct: Any, n: int) -> list[Any]:
    """The engine's cotangent of a tuple of ``n`` leaves (a tuple, a ``Tangent`` of elements or
    a zero), one entry per leaf (``None`` for a zero)."""
    from ..core.calls import tangent_output_leaves

    return tangent_output_leaves(ct, n)


def call_tree(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The tracers' ``__chainrules_call_tree__``: what ``traceable`` calls instead of their
    ``__chainrules_call__`` when an argument holds a registered dataclass (a pytree node that the
    latter's fast path for calls without tuples, lists and dicts does not look into). Always a
    flat call: a function of a dataclass often returns one (``FlatCall.out``), which the traces
    cannot hold as it is, even where no tracer sits in the dataclass argument."""
    return call_pytree(fn, args, kwargs, flat_ok=False)


Tracer.__chainrules_call_tree__ = staticmethod(call_tree)  # type: ignore[attr-defined]
ABOVE.is_flat = is_flat
ABOVE.call_pytree = call_pytree
