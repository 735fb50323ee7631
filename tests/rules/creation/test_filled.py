"""Filled arrays: full and full_like (a fill's cotangent summed over its broadcast axes); the
zero-derivative *_like functions; zeros, ones, empty, eye without array arguments."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.creation import filled
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == filled.__name__]
# no array argument: the rules are bound to each library's own function (register_rrule's
# bind=), so zeros(3) of jax.numpy, torch or array-api-strict is that library's array
NO_ARRAY = {
    "zeros",
    "ones",
    "empty",
    "eye",
    "numpy:zeros",
    "numpy:ones",
    "numpy:empty",
    "numpy:eye",
}


def test_registered() -> None:
    names = {r.name for r in REGS}
    assert names >= {"full", "full_like", "numpy:full"}
    assert names >= {"zeros_like", "ones_like", "empty_like"} | NO_ARRAY
    assert all(r.non_differentiable for r in REGS if r.name in NO_ARRAY)


@pytest.mark.parametrize(
    "reg", [pytest.param(r, id=r.name) for r in REGS if not r.non_differentiable]
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    # floating outputs only (full_like of an integer array has no tangent space)
    examples = [
        ex
        for ex in examples_for(reg)
        if not (reg.name.endswith("full_like") and ex.args[0].dtype.kind == "i")
    ]
    assert_agrees_with_jax(reg, examples)


# ---- conventions ---------------------------------------------------------------------------
def test_full_and_full_like() -> None:
    _y, pb = cr.rrule(np.full, (2, 3), 1.5)
    assert float(pb(np.ones((2, 3)))[2]) == 6.0 and pb(np.ones((2, 3)))[1] is cr.NoTangent()
    x = np.ones((2, 2))
    _, pb = cr.rrule(np.full_like, x, 0.5)
    assert pb(np.ones((2, 2)))[1] is cr.ZeroTangent() and float(pb(np.ones((2, 2)))[2]) == 4.0
    _, pb = cr.rrule(np.full, (2, 3), np.array([1.0, 2.0, 3.0]))  # NumPy: a broadcast fill
    assert pb(np.ones((2, 3)))[2].tolist() == [2.0, 2.0, 2.0]
    _, pb = cr.rrule(np.full, (2,), 1.5, np.int64)  # an integer output: no tangent space
    assert pb(cr.NoTangent())[2] is cr.NoTangent()


def test_zero_derivative_likes() -> None:
    for f in (np.zeros_like, np.ones_like, np.empty_like):
        _, pb = cr.rrule(f, np.ones(3))
        assert pb(np.ones(3))[1] is cr.ZeroTangent()


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.creation.filled")
