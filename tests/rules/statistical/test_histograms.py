"""NumPy's ``bincount`` (a scatter-add of its weights) and the histograms (zero derivative or
non-differentiable): the generated tests on every backend."""

from __future__ import annotations

import numpy as np

import chainrules as cr
from chainrules.testing.suite import rule_tests

# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical.histograms")


def test_bincount_weights_are_a_scatter_add() -> None:
    x = np.array([0, 2, 2, 4])
    w = np.array([1.0, 2.0, 3.0, 4.0])
    y, pb = cr.rrule(np.bincount, x, w)
    np.testing.assert_array_equal(y, np.bincount(x, w))
    assert pb(np.arange(5.0))[2].tolist() == [0.0, 2.0, 2.0, 4.0]
    _, pb = cr.rrule(np.bincount, x)
    assert all(isinstance(t, cr.NoTangent) for t in pb(cr.NoTangent()))
