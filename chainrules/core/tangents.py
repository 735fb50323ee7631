"""Tangent types: the values that pullbacks return and pushforwards carry.

A tangent (or cotangent) is one of

* an array of the primal's own library, device and dtype;
* ``NoTangent`` -- the argument has no tangent space (integers, booleans, indices, shapes,
  the function itself);
* ``ZeroTangent`` -- a zero of any shape that costs nothing;
* ``Tangent`` -- a structural tangent for a tuple, list, named tuple, dict or dataclass;
* ``Thunk`` / ``InplaceableThunk`` -- deferred work, forced by ``unthunk``.

Arithmetic on tangents goes through ``add_tangents`` (always functional) and
``accumulate`` (in place where the destination allows it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

__all__ = [
    "AbstractZero",
    "InplaceableThunk",
    "NoTangent",
    "Tangent",
    "Thunk",
    "ZeroTangent",
    "accumulate",
    "add_tangents",
    "is_zero",
    "unthunk",
]


class AbstractZero:
    """Base of the two zero-like tangents. Adding one to anything returns the other operand.

    ``__array_ufunc__ = None`` makes NumPy hand ``ndarray + zero`` to our reflected methods
    instead of building an object array.
    """

    __slots__ = ()
    __array_ufunc__ = None
    _instance: AbstractZero | None = None

    def __new__(cls) -> AbstractZero:  # singleton per subclass
        inst = cls.__dict__.get("_instance")
        if inst is None:
            inst = super().__new__(cls)
            cls._instance = inst
        return inst

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (type(self), ())

    def __add__(self, other: Any) -> Any:
        return other

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return -other

    def __rsub__(self, other: Any) -> Any:
        return other

    def __neg__(self) -> AbstractZero:
        return self

    def __mul__(self, other: Any) -> AbstractZero:
        return self

    __rmul__ = __mul__
    __truediv__ = __mul__
    __matmul__ = __mul__
    __rmatmul__ = __mul__

    def __getitem__(self, key: Any) -> AbstractZero:
        return self

    def __iter__(self) -> Iterator[Any]:
        raise TypeError(
            f"{self!r} cannot be iterated; test for it with chainrules.is_zero() before indexing"
        )

    # Used as an array (t.shape, t.astype(...), t.sum()): say what the marker is and what to
    # do, instead of Python's "object has no attribute". Only reached on a miss, and the message
    # is built only when read, so a getattr(t, "shape", None) probe costs one call more.
    _WHY = "a zero of whatever shape is needed, which costs nothing"
    _FIX = "build the array with xp.zeros_like(x) where one is needed"

    if not TYPE_CHECKING:  # hidden from type checkers, which still flag `zero.shape` statically

        def __getattr__(self, name: str) -> Any:
            raise _ZeroAttributeError(self, name)

    def _not_an_array(self, what: str) -> str:
        return (
            f"{self!r} {what}: it is not an array but {self._WHY}. Test for it with "
            f"chainrules.is_zero(t) before using a tangent as an array, or {self._FIX}"
        )


class _ZeroAttributeError(AttributeError):
    """A missing attribute of a zero marker; the message is built only when it is read (a
    ``getattr(t, "shape", None)`` probe never reads it)."""

    def __init__(self, zero: AbstractZero, name: str) -> None:
        super().__init__(name)
        self.zero, self.attribute = zero, name

    def __str__(self) -> str:
        if self.attribute.startswith("__"):  # a protocol probe (__array_namespace__): plain
            return f"{self.zero!r} has no attribute {self.attribute!r}"
        return self.zero._not_an_array(f"has no attribute {self.attribute!r}")


class ZeroTangent(AbstractZero):
    """A zero tangent of whatever shape is needed: ``ZeroTangent() + x is x``.

    Return it from a pullback for an argument that does have a tangent space but receives no
    sensitivity (for example the input of ``floor``).
    """

    __slots__ = ()


class NoTangent(AbstractZero):
    """Marks an argument that has no tangent space (integers, booleans, indices, ``f`` itself).

    Engines must not try to accumulate into it; testers insist on it for integer arguments. An
    integer array's cotangent is therefore ``NoTangent()`` (``cr.rrule(np.sin, np.arange(3))``):
    cast it to floating point (``x.astype(np.float64)``) to differentiate with respect to it.
    """

    __slots__ = ()
    _WHY = (
        "the cotangent of an argument with no tangent space: an integer or boolean array, an "
        "index, a shape, or the function itself (chainrules does not differentiate integers)"
    )
    _FIX = "cast an integer argument to floating point (x.astype(np.float64)) to get a cotangent"


def is_zero(x: Any) -> bool:
    """True for ``ZeroTangent`` and ``NoTangent`` (cheap; never inspects array values)."""
    return isinstance(x, AbstractZero)


class Thunk:
    """A deferred cotangent: ``Thunk(lambda: expensive())``; forced by ``unthunk``.

    It is not cached: forcing twice computes twice, so a thunk holds no memory after it has run.
    """

    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[], Any]) -> None:
        if not callable(fn):
            raise TypeError(f"Thunk expects a zero-argument callable, got {type(fn).__name__}")
        self._fn = fn

    def __call__(self) -> Any:
        return unthunk(self._fn())

    def __repr__(self) -> str:
        # short and never forced (forcing may be expensive): what it is and how to get the value
        return f"{type(self).__name__}(<deferred cotangent>; call cr.unthunk(t) for the value)"


class InplaceableThunk(Thunk):
    """A thunk that can also add itself into an existing array without a temporary.

    ``add(dest)`` must return ``dest`` plus the value, writing into ``dest`` where it can (the
    engine guarantees it owns ``dest``); ``value()`` returns the value itself.
    """

    __slots__ = ("add",)

    def __init__(self, add: Callable[[Any], Any], value: Callable[[], Any]) -> None:
        super().__init__(value)
        if not callable(add):
            raise TypeError("InplaceableThunk expects a callable add(dest) as its first argument")
        self.add = add


def unthunk(x: Any) -> Any:
    """Force ``x`` if it is a ``Thunk``; return anything else unchanged."""
    while isinstance(x, Thunk):
        x = x._fn()
    return x


class Tangent:
    """Structural (co)tangent of a tuple, list, named tuple, dict or dataclass.

    ``Tangent(dx, dy)`` indexes like a sequence (``t[0]``); ``Tangent(a=da, b=db)`` like a mapping
    (``t["a"]``) and by attribute (``t.a``). Missing fields read as ``ZeroTangent``.
    ``primal_type`` records the type of the primal it belongs to (optional).
    """

    __slots__ = ("_elements", "_fields", "primal_type")

    def __init__(self, *elements: Any, primal_type: type | None = None, **fields: Any) -> None:
        if elements and fields:
            raise TypeError("Tangent takes positional elements or named fields, not both")
        self._elements = elements if not fields else None
        self._fields = fields if fields else None
        self.primal_type = primal_type

    @classmethod
    def from_primal(cls, primal: Any, parts: Any) -> Tangent:
        """Build the tangent of ``primal`` from ``parts`` (a sequence or a mapping of tangents)."""
        if isinstance(parts, dict):
            return cls(primal_type=type(primal), **parts)
        return cls(*parts, primal_type=type(primal))

    @property
    def is_sequence(self) -> bool:
        return self._elements is not None

    def __len__(self) -> int:
        return len(self._elements) if self._elements is not None else len(self._fields or {})

    def __iter__(self) -> Iterator[Any]:
        if self._elements is not None:
            return iter(self._elements)
        return iter(self._fields or {})

    def __getitem__(self, key: Any) -> Any:
        if self._elements is not None:
            return self._elements[key]
        return (self._fields or {}).get(key, ZeroTangent())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        fields = object.__getattribute__(self, "_fields")
        if fields is not None:
            return fields.get(name, ZeroTangent())
        ptype = object.__getattribute__(self, "primal_type")
        names = getattr(ptype, "_fields", None)  # named tuple
        if names and name in names:
            return object.__getattribute__(self, "_elements")[names.index(name)]
        raise AttributeError(f"Tangent has no field {name!r}")

    def items(self) -> Any:
        if self._fields is None:
            return enumerate(self._elements or ())
        return self._fields.items()

    def elements(self) -> tuple[Any, ...]:
        """The positional elements (for a sequence tangent)."""
        if self._elements is None:
            raise TypeError("this Tangent has named fields, not elements")
        return self._elements

    def fields(self) -> dict[str, Any]:
        """The named fields (for a mapping or dataclass tangent)."""
        if self._fields is None:
            raise TypeError("this Tangent has elements, not named fields")
        return dict(self._fields)

    def __add__(self, other: Any) -> Any:
        return add_tangents(self, other)

    __radd__ = __add__

    def __repr__(self) -> str:
        ptype = f", primal_type={self.primal_type.__name__}" if self.primal_type else ""
        if self._elements is not None:
            inner = ", ".join(repr(e) for e in self._elements)
        else:
            inner = ", ".join(f"{k}={v!r}" for k, v in (self._fields or {}).items())
        return f"Tangent({inner}{ptype})"


def _tangent_add(a: Tangent, b: Tangent) -> Tangent:
    if a.is_sequence != b.is_sequence:
        raise TypeError("cannot add a sequence Tangent to a named-field Tangent")
    ptype = a.primal_type or b.primal_type
    if a.is_sequence:
        ea, eb = a.elements(), b.elements()
        if len(ea) != len(eb):
            raise ValueError(f"cannot add Tangents of lengths {len(ea)} and {len(eb)}")
        return Tangent(*(add_tangents(x, y) for x, y in zip(ea, eb)), primal_type=ptype)
    fa, fb = a.fields(), b.fields()
    out = {k: add_tangents(fa.get(k, ZeroTangent()), fb.get(k, ZeroTangent())) for k in fa | fb}
    return Tangent(primal_type=ptype, **out)


def add_tangents(a: Any, b: Any) -> Any:
    """``a + b`` for any two tangents, never in place.

    Zeros vanish (``ZeroTangent() + x is x``; ``NoTangent() + NoTangent()`` is ``NoTangent()``),
    thunks are forced, structural tangents add field by field.
    """
    if isinstance(a, AbstractZero):
        if isinstance(b, AbstractZero):
            return a if a is b else ZeroTangent()
        return unthunk(b)
    if isinstance(b, AbstractZero):
        return unthunk(a)
    a, b = unthunk(a), unthunk(b)
    if isinstance(a, Tangent) and isinstance(b, Tangent):
        return _tangent_add(a, b)
    if isinstance(a, Tangent) or isinstance(b, Tangent):
        other = b if isinstance(a, Tangent) else a
        raise TypeError(f"cannot add a structural Tangent to {type(other).__name__}")
    return a + b


def _can_add_inplace(dest: Any, x: Any) -> bool:
    """In place only into writeable NumPy arrays and CuPy arrays, and only when ``dest + x`` keeps
    ``dest``'s shape and dtype (no broadcast that grows it, no promotion), and only of an ``x``
    of ``dest``'s own type or a number: any other object (an engine's tracer, another library's
    array) takes over the operation through its own protocol, and ``dest += x`` would ask it to
    write into ``dest``."""
    import numpy as np

    if not (type(x) is type(dest) or type(x) in (int, float, complex) or isinstance(x, np.generic)):
        return False
    if type(dest) is np.ndarray:  # by type, never the type's __module__
        if not dest.flags.writeable:
            return False
    else:
        cupy = sys.modules.get("cupy")
        if cupy is None or not isinstance(dest, cupy.ndarray):
            return False

    xshape = getattr(x, "shape", ())
    try:
        if np.broadcast_shapes(dest.shape, xshape) != dest.shape:
            return False
        return bool(np.result_type(dest.dtype, getattr(x, "dtype", x)) == dest.dtype)
    except (ValueError, TypeError):
        return False


def accumulate(dest: Any, x: Any) -> Any:
    """Return ``dest + x``, writing into ``dest`` when it is a writeable NumPy or CuPy array.

    This is the engine-side accumulator: **only pass a ``dest`` you own** (an array you allocated,
    not a cotangent a rule returned -- rules may return aliases of their inputs or of the
    cotangent they were given). For every other library (JAX, PyTorch, array-api-strict) and for
    read-only arrays it is functional, like ``add_tangents``. An ``InplaceableThunk``
    adds itself through its ``add`` method.
    """
    if isinstance(dest, (AbstractZero, Tangent)) or isinstance(x, (AbstractZero, Tangent)):
        return add_tangents(dest, x)
    if isinstance(x, InplaceableThunk) and _can_add_inplace(dest, dest):
        return x.add(dest)
    x = unthunk(x)
    if _can_add_inplace(dest, x):
        dest += x
        return dest
    return dest + x
