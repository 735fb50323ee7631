"""Cumulative sums and products (``cumulative_sum``, ``cumulative_prod``; NumPy's ``cumsum``,
``cumprod``, ``nancumsum``, ``nancumprod``): the tester on every backend, JAX as a reference, exact
with zeros and where the product overflows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.statistical import cumulative
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == cumulative.__name__]


@pytest.mark.parametrize("reg", [r for r in REGS if r.family == "numpy"], ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_cumprod_is_exact_with_zeros(grad) -> None:  # type: ignore[no-untyped-def]
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    g = grad(np.cumprod, x)
    # y = [2, 0, 0, 0, 0]; dy_k/dx_1 = prod of the others up to k (zero after the second zero)
    assert g.tolist() == [1.0, 2.0 + 2 * 3.0, 0.0, 0.0, 0.0]


def test_cumprod_pullback_is_finite_where_the_product_overflows() -> None:
    # rows of 1e300 with zeros: the primal is inf then NaN (NumPy's inf * 0), but every partial
    # sum_{j>=i} y_bar_j prod_{k<=j, k!=i} x_k has an exact value: finite, inf (a real overflow)
    # or 0 -- never NaN, and no warning (no division by an overflowed prefix product)
    x = np.array([[1e300, 1e300, 0.0, 1e300], [1e300, 0.0, 1e300, 1e300], [2.0, 3.0, 0.0, 4.0]])
    with warnings.catch_warnings():  # the primal warns, as np.cumprod does (inf * 0)
        warnings.simplefilter("ignore", RuntimeWarning)
        _, pb = cr.rrule(np.cumulative_prod, x, axis=1)
    with warnings.catch_warnings():  # the exclusive product warns as NumPy's own cumprod does
        warnings.simplefilter("ignore", RuntimeWarning)
        g = pb(np.ones_like(x))[1]
    assert g.tolist() == [
        [1e300 + 1.0, 1e300, np.inf, 0.0],  # 1 + x1; x0; x0 x1 (1 + x3) overflows; after a zero
        [1.0, 1e300 * (1.0 + 1e300 + 1e300 * 1e300), 0.0, 0.0],  # = inf: x0 (1 + x2 + x2 x3)
        [1.0 + 3.0, 2.0, 2.0 * 3.0 * (1.0 + 4.0), 0.0],
    ]
    # a complex row: conjugated partials, the same structure. (A complex product that overflows
    # is NaN in NumPy itself -- (0 + inf j) * (1 + 0j) forms inf * 0 -- a declared limit.)
    z = np.array([2j, 1e300 + 0j, 0j, 2.0 + 0j])
    _, pb = cr.rrule(np.cumprod, z)
    gz = pb(np.ones(4, complex))[1]
    assert gz.tolist() == [1 + 1e300, -2j, -6e300j, 0]  # conj of 1 + x1, x0, x0 x1 (1 + x3), 0


def test_cumprod_pushforward_is_finite_where_the_product_overflows() -> None:
    # y_dot_i = sum_{k<=i} t_k prod_{j<=i, j!=k} x_j, exact: finite, inf (a real overflow) or 0
    # (two zeros) -- never NaN; the division formula gave NaN (inf * 0) and inf for 2e300
    x = np.array([[1e300, 1e300, 0.0, 0.0], [1e300, 1e300, 0.0, 1e300], [2.0, 3.0, 0.0, 4.0]])
    t = np.ones((2, *x.shape))  # a chunk of two tangents
    t[1] *= 2.0
    with warnings.catch_warnings():  # the primal warns, as np.cumprod does (inf * 0)
        warnings.simplefilter("ignore", RuntimeWarning)
        _, y_dot = cr.frule((cr.NoTangent(), t), np.cumulative_prod, x, axis=1)
    want = [
        [1.0, 1e300 + 1e300, np.inf, 0.0],  # t0; x1 + x0; x0 x1 overflows; two zeros
        [1.0, 1e300 + 1e300, np.inf, np.inf],  # x0 x1 x3 after the zero
        [1.0, 2.0 + 3.0, 2.0 * 3.0, 2.0 * 3.0 * 4.0],  # after the zero only t_2's term
    ]
    assert y_dot[0].tolist() == want
    assert y_dot[1].tolist() == (2.0 * np.array(want)).tolist()


def test_nancumsum_gives_nans_zero_cotangent(grad) -> None:  # type: ignore[no-untyped-def]
    x = np.array([2.0, np.nan, 5.0, 5.0])
    assert grad(np.nancumsum, x).tolist() == [4.0, 0.0, 2.0, 1.0]


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical.cumulative")
