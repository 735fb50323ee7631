"""Plain NumPy code on NumPy-backed tracers: the lists and tuples that NumPy's dispatched
functions (``__array_function__``) read as arrays.

NumPy's functions take any array_like where they take an array: ``np.dot(x, [1.5, 2.0])``,
``np.where(m, [0.0, 1.0], x)``, ``np.concatenate([[0.5], x])``. NumPy hands such a call to the
tracer whole, and a rule (written for arrays) would refuse the list. Which positional parameter
of a NumPy function is an array, and which a shape, an axis or an index list (``np.reshape(x, (3,
1))``, ``np.transpose(x, (1, 0))``, ``np.pad(x, ((1, 1),))``), NumPy does not say in a form the
engine can read, so the engine reads the list itself, as NumPy would:

* an element of a sequence argument that holds traced arrays (``np.stack([[1.0, 2.0], x])``,
  ``np.concatenate(([0], x))``) is an array, whatever its numbers: such a sequence is a
  sequence of arrays;
* any other list or tuple (positional or keyword) whose numbers include one that is not an
  integer -- a float, a complex or a bool -- is data: a shape, an axis, a repeat count or an
  index list holds integers only;
* a list or tuple of integers alone is left as it is (a shape or an axis). Where the function's
  rule refuses it as an array (``np.dot(x, [1, 2])``, ``np.clip(x, [0, 1], 3)``: the rule's
  ``namespace_of`` raises ``NotAnArrayError``, before any work), the call is made again with
  such lists as arrays: the rule has said that it takes an array there.

Nothing here reads an array value: only the Python lists the code wrote.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.signature import all_ints
from ._tracer import _SEQ, Tracer

__all__ = ["array_like_args", "integer_lists_as_arrays", "numbers_in"]


def numbers_in(a: Any) -> str:
    """What the nested lists and tuples ``a`` hold: ``"data"`` when every leaf is a number
    (Python's or NumPy's) and one is not an integer, ``"ints"`` when every leaf is an integer,
    ``""`` otherwise (a tracer, an array, a string, ``None``, a slice, an empty list...)."""
    seen = ""
    for e in a:
        te = type(e)
        if te in _SEQ:
            k = numbers_in(e)
            if not k:
                return ""
        elif te is int or isinstance(e, np.integer):
            k = "ints"
        elif te is float or te is complex or te is bool or isinstance(e, np.number | np.bool_):
            k = "data"
        else:
            return ""
        if k == "data" or not seen:
            seen = k
    return seen


def _asarray(a: Any) -> Any:
    return np.asarray(a)


def _convert(a: Any) -> Any:
    """``a`` (an argument) with a list or tuple of data made an array (see the module's docs)."""
    if type(a) not in _SEQ or not a:
        return a
    if all_ints(a):  # the common case first: a shape or an axis, Python ints alone
        return a
    if any(isinstance(e, Tracer) for e in a):  # a sequence of arrays: its plain lists are arrays
        if not any(type(e) in _SEQ and numbers_in(e) for e in a):
            return a
        return type(a)(_asarray(e) if type(e) in _SEQ and numbers_in(e) else e for e in a)
    return _asarray(a) if numbers_in(a) == "data" else a


def array_like_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """``args`` and ``kwargs`` of a NumPy function dispatched to a NumPy-backed tracer, with the
    lists and tuples NumPy reads as arrays made arrays (the module's docs say which); the same
    objects when there is none (one type check per argument)."""
    out = None
    for i, a in enumerate(args):
        if type(a) in _SEQ:
            c = _convert(a)
            if c is not a:
                if out is None:
                    out = list(args)
                out[i] = c
    if out is not None:
        args = tuple(out)
    if kwargs:
        for k, v in kwargs.items():
            if type(v) in _SEQ and _convert(v) is not v:
                kwargs = {k: _convert(v) for k, v in kwargs.items()}
                break
    return args, kwargs


def integer_lists_as_arrays(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """``args`` and ``kwargs`` with each list or tuple of integers alone made an array, for the
    call again after the rule refused such a list as an array; ``None`` when there is none."""

    def ints(a: Any) -> bool:
        return type(a) in _SEQ and numbers_in(a) == "ints"

    if not any(ints(a) for a in (*args, *kwargs.values())):
        return None
    return (
        tuple(_asarray(a) if ints(a) else a for a in args),
        {k: _asarray(v) if ints(v) else v for k, v in kwargs.items()},
    )
