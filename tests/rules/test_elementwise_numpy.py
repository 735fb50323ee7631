"""NumPy's elementwise and numeric functions beyond the standard: conventions at kinks, edge
values, errors, and the generated cells of every registration."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import test_rrule
from chainrules.testing.suite import rule_tests


def test_angle_at_zero_and_degrees() -> None:
    z = np.array([0j, 1 + 1j])
    _, pb = cr.rrule(np.angle, z)
    bar = pb(np.ones(2))[1]
    assert bar[0] == 0  # the kink at 0: the minimum-norm subgradient
    np.testing.assert_allclose(bar[1], 1j * (1 + 1j) / 2)
    _, pb_deg = cr.rrule(np.angle, z, True)
    np.testing.assert_allclose(pb_deg(np.ones(2))[1], bar * 180 / np.pi)


def test_nan_to_num_masks() -> None:
    x = np.array([1.0, np.nan, np.inf, -np.inf, 2.0])
    y, pb = cr.rrule(np.nan_to_num, x, True, 5.0, 6.0, 7.0)
    np.testing.assert_array_equal(y, np.nan_to_num(x, True, 5.0, 6.0, 7.0))
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    _, x_bar, _, nan_bar, pos_bar, neg_bar = pb(g)
    assert x_bar.tolist() == [1.0, 0.0, 0.0, 0.0, 5.0]
    assert (float(nan_bar), float(pos_bar), float(neg_bar)) == (2.0, 3.0, 4.0)
    z = np.array([complex(np.nan, 1.0), 2 + 3j])
    _, pb = cr.rrule(np.nan_to_num, z)
    assert pb(np.array([1 + 1j, 1 + 1j]))[1].tolist() == [1j, 1 + 1j]


def test_heaviside_value_at_zero() -> None:
    x1, x2 = np.array([-1.0, 0.0, 2.0]), np.array([0.3, 0.4, 0.5])
    _, pb = cr.rrule(np.heaviside, x1, x2)
    _, b1, b2 = pb(np.ones(3))
    assert isinstance(b1, cr.ZeroTangent)
    assert b2.tolist() == [0.0, 1.0, 0.0]


def test_modf_at_integer_and_frexp_exponent() -> None:
    _, pb = cr.rrule(np.modf, np.array([2.0, -1.5]))
    assert pb((np.ones(2), np.ones(2)))[1].tolist() == [1.0, 1.0]
    (_m, _e), pb = cr.rrule(np.frexp, np.array([8.0, 0.0]))
    assert pb((np.ones(2), cr.NoTangent()))[1].tolist() == [1 / 16, 1.0]


def test_i0_derivative_is_i1() -> None:
    from chainrules.rules._util import bessel_i1 as _i1

    x = np.array([-700.0, -30.0, -2.0, -1e-8, 0.0, 0.5, 0.999, 1.0, 7.0, 100.0])
    scipy_special = pytest.importorskip("scipy.special")
    np.testing.assert_allclose(_i1(np, x), scipy_special.i1(x), rtol=2e-14, atol=0)


def test_interp_knots_and_outside() -> None:
    xk, fk = np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0])
    x = np.array([1.0, 3.0, -1.0, 4.0])  # a knot, the last knot, below, above
    y, pb = cr.rrule(np.interp, x, xk, fk)
    np.testing.assert_array_equal(y, np.interp(x, xk, fk))
    _, x_bar, _, fp_bar = pb(np.ones(4))
    assert x_bar.tolist() == [0.5, 0.5, 0.0, 0.0]  # right-hand slope; the last knot: left
    assert fp_bar.tolist() == [1.0, 1.0, 2.0]
    with pytest.raises(NotImplementedError, match="period"):
        cr.rrule(np.interp, x, xk, fk, period=2.0)


def test_unwrap_identity_at_threshold() -> None:
    p = np.array([0.0, np.pi, 2 * np.pi + 0.1])
    y, pb = cr.rrule(np.unwrap, p)
    np.testing.assert_array_equal(y, np.unwrap(p))
    assert pb(np.array([1.0, 2.0, 3.0]))[1].tolist() == [1.0, 2.0, 3.0]


def test_sort_complex_tie_routes_by_imaginary_part() -> None:
    a = np.array([1 + 2j, 1 - 1j, 0 + 5j])
    y, pb = cr.rrule(np.sort_complex, a)
    np.testing.assert_array_equal(y, np.sort_complex(a))
    assert pb(np.array([10.0, 20.0, 30.0]) + 0j)[1].tolist() == [30, 20, 10]


def test_gradient_tuple_output_and_errors() -> None:
    f = np.arange(12.0).reshape(3, 4) ** 2
    y, _pb = cr.rrule(np.gradient, f, 2.0)
    assert isinstance(y, tuple) and len(y) == 2
    test_rrule(np.gradient, f, 2.0, jit=False)
    with pytest.raises(TypeError, match="gradient"):
        cr.rrule(np.gradient, f, 1.0, 2.0, 3.0)


def test_cross_errors() -> None:
    with pytest.raises(ValueError, match="cross"):
        cr.rrule(np.cross, np.ones(4), np.ones(4))


def test_non_differentiable_declarations() -> None:
    _, pb = cr.rrule(np.gcd, np.array([4, 6]), np.array([6, 9]))
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3
    _, pb = cr.rrule(np.spacing, np.array([1.0, 2.0]))
    assert isinstance(pb(np.ones(2))[1], cr.ZeroTangent)


def test_interp_complex_fp() -> None:
    xk = np.array([0.0, 1.0, 3.0])
    fk = np.array([1 + 1j, 2 - 1j, 0.5j])
    x = np.array([0.3, 1.7, 2.9])
    test_rrule(np.interp, x, xk, fk, jit=False)


test_rule = rule_tests("chainrules.rules.elementwise_numpy")


def test_unpackbits_on_uint8_arrays() -> None:
    # the generated numpy/jax cells cannot pass uint8 (integer examples become int64)
    from chainrules.testing import test_frule

    x = np.array([[5, 200], [3, 255]], dtype=np.uint8)
    options: list[dict[str, Any]] = [{}, {"axis": 0, "count": -2, "bitorder": "little"}]
    for kwargs in options:
        y, pb = cr.rrule(np.unpackbits, x, **kwargs)
        np.testing.assert_array_equal(y, np.unpackbits(x, **kwargs))
        assert pb(cr.NoTangent()) == (cr.NoTangent(), cr.NoTangent())
        test_rrule(np.unpackbits, x, **kwargs)
        test_frule(np.unpackbits, x, **kwargs)
    jnp = pytest.importorskip("jax.numpy")
    y, _ = cr.rrule(jnp.unpackbits, jnp.asarray(x), axis=1)
    np.testing.assert_array_equal(np.asarray(y), np.unpackbits(x, axis=1))
    with pytest.raises(TypeError, match="unsigned byte"):
        cr.rrule(np.unpackbits, np.array([1, 2]))  # NumPy's own message: uint8 only


def test_trapezoid_of_an_empty_axis() -> None:
    # no node: the integral is 0 and its cotangent has the empty shape of y
    for y, kw in ((np.zeros(0), {}), (np.zeros((0, 3)), {}), (np.zeros((0, 3)), {"axis": 0})):
        out, pb = cr.rrule(np.trapezoid, y, **kw)
        want = np.trapezoid(y, **kw)
        np.testing.assert_array_equal(out, want)
        g = cr.unthunk(pb(np.ones(np.shape(want)))[1])
        assert g.shape == y.shape
        _, t = cr.frule((cr.NoTangent(), np.ones((2, *y.shape))), np.trapezoid, y, **kw)
        np.testing.assert_array_equal(t, np.zeros((2, *np.shape(want))))


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_complex_coordinates(edge_order: int, dtype: type) -> None:
    # np.gradient's weights are holomorphic in complex coordinates: their cotangent is
    # conj(dw/dx) sum(g conj(f)); the rule took the real part first (right only for real
    # coordinates) and so dropped the imaginary direction (complex128 as wrong as complex64)
    from chainrules.testing import test_frule, test_rrule

    rng = np.random.default_rng(11)
    x = np.cumsum(rng.uniform(0.5, 1.5, 6)) + 1j * rng.uniform(-0.3, 0.3, 6)
    f = rng.standard_normal((2, 6)) + 1j * rng.standard_normal((2, 6))
    args = (f.astype(dtype), x.astype(dtype))
    test_rrule(np.gradient, *args, axis=1, edge_order=edge_order, jit=False)
    test_frule(np.gradient, *args, axis=1, edge_order=edge_order, jit=False)
    # real coordinates of a complex f keep a real cotangent
    test_rrule(np.gradient, f.astype(dtype), x.real, axis=1, edge_order=edge_order, jit=False)
