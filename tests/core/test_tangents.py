from __future__ import annotations

import collections
import pickle

import numpy as np
import pytest

import chainrules as cr


def test_zero_singletons_and_arithmetic() -> None:
    z, n = cr.ZeroTangent(), cr.NoTangent()
    assert z is cr.ZeroTangent() and n is cr.NoTangent()
    assert z is not n
    x = np.arange(3.0)
    assert z + x is x and x + z is x  # numpy defers to the reflected method
    assert (z * x) is z and (x * z) is z
    assert -z is z and not z and not n
    assert cr.add_tangents(n, n) is n
    assert cr.add_tangents(n, z) is z
    assert pickle.loads(pickle.dumps(z)) is z


def test_zero_cannot_be_iterated() -> None:
    with pytest.raises(TypeError, match="is_zero"):
        list(cr.ZeroTangent())


def test_thunks() -> None:
    calls = []

    def compute() -> np.ndarray:
        calls.append(1)
        return np.ones(2)

    t = cr.Thunk(compute)
    assert np.array_equal(cr.unthunk(t), np.ones(2))
    assert np.array_equal(cr.unthunk(t), np.ones(2))
    assert len(calls) == 2  # not cached: a thunk holds no memory after it has run
    assert cr.unthunk(5) == 5
    nested = cr.Thunk(lambda: cr.Thunk(lambda: 3))
    assert cr.unthunk(nested) == 3
    with pytest.raises(TypeError, match="callable"):
        cr.Thunk(3)  # type: ignore[arg-type]


def test_add_tangents_arrays_thunks_and_structures() -> None:
    a, b = np.ones(2), np.arange(2.0)
    assert np.array_equal(cr.add_tangents(cr.Thunk(lambda: a), b), a + b)
    t = cr.add_tangents(cr.Tangent(a, cr.ZeroTangent()), cr.Tangent(b, b))
    assert np.array_equal(t[0], a + b) and np.array_equal(t[1], b)
    d = cr.add_tangents(cr.Tangent(x=a), cr.Tangent(x=b, y=a))
    assert np.array_equal(d.x, a + b) and np.array_equal(d["y"], a)
    with pytest.raises(ValueError, match="lengths 1 and 2"):
        cr.add_tangents(cr.Tangent(a), cr.Tangent(a, b))
    with pytest.raises(TypeError, match="structural"):
        cr.add_tangents(cr.Tangent(a), a)


def test_tangent_structure_access() -> None:
    Point = collections.namedtuple("Point", "x y")
    p = Point(np.ones(2), np.zeros(2))
    t = cr.Tangent.from_primal(p, [np.ones(2), np.full(2, 2.0)])
    assert t.primal_type is Point
    assert np.array_equal(t.y, np.full(2, 2.0)) and np.array_equal(t[0], np.ones(2))
    assert len(t) == 2 and t.is_sequence
    d = cr.Tangent(w=np.ones(1))
    assert d.missing is cr.ZeroTangent()
    assert "w=" in repr(d)
    with pytest.raises(TypeError, match="not both"):
        cr.Tangent(1, a=2)
    with pytest.raises(AttributeError):
        _ = cr.Tangent(np.ones(1)).nope


def test_accumulate_in_place_only_where_allowed() -> None:
    dest = np.zeros(3)
    out = cr.accumulate(dest, np.ones(3))
    assert out is dest and np.array_equal(dest, np.ones(3))
    # promotion or broadcasting that grows the destination: functional
    out = cr.accumulate(dest, np.ones(3, dtype=np.complex128))
    assert out is not dest and out.dtype == np.complex128
    out = cr.accumulate(dest, np.ones((2, 3)))
    assert out is not dest and out.shape == (2, 3)
    ro = np.zeros(3)
    ro.flags.writeable = False
    out = cr.accumulate(ro, np.ones(3))
    assert out is not ro and np.array_equal(ro, np.zeros(3))
    assert cr.accumulate(cr.ZeroTangent(), dest) is dest


def test_accumulate_inplaceable_thunk() -> None:
    dest = np.zeros(2)
    seen = []

    def add(d: np.ndarray) -> np.ndarray:
        seen.append("add")
        d += 1.0
        return d

    thunk = cr.InplaceableThunk(add, lambda: np.ones(2))
    assert cr.accumulate(dest, thunk) is dest and seen == ["add"]
    ro = np.zeros(2)
    ro.flags.writeable = False
    out = cr.accumulate(ro, thunk)  # falls back to the value
    assert np.array_equal(out, np.ones(2)) and seen == ["add"]


def test_accumulate_is_functional_for_other_libraries(backend) -> None:  # type: ignore[no-untyped-def]
    xp = backend.array_namespace()
    dest = xp.zeros(3, dtype=xp.float64)
    out = cr.accumulate(dest, xp.ones(3, dtype=xp.float64))
    if backend.name == "numpy":
        assert out is dest
    else:
        assert out is not dest
        assert float(xp.sum(dest)) == 0.0
    assert float(xp.sum(out)) == 3.0


@pytest.mark.parametrize(
    "thunk",
    [cr.Thunk(lambda: np.ones(10**4)), cr.InplaceableThunk(lambda d: d + 1, lambda: np.ones(3))],
)
def test_thunk_repr_is_short_and_says_how_to_get_the_value(thunk) -> None:  # type: ignore[no-untyped-def]
    """A deferred cotangent printed (in a tuple a pullback returns) reads as what it is and names
    the call that gives the value; it is not forced, and it does not dump the closure."""
    text = repr(thunk)
    assert text == f"{type(thunk).__name__}(<deferred cotangent>; call cr.unthunk(t) for the value)"
    assert len(text) < 80


def test_accumulate_decides_in_place_by_type_not_by_module_name() -> None:
    """Two ndarray subclasses that differ only in their class's ``__module__`` (one says
    ``numpy``) accumulate alike: the decision is the array's type, not a name it carries."""

    class Plain(np.ndarray):
        pass

    class SaysNumpy(np.ndarray):
        pass

    SaysNumpy.__module__ = "numpy"
    alike = []
    for cls in (Plain, SaysNumpy):
        dest = np.zeros(3).view(cls)
        out = cr.accumulate(dest, np.ones(3))
        np.testing.assert_array_equal(out, np.ones(3))
        alike.append((out is dest, np.asarray(dest).tolist()))
    assert alike[0] == alike[1]
    own = np.zeros(3)  # NumPy's own array: written in place
    assert cr.accumulate(own, np.ones(3)) is own


def test_accumulate_never_asks_another_object_to_write_into_a_numpy_array() -> None:
    # an operand that is not dest's own type (an engine's tracer, another library's array) takes
    # the addition over through its protocol: dest + x, never dest += x (which refused tracers
    # in a Hessian's reverse pass: a NumPy cotangent, then a forward tracer's)
    class Other:
        __array_ufunc__ = None  # NumPy defers every ufunc, an in-place one raises

        def __init__(self, shape: tuple[int, ...]) -> None:
            self.shape, self.dtype = shape, np.dtype("float64")

        def __radd__(self, other: np.ndarray) -> tuple[str, np.ndarray]:
            return ("sum", other.copy())

    dest = np.ones(3)
    got = cr.accumulate(dest, Other((3,)))
    assert got[0] == "sum"
    np.testing.assert_array_equal(got[1], np.ones(3))
    np.testing.assert_array_equal(dest, np.ones(3))  # not written
