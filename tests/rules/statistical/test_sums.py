"""Sums and means (``sum``, ``mean``; NumPy's ``nansum``, ``nanmean``, ``average``): the tester on
every backend, JAX as a reference, exact conventions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util import unsum
from chainrules.rules.statistical import sums
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == sums.__name__]


@pytest.mark.parametrize("reg", [r for r in REGS if r.family == "numpy"], ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_sum_pullback_is_differentiable_again() -> None:
    x = np.random.default_rng(0).standard_normal((3, 4))
    _, pb = cr.rrule(np.sum, x, axis=1)
    y_bar = np.arange(3.0)
    assert np.array_equal(pb(y_bar)[1], unsum(y_bar, x.shape, (1,), False))
    test_rrule(unsum, y_bar, (3, 4), (1,), False)
    test_frule(unsum, y_bar, (3, 4), (1,), False)
    test_rrule(unsum, np.ones((3, 1)), (3, 4), 1, True)


def test_nan_and_average_conventions(grad) -> None:  # type: ignore[no-untyped-def]
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    assert grad(np.nansum, x, axis=1).tolist() == [[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN row's mean
        assert grad(np.nanmean, x, axis=1).tolist() == [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]
    a, w = np.array([1.0, 2.0, 4.0]), np.array([1.0, 1.0, 2.0])
    y, pb = cr.rrule(np.average, a, 0, w)  # positional weights: differentiated
    _, a_bar, _, w_bar = pb(np.asarray(1.0))
    assert float(y) == 2.75 and a_bar.tolist() == [0.25, 0.25, 0.5]
    assert w_bar.tolist() == [(1 - 2.75) / 4, (2 - 2.75) / 4, (4 - 2.75) / 4]
    _, pb = cr.rrule(np.average, a, weights=w)  # a keyword: a constant, no slot
    assert len(pb(np.asarray(1.0))) == 2
    with pytest.raises(TypeError, match="returned=True"):
        cr.rrule(np.average, a, 0, w, True)


def test_average_of_empty_input_has_an_empty_cotangent() -> None:
    # NumPy's average of no elements is NaN; the cotangent is empty (it was a ZeroDivisionError)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y, pb = cr.rrule(np.average, np.zeros(0))
    assert np.isnan(y)
    a_bar = pb(np.array(1.0))[1]
    assert a_bar.shape == (0,) and a_bar.dtype == np.float64


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical.sums")
