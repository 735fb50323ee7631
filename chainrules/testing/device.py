"""``device_array``: a CPU-backed stand-in for a GPU array (Julia's ``JLArray``).

A rule that is correct on NumPy can still be unusable on a GPU: ``int(xp.argmax(x))``,
``float(s)``, ``if bool(x > 0)``, a Python loop over elements or ``g[i] = v`` with a host index
each synchronise the device with the host, once per element. CuPy and PyTorch-on-CUDA run such
code -- slowly -- so a test suite on a machine without a GPU never notices. A device array notices:

* it lives on a device of its own, :data:`DEVICE`, so mixing it with a host NumPy (or
  array-api-strict) array raises :class:`DeviceMismatchError` (a ``TypeError``), as CuPy does;
* every single-element access -- ``x[2]`` on a vector, ``x[()]`` on a 0-d array, ``float(x)``,
  ``int``, ``bool``, ``complex``, ``operator.index``, iteration, ``.item()``, ``.tolist()``, an
  implicit ``numpy.asarray(x)`` and writes through an all-integer index -- first calls
  :func:`chainrules.core.scalar.check_scalar`, which raises
  :class:`~chainrules.core.scalar.ScalarIndexingError` outside ``allowscalar()``.

Whole-array work is unrestricted: the Array API through ``x.__array_namespace__()`` (every function
of the backing namespace, ``linalg`` and ``fft`` included, results wrapped again), operators,
slicing, device index arrays, and -- for the NumPy backing -- NumPy's own functions
(``np.sin(d)``, ``np.linalg.norm(d)``) through ``__array_ufunc__`` / ``__array_function__``, as with
CuPy. Explicit whole-array transfers are allowed: ``device_array(host)``,
``xp.asarray(host, device=DEVICE)``, ``x.to_device("cpu")`` and
``chainrules.testing.to_numpy(x)``.

Two backings: ``"numpy"`` (fast, NumPy semantics) and ``"array_api_strict"`` (the standard's
minimum: no NumPy extras, strict type promotion). Each has its own array class
(:class:`NumpyDeviceArray`, :class:`StrictDeviceArray`) and namespace, because chainrules caches
namespaces per array *type*.

In-place operators (``x += y``) and ``x[k] = v`` write into the backing array, as NumPy and CuPy
do: every wrapper of that array sees the change.

>>> import numpy as np
>>> import array_api_compat
>>> from chainrules.testing.device import device_array
>>> d = device_array(np.array([0.0, 1.0, 2.0]))
>>> xp = array_api_compat.array_namespace(d)
>>> xp.sum(xp.sin(d) * 2)
device_array(3.5015368233, dtype=float64)
>>> d[0]  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
chainrules.core.scalar.ScalarIndexingError: x[0] (read of one element) was refused: ...
"""

from __future__ import annotations

import importlib
import operator
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, NoReturn

import numpy as np

from ..core.namespaces import ArrayTraits
from ..core.registry import register_namespace
from ..core.scalar import check_scalar
from .device_object import (
    _PLAIN,
    _SCALARS,
    BACKINGS,
    DEVICE,
    Device,
    DeviceMismatchError,
    _check_device,
    _describe,
    _element_key,
    _fmt_key,
    _is_host_array,
)

__all__ = [
    "BACKINGS",
    "DEVICE",
    "Device",
    "DeviceArray",
    "DeviceMismatchError",
    "NumpyDeviceArray",
    "StrictDeviceArray",
    "device_array",
    "device_namespace",
    "is_device_array",
]


def _mismatch(where: str, other: Any, backing: str) -> DeviceMismatchError:
    if isinstance(other, DeviceArray):
        what = f"a device array of the {other._backing!r} backing"
    elif isinstance(other, (list, tuple)):
        what = f"a host {type(other).__name__}"
    else:
        what = f"a host {_describe(other)}"
    return DeviceMismatchError(
        f"{where}: cannot mix a device array ({backing!r} backing, on {DEVICE!r}) with {what}. "
        "Move data explicitly: device_array(x) or xp.asarray(x, device=DEVICE) to the device, "
        "x.to_device('cpu') to the host (on a GPU an implicit transfer would be a hidden "
        "synchronisation, and CuPy refuses it too)"
    )


class DeviceArray:
    """Base of the device-array classes: one backing array, guarded element access.

    Create instances with :func:`device_array`; the subclasses differ in their backing library.
    """

    __slots__ = ("_data",)
    __hash__ = None  # type: ignore[assignment]  # mutable, and == is elementwise

    _backing: ClassVar[str]
    _array_type: ClassVar[type]  # the backing library's array class (set with the namespace)
    _data: Any

    # -- construction ----------------------------------------------------------------------------
    @classmethod
    def _new(cls, data: Any) -> Any:
        obj = object.__new__(cls)
        obj._data = data
        return obj

    @classmethod
    def _namespace(cls) -> _DeviceNamespace:
        return device_namespace(cls._backing)

    def _operand(self, other: Any, where: str) -> Any:
        """``other``'s backing value for an operator; ``NotImplemented`` for foreign objects
        (tangent markers), so that Python tries their reflected method."""
        t = type(other)
        if t is type(self):
            return other._data
        if t in _SCALARS or isinstance(other, np.generic):  # host scalars are fine (as CuPy)
            return other
        if isinstance(other, (DeviceArray, list, tuple)):
            raise _mismatch(where, other, self._backing)
        if _is_host_array(other):
            raise _mismatch(where, other, self._backing)
        return NotImplemented

    def _index(self, key: Any) -> Any:
        t = type(key)
        if t is int or t is slice or key is None or key is Ellipsis:
            return key
        if t is tuple:
            return tuple(self._index_item(k) for k in key)
        return self._index_item(key)

    def _index_item(self, k: Any) -> Any:
        t = type(k)
        if t is type(self):
            return k._data
        if t in _PLAIN or isinstance(k, np.integer) or t is list:
            return k
        if isinstance(k, DeviceArray) or _is_host_array(k):
            raise _mismatch("indexing", k, self._backing)
        return k

    # -- the standard's attributes ---------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape)

    @property
    def ndim(self) -> int:
        return int(self._data.ndim)

    @property
    def size(self) -> int:
        return int(self._data.size)

    @property
    def dtype(self) -> Any:
        return self._data.dtype

    @property
    def device(self) -> Device:
        return DEVICE

    @property
    def T(self) -> Any:
        return _wrap_result(self._data.T, type(self))

    @property
    def mT(self) -> Any:
        return _wrap_result(self._data.mT, type(self))

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        return self._namespace()

    def to_device(self, device: Any, /, *, stream: Any = None) -> Any:
        """``DEVICE``: ``self``; ``"cpu"``: a NumPy copy (an explicit transfer, never guarded)."""
        if device == DEVICE:
            return self
        if device == "cpu":
            return self.__chainrules_to_numpy__()
        raise ValueError(
            f"unsupported device {device!r}: a device array stays on {DEVICE!r} or moves to "
            "'cpu' (a NumPy copy)"
        )

    # -- explicit whole-array transfer (the testers' hook) ---------------------------------------
    def __chainrules_to_numpy__(self) -> np.ndarray:
        """A NumPy copy of the whole array: what testers compare with, never guarded."""
        return np.array(self._data, copy=True)

    def __repr__(self) -> str:
        host = self.__chainrules_to_numpy__()  # whole-array copy: printing is not element access
        body = np.array2string(host, separator=", ", precision=10, prefix="device_array(")
        extra = "" if self._backing == "numpy" else f", backing={self._backing!r}"
        return f"device_array({body}, dtype={host.dtype}{extra})"

    # -- guarded single-element access -----------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        if _element_key(key, self._data.ndim):
            check_scalar(f"x[{_fmt_key(key)}] (read of one element)", kind="read of one element")
        r = self._data[self._index(key)]
        if type(r) is self._array_type:
            return self._new(r)
        return _wrap_result(r, type(self))

    def __setitem__(self, key: Any, value: Any) -> None:
        if _element_key(key, self._data.ndim):
            check_scalar(
                f"x[{_fmt_key(key)}] = v (write of one element)", kind="write of one element"
            )
        v = self._operand(value, "x[key] = value")
        if v is NotImplemented:
            raise TypeError(f"cannot assign a {_describe(value)} into a device array")
        self._data[self._index(key)] = v

    def __len__(self) -> int:  # shape is host metadata: not an element access
        if not self._data.ndim:
            raise TypeError("len() of a 0-d device array")
        return int(self._data.shape[0])

    def __iter__(self) -> Iterator[Any]:
        check_scalar("iter(x) (a Python loop over the array)", kind="iteration")
        if not self._data.ndim:
            raise TypeError("iteration over a 0-d device array")
        data = self._data
        # checked once above: the elements themselves are not re-checked one by one
        return (_wrap_result(data[i], type(self)) for i in range(int(data.shape[0])))

    def __float__(self) -> float:
        check_scalar("float(x)")
        return float(self._data)

    def __int__(self) -> int:
        check_scalar("int(x)")
        return int(self._data)

    def __complex__(self) -> complex:
        check_scalar("complex(x)")
        return complex(self._data)

    def __bool__(self) -> bool:
        check_scalar("bool(x) (e.g. `if` on an array value)", kind="bool(x)")
        return bool(self._data)

    def __index__(self) -> int:
        check_scalar("operator.index(x) (an array used as a host integer)", kind="index(x)")
        return operator.index(self._data)

    def __format__(self, spec: str) -> str:
        if not spec:
            return repr(self)
        check_scalar(f"format(x, {spec!r})", kind="format(x)")
        return format(self.__chainrules_to_numpy__()[()], spec)

    def item(self) -> Any:
        """The one element as a Python scalar (guarded: a device->host synchronisation)."""
        check_scalar("x.item()")
        return self.__chainrules_to_numpy__().item()

    def tolist(self) -> Any:
        """The elements as nested Python lists (guarded: reads every element on the host)."""
        check_scalar("x.tolist()")
        return self.__chainrules_to_numpy__().tolist()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> NoReturn:
        # NumPy calls this for np.asarray(x), np.array(x) and any function that does not
        # dispatch (or falls back to conversion): an implicit device->host transfer of the whole
        # array, which CuPy refuses always -- also where scalar access is allowed -- with a
        # TypeError ("Implicit conversion to a NumPy array is not allowed"). So does the stand-in:
        # a clear error, never a value read on the host behind the caller's back
        raise DeviceMismatchError(
            "numpy.asarray(x) / numpy.array(x) of a device array (or a NumPy function that does "
            "not dispatch to it) would copy it to the host implicitly, which CuPy refuses too "
            "(TypeError: Implicit conversion to a NumPy array is not allowed). Transfer "
            "explicitly with x.to_device('cpu') or chainrules.testing.to_numpy(x), or stay on "
            "the device with the array's own namespace (xp = x.__array_namespace__(); "
            "xp.asarray(x))"
        )


# -- operators: one generic body per kind, installed below ---------------------------------------
def _binary(name: str, symbol: str, inplace: bool = False) -> Callable[[DeviceArray, Any], Any]:
    """The operator ``name`` (``__add__``; with ``inplace``, ``__iadd__``: it writes into the
    backing array, NumPy's semantics, and returns ``self``)."""
    where = f"x {symbol}{'=' if inplace else ''} y"

    def op(self: DeviceArray, other: Any) -> Any:
        o = self._operand(other, where)
        if o is NotImplemented:
            return NotImplemented
        r = getattr(self._data, name)(o)
        if r is NotImplemented:
            return r
        if inplace:
            self._data = r
            return self
        if type(r) is self._array_type:
            return self._new(r)
        return _wrap_result(r, type(self))

    op.__name__ = op.__qualname__ = name
    return op


def _unary(fn: Callable[[Any], Any], name: str) -> Callable[[DeviceArray], Any]:
    def op(self: DeviceArray) -> Any:
        return _wrap_result(fn(self._data), type(self))

    op.__name__ = op.__qualname__ = name
    return op


_BINARY = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "truediv": "/",
    "floordiv": "//",
    "mod": "%",
    "pow": "**",
    "matmul": "@",
    "and": "&",
    "or": "|",
    "xor": "^",
    "lshift": "<<",
    "rshift": ">>",
}
for _n, _s in _BINARY.items():
    setattr(DeviceArray, f"__{_n}__", _binary(f"__{_n}__", _s))
    setattr(DeviceArray, f"__r{_n}__", _binary(f"__r{_n}__", _s))
    setattr(DeviceArray, f"__i{_n}__", _binary(f"__i{_n}__", _s, inplace=True))
for _n, _s in {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}.items():
    setattr(DeviceArray, f"__{_n}__", _binary(f"__{_n}__", _s))
_UNARY: dict[str, Callable[[Any], Any]] = {
    "neg": operator.neg,
    "pos": operator.pos,
    "abs": abs,
    "invert": operator.invert,
}
for _n, _f in _UNARY.items():
    setattr(DeviceArray, f"__{_n}__", _unary(_f, f"__{_n}__"))


def _unwrap(a: Any, cls: type[DeviceArray], where: str) -> Any:
    """The backing value of a namespace-function argument; host arrays are refused."""
    t = type(a)
    if t is cls:
        return a._data
    if t in _PLAIN:
        return a
    if t is tuple or t is list:  # concat/stack sequences, shapes and axes
        return t(_unwrap(e, cls, where) for e in a)
    if isinstance(a, DeviceArray):
        raise _mismatch(where, a, cls._backing)
    if isinstance(a, np.generic) or not _is_host_array(a):  # host scalars, dtypes, callables
        return a
    raise _mismatch(where, a, cls._backing)


def _wrap_result(r: Any, cls: type[DeviceArray]) -> Any:
    """Every backing array in a result (also in tuples and named tuples) as a device array."""
    t = type(r)
    if t is cls._array_type:
        return cls._new(r)
    if t in _PLAIN:
        return r
    if isinstance(r, np.generic) and cls._backing == "numpy":  # NumPy's 0-d results
        return cls._new(np.asarray(r))
    if isinstance(r, tuple):
        items = [_wrap_result(e, cls) for e in r]
        return t(*items) if hasattr(r, "_fields") else t(items)
    if t is list:
        return [_wrap_result(e, cls) for e in r]
    if isinstance(r, cls._array_type):  # a subclass (np.matrix, ...): plain array on device
        return cls._new(np.asarray(r))
    return r


class NumpyDeviceArray(DeviceArray):
    """A device array backed by a NumPy array; NumPy's own functions accept it (as CuPy's do).

    >>> import numpy as np
    >>> from chainrules.testing.device import device_array
    >>> d = device_array([1.0, 4.0])
    >>> np.sqrt(d), np.linalg.norm(d)
    (device_array([1., 2.], dtype=float64), device_array(4.1231056256, dtype=float64))
    """

    __slots__ = ()
    _backing = "numpy"
    _array_type = np.ndarray
    # NumPy's methods and functions work on it; its operators refuse foreign operands
    __chainrules_array_traits__ = ArrayTraits(numpy_methods=True, refuses_foreign_operands=True)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        cls = type(self)
        where = f"numpy.{ufunc.__name__}"
        args = [_unwrap(a, cls, where) for a in inputs]
        kw = {k: _unwrap(v, cls, where) for k, v in kwargs.items()}  # out=, where= arrays too
        out = kwargs.get("out")
        r = getattr(ufunc, method)(*args, **kw)
        if out is not None:  # the caller's own device arrays were written into
            return out[0] if len(out) == 1 else out
        return _wrap_result(r, cls)

    # NumPy functions that turn whole arrays into a Python bool: a synchronisation on a device
    _BOOL_FUNCTIONS: ClassVar[frozenset[str]] = frozenset(
        ("allclose", "array_equal", "array_equiv")
    )

    def __array_function__(
        self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        cls = type(self)
        for t in types:
            if not issubclass(t, (NumpyDeviceArray, np.ndarray)):
                return NotImplemented
        for x in (*args, *kwargs.values()):
            t = type(x)
            if t is not cls and isinstance(x, cls) and t not in types:
                # an array of a subclass (an AD engine's tracer of device data) in an argument
                # NumPy does not dispatch on (full_like's fill_value, select's default): it
                # takes over, as NumPy lets a subclass go before its base class
                return t.__array_function__(x, func, (*types, t), args, kwargs)
        name = getattr(func, "__name__", "function")
        where = f"numpy.{name}"
        if name in self._BOOL_FUNCTIONS:
            check_scalar(f"{where}(...) (a Python bool computed from device data)", kind=where)
        a = [_unwrap(x, cls, where) for x in args]
        kw = {k: _unwrap(v, cls, where) for k, v in kwargs.items()}
        return _wrap_result(func(*a, **kw), cls)


class StrictDeviceArray(DeviceArray):
    """A device array backed by an ``array_api_strict`` array: the standard and nothing more.

    NumPy's functions refuse it (``__array_ufunc__ = None``, no ``__array_function__``); use the
    namespace from ``x.__array_namespace__()``.
    """

    __slots__ = ()
    _backing = "array_api_strict"
    __chainrules_array_traits__ = ArrayTraits(refuses_foreign_operands=True)
    _array_type = type("_NotImportedYet", (), {})  # array_api_strict's Array, set on first use
    __array_ufunc__ = None


# -- the namespace ------------------------------------------------------------------------------
class _Info:
    """``__array_namespace_info__()`` of a device namespace: the backing's, on :data:`DEVICE`."""

    def __init__(self, info: Any) -> None:
        self._info = info

    def capabilities(self) -> Any:
        return self._info.capabilities()

    def default_device(self) -> Device:
        return DEVICE

    def devices(self) -> list[Device]:
        return [DEVICE]

    def default_dtypes(self, *, device: Any = None) -> Any:
        _check_device(device, "default_dtypes")
        return self._info.default_dtypes()

    def dtypes(self, *, device: Any = None, kind: Any = None) -> Any:
        _check_device(device, "dtypes")
        return self._info.dtypes(kind=kind)


class _DeviceNamespace(types.ModuleType):
    """Proxy of a backing namespace whose functions take and return device arrays.

    Attributes are adapted on first access and then cached on the instance, so a later
    ``xp.sin`` is a plain attribute lookup and always the same function object (the rule
    registry keys rules by function object).
    """

    def __init__(self, name: str, backing: Any, cls: type[DeviceArray]) -> None:
        super().__init__(name, f"{backing.__name__} on {DEVICE!r} (chainrules.testing.device)")
        self._cr_backing = backing
        self._cr_cls = cls

    def __getattr__(self, name: str) -> Any:  # only called for names not cached yet
        if name.startswith("_cr_") or (
            name.startswith("__")
            and name not in ("__array_api_version__", "__array_namespace_info__")
        ):
            raise AttributeError(name)
        try:
            attr = getattr(self._cr_backing, name)
        except AttributeError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}") from None
        value = self._adapt(name, attr)
        setattr(self, name, value)
        return value

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._cr_backing)) | set(super().__dir__()))

    def _adapt(self, name: str, attr: Any) -> Any:
        cls = self._cr_cls
        if isinstance(attr, types.ModuleType):
            if name in ("linalg", "fft"):
                return _DeviceNamespace(f"{self.__name__}.{name}", attr, cls)
            return attr
        if name == "__array_namespace_info__":  # a class in NumPy, a function elsewhere
            return lambda: _Info(attr())
        if isinstance(attr, type) or not callable(attr):  # dtypes, constants, classes
            return attr
        qualname = f"{self.__name__}.{name}"
        if name in ("asarray", "from_dlpack"):
            return _transfer_function(name, qualname, attr, cls)
        return _device_function(name, qualname, attr, cls)


def _finish(fn: Callable[..., Any], name: str, qualname: str, wrapped: Any) -> Any:
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__module__ = qualname.rsplit(".", 1)[0]
    fn.__doc__ = getattr(wrapped, "__doc__", None)
    fn.__wrapped__ = wrapped  # type: ignore[attr-defined]
    return fn


def _device_function(
    name: str, qualname: str, fn: Callable[..., Any], cls: type[DeviceArray]
) -> Callable[..., Any]:
    def device_function(*args: Any, **kwargs: Any) -> Any:
        a = []
        for x in args:  # the common case inline: device arrays and Python scalars
            t = type(x)
            if t is cls:
                a.append(x._data)
            elif t in _PLAIN:
                a.append(x)
            else:
                a.append(_unwrap(x, cls, qualname))
        if kwargs:
            if "device" in kwargs:
                _check_device(kwargs["device"], qualname)
                kwargs["device"] = None  # the backing's default device stands for DEVICE
            kwargs = {k: _unwrap(v, cls, qualname) for k, v in kwargs.items()}
        r = fn(*a, **kwargs)
        if type(r) is cls._array_type:
            return cls._new(r)
        return _wrap_result(r, cls)

    return _finish(device_function, name, qualname, fn)


def _host_value(obj: Any, cls: type[DeviceArray], where: str) -> Any:
    """What a transfer function hands to the backing: device arrays unwrapped (also inside
    nested lists), host arrays of other libraries as NumPy arrays."""
    t = type(obj)
    if t is cls:
        return obj._data
    if isinstance(obj, DeviceArray):
        raise _mismatch(where, obj, cls._backing)
    if t is list or t is tuple:
        return [_host_value(e, cls, where) for e in obj]
    if t in _PLAIN or isinstance(obj, (np.ndarray, np.generic, cls._array_type)):
        return obj
    if _is_host_array(obj):
        from .arrays import to_numpy  # torch, JAX, ... arrays: a whole-array copy

        return to_numpy(obj)
    return obj


def _transfer_function(
    name: str, qualname: str, fn: Callable[..., Any], cls: type[DeviceArray]
) -> Callable[..., Any]:
    """``asarray`` / ``from_dlpack``: explicit transfers, so host input is allowed. A host array
    is always copied: the device copy must not change when the host array does."""

    def transfer(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: Any = None) -> Any:
        _check_device(device, qualname)
        host = type(obj) is not cls
        value = _host_value(obj, cls, qualname)
        if host and copy is False:
            raise ValueError(f"{qualname}: a host->device transfer always copies; copy=False")
        kw: dict[str, Any] = {}
        if dtype is not None:
            kw["dtype"] = dtype
        if host:
            kw["copy"] = True
        elif copy is not None:
            kw["copy"] = copy
        if name == "from_dlpack" and not host:
            r = fn(value, **({"copy": copy} if copy is not None else {}))
        else:
            asarray = fn if name == "asarray" else cls._namespace()._cr_backing.asarray
            r = asarray(value, **kw)
        return _wrap_result(r, cls)

    return _finish(transfer, name, qualname, fn)


_NAMESPACES: dict[str, _DeviceNamespace] = {}
_MODULE_NAMES = {
    "numpy": f"{__name__}.numpy",
    "array_api_strict": f"{__name__}.array_api_strict",
}

# The rule registry finds the functions of a namespace through `sys.modules[name]`: a provider per
# backing makes `cr.rrule(xp.sin, d)` find the rule registered for "sin". They are added now,
# unresolved, and resolve on the first lookup after their namespace exists -- so
# `import chainrules.testing.device` alone never imports array_api_strict.
for _name in _MODULE_NAMES.values():
    register_namespace(_name)


def _unknown_backing(backing: object) -> NoReturn:
    raise ValueError(f"unknown backing {backing!r}: choose 'numpy' or 'array_api_strict'")


def device_namespace(backing: str = "numpy") -> Any:
    """The Array API namespace of device arrays of ``backing`` (what ``__array_namespace__``
    returns): every function of the backing namespace, taking and returning device arrays.

    >>> from chainrules.testing.device import device_namespace, is_device_array
    >>> xp = device_namespace()
    >>> is_device_array(xp.linalg.matmul(xp.eye(2), xp.ones((2, 2))))
    True
    """
    ns = _NAMESPACES.get(backing)
    if ns is not None:
        return ns
    cls: type[DeviceArray]
    if backing == "numpy":
        backing_ns = importlib.import_module("array_api_compat.numpy")
        cls = NumpyDeviceArray
    elif backing == "array_api_strict":
        backing_ns = importlib.import_module("array_api_strict")  # only now: it is slow to import
        cls = StrictDeviceArray
        StrictDeviceArray._array_type = type(backing_ns.asarray(0))
    else:
        _unknown_backing(backing)
    ns = _DeviceNamespace(_MODULE_NAMES[backing], backing_ns, cls)
    _NAMESPACES[backing] = ns
    sys.modules[ns.__name__] = ns  # where the rule registry looks namespaces up
    return ns


def device_array(x: Any, backing: str = "numpy", *, dtype: Any = None) -> Any:
    """``x`` copied onto :data:`DEVICE`: a guarded stand-in for a GPU array.

    Parameters
    ----------
    x
        An array of any library, a device array, a nested list or a Python scalar.
    backing
        ``"numpy"`` (the default) or ``"array_api_strict"``.
    dtype
        A NumPy dtype or its name (``"float32"``); default: ``x``'s own.

    Examples
    --------
    >>> import numpy as np
    >>> from chainrules.testing.device import device_array
    >>> device_array(np.arange(3.0), dtype="float32")
    device_array([0., 1., 2.], dtype=float32)
    >>> device_array([1, 2], backing="array_api_strict")
    device_array([1, 2], dtype=int64, backing='array_api_strict')
    """
    if backing not in BACKINGS:
        _unknown_backing(backing)
    if isinstance(x, DeviceArray):
        host = x.__chainrules_to_numpy__()
    elif isinstance(x, (list, tuple)) or type(x) in _SCALARS:
        host = np.array(x)
    else:
        from .arrays import to_numpy

        host = np.array(to_numpy(x), copy=True)
    if dtype is not None:
        host = host.astype(np.dtype(dtype))
    if host.dtype.kind not in "biufc":
        raise TypeError(f"device arrays hold numbers and booleans, not dtype {host.dtype}")
    ns = device_namespace(backing)
    if backing == "numpy":
        return NumpyDeviceArray._new(np.array(host, copy=True, order="C"))
    return StrictDeviceArray._new(ns._cr_backing.asarray(host, copy=True))


def is_device_array(x: Any) -> bool:
    """True for a device array of either backing.

    >>> import numpy as np
    >>> from chainrules.testing.device import device_array, is_device_array
    >>> is_device_array(device_array(np.ones(2))), is_device_array(np.ones(2))
    (True, False)
    """
    return isinstance(x, DeviceArray)
