"""How ``chainrules.ad.numpy`` makes NumPy's functions its own: one rule for every function,
read from what NumPy and the rule registry say about it, never from its name.

* Outside a transformation every function is NumPy's: the wrappers below call it with the
  arguments as given (one context-variable read first).
* While a transformation of ``chainrules.ad`` calls the user's function in this thread or asyncio
  task (the engine's context variable ``chainrules.ad._compat._INSIDE``, which
  ``scope_enter``/``scope_exit`` set around that call, and only there):

  - a function whose registration makes arrays (kind ``"creation"``, ``"like"``; ``asarray``'s
    ``"conversion"``) is the traced namespace's: a floating array it makes from no traced array
    is a *created* array, which a later write of a traced value (``out[i] = t``) turns into a
    functional update;
  - a function that NumPy dispatches (``__array_function__``: it has NumPy's
    ``_implementation``) gets a list or tuple holding traced values, where NumPy would convert an
    array-like, as the array :func:`build` makes of it (``np.mean([x[0], x[1]])``); a function of
    kind ``"sequence"`` (``stack``, ``concatenate``) gets its sequence, each element that is such
    a list built.

Ufuncs stay NumPy's own objects (their methods ``reduce``, ``at``, ... with them): NumPy hands
their calls on tracers to the engine already.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as _np

from .._compat import _INSIDE
from .._namespace import TracedNamespace
from .._tracer import Tracer, _entry_of, created

__all__ = ["build", "dispatched", "dropin_names", "holds_tracer", "inside"]

_SEQ = (list, tuple)
_MAKES_ARRAYS = frozenset(("creation", "like", "conversion"))


# inside(): whether a transformation of chainrules.ad is calling the user's function in this
# thread or task (the engine's context variable, set only around that call); the bound method
# itself, one C call
inside = _INSIDE.get


def holds_tracer(obj: Any) -> bool:
    """Whether ``obj`` is a traced array or a list or tuple (nested) holding one."""
    if isinstance(obj, Tracer):
        return True
    if type(obj) in _SEQ:
        for e in obj:
            if holds_tracer(e):
                return True
    return False


def build(obj: Any) -> Any:
    """The array NumPy would make of ``obj``, a list or tuple (nested) holding traced values:
    each level stacked with ``numpy.stack`` (which NumPy hands to the engine), the plain
    elements converted as NumPy converts them."""
    if isinstance(obj, Tracer):
        return obj
    if type(obj) in _SEQ and holds_tracer(obj):
        return _np.stack([build(e) for e in obj])
    return _np.asarray(obj)


def _built(a: Any) -> Any:
    return build(a) if type(a) in _SEQ and holds_tracer(a) else a


def _built_elements(a: Any) -> Any:
    if type(a) in _SEQ and any(type(e) in _SEQ and holds_tracer(e) for e in a):
        return type(a)(_built(e) for e in a)
    return a


def dispatched(fn: Callable[..., Any], sequence: bool, joins: bool = False) -> Callable[..., Any]:
    """``fn`` (a function NumPy dispatches), taking lists of traced values inside a
    transformation; ``joins``: a joining function (``concatenate``, ``vstack``, ...: its first
    argument is the sequence of arrays) that also takes a traced array as that sequence, as NumPy
    takes an array -- its sub-arrays along the first axis (the rules take lists and tuples)."""
    convert = _built_elements if sequence else _built
    inside = _INSIDE.get

    @functools.wraps(fn)
    def dropin(*args: Any, **kwargs: Any) -> Any:
        if inside():
            if joins and args and isinstance(args[0], Tracer):
                args = (list(args[0]), *args[1:])
            args = tuple(convert(a) for a in args)
            if kwargs:
                kwargs = {k: convert(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    _mark(dropin, fn)
    return dropin


def _making(fn: Callable[..., Any], traced: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a function whose registration makes arrays), the traced namespace's ``traced``
    inside a transformation."""

    inside = _INSIDE.get

    @functools.wraps(fn)
    def dropin(*args: Any, **kwargs: Any) -> Any:
        if inside():
            return traced(*args, **kwargs)
        return fn(*args, **kwargs)

    _mark(dropin, fn)
    return dropin


def _mark(dropin: Any, fn: Any) -> None:
    # a lookup of the wrapper's rules or registration finds fn's (chainrules.core.table:
    # a traceable wrapper answers with the function it wraps), so cr.rrule(dropin.sum, x) works
    dropin.__wrapped__ = fn
    dropin.__chainrules_traceable__ = True


def dropin_names(module: Any, names: Any) -> dict[str, Any]:
    """``{name: drop-in function}`` for the functions among ``module``'s ``names`` that the
    drop-in namespace changes (see the module's docs); other names are left out."""
    out: dict[str, Any] = {}
    # the module's functions as the traced namespace adapts them (its creation functions make
    # created arrays while a transformation runs)
    traced = TracedNamespace(module)
    made: dict[int, Any] = {}  # one wrapper per function object (aliases share it)
    for name in names:
        fn = getattr(module, name, None)
        if fn is None or isinstance(fn, (type, _np.ufunc)) or not callable(fn):
            continue
        if id(fn) in made:
            out[name] = made[id(fn)]
            continue
        e = _entry_of(fn)
        kind = None if e is None else e.kind
        if kind in _MAKES_ARRAYS:
            w: Any = _making(fn, getattr(traced, name))
        elif hasattr(fn, "_implementation"):  # NEP 18: NumPy dispatches it
            w = dispatched(fn, kind == "sequence")
        else:
            continue
        made[id(fn)] = out[name] = w
    return out


def created_result(y: Any) -> Any:
    """``y``, a floating array made from no traced array, as a created array while a
    transformation runs in this context (unchanged otherwise)."""
    return created(y) if _INSIDE.get() else y
