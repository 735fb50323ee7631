"""Arrays from existing data: asarray, array, from_dlpack (the identity on arrays, a Tangent per
element of a nested list); fromiter without a tangent."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.creation import conversion
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == conversion.__name__]


def test_registered() -> None:
    names = {r.name for r in REGS}
    assert names >= {"asarray", "numpy:asarray", "numpy:array", "from_dlpack"}


@pytest.mark.parametrize(
    "reg",
    [
        pytest.param(r, id=r.name)
        for r in REGS
        if not r.non_differentiable and r.name != "from_dlpack"
    ],
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions ---------------------------------------------------------------------------
def test_asarray_identity_and_sequences() -> None:
    x = np.array([1.0, 2.0], dtype=np.float32)
    _, pb = cr.rrule(np.asarray, x, dtype=np.float64)
    assert pb(np.ones(2))[1].dtype == np.float32
    _, pb = cr.rrule(np.asarray, [[1.0, 2.0], [3.0, 4.0]])
    t = pb(np.array([[1.0, 2.0], [3.0, 4.0]]))[1]
    assert isinstance(t, cr.Tangent) and float(t[1][0]) == 3.0
    test_rrule(np.array, np.ones(3), ndmin=2)
    test_frule(np.asarray, [1.0, 2.0])


def test_fromiter_has_no_tangent() -> None:
    y, pb = cr.rrule(np.fromiter, (x * 0.5 for x in range(4)), float, count=3)
    np.testing.assert_array_equal(y, [0.0, 0.5, 1.0])
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3
    y, y_dot = cr.frule((cr.NoTangent(),) * 3, np.fromiter, range(3), np.float32)
    assert y.dtype == np.float32 and y_dot == cr.NoTangent()


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.creation.conversion")
