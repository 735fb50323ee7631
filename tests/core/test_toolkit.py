"""The rule toolkit: the pullback decorator, tangents_in, check_cotangent, zero_tangent (signature
binding: test_signature.py)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr


def _scale_rrule(x, factor):  # type: ignore[no-untyped-def]
    y = x * factor
    project = cr.ProjectTo(x)
    calls = []

    @cr.pullback(y, (x, factor))
    def scale_pullback(y_bar):  # type: ignore[no-untyped-def]
        calls.append(1)
        return project(y_bar * factor), cr.NoTangent()

    return y, scale_pullback, calls


def test_pullback_zero_short_circuits_without_running_the_body() -> None:
    x = np.ones(3)
    _, pb, calls = _scale_rrule(x, 2)
    assert pb(cr.ZeroTangent()) == (cr.NoTangent(), cr.ZeroTangent(), cr.NoTangent())
    assert pb(cr.Thunk(lambda: cr.ZeroTangent()))[1] is cr.ZeroTangent()
    assert not calls
    out = pb(cr.Thunk(lambda: np.ones(3)))
    assert out[0] is cr.NoTangent() and out[2] is cr.NoTangent()
    np.testing.assert_array_equal(out[1], [2.0, 2.0, 2.0])
    assert calls == [1]
    assert pb.__name__ == "scale_pullback"  # named in tracebacks


def test_pullback_checks_the_shape_and_the_number_of_entries() -> None:
    _, pb, _ = _scale_rrule(np.ones(3), 2)
    with pytest.raises(ValueError, match=r"scale: cotangent of shape \(2,\).*\(3,\)"):
        pb(np.ones(2))

    y = np.ones(2)

    @cr.pullback(y, (y, y))
    def short_pullback(y_bar):  # type: ignore[no-untyped-def]
        return (y_bar,)

    with pytest.raises(TypeError, match=r"short: the pullback returned 1 cotangents, expected 2"):
        short_pullback(np.ones(2))


def test_pullback_scalar_cotangent_of_0d_output_becomes_an_array() -> None:
    x = np.float32(3.0) * np.ones((), dtype=np.float32)

    @cr.pullback(x, (x,))
    def ident_pullback(y_bar):  # type: ignore[no-untyped-def]
        return y_bar

    out = ident_pullback(2.0)[1]
    assert out.shape == () and out.dtype == np.float32


def test_pullback_of_a_tuple_output() -> None:
    x = np.arange(6.0).reshape(2, 3)
    ys = (x[0], x[1])
    seen = []

    @cr.pullback(ys, (x,))
    def unstack_pullback(parts):  # type: ignore[no-untyped-def]
        seen.append(parts)
        return np.stack([np.zeros(3) if cr.is_zero(p) else p for p in parts])

    assert unstack_pullback(cr.Tangent(cr.ZeroTangent(), cr.ZeroTangent()))[1] is cr.ZeroTangent()
    assert not seen
    out = unstack_pullback((np.ones(3), cr.ZeroTangent()))[1]
    np.testing.assert_array_equal(out, [[1, 1, 1], [0, 0, 0]])
    with pytest.raises(ValueError, match="unstack: expected a cotangent with 2 entries"):
        unstack_pullback((np.ones(3),))
    with pytest.raises(ValueError, match=r"unstack: cotangent of shape \(2,\)"):
        unstack_pullback((np.ones(2), np.ones(3)))


@pytest.mark.parametrize(
    ("arg", "zero"),
    [
        (np.ones(2), cr.ZeroTangent()),
        (np.ones(2, dtype=np.complex64), cr.ZeroTangent()),
        (1.5, cr.ZeroTangent()),
        (1j, cr.ZeroTangent()),
        (np.arange(2), cr.NoTangent()),
        (np.ones(2, dtype=bool), cr.NoTangent()),
        (3, cr.NoTangent()),
        (True, cr.NoTangent()),
        ((2, 3), cr.NoTangent()),
        (None, cr.NoTangent()),
        (np.float64, cr.NoTangent()),
        (np.dtype("float32"), cr.NoTangent()),
        ("C", cr.NoTangent()),
    ],
)
def test_zero_tangent(arg, zero) -> None:  # type: ignore[no-untyped-def]
    assert cr.zero_tangent(arg) is zero


def test_zero_tangent_of_a_sequence_indexes_like_it() -> None:
    z = cr.zero_tangent([np.ones(2), np.arange(2), 1.5])
    assert isinstance(z, cr.Tangent) and z.primal_type is list
    assert (z[0], z[1], z[2]) == (cr.ZeroTangent(), cr.NoTangent(), cr.ZeroTangent())


def test_zero_tangent_of_other_libraries() -> None:
    xps = pytest.importorskip("array_api_strict")
    assert cr.zero_tangent(xps.ones(2)) is cr.ZeroTangent()
    assert cr.zero_tangent(xps.ones(2, dtype=xps.int64)) is cr.NoTangent()


def test_tangents_in() -> None:
    x, w = np.ones((2, 3)), np.ones(3)
    assert cr.tangents_in("f", (cr.NoTangent(), cr.ZeroTangent(), cr.ZeroTangent()), (x, w)) is None
    ts = cr.tangents_in("f", (cr.NoTangent(), np.ones((4, 2, 3)), cr.ZeroTangent()), (x, w))
    assert ts is not None and ts.extra == 1 and ts.lead() == (4,) and ts[1] is cr.ZeroTangent()
    ts = cr.tangents_in("f", (cr.NoTangent(), cr.Thunk(lambda: np.ones((2, 3)))), (x,))
    assert ts is not None and ts.extra == 0 and ts[0].shape == (2, 3)
    with pytest.raises(ValueError, match=r"f: tangent of shape \(3,\) does not fit"):
        cr.tangents_in("f", (cr.NoTangent(), np.ones(3)), (x,))
    with pytest.raises(ValueError, match="different numbers of chunk axes"):
        cr.tangents_in("f", (cr.NoTangent(), np.ones((2, 3)), np.ones((5, 3))), (x, w))
    with pytest.raises(ValueError, match="expected 2 argument tangents"):
        cr.tangents_in("f", (cr.NoTangent(), np.ones((2, 3))), (x, w))


def test_check_cotangent_is_the_one_checker() -> None:
    from chainrules.rules import _util

    assert _util.cotangent is cr.check_cotangent
    z = np.zeros(2, dtype=np.complex128)
    assert cr.check_cotangent("f", np.ones(2), z).dtype == np.complex128
    assert cr.check_cotangent("f", cr.ZeroTangent(), z) is cr.ZeroTangent()
    with pytest.raises(ValueError, match=r"f: cotangent of shape \(\)"):
        cr.check_cotangent("f", 1.0, z)


def test_check_cotangent_of_a_python_scalar_output() -> None:
    assert cr.check_cotangent("f", 2.0, 1.5) == 2.0
    assert cr.check_cotangent("f", np.float64(2.0), 1.5) == 2.0
    with pytest.raises(ValueError, match=r"f: cotangent of shape \(2,\)"):
        cr.check_cotangent("f", np.ones(2), 1.5)


def test_tangents_in_one_argument_fast_path() -> None:
    x = np.ones((2, 3))
    ts = cr.tangents_in("f", (cr.NoTangent(), np.ones((5, 2, 3))), (x,))
    assert ts is not None and ts.extra == 1 and ts.lead() == (5,)
    assert cr.tangents_in("f", (cr.NoTangent(), cr.Thunk(lambda: cr.ZeroTangent())), (x,)) is None
    with pytest.raises(ValueError, match=r"f: tangent of shape \(3, 2\) does not fit"):
        cr.tangents_in("f", (cr.NoTangent(), np.ones((3, 2))), (x,))


def test_pullback_of_a_named_tuple_output_reads_named_fields() -> None:
    from collections import namedtuple

    Pair = namedtuple("Pair", ["first", "second"])
    x = np.arange(3.0)
    ys = Pair(x * 2, x * 3)

    @cr.pullback(ys, (x,))
    def pair_pullback(parts):  # type: ignore[no-untyped-def]
        a, b = (np.zeros(3) if cr.is_zero(p) else p for p in parts)
        return 2 * a + 3 * b

    one = np.ones(3)
    np.testing.assert_array_equal(pair_pullback(Pair(one, one))[1], 5 * one)
    np.testing.assert_array_equal(pair_pullback(cr.Tangent(second=one))[1], 3 * one)
    np.testing.assert_array_equal(
        pair_pullback(cr.Tangent(one, cr.ZeroTangent(), primal_type=Pair))[1], 2 * one
    )
    with pytest.raises(ValueError, match="pair: expected a cotangent with 2 entries"):
        pair_pullback(cr.Tangent(one))


def test_an_arrays_library_is_read_from_its_namespace_not_its_module_name() -> None:
    """An array object whose class's ``__module__`` says array-api-strict, whose namespace is
    another, is not an array-api-strict array; array-api-strict's own arrays are."""
    from chainrules.core.toolkit import _library

    strict = pytest.importorskip("array_api_strict")

    class Impostor:
        shape, dtype, ndim = (2,), np.dtype("float64"), 1

        def __array_namespace__(self, api_version: object = None) -> object:
            return np

    Impostor.__module__ = "array_api_strict._array_object"
    assert _library(Impostor()) == ""
    assert _library(strict.asarray([1.0, 2.0])) == "array_api_strict"


def test_the_real_part_of_a_complex_cotangent_is_a_fresh_array() -> None:
    """A complex cotangent of a real output is brought to its real part as an array of its own,
    not NumPy's strided view: a rule then gives, to the last bit, what the real cotangent given
    directly gives (NumPy's einsum loop summed the strided view in another order, an ulp off)."""
    y = np.ones((2, 4))
    bar = cr.check_cotangent("f", np.full((2, 4), 1.5 + 2j), y)
    assert bar.dtype == np.float64 and bar.flags.c_contiguous
    np.testing.assert_array_equal(bar, np.full((2, 4), 1.5))
    rng = np.random.default_rng(0)
    for seed in range(20):  # operands where the summation order shows
        x, a = np.random.default_rng(seed).standard_normal((2, 3)), rng.standard_normal((3, 4))
        _, pb = cr.rrule(np.einsum, "ij,jk->ik", x, a)
        real = cr.unthunk(pb(np.full((2, 4), 1.5))[2])
        np.testing.assert_array_equal(cr.unthunk(pb(np.full((2, 4), 1.5 + 2j))[2]), real)
