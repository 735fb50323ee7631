"""Array namespaces: which library an argument belongs to, looked up once per rule call.

``array_api_compat.array_namespace`` costs 1-2.5 us (21 us on array-api-strict); a rule calls
``namespace_of`` instead, which caches the answer per array *type*, so the lookup costs one
dict access. Python scalars belong to no library; a call whose arguments are all Python scalars
computes with NumPy.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import array_api_compat
import numpy as np

__all__ = [
    "ArrayTraits",
    "SequenceExpectedError",
    "array_traits",
    "device_of",
    "dtype_kind",
    "host_readable",
    "is_array",
    "namespace_of",
    "namespace_of_dtype",
    "numpy_forms",
    "qualified_name",
    "scalar_kind",
    "torch_compiling",
]

_SCALARS = (bool, int, float, complex)
# Python's scalars and containers: never an array (answered before array-api-compat's test, whose
# abstract-class checks cost about 1 us a call: the gathers ask it of every argument)
_NOT_ARRAYS = frozenset((*_SCALARS, tuple, list, dict, str, slice, type(Ellipsis)))
_NS_BY_TYPE: dict[type, Any] = {}
_NUMPY_NS: Any = None


def _numpy_namespace() -> Any:
    global _NUMPY_NS
    if _NUMPY_NS is None:
        _NUMPY_NS = array_api_compat.array_namespace(np.empty(0))
    return _NUMPY_NS


class NotAnArrayError(TypeError):
    """``namespace_of`` was given a value of type ``got`` that is neither an array nor a Python
    scalar (a list, a string): ``rrule`` and ``frule`` then name the argument that holds it."""

    def __init__(self, message: str, got: type | None = None) -> None:
        super().__init__(message)
        self.got = got


class SequenceExpectedError(TypeError):
    """A rule that joins a sequence of arrays (``concat``, ``vstack``, ...) was given one array
    in its place. NumPy takes an array there as the sequence of its sub-arrays along the first
    axis; a rule raises this before any work, so an engine that holds the array may call it again
    with that sequence (``chainrules.ad`` does, for NumPy's functions)."""


def _lookup(t: type, x: Any) -> Any:
    try:
        ns = array_api_compat.array_namespace(x)
    except TypeError:
        raise NotAnArrayError(
            f"expected an array or a Python scalar, got {t.__module__}.{t.__qualname__}", t
        ) from None
    if not torch_compiling():  # torch.compile refuses a write to a global dict
        _NS_BY_TYPE[t] = ns
    return ns


def namespace_of(*args: Any, fname: str = "") -> Any:
    """The Array API namespace of the array arguments (Python scalars and ``None`` are skipped).

    Raises ``TypeError`` when arrays of two libraries are mixed, naming both types and ``fname``.
    """
    if len(args) == 1:  # the common case: one array of a type seen before
        ns = _NS_BY_TYPE.get(type(args[0]))
        if ns is not None:
            return ns
    ns = None
    first: type | None = None
    for a in args:
        t = type(a)
        if t in _SCALARS or a is None:
            continue
        got = _NS_BY_TYPE.get(t)
        if got is None:
            got = _lookup(t, a)
        if ns is None:
            ns, first = got, t
        elif got is not ns:
            where = f" in {fname}" if fname else ""
            assert first is not None
            raise TypeError(
                f"arrays of two libraries were mixed{where}: {first.__module__}."
                f"{first.__qualname__} and {t.__module__}.{t.__qualname__}; convert them to "
                "one library first (the standard defines no cross-library arithmetic)"
            )
    return ns if ns is not None else _numpy_namespace()


@dataclass(frozen=True)
class ArrayTraits:
    """What ``chainrules.ad`` must know of an array library beyond the standard, to make tracers
    that stand in for its arrays. Declared, never inferred from names: an array class declares
    its own as the class attribute ``__chainrules_array_traits__``; for the libraries that
    cannot, :data:`_DECLARED` holds them, found through ``array_api_compat``'s namespace tests.

    * ``numpy_methods``: the arrays carry NumPy's ``ndarray`` methods (``x.dot``, ``x.sum(axis=)``,
      ``x.T``) and NumPy's functions dispatch on them, so the tracer offers them too.
    * ``numpy_scalars``: the library's 0-d results are NumPy scalars, which mix with its arrays as
      they are (a constant ``float64`` operand is not converted).
    * ``refuses_foreign_operands``: the arrays' operators raise on an operand of another type
      instead of returning ``NotImplemented``; the tracer class then derives from the array class,
      so that Python tries the tracer's reflected operator first in ``array * tracer``.
    * ``torch_function``: the library calls its arguments' ``__torch_function__``.
    """

    numpy_methods: bool = False
    numpy_scalars: bool = False
    refuses_foreign_operands: bool = False
    torch_function: bool = False


_PLAIN = ArrayTraits()
# (is this library's namespace, its traits): the libraries whose classes carry no declaration
_DECLARED: list[tuple[Callable[[Any], bool], ArrayTraits]] = [
    (array_api_compat.is_numpy_namespace, ArrayTraits(numpy_methods=True, numpy_scalars=True)),
    (array_api_compat.is_array_api_strict_namespace, ArrayTraits(refuses_foreign_operands=True)),
    (array_api_compat.is_torch_namespace, ArrayTraits(torch_function=True)),
]


def array_traits(x: Any) -> ArrayTraits:
    """The :class:`ArrayTraits` of ``x``'s library (all false for a library with none
    declared)."""
    own = getattr(type(x), "__chainrules_array_traits__", None)
    if isinstance(own, ArrayTraits):
        return own
    ns = namespace_of(x)
    for test, traits in _DECLARED:
        if test(ns):
            return traits
    return _PLAIN


def is_array(x: Any) -> bool:
    """True for an array of any Array API library (not for Python scalars, tangent markers or
    classes: ``np.float64`` the type has ``__array_namespace__`` too)."""
    t = type(x)
    if t in _NS_BY_TYPE:
        return True
    if t in _NOT_ARRAYS or x is None or (isinstance(x, numbers.Number) and not hasattr(x, "shape")):
        return False
    if isinstance(x, type):
        return False
    return array_api_compat.is_array_api_obj(x)


# array type -> whether its device is its ``.device`` attribute, as array_api_compat.device
# reads it for every library but NumPy, dask, JAX and sparse after testing for those four (0.8 us
# per torch tensor, several times per rule call: projectors, cotangent checks)
_DEVICE_ATTR: dict[type, Any] = {}  # True: read .device; False: ask array_api_compat; _HOST
_HOST = 0  # a falsy marker (not False): NumPy's types, whose device is always "cpu"


def device_of(x: Any) -> Any:
    """``x``'s device (``None`` for Python scalars and for JAX tracers inside ``jit``):
    ``array_api_compat.device(x)``, with its choice of how to read it cached per type."""
    t = type(x)
    attr = _DEVICE_ATTR.get(t)
    if attr:
        return x.device
    if attr is _HOST:  # NumPy's arrays and scalars: always the host's, array_api_compat's "cpu"
        return "cpu"
    if t in _SCALARS:
        return None
    if attr is None:
        c = array_api_compat
        attr = not (
            c.is_numpy_array(x)
            or c.is_dask_array(x)
            or c.is_jax_array(x)
            or c.is_pydata_sparse_array(x)
        ) and hasattr(x, "device")
        if not torch_compiling():  # torch.compile refuses a write to a global dict
            _DEVICE_ATTR[t] = _HOST if c.is_numpy_array(x) else attr
        if attr:
            return x.device
    return array_api_compat.device(x)


# (dtype type, dtype) -> "b" (bool), "i" (integer), "f" (real floating), "c" (complex floating).
# The type is part of the key: array-api-strict dtypes hash like NumPy's, and comparing the two
# warns.
_KIND: dict[tuple[type, Any], str] = {}


def dtype_kind(dtype: Any, xp: Any = None) -> str:
    """One letter for a dtype of any library: ``b``, ``i``, ``f`` or ``c`` (cached per dtype)."""
    key = (type(dtype), dtype)
    k = _KIND.get(key)
    if k is not None:
        return k
    if xp is None:
        xp = _namespace_for_dtype(dtype)
    if xp.isdtype(dtype, "bool"):
        k = "b"
    elif xp.isdtype(dtype, "integral"):
        k = "i"
    elif xp.isdtype(dtype, "complex floating"):
        k = "c"
    elif xp.isdtype(dtype, "real floating"):
        k = "f"
    else:
        raise TypeError(f"unsupported dtype {dtype!r}")
    if not torch_compiling():  # torch.compile refuses a global write (torch_compiling)
        _KIND[key] = k
    return k


def _namespace_for_dtype(dtype: Any) -> Any:
    xp = namespace_of_dtype(dtype)
    return _numpy_namespace() if xp is None else xp


def namespace_of_dtype(v: Any) -> Any:
    """The namespace whose dtype or device ``v`` is, by its type: PyTorch's (array-api-compat's
    torch namespace) or array-api-strict's, for the one of them that is imported; else ``None``
    (NumPy's dtypes, anything else). Never read from the type's ``__module__``."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(v, (torch.dtype, torch.device)):
        import array_api_compat.torch as compat_torch

        return compat_torch
    strict = sys.modules.get("array_api_strict")
    if strict is not None and isinstance(v, (type(strict.float64), strict.Device)):
        return strict
    return None


def scalar_kind(x: Any, xp: Any = None) -> str:
    """``dtype_kind`` for an array or a Python scalar."""
    t = type(x)
    if t is float:
        return "f"
    if t is int:
        return "i"
    if t is bool:
        return "b"
    if t is complex:
        return "c"
    return dtype_kind(x.dtype, xp)


def qualified_name(f: Any) -> str:
    """A readable dotted name for a function of any library (``numpy.sin``, ``torch.sin``)."""
    if isinstance(f, str):
        return f
    name = getattr(f, "__name__", None) or type(f).__name__
    mod = getattr(f, "__module__", None)
    if isinstance(f, np.ufunc):
        mod = "numpy"
    if isinstance(mod, str):
        # the public part of the module path: numpy.linalg, jax.numpy, array_api_strict
        parts = mod.split(".")
        public = []
        for p in parts:
            if p.startswith("_"):
                break
            public.append(p)
        # "_operator" -> "operator" (C modules behind public ones), but "__main__" stays
        mod = ".".join(public) or (parts[0] if parts[0].startswith("__") else parts[0][1:])
        if mod == "jax" and "numpy" in parts[1:2] + [p.strip("_") for p in parts]:
            mod = "jax.numpy"
        qual = getattr(f, "__qualname__", name)
        if "<locals>" in qual or "Class" in qual:
            qual = name
        return f"{mod}.{qual}"
    return name


def torch_compiling() -> bool:
    """``torch.compile`` is tracing the caller: a global cache must not be written (Dynamo
    refuses a write to a global dict inside an ``autograd.Function``, which the torch bridge is,
    so a rule that filled a cache on its first call broke the graph when that call was traced).
    torch is found in ``sys.modules``, never imported here."""
    torch = sys.modules.get("torch")
    return torch is not None and bool(torch.compiler.is_compiling())


def numpy_forms(a: Any) -> tuple[type, ...]:
    """The types a NumPy value of ``a``'s shape and dtype comes as: an array, and for a 0-d one
    also the NumPy scalar of its dtype. NumPy gives either for the same 0-d value (a ufunc of a
    0-d array returns a scalar, a sum's seed is a 0-d array, ``x[0]`` a scalar), so a NumPy
    method beside a rule that takes one form takes both (a 0-d cotangent of the other form took
    the generic pullback at every step of ``x[0] ** 2 + x[0] * x[1]``)."""
    return (np.ndarray, a.dtype.type) if a.shape == () else (np.ndarray,)


def host_readable(a: Any) -> bool:
    """``a`` is a plain eager CPU tensor: reading its values costs no device synchronisation and
    no graph break (a library method may then branch on a value, as NumPy's may)."""
    torch = sys.modules.get("torch")
    if torch is None or type(a) is not torch.Tensor or torch.compiler.is_compiling():
        return False  # first: Dynamo cannot trace the functorch check below
    if not a.is_cpu or torch._C._functorch.is_functorch_wrapped_tensor(a):
        return False
    # (torch.jit.is_tracing() is this after a check of is_scripting, False in eager Python)
    return not (torch._C._is_tracing() or torch.jit.is_scripting())
