"""Reshaping (reshape, ravel, squeeze, expand_dims, atleast_nd, copy): the tester on every
backend, JAX as a reference, 0-d and zero-size arrays, dtypes, and NumPy's signatures."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.manipulation import reshaping
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == reshaping.__name__]

STANDARD = ("expand_dims", "reshape", "squeeze")
NUMPY = ("expand_dims", "ravel", "reshape", "squeeze")  # NumPy's names of the standard's
GATHERS = ("atleast_1d", "atleast_2d", "atleast_3d", "copy")  # NumPy's own
LINEAR = [r for r in REGS if r.name in {*STANDARD, *(f"numpy:{n}" for n in NUMPY)}]


def test_every_function_is_registered(assert_registered) -> None:  # type: ignore[no-untyped-def]
    assert_registered(REGS, set(STANDARD) | {f"numpy:{n}" for n in NUMPY + GATHERS})


@pytest.mark.parametrize("reg", LINEAR, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_zero_size_and_0d(pull) -> None:  # type: ignore[no-untyped-def]
    g = pull(np.reshape, np.array(2.0), (1, 1, 1), y_bar=np.full((1, 1, 1), 3.0))[1]
    assert g.shape == () and float(g) == 3.0


def test_float32_stays_float32_and_complex_cotangent_of_real_input() -> None:
    x = np.ones((2, 3), dtype=np.float32)
    y, pb = cr.rrule(np.reshape, x, (3, 2))
    g = pb(np.ones(y.shape, dtype=np.complex64) * (1 + 2j))[1]
    assert g.dtype == np.float32 and np.all(g.imag == 0)


def test_signatures_and_errors() -> None:
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="order='C' only"):
        cr.rrule(np.reshape, x, (3, 2), order="F")
    with pytest.raises(ValueError, match="order='C' only"):
        cr.rrule(np.ravel, x, "F")
    with pytest.raises(ValueError, match="axis 0 of an array of shape \\(2, 3\\) has length 2"):
        cr.rrule(np.squeeze, x, 0)
    with pytest.raises(ValueError, match=r"cotangent of shape \(2,\) does not match .* \(3, 2\)"):
        cr.rrule(np.reshape, x, (3, 2))[1](np.ones(2))
    # NumPy's names take NumPy's signatures
    assert cr.rrule(np.expand_dims, x, (0, 3))[0].shape == (1, 2, 3, 1)
    xs = pytest.importorskip("array_api_strict")
    a = xs.asarray(x)
    with pytest.raises(TypeError, match="missing required argument 'axis'"):
        cr.rrule(xs.squeeze, a)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests(reshaping)


@pytest.mark.parametrize("axis", [0, -1])
def test_squeeze_of_a_0d_array_at_axis_0_as_numpy(axis: int) -> None:
    x = np.asarray(1.5)
    y, pb = cr.rrule(np.squeeze, x, axis=axis)
    assert y.shape == np.squeeze(x, axis=axis).shape == ()
    assert pb(np.asarray(2.0))[1] == 2.0
    with pytest.raises(ValueError, match="squeeze: axis 0 is out of bounds"):
        cr.rrule(np.squeeze, x, axis=(0,))  # NumPy refuses a tuple there too
