"""Reordering (permute_dims, transpose, swapaxes, moveaxis, flip, roll, and NumPy's rollaxis,
fliplr, flipud, rot90): the tester on every backend, JAX as a reference, 0-d arrays, dtypes,
and NumPy's signatures."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.manipulation import reordering
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == reordering.__name__]

STANDARD = ("flip", "moveaxis", "permute_dims", "roll")
NUMPY = ("flip", "moveaxis", "roll", "swapaxes", "transpose")  # NumPy's names of the standard's
GATHERS = ("fliplr", "flipud", "rollaxis", "rot90")  # NumPy's own
LINEAR = [r for r in REGS if r.name in {*STANDARD, *(f"numpy:{n}" for n in NUMPY)}]


def test_every_function_is_registered(assert_registered) -> None:  # type: ignore[no-untyped-def]
    assert_registered(REGS, set(STANDARD) | {f"numpy:{n}" for n in NUMPY + GATHERS})


@pytest.mark.parametrize("reg", LINEAR, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_zero_size_and_0d() -> None:
    y, pb = cr.rrule(np.roll, np.array(4.0), 3)
    assert pb(np.ones(np.shape(y)))[1].shape == ()


def test_float32_stays_float32_and_complex_cotangent_of_real_input() -> None:
    x = np.ones((2, 3), dtype=np.float32)
    y, pb = cr.rrule(np.flip, x, axis=0)
    g = pb(np.ones(y.shape, dtype=np.complex64) * (1 + 2j))[1]
    assert g.dtype == np.float32 and np.all(g.imag == 0)


def test_signatures_and_errors() -> None:
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        cr.rrule(np.flip, x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        cr.rrule(np.transpose, x, (0, 0))
    with pytest.raises(ValueError, match="do not match an array of rank 2"):
        cr.rrule(np.transpose, x, (1, 0, 2))
    # NumPy's names take NumPy's signatures
    y, _ = cr.rrule(np.moveaxis, x, source=0, destination=1)
    assert y.shape == (3, 2)
    assert cr.rrule(np.transpose, x)[0].shape == (3, 2)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests(reordering)
