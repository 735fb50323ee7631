"""A faster way for one array library, declared beside the generic code it replaces.

A rule is written once against the Array API standard. Where one library has a better way -- a
primitive the standard lacks (a triangular solve), or one that compiles to fewer collectives
under ``jax.jit`` -- the rule's file declares it next to the generic function::

    @specialise
    def solve_lower(low, b):
        '''L^-1 b: the standard's general solve.'''
        return namespace_of(low, b).linalg.solve(low, b)

    @solve_lower.method("numpy")
    def _solve_lower_numpy(low, b):
        ...  # SciPy's triangular solve; NotImplemented where it does not apply

A call goes to the method of the library its first argument belongs to (an array, or an array
namespace such as ``xp``), and to the generic function when there is none, when the method
returns ``NotImplemented`` (a case it does not cover: a ``chainrules.ad`` tracer, mixed dtypes,
an optional library missing), or inside :func:`generic_only`. Nothing else decides: no name, no
reference count. ``tests/core/test_specialise.py`` checks every declared method against the
generic path on the examples of the registrations of its file, on every installed library,
eagerly and (JAX) under ``jax.jit``; :func:`methods` lists them for it.
"""

from __future__ import annotations

import contextlib
import functools
import types
import weakref
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import array_api_compat

__all__ = ["LIBRARIES", "Specialised", "generic_only", "library_of", "methods", "specialise"]

# the libraries a method may be declared for, each with array-api-compat's tests of its arrays
# and of its namespace modules
LIBRARIES: dict[str, tuple[Callable[[Any], bool], Callable[[Any], bool]]] = {
    "numpy": (array_api_compat.is_numpy_array, array_api_compat.is_numpy_namespace),
    "torch": (array_api_compat.is_torch_array, array_api_compat.is_torch_namespace),
    "jax": (array_api_compat.is_jax_array, array_api_compat.is_jax_namespace),
    "cupy": (array_api_compat.is_cupy_array, array_api_compat.is_cupy_namespace),
}

# True: every function takes its generic path; a frozenset: those functions do
_GENERIC_ONLY: ContextVar[bool | frozenset[Any]] = ContextVar(
    "chainrules_generic_only", default=False
)
_USED: ContextVar[set[Any] | None] = ContextVar("chainrules_methods_used", default=None)
_BY_TYPE: dict[Any, str | None] = {}  # array type -> library (None: no method library)
_BY_MODULE: dict[Any, str | None] = {}  # id(namespace module) -> library (modules live on)
_ALL: list[weakref.ref[Specialised]] = []
_UNKNOWN: Any = object()  # a type library_of has not met yet (or a module: cached by id)


def library_of(a: Any) -> str | None:
    """The library (a key of :data:`LIBRARIES`) of the array or namespace module ``a``, or
    ``None``: Python scalars, ``chainrules.ad`` tracers and their traced namespaces (a module
    subclass), the device stand-in, array-api-strict, dask. Cached per type and per module."""
    t = type(a)
    cache: dict[Any, str | None]
    if t is types.ModuleType:
        key: Any = id(a)
        cache, which = _BY_MODULE, 1
    else:
        key, cache, which = t, _BY_TYPE, 0
    if key in cache:
        return cache[key]
    lib = next((n for n, tests in LIBRARIES.items() if tests[which](a)), None)
    cache[key] = lib
    return lib


class Specialised:
    """A generic function with methods for some libraries (see the module docs)."""

    def __init__(self, generic: Callable[..., Any]) -> None:
        functools.update_wrapper(self, generic)
        self.generic = generic
        self.library_methods: dict[str, Callable[..., Any]] = {}
        _ALL.append(weakref.ref(self))

    def method(self, library: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: ``fn`` is this function's way for arrays of ``library``; it returns
        ``NotImplemented`` for a case it does not cover."""
        if library not in LIBRARIES:
            raise ValueError(
                f"{self.generic.__qualname__}.method: library must be one of "
                f"{sorted(LIBRARIES)}, got {library!r}"
            )
        if library in self.library_methods:
            raise ValueError(f"{self.generic.__qualname__} has a {library} method already")

        def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.library_methods[library] = fn
            return fn

        return declare

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        off = _GENERIC_ONLY.get()
        if args and off is not True and (off is False or self not in off):
            a = args[0]
            lib = _BY_TYPE.get(type(a), _UNKNOWN)  # an array's library (library_of's cache)
            if lib is _UNKNOWN:
                lib = library_of(a)
            m = self.library_methods.get(lib)
            if m is not None:
                r = m(*args, **kwargs)
                if r is not NotImplemented:
                    used = _USED.get()
                    if used is not None:
                        used.add(self)
                    return r
        return self.generic(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<specialised {self.__module__}.{self.generic.__qualname__}: " + (
            ", ".join(sorted(self.library_methods)) + ">"
        )


def specialise(generic: Callable[..., Any]) -> Specialised:
    """Decorator: make ``generic`` a function that libraries may have methods of."""
    return Specialised(generic)


def methods() -> list[Specialised]:
    """Every function with at least one library method, in declaration order."""
    alive = [s for s in (r() for r in _ALL) if s is not None]
    return [s for s in alive if s.library_methods]


@contextlib.contextmanager
def generic_only(*functions: Specialised) -> Iterator[None]:
    """Every :class:`Specialised` function -- or only ``functions``, where given -- takes its
    generic path inside (per thread and context: ``contextvars``). Nested, the inner scope's
    choice holds until it exits. ``benchmarks/population/methods.py`` times a method's gain so."""
    for f in functions:
        if not isinstance(f, Specialised):
            raise TypeError(f"generic_only: expected specialised functions, got {f!r}")
    token = _GENERIC_ONLY.set(frozenset(functions) if functions else True)
    try:
        yield
    finally:
        _GENERIC_ONLY.reset(token)


@contextlib.contextmanager
def record_methods() -> Iterator[set[Specialised]]:
    """The set of the functions whose library method ran (and gave a value) inside."""
    used: set[Specialised] = set()
    token = _USED.set(used)
    try:
        yield used
    finally:
        _USED.reset(token)
