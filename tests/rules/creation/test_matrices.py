"""Triangles: tril/triu (a mask: the pullback is the same mask of the cotangent); NumPy's index
builders (tri, tril_indices, mask_indices, ...) non-differentiable."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.creation import matrices
from chainrules.testing import examples_for, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == matrices.__name__]


def test_registered() -> None:
    assert {r.name for r in REGS} >= {"tril", "triu"}


@pytest.mark.parametrize(
    "reg", [pytest.param(r, id=r.name) for r in REGS if not r.non_differentiable]
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions ---------------------------------------------------------------------------
def test_tril_triu_batched_exact() -> None:
    x = np.arange(18.0).reshape(2, 3, 3)
    _, pb = cr.rrule(np.tril, x, k=-1)
    assert np.array_equal(pb(np.ones((2, 3, 3)))[1], np.tril(np.ones((2, 3, 3)), -1))
    _, pb = cr.rrule(np.triu, x, 1)
    assert np.array_equal(pb(np.ones((2, 3, 3)))[1], np.triu(np.ones((2, 3, 3)), 1))
    assert pb(np.ones((2, 3, 3)))[2] is cr.NoTangent()


def test_tril_zero_size() -> None:
    test_rrule(np.tril, np.zeros((0, 3)))


def test_index_builders_are_non_differentiable() -> None:
    for name in ("tri", "tril_indices", "mask_indices"):
        reg = cr.find_rrule(getattr(np, name))
        assert reg is not None, name


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.creation.matrices")
