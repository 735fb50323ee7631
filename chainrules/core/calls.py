"""What engines share about a call: finding the rules at wrap time, splitting arguments into
differentiable leaves and static parts, and checking what a rule returns. The bridges
(``chainrules.interop``) use all of it and import it whole (``from ..core.calls import *``);
``chainrules.ad`` uses the splitting and the binding of keywords for calls of ``traceable``
functions with pytree or keyword arguments.

An argument is walked as a pytree (``chainrules.core.pytree``: tuples, lists, named tuples,
dicts and registered dataclasses, keyword arguments included), as the AD engine walks it. Its
*leaves* are classified by ``is_dynamic`` (an engine-specific test: "is this one of my arrays?").
Dynamic leaves are what an engine traces; every other leaf (Python ints, floats, strings,
slices, ``None``, ``Ellipsis``) is static and closed over. Floating and complex dynamic leaves
receive cotangents, wherever they sit in a positional argument (a dict's cotangent is read by key
from a ``Tangent`` of named fields or a plain dict; a registered dataclass's by field name from
a ``Tangent`` of named fields, a dict or an instance of the class); integer and boolean arrays
(index arrays, masks) are traced but get no derivative. An unregistered dataclass is a static
leaf: one that holds a dynamic leaf is a ``TypeError`` naming the argument and
``chainrules.register_dataclass`` (``split``), never an array silently left undifferentiated.

Keyword arguments: a pullback returns one cotangent per *positional* argument (the rrule
contract), so before splitting, ``bind_keywords`` moves every keyword argument that holds a
floating or complex array to its position, by ``inspect.signature`` of the wrapped function, when
the function and its rules accept it positionally; its cotangent is then that position's. A
keyword that cannot move (keyword-only, caught by ``**kwargs``, or a function without a readable
signature) stays a keyword, and each bridge raises ``KeywordDerivativeError`` naming the function
and the keyword when its engine asks for that keyword's derivative: never a silent zero.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .pytree import (
    DataclassNode,
    TreeDef,
    dataclass_fields,
    flatten,
    is_named_tuple,
    unflatten,
    unregistered_dataclass,
    unregistered_dataclass_error,
)
from .registry import NoRuleError, find_frule, find_rrule, function_name, registrations
from .tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, unthunk

__all__ = [
    "FlatSplit",
    "KeywordDerivativeError",
    "Rules",
    "SimpleSplit",
    "Split",
    "bind_keywords",
    "check_leaf",
    "cotangent_leaves",
    "find_rules",
    "flat_split",
    "keyword_error",
    "output_leaves",
    "simple_key",
    "split",
    "static_key",
    "tangent_output_leaves",
]


@dataclass(frozen=True)
class Rules:
    """The rules of one wrapped function, looked up once at wrap time."""

    f: Any
    name: str
    rrule: Callable[..., Any] | None
    frule: Callable[..., Any] | None
    # f's signature, or None where inspect cannot read one (a builtin)
    signature: inspect.Signature | None = field(default=None, compare=False)


def find_rules(f: Any, engine: str) -> Rules:
    """Look up ``f``'s rules; raise ``NoRuleError`` naming ``f`` when it has neither an rrule nor
    an frule (a bridge derives the mode it lacks: ``chainrules.ad.frule_from_rrule`` /
    ``rrule_from_frule``)."""
    if not callable(f):
        raise TypeError(f"chainrules.interop.{engine}.wrap expects a function, got {f!r}")
    rr, fr = find_rrule(f), find_frule(f)
    name = function_name(f)
    if rr is None and fr is None:
        raise NoRuleError(
            f"chainrules.interop.{engine}.wrap({name}): no rrule or frule is registered for "
            f"{name}.{_counterpart_hint(name)} Register one with "
            f"@chainrules.register_rrule({name}) / @chainrules.register_frule({name}) before "
            "wrapping it"
        )
    return Rules(f, name, rr, fr, _signature(f))


def _counterpart_hint(name: str) -> str:
    """For an error message only: the registered function of the standard (or NumPy, SciPy) whose
    name ``name`` ends with (``torch.linalg_matrix_norm`` -> the standard's
    ``linalg.matrix_norm``), and how to reach its rules; empty where there is none."""
    tail = name.rsplit(".", 1)[-1]
    for reg in registrations():
        t = reg.target
        if isinstance(t, str) and tail in (t.replace(".", "_"), t) and not reg.non_differentiable:
            where = {"scipy": "scipy.", "numpy": "numpy."}.get(reg.family, "xp.") + t
            return (
                f" Its counterpart {t} has rules: wrap {where} (xp: the arrays' namespace, "
                "array_api_compat.array_namespace(x)), or declare a signature adapter "
                "(chainrules.core.adapters.register_adapter)."
            )
    return ""


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


class KeywordDerivativeError(TypeError):
    """An engine asked for the derivative of an array passed by keyword that the rules cannot
    differentiate (see ``bind_keywords``)."""


def keyword_error(engine: str, name: str, keyword: str, how: str) -> KeywordDerivativeError:
    """The error a bridge raises when ``how`` (an engine's words: "requires grad", "is
    differentiated by jax.grad") applies to an array in keyword argument ``keyword``."""
    return KeywordDerivativeError(
        f"chainrules.interop.{engine}: {name} was called with an array in its keyword argument "
        f"{keyword!r} that {how}, but a rule returns cotangents for positional arguments only "
        f"and {keyword!r} cannot be passed to {name} (and its rules) positionally. Pass it "
        f"positionally, or pass a constant (detached / stop_gradient) array"
    )


def bind_keywords(
    rules: Rules, args: tuple[Any, ...], kwargs: dict[str, Any], inexact: Callable[[Any], bool]
) -> tuple[tuple[Any, ...], dict[str, Any], list[str]]:
    """``(args, kwargs, unbound)``: the keyword arguments holding a leaf for which ``inexact``
    is true (an engine's floating or complex array) moved to their positions by ``f``'s
    signature, the gap before them filled with the parameters' defaults; ``unbound`` names the
    ones that could not move (keyword-only, ``**kwargs``, no readable signature, or rules
    whose own signatures do not take them positionally): they stay keywords."""
    names = [k for k, v in kwargs.items() if any(inexact(x) for x in flatten(v)[0])]
    if not names:
        return args, kwargs, []
    sig = rules.signature
    if sig is None:
        return args, kwargs, names
    params = list(sig.parameters.values())
    positional = [
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params[: len(args)]):
        return args, kwargs, names  # *args swallows the positions
    movable = [k for k in names if k in positional[len(args) :]]
    unbound = [k for k in names if k not in movable]
    if not movable:
        return args, kwargs, unbound
    last = max(positional.index(k) for k in movable)
    new_args = list(args)
    rest = dict(kwargs)
    for pname in positional[len(args) : last + 1]:
        if pname in rest:
            new_args.append(rest.pop(pname))
        else:
            default = sig.parameters[pname].default
            if default is inspect.Parameter.empty:  # a required parameter missing: f raises
                return args, kwargs, names
            new_args.append(default)
    bound = tuple(new_args)
    for rule, extra in ((rules.rrule, ()), (rules.frule, (None,))):
        rsig = None if rule is None else _signature(rule)
        if rsig is None:
            continue
        try:
            rsig.bind(*extra, *bound, **rest)
        except TypeError:
            return args, kwargs, names
    return bound, rest, unbound


_SIGNATURES: dict[Any, Any] = {}  # fn -> its signature (None: none), for keywords_to_positions
_PLAIN_DEFAULTS = (type(None), bool, int, float, str, tuple)


def keywords_to_positions(
    fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], moves: Callable[[Any], bool]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(args, kwargs)`` with the keyword arguments for which ``moves`` is true (an engine's
    differentiated tracer) moved to their positions by ``fn``'s signature (:func:`bind_keywords`),
    where ``fn`` and its rules take them positionally and every parameter skipped before them has
    a plain default (None, a number, a string: not a sentinel such as NumPy's ``_NoValue``). The
    others stay keywords (``chainrules.ad``'s traces refuse them, naming them)."""
    try:
        sig = _SIGNATURES.get(fn, False)
    except TypeError:  # unhashable
        return args, kwargs
    if sig is False:
        sig = _signature(fn)
        if len(_SIGNATURES) < 4096:
            _SIGNATURES[fn] = sig
    if sig is None:
        return args, kwargs
    # the rules as registered now (a later registration may take other positions)
    rules = Rules(fn, function_name(fn), find_rrule(fn), find_frule(fn), sig)
    params = list(sig.parameters.values())
    last = max((i for i, p in enumerate(params) if moves(kwargs.get(p.name))), default=-1)
    skipped = [p for p in params[len(args) : last] if p.name not in kwargs]
    if any(not isinstance(p.default, _PLAIN_DEFAULTS) for p in skipped):
        return args, kwargs
    new_args, new_kwargs, _ = bind_keywords(rules, args, kwargs, moves)
    return new_args, new_kwargs


@dataclass
class Split:
    """``(args, kwargs)`` split into the dynamic leaves and the rest.

    ``leaves`` are all leaves in order; ``dynamic`` the positions (into ``leaves``) of the dynamic
    ones; ``arg_of[i]`` is the positional-argument index the ``i``-th leaf belongs to (``-1`` for
    keyword arguments); ``kw_of[i]`` the keyword name of a keyword argument's leaf (``None``
    for the others).
    """

    skeleton: TreeDef
    leaves: list[Any]
    dynamic: list[int]
    arg_of: list[int]
    nargs: int
    kw_of: list[str | None] = field(default_factory=list)

    def keyword_leaves(self, names: list[str]) -> list[tuple[int, str]]:
        """``(k, keyword)`` for each dynamic leaf ``k`` (an index into ``dynamic``) that sits
        in one of the keyword arguments ``names``."""
        if not names:
            return []
        return [
            (k, kw)
            for k, pos in enumerate(self.dynamic)
            if (kw := self.kw_of[pos] if self.kw_of else None) is not None and kw in names
        ]

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
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    is_dynamic: Callable[[Any], bool],
    name: str = "chainrules",
) -> Split:
    """Split a call's arguments; see the module docstring. ``name`` (the engine and the
    function, for errors) names where an unregistered dataclass holding a dynamic leaf was
    passed."""
    leaves: list[Any] = []
    arg_of: list[int] = []
    arg_defs = []
    for i, a in enumerate(args):
        ls, d = flatten(a)
        leaves.extend(ls)
        arg_defs.append(d)
        arg_of.extend([i] * len(ls))
    kw_of: list[str | None] = [None] * len(leaves)
    ls, kw_def = flatten(dict(kwargs))
    leaves.extend(ls)
    arg_of.extend([-1] * len(ls))
    for k, v in kwargs.items():  # flatten walks a dict's keys in insertion order
        kw_of.extend([k] * len(flatten(v)[0]))
    # the tree definition of (args, kwargs)
    skeleton = (tuple, None, ((tuple, None, tuple(arg_defs)), kw_def))
    dynamic = []
    for i, x in enumerate(leaves):
        if is_dynamic(x):
            dynamic.append(i)
        elif unregistered_dataclass(x) and _holds_dynamic(x, is_dynamic):
            what = f"argument {arg_of[i]}" if arg_of[i] >= 0 else f"keyword argument {kw_of[i]!r}"
            raise unregistered_dataclass_error(name, f"{what} (or a part of it)", x)
    return Split(skeleton, leaves, dynamic, arg_of, len(args), kw_of)


def _holds_dynamic(x: Any, is_dynamic: Callable[[Any], bool]) -> bool:
    """Whether a field of the dataclass instance ``x`` holds a dynamic leaf (in a pytree, or in
    a dataclass again)."""
    for f in dataclasses.fields(x):
        for leaf in flatten(getattr(x, f.name, None))[0]:
            if is_dynamic(leaf):
                return True
            if unregistered_dataclass(leaf) and _holds_dynamic(leaf, is_dynamic):
                return True
    return False


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
        sp = _FLAT[n] = FlatSplit(
            skeleton, [None] * n, list(range(n)), list(range(n)), n, [None] * n
        )
    return sp


class SimpleSplit(Split):
    """The split of a call whose positional arguments are each one leaf -- an array or a static
    scalar -- and whose keyword arguments are static (``sum(x, axis=0)``, ``x * 2.0``): made
    once per call structure (:func:`simple_key`) from :func:`split`'s, with no array in it, and
    reused. Its ``rebuild`` fills the arrays into a template of the positional arguments and
    returns the keyword arguments as they are, with no walk of a skeleton; the ``i``-th dynamic
    leaf is the positional argument ``dynamic[i]``."""

    template: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}  # noqa: RUF012 -- set per instance by of()

    @classmethod
    def of(cls, sp: Split, args: tuple[Any, ...], kwargs: dict[str, Any]) -> SimpleSplit:
        """``sp`` (``split(args, kwargs, ...)``) with its arrays left out."""
        dyn = set(sp.dynamic)
        leaves = [None if i in dyn else v for i, v in enumerate(sp.leaves)]
        out = cls(sp.skeleton, leaves, list(sp.dynamic), list(sp.arg_of), sp.nargs, list(sp.kw_of))
        out.template = tuple(None if i in dyn else a for i, a in enumerate(args))
        out.kwargs = dict(kwargs)
        return out

    def rebuild(self, dynamic_values: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args = list(self.template)
        for i, v in zip(self.dynamic, dynamic_values, strict=True):
            args[i] = v
        return tuple(args), self.kwargs


_KEY_SCALARS = frozenset((type(None), bool, int, float, str))


def simple_key(
    args: tuple[Any, ...], kwargs: dict[str, Any], is_array: Callable[[Any], bool]
) -> Any:
    """A key of a call's structure for a :class:`SimpleSplit`: each positional argument an
    array (``is_array``) or a static scalar (``None``, ``bool``, ``int``, ``float``, ``str``),
    each keyword argument a static scalar or a tuple of ints; the scalars with their types and
    values (a float's sign too: ``-0.0 == 0.0``). ``None`` for any other call (a NaN, a
    container, an array by keyword: the general :func:`split`)."""
    parts: list[Any] = []
    for a in args:
        t = type(a)
        if t in _KEY_SCALARS:
            if t is float and (a != a or a == 0.0):  # NaN: no key; -0.0 vs 0.0
                if a != a:
                    return None
                parts.append((t, str(a)))
            else:
                parts.append((t, a))
        elif is_array(a):
            parts.append(None)
        else:
            return None
    for k, v in kwargs.items():
        t = type(v)
        if t in _KEY_SCALARS:
            if t is float and (v != v or v == 0.0):
                if v != v:
                    return None
                parts.append((k, t, str(v)))
            else:
                parts.append((k, t, v))
        elif t is tuple and all(type(e) is int for e in v):
            parts.append((k, t, v))
        else:
            return None
    return tuple(parts)


def static_key(sp: Split) -> Any:
    """A hashable key of a call's structure: the skeleton, the static leaves (with their types)
    and the positions of the dynamic ones; ``None`` when a static leaf is unhashable."""
    dyn = set(sp.dynamic)
    parts: list[Any] = []
    for i, leaf in enumerate(sp.leaves):
        if i in dyn:
            parts.append(None)
        elif type(leaf) is slice:  # unhashable before Python 3.12
            parts.append((slice, leaf.start, leaf.stop, leaf.step))
        else:
            parts.append((type(leaf), leaf))
    key = (sp.skeleton, tuple(parts), tuple(sp.dynamic))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _unflatten_tangent(treedef: TreeDef, it: Any) -> Any:
    if treedef is None:
        return next(it)
    t, keys, children = treedef
    if type(keys) is DataclassNode:  # a registered dataclass: a Tangent of its data fields
        names = keys.fields
        parts = {k: _unflatten_tangent(c, it) for k, c in zip(names, children, strict=True)}
        if all(isinstance(v, NoTangent) for v in parts.values()):
            return NoTangent()
        return Tangent(primal_type=t, **parts)
    if t is dict:  # a Tangent of named fields (a plain dict for other keys)
        parts = {k: _unflatten_tangent(c, it) for k, c in zip(keys, children, strict=True)}
        if all(isinstance(v, NoTangent) for v in parts.values()):
            return NoTangent()  # nothing differentiable in it (options, names)
        if all(type(k) is str for k in keys):
            return Tangent(primal_type=dict, **parts)
        return parts
    items = [_unflatten_tangent(c, it) for c in children]
    if t is tuple or t is list:
        return Tangent(*items)
    return Tangent(*items, primal_type=t)  # a named tuple: t.field reads like the primal


def cotangent_leaves(ct: Any, arg: Any) -> list[Any]:
    """The cotangent ``ct`` of positional argument ``arg``, one entry per leaf of ``arg``.

    Zero markers (``NoTangent()``, ``ZeroTangent()``) become ``None`` for each leaf. The cotangent
    of a tuple, list or named tuple is indexed like it (a named tuple's ``Tangent`` of named fields
    by field name); a dict's is read by key from a ``Tangent`` of named fields or a plain dict (a
    missing key is a zero); a registered dataclass's by data field name (:func:`_field_parts`).
    """
    ct = unthunk(ct)
    t = type(arg)
    spec = dataclass_fields(t)
    if spec is not None:
        if isinstance(ct, AbstractZero):
            return [None] * len(flatten(arg)[0])
        out: list[Any] = []
        for c, name in zip(_field_parts(ct, t, spec[0], "cotangent"), spec[0], strict=True):
            out.extend(cotangent_leaves(c, getattr(arg, name)))
        return out
    if t is tuple or t is list or is_named_tuple(arg):
        if isinstance(ct, AbstractZero):
            return [None] * len(flatten(arg)[0])
        names = arg._fields if isinstance(ct, Tangent) and not ct.is_sequence else None
        out = []
        for j, e in enumerate(arg):
            out.extend(cotangent_leaves(ct[j] if names is None else ct[names[j]], e))
        return out
    if t is dict:
        if isinstance(ct, AbstractZero):
            return [None] * len(flatten(arg)[0])
        if isinstance(ct, Tangent) and not ct.is_sequence:
            parts = [ct[k] for k in arg]  # a missing field reads as ZeroTangent
        elif isinstance(ct, dict):
            parts = [ct.get(k, ZeroTangent()) for k in arg]
        else:
            raise TypeError(
                f"the cotangent of a dict argument must be a Tangent of named fields or a dict "
                f"with the argument's keys {list(arg)}, got {type(ct).__name__}"
            )
        out = []
        for c, e in zip(parts, arg.values(), strict=True):
            out.extend(cotangent_leaves(c, e))
        return out
    return [None if isinstance(ct, AbstractZero) else ct]


def _field_parts(c: Any, t: type, names: tuple[str, ...], what: str) -> list[Any]:
    """The (co)tangent ``c`` of a registered dataclass of type ``t``, one entry per data field
    ``names``: from a ``Tangent`` of named fields or a dict (a missing field is a zero), or an
    instance of ``t`` (JAX's form: the cotangent of a dataclass is that dataclass)."""
    if isinstance(c, Tangent) and not c.is_sequence:
        return [c[k] for k in names]
    if isinstance(c, dict):
        return [c.get(k, ZeroTangent()) for k in names]
    if type(c) is t:
        return [getattr(c, k) for k in names]
    raise TypeError(
        f"the {what} of a {t.__name__} (a registered dataclass) must be a Tangent of named "
        f"fields, a dict or a {t.__name__} with its data fields {list(names)}, got "
        f"{type(c).__name__}"
    )


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


def _first(vals: list[Any]) -> Any:
    return vals[0]


def output_leaves(y: Any) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """Leaves of a rule's output -- an array, or a tuple / named tuple / list / dict / registered
    dataclass of outputs, nested (``split`` returns a list, ``histogramdd`` a tuple holding a list
    of edges; a dict's values in insertion order, a dataclass's data fields in their registered
    order) -- and a rebuilder from a flat list of leaves (which holds the structure only, not
    the leaves: it may outlive them)."""
    t = type(y)
    node: DataclassNode | None = None
    if t is dict:
        keys: Any = list(y)
        parts = [output_leaves(y[k]) for k in keys]
    elif isinstance(y, (tuple, list)):
        parts = [output_leaves(e) for e in y]
    elif (spec := dataclass_fields(t)) is not None:
        node = DataclassNode(spec[0], tuple((m, getattr(y, m)) for m in spec[1]))
        parts = [output_leaves(getattr(y, k)) for k in spec[0]]
    else:
        return [y], _first
    subs = [sub for _, sub in parts]
    sizes = [len(leaves) for leaves, _ in parts]

    def rebuild(vals: list[Any]) -> Any:
        out, i = [], 0
        for sub, k in zip(subs, sizes, strict=True):
            out.append(sub(vals[i : i + k]))
            i += k
        if t is dict:
            return dict(zip(keys, out, strict=True))
        if node is not None:
            return node.build(t, out)
        return t(*out) if hasattr(t, "_fields") else t(out)

    return [leaf for leaves, _ in parts for leaf in leaves], rebuild


def tangent_output_leaves(y_dot: Any, n: int, like: Any = None) -> list[Any]:
    """The tangent of a rule's output as ``n`` leaves (``None`` for zero markers); ``like``, the
    output, gives the nesting (else the output is taken as one array or a flat tuple). The
    tangent of a tuple, list or named tuple output is indexed like it (a named tuple's may be a
    ``Tangent`` of named fields), a dict's read by key (a missing key is a zero), a registered
    dataclass's by data field name (:func:`_field_parts`)."""
    y_dot = unthunk(y_dot)
    if isinstance(y_dot, AbstractZero):
        return [None] * n
    spec = None if like is None else dataclass_fields(type(like))
    if spec is not None:
        out: list[Any] = []
        for d, k in zip(_field_parts(y_dot, type(like), spec[0], "tangent"), spec[0], strict=True):
            e = getattr(like, k)
            out.extend(tangent_output_leaves(d, len(output_leaves(e)[0]), e))
        return out
    if like is not None and isinstance(like, (tuple, list, dict)):
        if type(like) is dict:
            if isinstance(y_dot, dict):
                parts = [y_dot.get(k, ZeroTangent()) for k in like]
            elif isinstance(y_dot, Tangent) and not y_dot.is_sequence:
                parts = [y_dot[k] for k in like]  # a missing field reads as ZeroTangent
            else:
                raise TypeError(
                    "the tangent of a dict output must be a dict or a Tangent of named fields "
                    f"with its keys {list(like)}, got {type(y_dot).__name__}"
                )
        elif isinstance(y_dot, Tangent) and not y_dot.is_sequence and is_named_tuple(like):
            parts = [y_dot[f] for f in like._fields]  # type: ignore[union-attr]
        else:
            parts = list(y_dot)
        out = []
        for e, d in zip(like.values() if type(like) is dict else like, parts, strict=True):
            out.extend(tangent_output_leaves(d, len(output_leaves(e)[0]), e))
        return out
    if n == 1 and not isinstance(y_dot, (tuple, list, Tangent)):
        return [y_dot]
    vals = [unthunk(v) for v in y_dot]  # each forced once
    return [None if isinstance(v, AbstractZero) else v for v in vals]
