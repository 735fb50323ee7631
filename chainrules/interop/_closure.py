"""Closure conversion of a pullback, for the JAX bridge's ``vjp`` mode (``interop/jax.py``).

Why it exists, and why it may look inside Python objects. JAX's ``custom_vjp`` saves residuals
between the forward and the backward pass as a pytree of arrays; a pullback is a Python closure
over arrays (the primal, intermediate results, projectors holding dtypes and shapes), which JAX
rejects as a residual. The two ways out are to save the inputs and recompute the rrule in the
backward pass (a second forward, for every rule), or to convert the closure: :class:`Walk` finds
the JAX arrays the pullback reaches -- through closure cells, defaults, nested closures,
``functools.partial``, bound methods and chainrules' own objects -- and :func:`rebuild` copies
the containers on the way to them with new arrays in their place, sharing everything else. This
reads objects' structure, never decides what to differentiate: it is the same walk
``jax.closure_convert`` does for a function of JAX values, and it is confined to this module.

Its failure mode is one: an object it cannot look into (another library's object, not JAX's or
NumPy's) raises :class:`Opaque`, and the bridge falls back to saving the inputs and recomputing
the rrule (``tests/interop/test_jax.py`` checks both paths and that the values agree).
"""

from __future__ import annotations

import copy
import functools
import types
from typing import Any

import jax
import numpy as np

_STATIC = (
    int,
    float,
    complex,
    str,
    bytes,
    bool,
    type(None),
    type(Ellipsis),
    slice,
    range,
    type,
    types.ModuleType,
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    np.dtype,
    np.ndarray,
    np.generic,
)


class Opaque(Exception):
    """The pullback holds an object the walk cannot look into."""


def _library_object(o: Any) -> bool:
    """A JAX or NumPy object other than an array (a device, a sharding, a dtype, an aval): it
    holds no traced values."""
    mod = getattr(type(o), "__module__", "") or ""
    return mod.split(".", 1)[0] in ("jax", "jaxlib", "numpy", "ml_dtypes")


def _walkable(o: Any) -> bool:
    mod = getattr(type(o), "__module__", "") or ""
    return mod == "chainrules" or mod.startswith("chainrules.")


def _attrs(o: Any) -> list[tuple[str, Any]]:
    out = list(getattr(o, "__dict__", {}).items())
    for klass in type(o).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(o, name):
                out.append((name, getattr(o, name)))
    return out


class Walk:
    """The JAX arrays reachable from a pullback, in a fixed order, and which objects hold any."""

    def __init__(self) -> None:
        self.leaves: list[Any] = []
        self.index: dict[int, int] = {}
        self.has: dict[int, bool] = {}

    def visit(self, o: Any) -> bool:
        i = id(o)
        if isinstance(o, jax.Array):
            if i not in self.index:
                self.index[i] = len(self.leaves)
                self.leaves.append(o)
            return True
        if isinstance(o, _STATIC) or _library_object(o):
            return False
        if i in self.has:
            return self.has[i]
        self.has[i] = False  # cycles
        t = type(o)
        parts: Any
        if t is types.FunctionType:
            parts = [c for c in (o.__closure__ or ())]
            parts += list(o.__defaults__ or ()) + list((o.__kwdefaults__ or {}).values())
        elif t is types.CellType:
            try:
                parts = [o.cell_contents]
            except ValueError:  # an empty cell
                parts = []
        elif t is tuple or t is list or (isinstance(o, tuple) and hasattr(t, "_fields")):
            parts = list(o)
        elif t is dict:
            parts = list(o.values())
        elif t is functools.partial:
            parts = [o.func, *o.args, *o.keywords.values()]
        elif t is types.MethodType:
            parts = [o.__func__, o.__self__]
        elif _walkable(o):
            parts = [v for _, v in _attrs(o)]
        else:
            raise Opaque(t.__qualname__)
        found = False
        for p in parts:
            found = self.visit(p) or found
        self.has[i] = found
        return found


def rebuild(o: Any, walk: Walk, leaves: Any, memo: dict[int, Any]) -> Any:
    i = id(o)
    if i in walk.index:
        return leaves[walk.index[i]]
    if not walk.has.get(i, False):
        return o
    if i in memo:
        return memo[i]
    t = type(o)

    def r(x: Any) -> Any:
        return rebuild(x, walk, leaves, memo)

    if t is types.CellType:
        new: Any = types.CellType()
        memo[i] = new
        new.cell_contents = r(o.cell_contents)
        return new
    if t is types.FunctionType:
        cells = tuple(r(c) for c in (o.__closure__ or ()))
        defaults = tuple(r(d) for d in o.__defaults__) if o.__defaults__ else o.__defaults__
        new = types.FunctionType(o.__code__, o.__globals__, o.__name__, defaults, cells)
        if o.__kwdefaults__:
            new.__kwdefaults__ = {k: r(v) for k, v in o.__kwdefaults__.items()}
        new.__qualname__ = o.__qualname__
        new.__dict__.update(o.__dict__)
        memo[i] = new
        return new
    if t is tuple or t is list:
        new = t(r(e) for e in o)
    elif hasattr(t, "_fields"):  # a named tuple
        new = t(*(r(e) for e in o))
    elif t is dict:
        new = {k: r(v) for k, v in o.items()}
    elif t is functools.partial:
        new = functools.partial(
            r(o.func), *(r(a) for a in o.args), **{k: r(v) for k, v in o.keywords.items()}
        )
    elif t is types.MethodType:
        new = types.MethodType(r(o.__func__), r(o.__self__))
    else:  # a chainrules object (_walkable)
        new = copy.copy(o)
        memo[i] = new
        for name, v in _attrs(o):
            object.__setattr__(new, name, r(v))
    memo[i] = new
    return new
