"""NumPy's order statistics (``median``, ``quantile``, ``percentile`` and their NaN forms): the
generated tests on every backend, NumPy as the reference for the primal, the tie convention
exactly."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.suite import rule_tests

# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical.quantiles")


def _grad(f, *args, **kw):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args, **kw)
    return pb(np.ones(np.shape(y)))


def test_quantile_ties_are_shared_like_max() -> None:
    x = np.array([1.0, 3.0, 3.0, 2.0])
    assert _grad(np.quantile, x, 1.0)[1].tolist() == _grad(np.max, x)[1].tolist()
    assert _grad(np.median, np.array([2.0, 1.0, 2.0]))[1].tolist() == [0.5, 0.0, 0.5]
    # weights 0.8 / 0.2 on two tied order statistics: shared equally by the tied elements
    assert _grad(np.quantile, np.array([3.0, 1.0, 2.0, 2.0, 5.0]), 0.3)[1].tolist() == [
        0.0,
        0.0,
        0.5,
        0.5,
        0.0,
    ]


@pytest.mark.parametrize(
    "method",
    ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull", "median_unbiased"],
)
def test_quantile_methods_agree_with_numpy(method: str) -> None:

    rng = np.random.default_rng(3)
    x = rng.permutation(10) + rng.uniform(0.1, 0.4, 10)
    q = np.array([0.07, 0.33, 0.96])
    y, _ = cr.rrule(np.quantile, x, q, method=method)
    np.testing.assert_array_equal(y, np.quantile(x, q, method=method))
    jit = method in ("linear", "lower", "higher", "nearest", "midpoint")  # jax.numpy's methods
    test_rrule(np.quantile, x, q, method=method, jit=jit)
    test_frule(np.quantile, x, q, method=method, jit=jit)


def test_quantile_q_derivative_and_percentile_scale() -> None:
    x = np.array([4.0, 1.0, 3.0, 2.0])
    _, _, q_bar = _grad(np.quantile, x, 0.5)
    assert float(q_bar) == 3.0 * (3.0 - 2.0)  # (n - 1) (s[hi] - s[lo])
    _, _, p_bar = _grad(np.percentile, x, 50.0)
    assert float(p_bar) == 3.0 / 100
    assert isinstance(_grad(np.quantile, x, 0.5, method="lower")[2], cr.ZeroTangent)


def test_nanmedian_gives_nans_zero_cotangent() -> None:
    m = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        g = _grad(np.nanmedian, m, axis=1)[1]
    assert g.tolist() == [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]


def test_errors_name_the_function() -> None:
    x = np.arange(4.0)
    with pytest.raises(ValueError, match=r"quantile.*method"):
        cr.rrule(np.quantile, x, 0.5, method="inverted_cdf")
    with pytest.raises(TypeError, match="quantile"):
        cr.rrule(np.quantile, x, 0.5, out=np.empty(()))


@pytest.mark.parametrize("f", [np.median, np.nanmedian, np.nanquantile, np.nanpercentile])
def test_quantiles_of_empty_input_have_empty_cotangents(f: Any) -> None:
    # nothing reduced: y is NaN whatever a is, the cotangent of a is empty (it was an IndexError)
    args = (np.zeros((3, 0)),) if "median" in f.__name__ else (np.zeros((3, 0)), 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y, pb = cr.rrule(f, *args, axis=1)
        assert np.array_equal(y, f(*args, axis=1), equal_nan=True)
        a_bar = pb(np.ones(3))[1]
        assert a_bar.shape == (3, 0) and a_bar.dtype == np.float64
        t = (cr.NoTangent(), np.ones((3, 0)), *(cr.ZeroTangent(),) * (len(args) - 1))
        assert isinstance(cr.frule(t, f, *args, axis=1)[1], cr.AbstractZero)
