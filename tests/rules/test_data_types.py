"""astype: the tester on every backend (with each library's own dtypes), JAX as a reference, GPU
safety, and exact values for the casts finite differences cannot judge (rounding to float32)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import data_types
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.examples import Example
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == data_types.__name__]
(REG,) = REGS
COMPLEX_TO_REAL = "complex -> real (real part)"


@contextmanager
def _complex_casts_allowed() -> Iterator[None]:
    """The libraries' own astype warns when it drops an imaginary part (the rule does not: it
    takes the real part first); the testers call the library's function for their reference."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        warnings.filterwarnings("ignore", message="Casting complex values to real")  # torch
        warnings.filterwarnings("ignore", message="Casting from complex to real")  # JAX
        yield


def test_astype_is_registered() -> None:
    assert REG.name == "astype" and REG.rrule is not None and REG.frule is not None


def _differentiable_examples() -> list[Example]:
    return [
        ex
        for ex in examples_for(REG)
        if np.asarray(ex.args[0]).dtype.kind in "fc" and np.dtype(ex.args[1]).kind in "fc"
    ]


def test_agrees_with_jax(assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    with _complex_casts_allowed():
        assert_agrees_with_jax(REG, _differentiable_examples())


# rounding casts: fine for the device checks (float32 tolerances against a float64 reference)
def _downcasts() -> list[Example]:
    rng = np.random.default_rng(0)
    z = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    return [
        Example((rng.standard_normal((2, 3)), np.dtype("float32")), note="-> float32"),
        Example((z, np.dtype("complex64")), note="-> complex64", complex=True),
        Example((z, np.dtype("float32")), note="complex -> float32", complex=True),
    ]


# ---- exact values -----------------------------------------------------------------------------
def test_a_rounding_cast_pulls_the_cotangent_back_unchanged() -> None:
    x = np.array([0.1, 1 / 3, 2.0])
    y, pb = cr.rrule(np.astype, x, np.float32)
    assert y.dtype == np.float32
    y_bar = np.array([1.5, -2.25, 0.1], dtype=np.float32)
    g = pb(y_bar)[1]
    assert g.dtype == np.float64 and np.array_equal(g, y_bar.astype(np.float64))
    assert pb(y_bar)[2] is cr.NoTangent()
    # float32 in, float64 out: a float32 cotangent
    y, pb = cr.rrule(np.astype, y, np.float64)
    assert pb(np.ones(3))[1].dtype == np.float32
    # a chunk of tangents is cast in one call
    _, y_dot = cr.frule((cr.NoTangent(), np.ones((4, 3)), cr.NoTangent()), np.astype, x, np.float32)
    assert y_dot.dtype == np.float32 and y_dot.shape == (4, 3)


def test_complex_casts() -> None:
    z = np.array([1.0 + 2.0j, -3.0 + 0.5j])
    # complex -> real keeps the real part: x_bar = y_bar + 0i, y_dot = Re x_dot
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rule takes the real part itself: no ComplexWarning
        y, pb = cr.rrule(np.astype, z, np.float64)
        _, y_dot = cr.frule(
            (cr.NoTangent(), np.array([1j, 2 + 1j]), cr.NoTangent()), np.astype, z, np.float64
        )
    assert y.tolist() == [1.0, -3.0]
    g = pb(np.array([2.0, 3.0]))[1]
    assert g.dtype == np.complex128 and g.tolist() == [2.0 + 0j, 3.0 + 0j]
    assert y_dot.tolist() == [0.0, 2.0]
    # real -> complex: the real part of the cotangent
    y, pb = cr.rrule(np.astype, np.array([1.0, 2.0]), np.complex128)
    g = pb(np.array([1.0 + 5.0j, -2.0 - 1.0j]))[1]
    assert g.dtype == np.float64 and g.tolist() == [1.0, -2.0]


def test_integer_and_boolean_casts_have_no_tangent() -> None:
    x = np.array([0.4, 1.6, -2.5])
    _, pb = cr.rrule(np.astype, x, np.int64)
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3
    assert cr.frule((cr.NoTangent(), np.ones(3), cr.NoTangent()), np.astype, x, np.bool_)[1] is (
        cr.NoTangent()
    )
    # from integers: x has no tangent space, the float output's tangent is zero
    _, pb = cr.rrule(np.astype, np.arange(3), np.float64)
    assert pb(np.ones(3))[1] is cr.NoTangent()
    _, y_dot = cr.frule(
        (cr.NoTangent(), cr.NoTangent(), cr.NoTangent()), np.astype, np.arange(3), np.float64
    )
    assert y_dot is cr.ZeroTangent()


def test_errors_and_second_derivative() -> None:
    x = np.ones(3)
    with pytest.raises(TypeError, match="positionally"):
        cr.rrule(np.astype, x)
    with pytest.raises(ValueError, match=r"cotangent of shape \(2,\) does not match .* \(3,\)"):
        cr.rrule(np.astype, x, np.float32)[1](np.ones(2, dtype=np.float32))
    # the pullback is astype (and real) again: both have rules
    test_rrule(np.astype, np.ones(3, dtype=np.float32), np.dtype("float64"))
    test_frule(np.astype, np.ones(3, dtype=np.float32), np.dtype("float64"))
    test_rrule(np.real, np.array([1.0 + 1j, 2.0]))


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.data_types")
