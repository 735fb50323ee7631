"""Reductions: the tester on every backend, JAX as a reference, exact conventions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import statistical
from chainrules.rules._util import unsum
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == statistical.__name__]
NAMES = {r.name for r in REGS}


def test_every_reduction_is_registered_under_both_names() -> None:
    for name in (
        "sum",
        "mean",
        "prod",
        "max",
        "min",
        "var",
        "std",
        "cumulative_sum",
        "cumulative_prod",
    ):
        assert name in NAMES
    for name in (
        "sum",
        "mean",
        "prod",
        "max",
        "amax",
        "min",
        "amin",
        "var",
        "std",
        "cumsum",
        "cumprod",
    ):
        assert f"numpy:{name}" in NAMES


@pytest.mark.parametrize("reg", [r for r in REGS if r.family == "numpy"], ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions ------------------------------------------------------------------------------
def _grad(f, *args, **kw):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args, **kw)
    return pb(np.ones(np.shape(y)))[1]


def test_max_and_min_split_ties_equally() -> None:
    assert _grad(np.max, np.array([1.0, 3.0, 3.0, 2.0])).tolist() == [0.0, 0.5, 0.5, 0.0]
    assert _grad(np.min, np.array([1.0, 3.0, 1.0, 1.0])).tolist() == [1 / 3, 0.0, 1 / 3, 1 / 3]
    m = np.array([[1.0, 2.0, 2.0], [5.0, 4.0, 5.0]])
    assert _grad(np.amax, m, axis=1).tolist() == [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]]
    _, ydot = cr.frule(
        (cr.NoTangent(), np.array([1.0, 10.0, 20.0, 0.0])), np.max, np.array([1.0, 3.0, 3.0, 2.0])
    )
    assert float(ydot) == 15.0


def test_prod_is_exact_with_zeros() -> None:
    assert _grad(np.prod, np.array([0.0, 2.0, 3.0])).tolist() == [6.0, 0.0, 0.0]
    assert _grad(np.prod, np.array([0.0, 2.0, 0.0])).tolist() == [0.0, 0.0, 0.0]
    assert _grad(np.prod, np.array([[0.0, 2.0], [3.0, 4.0]]), axis=0).tolist() == [
        [3.0, 4.0],
        [0.0, 2.0],
    ]


def test_cumprod_is_exact_with_zeros() -> None:
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    g = _grad(np.cumprod, x)
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


def test_std_of_a_constant_slice_has_zero_gradient_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _grad(np.std, np.ones(4)).tolist() == [0.0] * 4


def test_numpy_signatures_and_rejected_keywords() -> None:
    x = np.arange(6.0).reshape(2, 3)
    _, pb = cr.rrule(np.sum, x, 0)  # axis positional, as NumPy allows
    assert len(pb(np.ones(3))) == 3 and pb(np.ones(3))[2] is cr.NoTangent()
    _, pb = cr.rrule(np.var, x, 1, None, None, 1)  # ddof positional
    assert np.allclose(pb(np.ones(2))[1], 2 * (x - x.mean(1, keepdims=True)) / 2)
    with pytest.raises(TypeError, match="does not support where="):
        cr.rrule(np.sum, x, where=x > 1)
    with pytest.raises(TypeError, match="out= is not supported"):
        cr.rrule(np.sum, x, out=np.empty(()))
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="keyword-only"):  # the standard's sum(x, /, *, axis)
        cr.rrule(xs.sum, xs.asarray(x), 0)
    with pytest.raises(ValueError, match=r"cotangent of shape \(2,\) does not match .* \(3,\)"):
        cr.rrule(np.sum, x, axis=0)[1](np.ones(2))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        cr.rrule(np.sum, x, axis=2)


# ---- second derivatives: the pullback of sum is a function with rules ---------------------------
def test_sum_pullback_is_differentiable_again() -> None:
    x = np.random.default_rng(0).standard_normal((3, 4))
    _, pb = cr.rrule(np.sum, x, axis=1)
    y_bar = np.arange(3.0)
    assert np.array_equal(pb(y_bar)[1], unsum(y_bar, x.shape, (1,), False))
    test_rrule(unsum, y_bar, (3, 4), (1,), False)
    test_frule(unsum, y_bar, (3, 4), (1,), False)
    test_rrule(unsum, np.ones((3, 1)), (3, 4), 1, True)


# ---- NumPy's ptp, nansum, nanmean, average ------------------------------------------------------
def test_ptp_nan_and_average_conventions() -> None:
    # ptp: each end splits its cotangent among its ties; a constant slice gets 0
    assert _grad(np.ptp, np.array([1.0, 3.0, 3.0, 1.0, 2.0])).tolist() == [
        -0.5,
        0.5,
        0.5,
        -0.5,
        0.0,
    ]
    assert _grad(np.ptp, np.ones(3)).tolist() == [0.0, 0.0, 0.0]
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    assert _grad(np.nansum, x, axis=1).tolist() == [[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN row's mean
        assert _grad(np.nanmean, x, axis=1).tolist() == [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]
    a, w = np.array([1.0, 2.0, 4.0]), np.array([1.0, 1.0, 2.0])
    y, pb = cr.rrule(np.average, a, 0, w)  # positional weights: differentiated
    _, a_bar, _, w_bar = pb(np.asarray(1.0))
    assert float(y) == 2.75 and a_bar.tolist() == [0.25, 0.25, 0.5]
    assert w_bar.tolist() == [(1 - 2.75) / 4, (2 - 2.75) / 4, (4 - 2.75) / 4]
    _, pb = cr.rrule(np.average, a, weights=w)  # a keyword: a constant, no slot
    assert len(pb(np.asarray(1.0))) == 2
    with pytest.raises(TypeError, match="returned=True"):
        cr.rrule(np.average, a, 0, w, True)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical")


@pytest.mark.parametrize(
    "f", [np.sum, np.prod, np.amax, np.amin, np.max, np.min, np.nansum, np.nanmean]
)
@pytest.mark.parametrize("axis", [0, -1])
def test_numpy_reductions_take_axis_0_of_a_0d_array(f, axis) -> None:  # type: ignore[no-untyped-def]
    """NumPy reduces a 0-d array along axis 0 or -1 to itself (the rule used to raise)."""
    x = np.asarray(2.5)
    y, pb = cr.rrule(f, x, axis=axis)
    assert y == f(x, axis=axis)
    np.testing.assert_allclose(pb(np.asarray(1.0))[1], 1.0)
    _, t = cr.frule((cr.NoTangent(), np.asarray(3.0)), f, x, axis=axis)
    np.testing.assert_allclose(t, 3.0)
    with pytest.raises(ValueError, match="out of bounds"):
        cr.rrule(f, x, axis=1)


def test_mean_keeps_numpys_refusal_of_axis_0_on_a_0d_array() -> None:
    with pytest.raises(np.exceptions.AxisError):
        np.mean(np.asarray(2.0), axis=0)
    with pytest.raises(np.exceptions.AxisError):
        cr.rrule(np.mean, np.asarray(2.0), axis=0)


def test_average_of_empty_input_has_an_empty_cotangent() -> None:
    # NumPy's average of no elements is NaN; the cotangent is empty (it was a ZeroDivisionError)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y, pb = cr.rrule(np.average, np.zeros(0))
    assert np.isnan(y)
    a_bar = pb(np.array(1.0))[1]
    assert a_bar.shape == (0,) and a_bar.dtype == np.float64
