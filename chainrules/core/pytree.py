"""Pytrees: tuples, lists, named tuples and dicts of leaves, flattened to a list of leaves.

The one pytree of the library: the AD engine (``chainrules.ad``) and the engine bridges
(``chainrules.interop``) both walk their arguments and outputs with it. Every other object (an
array, a Python number, a string, ``None``, a slice, ...) is a leaf.

A tree definition (``TreeDef``) is ``None`` for a leaf, else ``(type, keys, children)``: ``keys``
is the tuple of a dict's keys (in insertion order) and ``None`` for a tuple, list or named tuple;
``children`` is the tuple of the children's tree definitions. A tree definition is hashable when
the dict keys are.

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

from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["TreeDef", "flatten", "is_named_tuple", "map_leaves", "unflatten"]

# A tree definition: None for a leaf, else (type, keys or None, children definitions).
TreeDef = Any


def is_named_tuple(x: Any) -> bool:
    """Whether ``x`` is an instance of a named tuple (a node of the pytree, like a tuple)."""
    return isinstance(x, tuple) and hasattr(x, "_fields")


def flatten(tree: Any) -> tuple[list[Any], TreeDef]:
    """The leaves of ``tree`` (depth first, dict keys in insertion order) and its structure."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> TreeDef:
    t = type(tree)
    if t is tuple or t is list or is_named_tuple(tree):
        return (t, None, tuple(_flatten(e, leaves) for e in tree))
    if t is dict:
        keys = tuple(tree)
        return (t, keys, tuple(_flatten(tree[k], leaves) for k in keys))
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
    if keys is not None:
        return dict(zip(keys, items))
    if t is tuple or t is list:
        return t(items)
    return t(*items)  # a named tuple


def map_leaves(fn: Callable[[Any], Any], tree: Any) -> Any:
    """``tree`` with every leaf ``x`` replaced by ``fn(x)``."""
    leaves, treedef = flatten(tree)
    return unflatten(treedef, [fn(x) for x in leaves])
