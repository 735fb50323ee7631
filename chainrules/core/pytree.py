"""Pytrees: tuples, lists, named tuples, dicts and registered dataclasses of leaves, flattened to a
list of leaves.

The one pytree of the library: the AD engine (``chainrules.ad``) and the engine bridges
(``chainrules.interop``) both walk their arguments and outputs with it. Every other object (an
array, a Python number, a string, ``None``, a slice, an unregistered dataclass, ...) is a leaf.

A dataclass is a node only when its class is registered, with :func:`register_dataclass` (JAX's
``jax.tree_util.register_dataclass``): its *data fields* are its children, in the order given,
and its *meta fields* are static, kept in the tree definition (compared and hashed with it, so
they should be hashable) and given back to the constructor when the tree is rebuilt. Nothing
else about an object decides whether it is a node: an unregistered dataclass is a leaf, and the
engines raise an error naming the argument and :func:`register_dataclass` where one holds an array
they would otherwise not differentiate (:func:`unregistered_dataclass_error`).

A tree definition (``TreeDef``) is ``None`` for a leaf, else ``(type, keys, children)``: ``keys``
is the tuple of a dict's keys (in insertion order), a :class:`DataclassNode` (the data fields'
names and the meta fields' values) for a registered dataclass, and ``None`` for a tuple, list or
named tuple; ``children`` is the tuple of the children's tree definitions. A tree definition is
hashable when the dict keys and the meta fields' values are.

>>> from chainrules.core.pytree import flatten, unflatten, map_leaves
>>> leaves, treedef = flatten(([1, 2], {"a": 3}))
>>> leaves
[1, 2, 3]
>>> unflatten(treedef, [10, 20, 30])
([10, 20], {'a': 30})
>>> map_leaves(lambda x: -x, {"a": (1, 2)})
{'a': (-1, -2)}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

__all__ = [
    "DataclassNode",
    "TreeDef",
    "dataclass_fields",
    "flatten",
    "has_dataclass_node",
    "is_named_tuple",
    "is_node",
    "map_leaves",
    "register_dataclass",
    "register_hint",
    "unflatten",
    "unregistered_dataclass",
    "unregistered_dataclass_error",
    "without_named_tuples",
]

# A tree definition: None for a leaf, else (type, keys or None, children definitions).
TreeDef = Any
T = TypeVar("T", bound=type)

# registered dataclass -> (its data fields, its meta fields), each a tuple of field names
_DATACLASSES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}
# called with each class registered: caches of "is this type a node?" drop it (core.registry)
on_register: list[Callable[[type], None]] = []


def register_dataclass(
    cls: T,
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
) -> T:
    """Register the dataclass ``cls`` as a pytree node; returns ``cls`` (usable as a decorator).

    As JAX's ``jax.tree_util.register_dataclass``: ``data_fields`` are the fields that hold
    arrays (the children, differentiated by every engine), ``meta_fields`` the static ones
    (sizes, flags, names: kept in the tree definition, so hashable). Together they name every
    field that ``cls.__init__`` takes, once. Given neither, they are read from the class: the
    fields declared with ``dataclasses.field(metadata={"static": True})`` are meta fields, the
    others data fields. A tree is rebuilt with ``cls(**fields)``, so ``__post_init__`` runs on
    the rebuilt values (gradients, tracers) too. Registering a class again replaces its fields.

    >>> import dataclasses, numpy as np
    >>> import chainrules as cr
    >>> from chainrules import ad
    >>> @cr.register_dataclass
    ... @dataclasses.dataclass
    ... class Params:
    ...     w: np.ndarray
    ...     b: np.ndarray
    ...     name: str = dataclasses.field(default="linear", metadata={"static": True})
    >>> g = ad.grad(lambda p: np.sum(p.w * 2.0 + p.b))(Params(np.ones(2), np.zeros(2)))
    >>> type(g).__name__, g.w.tolist(), g.b.tolist(), g.name
    ('Params', [2.0, 2.0], [1.0, 1.0], 'linear')
    """
    where = "chainrules.register_dataclass"
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{where} expects a dataclass type, got {cls!r}")
    fields = dataclasses.fields(cls)
    init = [f.name for f in fields if f.init]
    if data_fields is None and meta_fields is None:
        meta = tuple(f.name for f in fields if f.init and f.metadata.get("static", False))
        data = tuple(n for n in init if n not in meta)
    elif data_fields is None or meta_fields is None:
        raise TypeError(
            f"{where}({cls.__name__}): give both data_fields and meta_fields, or neither (then "
            "the fields declared with dataclasses.field(metadata={'static': True}) are the meta "
            "fields and the others the data fields)"
        )
    else:
        data, meta = tuple(data_fields), tuple(meta_fields)
    named = list(data) + list(meta)
    wrong = [n for n in named if type(n) is not str or n not in init]
    twice = sorted({n for n in named if named.count(n) > 1})
    missing = [n for n in init if n not in named]
    if wrong or twice or missing:
        problems = []
        if wrong:
            problems.append(f"{wrong} are not fields that {cls.__name__}.__init__ takes")
        if twice:
            problems.append(f"{twice} are named more than once")
        if missing:
            problems.append(f"{missing} are neither data nor meta fields")
        raise ValueError(
            f"{where}({cls.__name__}): data_fields {list(data)} and meta_fields {list(meta)} "
            f"must name each field that {cls.__name__}.__init__ takes ({init}) once: "
            + "; ".join(problems)
        )
    _DATACLASSES[cls] = (data, meta)
    for forget in on_register:
        forget(cls)
    return cls


def dataclass_fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``(data_fields, meta_fields)`` of a registered dataclass, ``None`` for any other type."""
    return _DATACLASSES.get(cls)


def unregistered_dataclass(x: Any) -> bool:
    """Whether ``x`` is an instance of a dataclass that is not registered (a leaf)."""
    return type(x) not in _DATACLASSES and dataclasses.is_dataclass(x) and not isinstance(x, type)


def unregistered_dataclass_error(where: str, what: str, x: Any) -> TypeError:
    """The error for ``x``, an instance of an unregistered dataclass that holds arrays, found in
    ``what`` (an argument, named) by ``where`` (the engine or function)."""
    return TypeError(
        f"{where}: {what} is a {type(x).__name__}, and the arrays in its fields would not be "
        f"differentiated{register_hint(x)}"
    )


def register_hint(x: Any) -> str:
    """For an error about ``x``: how to register its class, if ``x`` is an instance of an
    unregistered dataclass; else empty."""
    if not unregistered_dataclass(x):
        return ""
    name = type(x).__name__
    return (
        f". {name} is a dataclass that is not registered as a pytree node: register it with "
        f"chainrules.register_dataclass({name}) (the fields declared with "
        f"dataclasses.field(metadata={{'static': True}}) are static) or "
        f"chainrules.register_dataclass({name}, data_fields=[...], meta_fields=[...])"
    )


class DataclassNode:
    """The ``keys`` of a registered dataclass's tree definition: the names of its data fields
    (its children, in order) and the ``(name, value)`` pairs of its meta fields. Equal and
    hashed by both."""

    __slots__ = ("fields", "meta")

    def __init__(self, fields: tuple[str, ...], meta: tuple[tuple[str, Any], ...]) -> None:
        self.fields = fields
        self.meta = meta

    def _key(self) -> Any:
        return (self.fields, self.meta)

    def __eq__(self, other: object) -> bool:
        return type(other) is DataclassNode and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"DataclassNode(fields={self.fields!r}, meta={self.meta!r})"

    def build(self, cls: type, children: Iterable[Any]) -> Any:
        """``cls`` with its data fields set to ``children`` and its meta fields to theirs."""
        return cls(**dict(zip(self.fields, children, strict=True)), **dict(self.meta))


def is_named_tuple(x: Any) -> bool:
    """Whether ``x`` is an instance of a named tuple (a node of the pytree, like a tuple)."""
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_node(x: Any) -> bool:
    """Whether ``x`` is an inner node of the pytree: a tuple, list, named tuple, dict or an
    instance of a registered dataclass."""
    t = type(x)
    return t is tuple or t is list or t is dict or t in _DATACLASSES or is_named_tuple(x)


def flatten(tree: Any) -> tuple[list[Any], TreeDef]:
    """The leaves of ``tree`` (depth first, dict keys in insertion order, a registered
    dataclass's data fields in their registered order) and its structure."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> TreeDef:
    t = type(tree)
    if t is tuple or t is list or is_named_tuple(tree):
        return (t, None, tuple(_flatten(e, leaves) for e in tree))
    if t is dict:
        keys = tuple(tree)
        return (t, keys, tuple(_flatten(tree[k], leaves) for k in keys))
    spec = _DATACLASSES.get(t)
    if spec is not None:
        data, meta = spec
        node = DataclassNode(data, tuple((m, getattr(tree, m)) for m in meta))
        return (t, node, tuple(_flatten(getattr(tree, f), leaves) for f in data))
    leaves.append(tree)
    return None


def unflatten(treedef: TreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild the structure ``treedef`` with ``leaves`` (consumed in order)."""
    return _build(treedef, iter(leaves))


def _build(treedef: TreeDef, it: Iterator[Any]) -> Any:
    if treedef is None:
        return next(it)
    t, keys, children = treedef
    items = [_build(c, it) for c in children]
    if t is dict:
        return dict(zip(keys, items))
    if t is tuple or t is list:
        return t(items)
    if type(keys) is DataclassNode:
        return keys.build(t, items)
    return t(*items)  # a named tuple


def has_dataclass_node(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call's arguments hold an instance of a registered dataclass, at any depth;
    ``False`` at once while no class is registered."""
    if not _DATACLASSES:
        return False
    return _has_dataclass(args) or _has_dataclass(kwargs)


def _has_dataclass(tree: Any) -> bool:
    t = type(tree)
    if t in _DATACLASSES:
        return True
    if t is tuple or t is list or is_named_tuple(tree):
        return any(_has_dataclass(e) for e in tree)
    if t is dict:
        return any(_has_dataclass(e) for e in tree.values())
    return False


def without_named_tuples(tree: Any) -> Any:
    """``tree`` with its named tuples made plain tuples (what TorchDynamo's ``nonstrict_trace``
    takes as an output in torch 2.13: ``chainrules.interop.torch``)."""
    if isinstance(tree, tuple):
        items = tuple([without_named_tuples(v) for v in tree])
        return items if type(tree) is tuple or hasattr(tree, "_fields") else type(tree)(items)
    if type(tree) is list:
        return [without_named_tuples(v) for v in tree]
    if type(tree) is dict:
        return {k: without_named_tuples(v) for k, v in tree.items()}
    return tree


def map_leaves(fn: Callable[[Any], Any], tree: Any) -> Any:
    """``tree`` with every leaf ``x`` replaced by ``fn(x)``."""
    leaves, treedef = flatten(tree)
    return unflatten(treedef, [fn(x) for x in leaves])
