"""NumPy's creation functions: the generated tests, and logspace/geomspace against their
closed-form derivatives."""

from __future__ import annotations

import numpy as np

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.creation_numpy")


def test_logspace_derivative() -> None:
    y, pb = cr.rrule(np.logspace, 0.0, 1.0, num=3, base=2.0)
    np.testing.assert_allclose(y, np.logspace(0.0, 1.0, num=3, base=2.0))
    _, s, e = pb(np.ones(3))
    w = np.array([0.0, 0.5, 1.0])
    np.testing.assert_allclose(s, np.sum(np.log(2.0) * y * (1 - w)))
    np.testing.assert_allclose(e, np.sum(np.log(2.0) * y * w))


def test_geomspace_endpoints() -> None:
    y, pb = cr.rrule(np.geomspace, 1.0, 4.0, num=3)
    np.testing.assert_allclose(y, [1.0, 2.0, 4.0])
    _, s, e = pb(np.array([1.0, 0.0, 0.0]))  # y_0 = start exactly
    np.testing.assert_allclose([s, e], [1.0, 0.0], atol=1e-12)


def test_index_builders_are_non_differentiable() -> None:
    for name in ("tri", "tril_indices", "hamming", "ix_", "mask_indices"):
        reg = cr.find_rrule(getattr(np, name))
        assert reg is not None, name


def test_fromiter_has_no_tangent() -> None:
    y, pb = cr.rrule(np.fromiter, (x * 0.5 for x in range(4)), float, count=3)
    np.testing.assert_array_equal(y, [0.0, 0.5, 1.0])
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3
    y, y_dot = cr.frule((cr.NoTangent(),) * 3, np.fromiter, range(3), np.float32)
    assert y.dtype == np.float32 and y_dot == cr.NoTangent()
