"""NumPy's protocols and methods for NumPy-backed tracers: ``__array_ufunc__``,
``__array_function__`` and ndarray's methods (``x.reshape(2, 3)``, ``x.sum()``, ``x += y``)
recorded through the functions they stand for. Mixed into the tracer classes of NumPy-like arrays
by ``chainrules.ad._classes.tracer_class``."""

from __future__ import annotations

from typing import Any

from ..core.namespaces import NotAnArrayError, SequenceExpectedError, is_array
from ._namespace import _astype_keeps, copy_of
from ._plain import array_like_args, integer_lists_as_arrays
from ._tracer import (
    _SEQ,
    CREATED,
    Tracer,
    _assign,
    _created,
    _entry_of,
    _mark_view,
    array_like,
    dispatch,
    floating,
    forget_written,
    is_constant,
    lift_like,
    primal,
    readable,
)

# --- NumPy's protocols and methods for NumPy-backed tracers ------------------------------------
# ndarray's methods on a tracer: method name -> (NumPy function it calls, how). How: "" (the
# function's result as it is: a view where its registration is of kind "view"), "copy" (a new
# array where the function gives a view: x.flatten() is np.ravel's values, copied), "shape"
# (several positional integers are one shape: x.reshape(2, 3) is np.reshape(x, (2, 3))),
# "in place" (ndarray's method changes x and returns None: x.sort() is x[...] = np.sort(x)),
# "second" (x is the function's second argument: x.compress(c, axis) is np.compress(c, x, axis)).
_NUMPY_METHODS: dict[str, tuple[str, str]] = {
    "sum": ("sum", ""),
    "mean": ("mean", ""),
    "prod": ("prod", ""),
    "max": ("max", ""),
    "min": ("min", ""),
    "var": ("var", ""),
    "std": ("std", ""),
    "cumsum": ("cumsum", ""),
    "cumprod": ("cumprod", ""),
    "reshape": ("reshape", "shape"),
    "transpose": ("transpose", "shape"),
    "conj": ("conjugate", ""),
    "conjugate": ("conjugate", ""),
    "dot": ("dot", ""),
    "take": ("take", ""),
    "clip": ("clip", ""),
    "astype": ("astype", ""),
    "ravel": ("ravel", ""),
    "flatten": ("ravel", "copy"),
    "squeeze": ("squeeze", ""),
    "swapaxes": ("swapaxes", ""),
    "diagonal": ("diagonal", ""),
    "trace": ("trace", ""),
    "round": ("round", ""),
    "repeat": ("repeat", ""),
    "compress": ("compress", "second"),
    "all": ("all", ""),
    "any": ("any", ""),
    "argmax": ("argmax", ""),
    "argmin": ("argmin", ""),
    "argsort": ("argsort", ""),
    "argpartition": ("argpartition", ""),
    "nonzero": ("nonzero", ""),
    "searchsorted": ("searchsorted", ""),
    "sort": ("sort", "in place"),
    "partition": ("partition", "in place"),
}


_NUMPY_PROPERTIES = {"real": "real", "imag": "imag"}


def _item(self: Any, *args: Any) -> Any:
    """``t.item(*args)``: a host read (NumPy's, ``item(k)`` of the flat array), refused where it
    would lose a derivative."""
    return self._host("x.item()", *args)


def _tolist(self: Any) -> Any:
    """``t.tolist()``: a host read, refused where it would lose a derivative."""
    return self._host("x.tolist()")


def _itemsize(self: Any) -> int:
    return int(self.dtype.itemsize)


def _nbytes(self: Any) -> int:
    return int(self.size) * int(self.dtype.itemsize)


def _is_view(fn: Any) -> bool:
    """``fn``'s registration says NumPy returns a view of its first argument (kind ``"view"``)."""
    e = _entry_of(fn)
    return e is not None and e.kind == "view"


def _keeps(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """``fn(*args, **kwargs)`` returns its first argument itself: ``fn``'s registration is of
    kind ``"cast"`` and the argument has the dtype already, with ``copy=False``."""
    if len(args) < 2:
        return False
    e = _entry_of(fn)
    return e is not None and e.kind == "cast" and _astype_keeps(args[0], args[1], kwargs)


def _ufunc_into(ufunc: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc(*inputs, out=o, where=w)`` with a tracer among the arguments: the result, computed
    as without ``out``, written into each ``o`` as ``o[...] = y`` (where ``w``): a traced or
    created ``o`` takes it as any write (its views and base see it), a NumPy array a constant
    result; NumPy's own return, the ``out`` arrays."""
    import numpy as np

    kw = dict(kwargs)
    outs = kw.pop("out")
    where = kw.pop("where", True)
    if type(outs) is not tuple:
        outs = (outs,)
    y = dispatch(ufunc, inputs, kw)
    ys = tuple(y) if ufunc.nout > 1 else (y,)
    done = []
    for o, yi in zip(outs, ys, strict=True):
        if o is None:
            done.append(yi)
            continue
        if where is not True:
            yi = np.where(where, yi, o)
        if isinstance(o, Tracer):
            o[...] = yi
        elif readable(yi):
            o[...] = primal(yi)
        else:
            raise TypeError(
                f"chainrules.ad: numpy.{ufunc.__name__}(..., out=a) with a NumPy array a (or "
                "a op= t with a traced t): a NumPy array cannot hold a traced value. Allocate a "
                "with chainrules.ad.numpy's zeros (import chainrules.ad.numpy as np) or through "
                "the traced namespace (xp = array_namespace(x); a = xp.zeros(n)), add into it "
                f"with chainrules.scatter_add, or use the result, a = numpy.{ufunc.__name__}(...)"
            )
        done.append(o)
    return tuple(done) if ufunc.nout > 1 else done[0]


def _ufunc_method(ufunc: Any, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc.reduce`` / ``accumulate`` / ``reduceat`` / ``outer`` / ``at`` with tracers among
    the arguments, none of which depends on an input (data passed as an argument, created
    arrays): NumPy's own on the values, the result a constant as it would be closed over; ``at``
    writes into its first operand as any write does (in place into a created array). A
    differentiated argument is a ``TypeError`` naming the method."""
    name = f"numpy.{ufunc.__name__}.{method}"
    outs = kwargs.get("out")
    every = (*inputs, *kwargs.values(), *(outs if type(outs) is tuple else ()))
    if any(isinstance(a, Tracer) and not is_constant(a) for a in every):
        raise TypeError(
            f"chainrules.ad: {name} of a traced array cannot be differentiated (no rule); use "
            "the namespace's functions: xp.sum / xp.max for add / maximum.reduce, xp.cumulative_"
            "sum for add.accumulate, a write x[idx] = ... (or a scatter) for at"
        )
    if outs is not None:  # computed without out=, then written into it
        kw = {k: v for k, v in kwargs.items() if k != "out"}
        outs = outs if type(outs) is tuple else (outs,)
        y = _ufunc_method(ufunc, method, inputs, kw)
        for o in outs:
            o[...] = y
        return outs[0]
    fn = getattr(ufunc, method)
    vals = [primal(a) for a in inputs]
    kw = {k: primal(v) for k, v in kwargs.items()}
    if method == "at":  # ufunc.at(a, indices, b): a changes
        a = inputs[0]
        if not isinstance(a, Tracer):
            return fn(*vals, **kw)  # a NumPy array: NumPy's, in place
        if a._trace is CREATED:
            forget_written(a._value)
            return fn(*vals, **kw)  # in place into the created array, as its writes are
        new = copy_of(vals[0])  # a constant of a real trace: a rule may hold its value
        fn(new, *vals[1:], **kw)
        _assign(a, lift_like(new, a))
        return None
    y = fn(*vals, **kw)
    like = next(a for a in inputs if isinstance(a, Tracer))
    if not floating(y) or not is_array(y):
        return y
    return _created(y) if like._trace is CREATED else lift_like(y, like)


class _NumpyMethods:
    """NumPy's protocols (``np.sin(t)``, ``np.sum(t)``) and array methods (``t.sum()``)."""

    __slots__ = ()

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__":
            return _ufunc_method(ufunc, method, inputs, kwargs)
        if self._numpy and any(type(a) in _SEQ for a in inputs):  # array_like inputs
            inputs = tuple(array_like(self, a) for a in inputs)
        if kwargs:
            if kwargs.get("out") is not None:
                return _ufunc_into(ufunc, inputs, kwargs)
        elif len(inputs) == 1:  # np.sin(t): t is self, the only tracer
            return self._trace.process(ufunc, inputs, kwargs)
        elif len(inputs) == 2:  # np.multiply(t, u): both of self's trace, or u a plain number
            a, b = inputs
            other = b if a is self else a
            to = type(other)
            if (to is type(self) and other._trace is self._trace) or to is float or to is int:
                return self._trace.process(ufunc, inputs, kwargs)
        return dispatch(ufunc, inputs, kwargs)

    def __array_function__(
        self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        if _keeps(func, args, kwargs):
            return args[0]  # np.astype(t, t.dtype, copy=False): t itself
        if self._numpy:  # lists NumPy reads as arrays (np.dot(x, [1.5, 2.0])): arrays
            args, kwargs = array_like_args(args, kwargs)
        try:
            y = dispatch(func, args, kwargs)
        except SequenceExpectedError:  # np.vstack(t): NumPy takes t as the sequence of its rows
            if not (self._numpy and args and isinstance(args[0], Tracer)):
                raise
            y = dispatch(func, (list(args[0]), *args[1:]), kwargs)
        except NotAnArrayError:  # the rule took a list of integers as an array: so be it
            again = integer_lists_as_arrays(args, kwargs) if self._numpy else None
            if again is None:
                raise
            y = dispatch(func, *again)
        if _is_view(func):
            _mark_view(y, args[0] if args else None)
        return y

    def copy(self, order: str = "K") -> Any:
        """``t.copy()``: a new array (see :func:`copy_of`)."""
        return copy_of(self)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"traced array has no attribute {name!r}")


def _ndarray_method(name: str, fname: str, how: str) -> Any:
    """``t.name(*args, **kwargs)``: NumPy's ``fname`` of ``t`` (see :data:`_NUMPY_METHODS`),
    a method of the class: the attribute is found as ndarray's are, not through
    ``__getattr__`` after a failed lookup and a closure per access (``x.dot(A)`` cost about
    1 us more than ``np.dot(x, A)``)."""
    import numpy as np

    fn = getattr(np, fname)

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if how == "shape" and len(args) > 1:
            args = (args,)  # x.reshape(2, 3) -> np.reshape(x, (2, 3))
        if _keeps(fn, (self, *args), kwargs):
            return self  # t.astype(t.dtype, copy=False): t itself, as NumPy's
        if how == "second":
            return dispatch(fn, (*args[:1], self, *args[1:]), kwargs)
        y = dispatch(fn, (self, *args), kwargs)
        if how == "in place":
            self[...] = y
            return None
        if how != "copy" and _is_view(fn):  # the registry says, at the call: rules load late
            _mark_view(y, self)
        return y

    method.__name__ = method.__qualname__ = name
    return method


def _ndarray_property(name: str, fname: str) -> Any:
    """``t.name``: NumPy's ``fname`` of ``t``, a view of it (``t.real``)."""
    import numpy as np

    def get(self: Any) -> Any:
        return _mark_view(dispatch(getattr(np, fname), (self,), {}), self)

    get.__name__ = name
    return property(get)


for _name, (_fname, _how) in _NUMPY_METHODS.items():
    setattr(_NumpyMethods, _name, _ndarray_method(_name, _fname, _how))
for _name, _fname in _NUMPY_PROPERTIES.items():
    setattr(_NumpyMethods, _name, _ndarray_property(_name, _fname))
_NumpyMethods.item = _item  # type: ignore[attr-defined]
_NumpyMethods.tolist = _tolist  # type: ignore[attr-defined]
_NumpyMethods.itemsize = property(_itemsize)  # type: ignore[attr-defined]
_NumpyMethods.nbytes = property(_nbytes)  # type: ignore[attr-defined]
