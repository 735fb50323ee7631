"""``chainrules.ad.numpy``: NumPy as a drop-in namespace for code that ``chainrules.ad``
differentiates (what ``autograd.numpy`` is to autograd)::

    import chainrules.ad.numpy as np
    from chainrules import ad

    def f(x):
        out = np.zeros(3)
        out[0] = x[0] * x[1]
        out[1:] = np.sin(x)
        return np.sum(np.array([[out[0], 1.0], [x[1], out[2]]]) ** 2)

    ad.grad(f)(np.array([0.5, 2.0]))

Outside a transformation every name is NumPy's, with NumPy's results and types (a plain ndarray
in, a plain ndarray out). While a transformation calls your function, in that thread or task
(the engine's documented state: ``chainrules.ad.numpy._dropin.inside``):

* ``array`` / ``asarray`` / ``asanyarray`` of nested lists and tuples holding traced values build
  them with ``stack`` (``dtype`` and ``ndmin`` honoured); ``r_[...]`` and ``c_[...]`` take traced
  values too;
* the functions that make arrays (``zeros``, ``ones``, ``empty``, ``full``, ``eye``, ``arange``,
  ``linspace``, ``zeros_like``, ..., ``array`` of plain values: what their registrations declare
  of kind ``creation``, ``like`` or ``conversion``) return *created* arrays, the traced
  namespace's: ``out[i] = t`` and ``out[a:b] = t`` into them are recorded as functional updates;
* a function that NumPy dispatches takes a list of traced values where NumPy takes an array-like
  (``np.mean([x[0], x[1]])``), and ``concatenate`` / ``stack`` / ``vstack`` / ``hstack`` mix
  traced values, arrays, lists and numbers.

It adds autograd.numpy's ``make_diagonal``, and ``where`` takes ``condition``, ``x`` and ``y`` by
keyword too. ``chainrules.ad.numpy.linalg`` and ``.fft`` follow the same rules; ``.random`` is
NumPy's. See ``docs/dropin.md``.
"""

from __future__ import annotations

import builtins as _builtins  # NumPy's names shadow some (bool, sum, max, any, ...)
from importlib import import_module as _import_module
from typing import TYPE_CHECKING, Any

import numpy as _np

from .._namespace import TracedNamespace as _TracedNamespace
from .._tracer import Tracer as _Tracer
from ._dropin import build as _build
from ._dropin import created_result as _created_result
from ._dropin import dispatched as _dispatched
from ._dropin import dropin_names as _dropin_names
from ._dropin import holds_tracer as _holds_tracer
from ._dropin import inside as _inside

# NumPy's names that are loaded; the rest (testing, ma, f2py, ...) come on first use, as NumPy
# loads them (__getattr__ below): a star import would load them all (0.15 s here)
_LOADED = [n for n in _np.__all__ if n in vars(_np)]
if TYPE_CHECKING:
    from numpy import *  # noqa: F403
else:
    globals().update({n: vars(_np)[n] for n in _LOADED})


__version__ = _np.__version__  # type: ignore[misc]  # (NumPy's is Final in its stubs)

globals().update(_dropin_names(_np, _LOADED))
_where = globals()["where"]  # NumPy's, taking lists of traced values (the rule above)
_traced_asarray = _TracedNamespace(_np).asarray


def _traced_array(obj: Any, dtype: Any, copy: Any, ndmin: int) -> Any:
    if isinstance(obj, _Tracer):  # the traced namespace's: itself, a copy, or cast
        y = _traced_asarray(obj, dtype=dtype, copy=copy)
    else:
        y = _build(obj)  # a new array
        if dtype is not None:
            y = y.astype(dtype)
    if ndmin > y.ndim:
        y = _np.reshape(y, (1,) * (ndmin - y.ndim) + tuple(y.shape))
    return y


def array(object: Any, dtype: Any = None, **kwargs: Any) -> Any:  # type: ignore[no-redef]
    """NumPy's ``array``; inside a transformation, an object holding traced values (nested lists
    and tuples of them) is built with ``stack``, and a floating array of plain values is a
    created array (a buffer that traced values may be written into)."""
    if not _inside():
        return _np.array(object, dtype, **kwargs)
    if _holds_tracer(object):
        return _traced_array(object, dtype, kwargs.get("copy", True), kwargs.get("ndmin", 0))
    return _created_result(_np.array(object, dtype, **kwargs))


def asarray(a: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
    """NumPy's ``asarray``; inside a transformation as :func:`array`, with no copy of a traced
    array that has the dtype already."""
    if not _inside():
        return _np.asarray(a, dtype, *args, **kwargs)
    if _holds_tracer(a):
        return _traced_array(a, dtype, kwargs.get("copy"), 0)
    return _created_result(_np.asarray(a, dtype, *args, **kwargs))


def asanyarray(a: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
    """NumPy's ``asanyarray``; inside a transformation as :func:`asarray`."""
    if not _inside():
        return _np.asanyarray(a, dtype, *args, **kwargs)
    if _holds_tracer(a):
        return _traced_array(a, dtype, kwargs.get("copy"), 0)
    return _created_result(_np.asanyarray(a, dtype, *args, **kwargs))


def where(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
    """NumPy's ``where(condition, [x, y])``; as autograd's, ``condition``, ``x`` and ``y`` may
    also be given by keyword."""
    if kwargs:
        names = ("condition", "x", "y")
        unknown = set(kwargs) - set(names)
        if unknown:
            raise TypeError(
                f"chainrules.ad.numpy.where() got an unexpected keyword argument "
                f"{sorted(unknown)[0]!r}; it takes condition, x and y"
            )
        given = list(args)
        for name in names[len(args) :]:
            if name not in kwargs:
                break
            given.append(kwargs.pop(name))
        if kwargs:
            raise TypeError(
                f"chainrules.ad.numpy.where() got multiple values or a gap for {sorted(kwargs)}: "
                "give condition, x and y in this order (positionally or by keyword)"
            )
        if len(given) == 2:
            raise TypeError("chainrules.ad.numpy.where(): either both or neither of x and y")
        args = tuple(given)
    return _where(*args)


# the joining functions (the first argument is the sequence of arrays to join) take a traced
# array as that sequence too, as NumPy does
concatenate = _dispatched(_np.concatenate, sequence=True, joins=True)
stack = _dispatched(_np.stack, sequence=True, joins=True)
vstack = _dispatched(_np.vstack, sequence=True, joins=True)
hstack = _dispatched(_np.hstack, sequence=True, joins=True)
dstack = _dispatched(_np.dstack, sequence=True, joins=True)
column_stack = _dispatched(_np.column_stack, sequence=True, joins=True)
row_stack = _dispatched(_np.row_stack, sequence=True, joins=True)  # deprecated: warns as NumPy's


class _Concatenator:
    """``r_`` / ``c_``: NumPy's own, unless a traced value is in the key; then the pieces are
    concatenated as NumPy's ``AxisConcatenator`` does (``r_``: along the first axis, scalars as
    1-d; ``c_``: 1-d pieces as columns, along the last axis); a slice is NumPy's range."""

    def __init__(self, numpy_own: Any, columns: _builtins.bool) -> None:
        self._own = numpy_own
        self._columns = columns

    def __getitem__(self, key: Any) -> Any:
        if not _inside():
            return self._own[key]
        if not _holds_tracer(key):
            return _created_result(self._own[key])
        name = "c_" if self._columns else "r_"
        pieces = []
        for k in key if type(key) is tuple else (key,):
            if isinstance(k, str):
                raise TypeError(
                    f"chainrules.ad.numpy.{name}[{k!r}, ...]: a string directive with traced "
                    "values is not supported; use chainrules.ad.numpy.concatenate(..., axis=) "
                    "or stack"
                )
            if isinstance(k, slice):
                a = _np.r_[k]
            else:
                a = _np.atleast_1d(k if isinstance(k, _Tracer) else asarray(k))
            if self._columns and a.ndim == 1:
                a = _np.reshape(a, (-1, 1))
            pieces.append(a)
        return _np.concatenate(pieces, axis=-1 if self._columns else 0)

    def __len__(self) -> int:
        return 0


r_ = _Concatenator(_np.r_, columns=False)  # type: ignore[misc, assignment]
c_ = _Concatenator(_np.c_, columns=True)  # type: ignore[misc, assignment]


def make_diagonal(D: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """autograd.numpy's complement to ``diagonal``: an array whose last two axes hold ``D``'s
    last axis on their diagonal (``offset=0, axis1=-1, axis2=-2`` only, as autograd's)."""
    if not (offset == 0 and axis1 == -1 and axis2 == -2):
        raise NotImplementedError(
            "chainrules.ad.numpy.make_diagonal: only offset=0, axis1=-1, axis2=-2 are supported, "
            f"got offset={offset}, axis1={axis1}, axis2={axis2}"
        )
    D = asarray(D)
    return D[..., None] * _np.eye(D.shape[-1], dtype=D.dtype)


# the submodules replace NumPy's, which may be bound to these names already (so that
# ``from . import linalg`` would find NumPy's and import nothing)
fft = _import_module(f"{__name__}.fft")
linalg = _import_module(f"{__name__}.linalg")
random = _import_module(f"{__name__}.random")

__all__ = [*_np.__all__, "make_diagonal"]


def __getattr__(name: str) -> Any:
    """NumPy's names that NumPy loads on first use (``testing``, ``ma``, ``polynomial``, ...)."""
    if name in _np.__all__:
        return getattr(_np, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
