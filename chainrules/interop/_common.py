"""What the engine bridges share: finding the rules at wrap time, splitting arguments into
differentiable leaves and static parts, and checking what a rule returns.

An argument is walked as a pytree (``chainrules.core.pytree``: tuples, lists, named tuples and
dicts, keyword arguments included), as the AD engine walks it. Its *leaves* are classified by
``is_dynamic`` (an engine-specific test: "is this one of my arrays?"). Dynamic leaves are what an
engine traces; every other leaf (Python ints, floats, strings, slices, ``None``, ``Ellipsis``) is
static and closed over. Only floating and complex dynamic leaves of the
*positional* arguments receive cotangents: integer and boolean arrays (index arrays, masks) are
traced but get no derivative, and keyword arguments are never differentiated (the rrule contract).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.pytree import TreeDef, flatten, is_named_tuple, unflatten
from ..core.registry import NoRuleError, find_frule, find_rrule, function_name
from ..core.tangents import AbstractZero, NoTangent, Tangent, unthunk

__all__ = [
    "FlatSplit",
    "Rules",
    "Split",
    "cotangent_leaves",
    "find_rules",
    "flat_split",
    "split",
]


@dataclass(frozen=True)
class Rules:
    """The rules of one wrapped function, looked up once at wrap time."""

    f: Any
    name: str
    rrule: Callable[..., Any] | None
    frule: Callable[..., Any] | None


def find_rules(f: Any, engine: str, *, need: str = "any") -> Rules:
    """Look up ``f``'s rules; raise ``NoRuleError`` naming ``f`` when the needed ones are missing.

    ``need`` is ``"rrule"``, ``"frule"``, ``"both"`` or ``"any"``.
    """
    if not callable(f):
        raise TypeError(f"chainrules.interop.{engine}.wrap expects a function, got {f!r}")
    rr, fr = find_rrule(f), find_frule(f)
    name = function_name(f)
    missing = {
        "rrule": ["rrule"] if rr is None else [],
        "frule": ["frule"] if fr is None else [],
        "both": [k for k, r in (("rrule", rr), ("frule", fr)) if r is None],
        "any": ["rrule or frule"] if rr is None and fr is None else [],
    }[need]
    if missing:
        raise NoRuleError(
            f"chainrules.interop.{engine}.wrap({name}): no {' and no '.join(missing)} is "
            f"registered for {name}. Register one with @chainrules.register_rrule({name}) / "
            f"@chainrules.register_frule({name}) before wrapping it"
        )
    return Rules(f, name, rr, fr)


@dataclass
class Split:
    """``(args, kwargs)`` split into the dynamic leaves and the rest.

    ``leaves`` are all leaves in order; ``dynamic`` the positions (into ``leaves``) of the dynamic
    ones; ``arg_of[i]`` is the positional-argument index the ``i``-th leaf belongs to (``-1`` for
    keyword arguments).
    """

    skeleton: TreeDef
    leaves: list[Any]
    dynamic: list[int]
    arg_of: list[int]
    nargs: int

    def rebuild(self, dynamic_values: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """``(args, kwargs)`` with the dynamic leaves replaced by ``dynamic_values``."""
        leaves = list(self.leaves)
        for i, v in zip(self.dynamic, dynamic_values, strict=True):
            leaves[i] = v
        args, kwargs = unflatten(self.skeleton, leaves)
        return tuple(args), kwargs

    def tangents(self, leaf_tangents: dict[int, Any], zero: Any) -> tuple[Any, ...]:
        """One tangent per positional argument: ``leaf_tangents[i]`` for leaf ``i`` (``zero`` for
        the leaves not in it); tuples, lists and named tuples become a ``Tangent`` that indexes like
        them (and a named tuple's by field name too)."""
        it = iter([leaf_tangents.get(i, zero) for i in range(len(self.leaves))])
        return tuple(_unflatten_tangent(d, it) for d in self.skeleton[2][0][2])

    def cotangents(self, cts: Any, args: tuple[Any, ...]) -> list[Any]:
        """A pullback's ``(f_bar, *arg_bars)`` as one entry per leaf (``None`` for zeros and for
        keyword arguments), aligned with ``leaves``."""
        out: list[Any] = []
        for i, a in enumerate(args):
            out.extend(cotangent_leaves(cts[i + 1], a))
        return out + [None] * (len(self.leaves) - len(out))


def split(
    args: tuple[Any, ...], kwargs: dict[str, Any], is_dynamic: Callable[[Any], bool]
) -> Split:
    """Split a call's arguments; see the module docstring."""
    leaves: list[Any] = []
    arg_of: list[int] = []
    arg_defs = []
    for i, a in enumerate(args):
        ls, d = flatten(a)
        leaves.extend(ls)
        arg_defs.append(d)
        arg_of.extend([i] * len(ls))
    ls, kw_def = flatten(dict(kwargs))
    leaves.extend(ls)
    arg_of.extend([-1] * len(ls))
    # the tree definition of (args, kwargs)
    skeleton = (tuple, None, ((tuple, None, tuple(arg_defs)), kw_def))
    dynamic = [i for i, x in enumerate(leaves) if is_dynamic(x)]
    return Split(skeleton, leaves, dynamic, arg_of, len(args))


class FlatSplit(Split):
    """The split of ``n`` positional arrays and no keyword arguments (the common call): its
    ``rebuild`` is ``(tuple(values), {})``, with no walk of a skeleton."""

    def rebuild(self, dynamic_values: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return tuple(dynamic_values), {}


_FLAT: dict[int, Split] = {}


def flat_split(n: int) -> Split:
    """The ``Split`` of a call with ``n`` positional arguments that are all dynamic leaves and no
    keyword arguments, shared by every such call (its ``leaves`` are placeholders: a bridge
    passes the values to ``rebuild``)."""
    sp = _FLAT.get(n)
    if sp is None:
        skeleton = (tuple, None, ((tuple, None, (None,) * n), (dict, (), ())))
        sp = _FLAT[n] = FlatSplit(skeleton, [None] * n, list(range(n)), list(range(n)), n)
    return sp


def _unflatten_tangent(treedef: TreeDef, it: Any) -> Any:
    if treedef is None:
        return next(it)
    t, keys, children = treedef
    if keys is not None:
        for c in children:  # dict arguments are not differentiated
            _unflatten_tangent(c, it)
        return NoTangent()
    parts = [_unflatten_tangent(c, it) for c in children]
    if t is tuple or t is list:
        return Tangent(*parts)
    return Tangent(*parts, primal_type=t)  # a named tuple: t.field reads like the primal


def cotangent_leaves(ct: Any, arg: Any) -> list[Any]:
    """The cotangent ``ct`` of positional argument ``arg``, one entry per leaf of ``arg``.

    Zero markers (``NoTangent()``, ``ZeroTangent()``) become ``None`` for each leaf. The cotangent
    of a tuple, list or named tuple is indexed like it (a named tuple's ``Tangent`` of named fields
    by field name); dict arguments are not differentiated.
    """
    ct = unthunk(ct)
    t = type(arg)
    if t is tuple or t is list or is_named_tuple(arg):
        if isinstance(ct, AbstractZero):
            return [None] * len(flatten(arg)[0])
        names = arg._fields if isinstance(ct, Tangent) and not ct.is_sequence else None
        out: list[Any] = []
        for j, e in enumerate(arg):
            out.extend(cotangent_leaves(ct[j] if names is None else ct[names[j]], e))
        return out
    if t is dict:
        return [None] * len(flatten(arg)[0])
    return [None if isinstance(ct, AbstractZero) else ct]


def check_leaf(name: str, kind: str, argpos: int, got: Any, primal: Any, dtype_ok: bool) -> None:
    """Raise ``ValueError`` naming the function and the argument when a rule's (co)tangent does not
    have the primal's shape (or, with ``dtype_ok=False``, dtype)."""
    gs, ps = tuple(getattr(got, "shape", ())), tuple(getattr(primal, "shape", ()))
    what = "the output" if argpos < 0 else f"argument {argpos}"
    if gs != ps:
        raise ValueError(
            f"the {kind} of {name} returned a {'tangent' if argpos < 0 else 'cotangent'} of "
            f"shape {gs} for {what}, whose shape is {ps}"
        )
    if not dtype_ok:
        raise ValueError(
            f"the {kind} of {name} returned a {'tangent' if argpos < 0 else 'cotangent'} of "
            f"dtype {getattr(got, 'dtype', type(got).__name__)} for {what}, whose dtype is "
            f"{getattr(primal, 'dtype', type(primal).__name__)}"
        )


def output_leaves(y: Any) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """Leaves of a rule's output (an array, or a tuple / named tuple of arrays) and a rebuilder."""
    if isinstance(y, tuple):
        t = type(y)

        def rebuild(vals: list[Any]) -> Any:
            return t(*vals) if hasattr(t, "_fields") else t(vals)

        return list(y), rebuild
    return [y], lambda vals: vals[0]


def tangent_output_leaves(y_dot: Any, n: int) -> list[Any]:
    """The tangent of a rule's output as ``n`` leaves (``None`` for zero markers)."""
    y_dot = unthunk(y_dot)
    if isinstance(y_dot, AbstractZero):
        return [None] * n
    if n == 1 and not isinstance(y_dot, (tuple, Tangent)):
        return [y_dot]
    vals = [unthunk(v) for v in y_dot]  # each forced once
    return [None if isinstance(v, AbstractZero) else v for v in vals]
