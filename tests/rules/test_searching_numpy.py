"""NumPy's partition (ties routed as sort routes them) and the non-differentiable index finders."""

from __future__ import annotations

import numpy as np

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.searching_numpy")


def test_partition_routes_through_its_own_output() -> None:
    x = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
    y, pb = cr.rrule(np.partition, x, 2)
    np.testing.assert_array_equal(y, np.partition(x, 2))
    g = np.arange(10.0, 15.0)
    x_bar = pb(g)[1]
    # each input element receives the cotangent of the place it went to
    for i in range(5):
        assert x_bar[i] == g[int(np.flatnonzero(y == x[i])[0])]


def test_partition_ties_follow_the_stable_order() -> None:
    x = np.array([2.0, 1.0, 2.0, 2.0])
    y, pb = cr.rrule(np.partition, x, 0)
    g = np.array([10.0, 20.0, 30.0, 40.0])
    x_bar = pb(g)[1]
    assert x_bar[1] == g[int(np.flatnonzero(y == 1.0)[0])]
    # the k-th 2 in the output takes the k-th 2 of the input
    assert sorted(x_bar[[0, 2, 3]].tolist()) == sorted(g[y == 2.0].tolist())
    assert x_bar[[0, 2, 3]].tolist() == g[y == 2.0].tolist()


def test_non_differentiable() -> None:
    x = np.array([[1.0, np.nan], [3.0, 0.5]])
    for f, args in (
        (np.nanargmax, (x,)),
        (np.nanargmin, (x,)),
        (np.argwhere, (x > 1,)),
        (np.flatnonzero, (x,)),
        (np.argpartition, (x, 0)),
        (np.lexsort, (x,)),
    ):
        y, pb = cr.rrule(f, *args)
        np.testing.assert_array_equal(y, f(*args))
        assert all(isinstance(t, cr.NoTangent) for t in pb(cr.NoTangent()))
