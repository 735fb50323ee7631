"""The torch bridge's calls written down and read back, for ``chainrules.interop.torch``'s
``save`` and ``load``: a wrapped function by an importable name, and a call's static structure
(its tree of tuples, lists and dicts, and its static leaves) as JSON."""

from __future__ import annotations

import importlib
from typing import Any

import torch

from ..core.calls import FlatSplit, Rules, Split, flat_split

__all__ = ["decode_call", "encode_call", "importable", "resolve"]


def importable(rules: Rules) -> str:
    """``module:qualname`` by which another process finds ``rules.f``: its own ``__module__``
    and ``__qualname__``, else a split of its chainrules name (``array_api_compat.torch.exp`` is
    ``torch.exp``, whose qualname is a class's)."""
    f = rules.f
    module, qual = getattr(f, "__module__", None) or "", getattr(f, "__qualname__", "")
    parts = rules.name.split(".")
    candidates = [(module, qual)] + [
        (".".join(parts[:i]), ".".join(parts[i:])) for i in range(len(parts) - 1, 0, -1)
    ]
    for module, qual in candidates:
        if module and qual and "<" not in qual and resolve(module, qual) is f:
            return f"{module}:{qual}"
    raise ValueError(
        f"chainrules.interop.torch.save: {rules.name} cannot be found again by a name in "
        "another process; wrap a function defined at a module's top level"
    )


def resolve(module: str, qual: str) -> Any:
    try:
        found: Any = importlib.import_module(module)
        for part in qual.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found


_TREES = {"tuple": tuple, "list": list, "dict": dict}


def encode_call(name: str, sp: Split) -> Any:
    def tree(d: Any) -> Any:
        if d is None:
            return None
        t, keys, children = d
        kind = next((k for k, v in _TREES.items() if v is t), None)
        if kind is None or (keys is not None and not all(type(k) is str for k in keys)):
            raise ValueError(
                f"chainrules.interop.torch.save: a call of {name} has an argument of type "
                f"{t.__name__}, which cannot be written down (tuples, lists, dicts only)"
            )
        return [kind, None if keys is None else list(keys), [tree(c) for c in children]]

    dynamic = set(sp.dynamic)
    leaves = [None if i in dynamic else _encode_leaf(name, v) for i, v in enumerate(sp.leaves)]
    return {
        "flat": type(sp) is FlatSplit,
        "tree": tree(sp.skeleton),
        "leaves": leaves,
        "dynamic": list(sp.dynamic),
        "arg_of": list(sp.arg_of),
        "nargs": sp.nargs,
        "kw_of": list(sp.kw_of),
    }


def _encode_leaf(name: str, v: Any) -> Any:
    if v is None or type(v) in (bool, int, float, str):
        return {"v": v}
    if type(v) is slice:
        return {"slice": [_encode_leaf(name, e) for e in (v.start, v.stop, v.step)]}
    if v is Ellipsis:
        return {"ellipsis": True}
    if isinstance(v, torch.dtype):
        return {"dtype": str(v).removeprefix("torch.")}
    raise ValueError(
        f"chainrules.interop.torch.save: a call of {name} has the static argument {v!r}, "
        "which cannot be written down (None, bool, int, float, str, slice, ..., torch dtypes)"
    )


def _decode_leaf(e: Any) -> Any:
    if "v" in e:
        return e["v"]
    if "slice" in e:
        return slice(*(_decode_leaf(p) for p in e["slice"]))
    if "ellipsis" in e:
        return Ellipsis
    return getattr(torch, e["dtype"])


def decode_call(c: Any) -> Split:
    if c["flat"]:
        return flat_split(c["nargs"])

    def tree(d: Any) -> Any:
        if d is None:
            return None
        kind, keys, children = d
        return (_TREES[kind], None if keys is None else tuple(keys), tuple(map(tree, children)))

    leaves = [None if e is None else _decode_leaf(e) for e in c["leaves"]]
    return Split(tree(c["tree"]), leaves, c["dynamic"], c["arg_of"], c["nargs"], c["kw_of"])
