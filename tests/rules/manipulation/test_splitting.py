"""Splitting (unstack, and NumPy's split, array_split, hsplit, vsplit, dsplit): the tester on
every backend, JAX as a reference, and structural cotangents of unstack."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.manipulation import splitting
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == splitting.__name__]

STANDARD = ("unstack",)
GATHERS = ("array_split", "dsplit", "hsplit", "split", "vsplit")  # NumPy's own
LINEAR = [r for r in REGS if r.name in STANDARD]


def test_every_function_is_registered(assert_registered) -> None:  # type: ignore[no-untyped-def]
    assert_registered(REGS, set(STANDARD) | {f"numpy:{n}" for n in GATHERS})


@pytest.mark.parametrize("reg", LINEAR, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_structural_cotangents() -> None:
    # unstack takes ZeroTangent() entries for outputs not used
    b = np.array([[3.0, 4.0], [5.0, 6.0]])
    _, pb = cr.rrule(np.unstack, b, axis=1)
    assert pb(cr.Tangent(np.array([1.0, 2.0]), cr.ZeroTangent()))[1].tolist() == [
        [1.0, 0.0],
        [2.0, 0.0],
    ]


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests(splitting)
