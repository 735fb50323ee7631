"""Pytrees: tuples, lists, named tuples and dicts of arrays, flattened to a list of leaves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["flatten", "unflatten"]

# A tree definition: None for a leaf, else (type, keys or None, children definitions).
TreeDef = Any


def flatten(tree: Any) -> tuple[list[Any], TreeDef]:
    """The leaves of ``tree`` (depth first, dict keys in insertion order) and its structure."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> TreeDef:
    t = type(tree)
    if t is tuple or t is list or (isinstance(tree, tuple) and hasattr(tree, "_fields")):
        return (t, None, tuple(_flatten(e, leaves) for e in tree))
    if t is dict:
        keys = tuple(tree)
        return (t, keys, tuple(_flatten(tree[k], leaves) for k in keys))
    leaves.append(tree)
    return None


def unflatten(treedef: TreeDef, leaves: list[Any]) -> Any:
    """Rebuild the structure ``treedef`` with ``leaves`` (consumed in order)."""
    it = iter(leaves)
    return _build(treedef, it)


def _build(treedef: TreeDef, it: Any) -> Any:
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
    leaves, treedef = flatten(tree)
    return unflatten(treedef, [fn(x) for x in leaves])
