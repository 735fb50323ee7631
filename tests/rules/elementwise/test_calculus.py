"""gradient, ediff1d and trapezoid: tuple outputs, errors, empty axes, complex coordinates, and
the generated cells."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.elementwise import calculus
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.suite import rule_tests


def test_gradient_tuple_output_and_errors() -> None:
    f = np.arange(12.0).reshape(3, 4) ** 2
    y, _pb = cr.rrule(np.gradient, f, 2.0)
    assert isinstance(y, tuple) and len(y) == 2
    test_rrule(np.gradient, f, 2.0, jit=False)
    with pytest.raises(TypeError, match="gradient"):
        cr.rrule(np.gradient, f, 1.0, 2.0, 3.0)


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
    from chainrules.testing import test_rrule

    rng = np.random.default_rng(11)
    x = np.cumsum(rng.uniform(0.5, 1.5, 6)) + 1j * rng.uniform(-0.3, 0.3, 6)
    f = rng.standard_normal((2, 6)) + 1j * rng.standard_normal((2, 6))
    args = (f.astype(dtype), x.astype(dtype))
    test_rrule(np.gradient, *args, axis=1, edge_order=edge_order, jit=False)
    test_frule(np.gradient, *args, axis=1, edge_order=edge_order, jit=False)
    # real coordinates of a complex f keep a real cotangent
    test_rrule(np.gradient, f.astype(dtype), x.real, axis=1, edge_order=edge_order, jit=False)


test_rule = rule_tests(calculus)
