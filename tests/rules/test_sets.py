"""unique_*: the values output is differentiable, ties split equally; the rest has no tangent.
isin is non-differentiable (a boolean output)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import sets
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == sets.__name__]
_DATA_SHAPED = pytest.mark.xfail(
    strict=True, reason="the output's shape depends on the data: jax.jit cannot trace the function"
)


def test_registered() -> None:
    assert {r.name for r in REGS} == {
        "unique_all",
        "unique_counts",
        "unique_inverse",
        "unique_values",
        "isin",
    }


def test_ties_split_equally_exact() -> None:
    x = np.array([[2.0, 1.0], [2.0, 2.0]])
    y, pb = cr.rrule(np.unique_values, x)
    assert y.tolist() == [1.0, 2.0]
    assert pb(np.array([10.0, 6.0]))[1].tolist() == [[2.0, 10.0], [2.0, 2.0]]
    _, y_dot = cr.frule((cr.NoTangent(), np.array([[3.0, 5.0], [6.0, 9.0]])), np.unique_values, x)
    assert y_dot.tolist() == [5.0, 6.0]  # the mean of the tied tangents
    y, pb = cr.rrule(np.unique_counts, x)
    t = cr.Tangent(np.array([10.0, 6.0]), cr.NoTangent(), primal_type=type(y))
    assert pb(t)[1].tolist() == [[2.0, 10.0], [2.0, 2.0]]
    assert pb(cr.ZeroTangent())[1] is cr.ZeroTangent()


def test_zero_size_and_errors() -> None:
    y, pb = cr.rrule(np.unique_values, np.zeros(0))
    assert y.shape == (0,) and pb(np.zeros(0))[1].shape == (0,)
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        cr.rrule(np.unique_values, np.array([1.0, 2.0, 1.0]))[1](np.ones(3))


def test_isin_has_no_tangent() -> None:
    x = np.array([1.0, 2.0, 3.0])
    y, pb = cr.rrule(np.isin, x, np.array([2.0]))
    assert y.tolist() == [False, True, False]
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.sets")


def test_numpy_unique_values_keeps_numpy_order() -> None:
    # NumPy 2.4's unique_values of integers, booleans and complex numbers need not sort: the
    # primal is NumPy's own, and the cotangents follow its order
    xi = np.array([3, 1, 2, 1, -1])
    y, _ = cr.rrule(np.unique_values, xi)
    assert y.tolist() == np.unique_values(xi).tolist()
    x = xi + 0.5j * np.array([1, 1, 0, 1, 0])
    y, pb = cr.rrule(np.unique_values, x)
    want = np.unique_values(x)
    assert y.tolist() == want.tolist()
    x_bar = pb(np.arange(4.0) + 0j)[1]  # value k of y gets cotangent k, split among its ties
    pos = {complex(v): k for k, v in enumerate(want)}
    counts = {v: list(x).count(v) for v in pos}
    assert x_bar.tolist() == [pos[complex(v)] / counts[complex(v)] for v in x]
    _, y_dot = cr.frule((cr.NoTangent(), np.arange(5.0) + 0j), np.unique_values, x)
    assert y_dot.tolist() == [(1 + 3) / 2, 4, 2, 0]  # the mean of each value's tangents
