"""Values entering a trace: the inputs a transformation traces (:func:`enter`), constants lifted
to the trace of the tracers they meet (``lift_constants``, ``lift_values``), Python numbers, and
the stacking of sequence arguments (``stack_sequences``)."""

from __future__ import annotations

from typing import Any

from ..core.namespaces import is_array
from ..core.pytree import flatten
from ._classes import _BY_TYPE
from ._plain import numbers_in
from ._tracer import _SEQ, Trace, Tracer, _entry_of, _np_generic, floating, lift_like


def lift_constants(vals: Any) -> list[Any]:
    """``vals`` (a sequence of arguments) as a list, with its raw arrays -- top-level or inside a
    tuple or list argument -- made constants of the innermost trace among the tracers in it, as
    the engine does for every call it dispatches; unchanged when it holds no tracer.

    For bridges that call a rule directly on a mixture of traced and raw arrays (the autograd
    bridge nests ``chainrules.ad`` inside autograd this way): a rule must not see a traced array
    next to a raw one.
    """
    out = list(vals)
    top: Tracer | None = None
    for v in out:
        for e in v if type(v) in _SEQ else (v,):
            if isinstance(e, Tracer) and (top is None or e._trace.level > top._trace.level):
                top = e
    if top is not None:
        lift_values(out, top)
    return out


def _liftable(e: Any) -> bool:
    """A raw array in a sequence argument (not a NumPy scalar: those are numbers there, as in a
    shape tuple)."""
    return not isinstance(e, Tracer) and not isinstance(e, _np_generic()) and is_array(e)


def lift_values(vals: list[Any], lower: Tracer) -> None:
    """Replace the raw arrays among ``vals`` (in place) by constants of ``lower``'s levels."""
    for i, v in enumerate(vals):
        if type(v) in _SEQ:
            if any(_liftable(e) for e in v):
                vals[i] = type(v)(lift_like(e, lower) if _liftable(e) else e for e in v)
        elif not isinstance(v, Tracer) and is_array(v):
            vals[i] = lift_like(v, lower)


def number(a: Any, numpy_values: bool) -> Any:
    """A NumPy scalar argument (``np.float64(2)``, ``finfo(x.dtype).eps``) as the Python number
    it stands for where the traced arrays are not NumPy's (array-api-strict, torch, device
    arrays refuse to mix with NumPy objects); ``a`` itself otherwise."""
    if not numpy_values and isinstance(a, _np_generic()):
        return a.item()  # type: ignore[attr-defined]  # a host scalar: no array is read
    return a


def stack_sequences(fn: Any, args: Any) -> Any:
    """``args`` with each list or tuple that holds tracers, whose elements have one shape,
    replaced by their stack (the array NumPy would make of it), where ``fn``'s registration says
    so (``entry.stacks``: registered by a standard, ``numpy:`` or ``scipy:`` name and not of kind
    ``"sequence"``); unchanged for a function that takes sequences, a callable target (a user's
    function: its own rules say what a sequence means) or a constant."""
    e = _entry_of(fn)
    if e is None or not e.stacks:
        return args
    out = list(args)
    for i, a in enumerate(out):
        if type(a) in _SEQ and a and any(isinstance(e, Tracer) for e in a) and _one_shape(a):
            like = next(e for e in a if isinstance(e, Tracer))
            parts = [
                e if isinstance(e, Tracer) else like._ns.asarray(e, dtype=like.dtype) for e in a
            ]
            out[i] = like._ns.stack(parts)
    return tuple(out)


def _one_shape(seq: Any) -> bool:
    """Whether the elements of ``seq`` (arrays and numbers) have one shape, so that NumPy makes
    one array of them. A pytree such as ``(c, lower)`` -- a matrix and a bool, which a
    ``chainrules.traceable`` function may take -- or arrays of different shapes are not one
    array: such a sequence reaches the rule as it is."""
    shape = None
    for e in seq:
        if hasattr(e, "shape"):
            s = tuple(e.shape)
        elif isinstance(e, int | float | complex):  # a Python number (a bool too): 0-d
            s = ()
        elif type(e) in _SEQ and numbers_in(e):
            import numpy as np

            try:  # a list of numbers, nested: NumPy's shape of it (no array value is read)
                s = np.shape(e)
            except ValueError:  # ragged
                return False
        else:  # None, a string: not an array NumPy would make
            return False
        if shape is not None and s != shape:
            return False
        shape = s
    return True


def enter(args: Any, kwargs: dict[str, Any]) -> tuple[Trace | None, list[Any], dict[str, Any]]:
    """Before a transformation calls the user's function: the innermost trace among ``args``
    (pushed on ``ACTIVE`` by the caller) and the arguments with the floating arrays of its
    library that are not differentiated (data, at the top level or in a tuple, list or dict)
    made constants of it, so that ``array_namespace(data, x)`` and the library's functions see
    one kind of array."""
    if len(args) == 1 and not kwargs and isinstance(args[0], Tracer):
        return args[0]._trace, list(args), kwargs  # f(x), x traced: no data to lift (grad's call)
    top: Trace | None = None
    for a in args:
        for e in _leaves(a):
            if type(e) in _SEQ or type(e) is dict:  # deeper: a tuple of dicts of tracers
                e = next((t for t in _tree_leaves(e) if isinstance(t, Tracer)), None)
            if isinstance(e, Tracer) and (top is None or e._trace.level > top.level):
                top = e._trace
    out = list(args)
    if top is None:
        return top, out, kwargs
    cls = top.cls
    data = _DATA_TYPES.get(cls)
    if data is None:
        data = _DATA_TYPES[cls] = tuple(t for t, c in _BY_TYPE.items() if c is cls)
    for i, a in enumerate(out):
        ta = type(a)
        if ta in _SEQ:
            out[i] = ta(_lift_data(e, data, top) for e in a)
        elif ta is dict:
            out[i] = {k: _lift_data(v, data, top) for k, v in a.items()}
        elif ta in data:  # else a tracer or a non-array: unchanged (the common case, cheaply)
            out[i] = _lift_data(a, data, top)
    if kwargs:
        kwargs = {k: _lift_data(v, data, top) for k, v in kwargs.items()}
    return top, out, kwargs


def _lift_data(e: Any, data: tuple[type, ...], top: Trace) -> Any:
    """``e`` as a constant of ``top`` when it is a floating array of the trace's library."""
    if type(e) in data and floating(e):
        return top.const(e)
    return e


_DATA_TYPES: dict[type, tuple[type, ...]] = {}


def _tree_leaves(a: Any) -> list[Any]:
    return flatten(a)[0]


def _leaves(a: Any) -> Any:
    ta = type(a)
    if ta in _SEQ:
        return a
    if ta is dict:
        return a.values()
    return (a,)


def const_result(trace: Trace, y: Any) -> Any:
    """A rule's result that does not depend on ``trace``'s inputs. A floating array stays a
    constant tracer of the trace (no tape node, no tangent), so that rules never meet a mix of
    traced and plain arrays; integer and boolean results (indices, masks) leave the trace."""
    if isinstance(y, tuple) or type(y) is list:
        parts = [const_result(trace, e) for e in y]
        return type(y)(*parts) if hasattr(y, "_fields") else type(y)(parts)
    if floating(y):
        return trace.const(y)
    return y
