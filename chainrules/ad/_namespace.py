"""The traced namespace: ``x.__array_namespace__()`` of a tracer, a :class:`TracedNamespace`
wrapping the array's own namespace, whose every function ends in ``dispatch``
(``chainrules.ad._tracer``); the copies and dtype casts it adapts (``copy_of``)."""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..core import registry
from ..core.namespaces import namespace_of
from ._tracer import _SEQ, Tracer, _entry_of, created, dispatch, primal


def copy_of(t: Any) -> Any:
    """A new array equal to ``t``, as NumPy's ``copy`` (``xp.asarray(t, copy=True)``,
    ``t.copy()``): a write into either one is not seen by the other. A tracer's writes rebind the
    tracer itself (``_assign``), so a new tracer of the same trace and derivative data is a copy
    of it; the value underneath is copied too where the code can write into it in place: a
    created array (written in place by the library) or a constant (``numpy.asarray(t)`` hands
    out its value)."""
    if not isinstance(t, Tracer):
        if type(t) is np.ndarray or isinstance(t, np.generic):  # its own copy, fast
            return t.copy()
        return namespace_of(t).asarray(t, copy=True)
    value = copy_of(t._value) if t._trace.is_const(t) else t._value
    return t._trace.wrap(value, t._aux, type(t))


def _astype_keeps(x: Any, dtype: Any, kwargs: dict[str, Any]) -> bool:
    """``astype(x, dtype, copy=False)`` of a tracer already of ``dtype``: NumPy (and the array
    API) return ``x`` itself, so a write into the result is a write into ``x``."""
    if kwargs.get("copy") is not False or not isinstance(x, Tracer):
        return False
    try:
        return bool(dtype == x.dtype)
    except TypeError:
        return False


# --- the traced namespace ----------------------------------------------------------------------
class TracedNamespace(types.ModuleType):
    """The namespace a tracer reports: every function of the wrapped array namespace, routed
    through :func:`dispatch`. Attributes are built on first access and cached. Its ``linalg``,
    ``fft`` and ``special`` are traced namespaces too; ``special`` is the library's own
    (``torch.special``) or the SciPy that goes with it (``scipy.special`` for NumPy,
    ``jax.scipy.special`` for JAX, ``cupyx.scipy.special`` for CuPy), where SciPy's array-API
    code looks for it."""

    def __init__(self, base: Any) -> None:
        # the base's own name: array_api_compat.array_namespace(tracer, plain) dedupes namespaces
        # by name (since 1.14), so a traced array and a plain one of the same library give one
        # namespace, not "Multiple namespaces" (the first argument's). Arrays the traced code
        # creates and arguments that are not differentiated are constants of the trace
        # (created, enter), so plain arrays are rare inside traced code.
        super().__init__(getattr(base, "__name__", type(base).__name__))
        self._cr_base = base

    def __repr__(self) -> str:
        return f"<traced namespace chainrules.ad[{self.__name__}]>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_cr_") or (
            name.startswith("__")
            and name not in ("__array_api_version__", "__array_namespace_info__")
        ):
            raise AttributeError(name)
        if name == "special":  # the base's own (torch.special), else the SciPy that goes with it
            attr = getattr(self._cr_base, name, None) or registry.scipy_namespace(
                self._cr_base, "special"
            )
            if attr is None:  # array-api-strict, device arrays: SciPy's functions, by their rules
                value: Any = _RuledSpecial.of(self.__name__)
            else:
                value = TracedNamespace(attr)
            setattr(self, name, value)
            return value
        attr = getattr(self._cr_base, name)
        value = _adapt(name, attr)
        setattr(self, name, value)
        return value


class _RuledSpecial(TracedNamespace):
    """``special`` of a traced namespace whose library has none (array-api-strict, device
    arrays): the functions of ``scipy.special`` that have a rule, each recorded through its rule
    (the rule computes the value with SciPy's function on the library's arrays, as SciPy's
    array-API code does). Where SciPy's array-API code looks for ``xp.special``, it finds these
    instead of converting the tracer with ``numpy.asarray``. A function with no rule is an
    ``AttributeError``, so SciPy falls back to its generic code. Only in SciPy's array-API mode
    (``SCIPY_ARRAY_API=1``): outside it SciPy's functions return NumPy arrays."""

    def __init__(self, owner: str) -> None:
        import scipy.special

        super().__init__(scipy.special)
        self._cr_owner = owner

    @classmethod
    def of(cls, owner: str) -> Any:
        try:
            from scipy._lib._array_api import SCIPY_ARRAY_API
        except ImportError:
            raise AttributeError(
                f"{owner} has no special functions (SciPy is not installed)"
            ) from None
        if not SCIPY_ARRAY_API:  # SciPy's ufuncs would hand back NumPy arrays
            raise AttributeError(
                f"{owner} has no special functions: SciPy's take {owner}'s arrays only in its "
                "array-API mode (SCIPY_ARRAY_API=1 before SciPy is imported)"
            )
        return cls(owner)

    def __repr__(self) -> str:
        return f"<traced namespace chainrules.ad[{self._cr_owner}].special (SciPy's, by rules)>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        fn = getattr(self._cr_base, name, None)
        if fn is None or registry.find_rrule(fn) is None:
            raise AttributeError(
                f"{self._cr_owner}.special has no {name!r}: scipy.special.{name} has no rule"
            )
        return super().__getattr__(name)


def _adapt(name: str, attr: Any) -> Any:
    """The traced namespace's function for the base namespace's attribute ``attr``: what it does
    is the kind of ``attr``'s registration (``name`` only names the result)."""
    if isinstance(attr, types.ModuleType):
        return TracedNamespace(attr) if name in ("linalg", "fft") else attr
    if name == "__array_namespace_info__" or isinstance(attr, type) or not callable(attr):
        return attr
    e = _entry_of(attr)
    kind = None if e is None else e.kind
    if kind == "metadata":

        def meta(*args: Any, **kwargs: Any) -> Any:
            return attr(*(primal(a) for a in args), **kwargs)

        meta.__name__ = name
        return meta
    if kind == "conversion":

        def asarray(obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            if isinstance(obj, Tracer):
                dtype = kwargs.get("dtype")
                if dtype is None or dtype == obj.dtype:  # copy=True: a new array, as NumPy's
                    return copy_of(obj) if kwargs.get("copy") else obj
                if kwargs.get("copy") is False:
                    raise ValueError(
                        f"asarray(x, dtype={dtype}, copy=False): x is {obj.dtype}, and a new "
                        "dtype needs a copy"
                    )
                return obj.__array_namespace__().astype(obj, dtype)
            if type(obj) in _SEQ and any(isinstance(e, Tracer) for e in obj):
                return dispatch(attr, (obj, *args), kwargs)  # stacked by the engine
            return created(attr(obj, *args, **kwargs))

        asarray.__wrapped__ = attr  # type: ignore[attr-defined]
        return asarray

    if kind == "cast":

        def astype(x: Any, dtype: Any, /, *args: Any, **kwargs: Any) -> Any:
            if _astype_keeps(x, dtype, kwargs):
                return x
            return dispatch(attr, (x, dtype, *args), kwargs)

        astype.__name__ = name
        astype.__wrapped__ = attr  # type: ignore[attr-defined]
        return astype

    if kind == "like":  # zeros_like(plain) inside traced code is created too

        def like(x: Any, /, *args: Any, **kwargs: Any) -> Any:
            if isinstance(x, Tracer):
                return dispatch(attr, (x, *args), kwargs)
            if kwargs:
                kwargs = {k: primal(v) if k == "dtype" else v for k, v in kwargs.items()}
                if any(isinstance(v, Tracer) for v in kwargs.values()):
                    return dispatch(attr, (x, *args), kwargs)
            return created(attr(x, *args, **kwargs))

        like.__name__ = name
        like.__wrapped__ = attr  # type: ignore[attr-defined]
        return like

    if kind == "creation":

        def create(*args: Any, **kwargs: Any) -> Any:
            if any(isinstance(v, Tracer) for v in (*args, *kwargs.values())):
                return dispatch(attr, args, kwargs)  # full(shape, traced_fill): its rules
            return created(attr(*args, **kwargs))

        create.__name__ = name
        create.__wrapped__ = attr  # type: ignore[attr-defined]
        return create

    def traced(*args: Any, **kwargs: Any) -> Any:
        return dispatch(attr, args, kwargs)

    traced.__name__ = name
    traced.__qualname__ = name
    traced.__wrapped__ = attr  # type: ignore[attr-defined]
    # a wrapper of attr, as traceable's are: a lookup of its rules finds attr's (an operator's
    # rule calls rrule(namespace.matmul, ...) on tracers when a pullback is differentiated again)
    traced.__chainrules_traceable__ = True  # type: ignore[attr-defined]
    return traced
