"""Arithmetic, powers and roots: edge values, the remainder's quotient, and the generated cells."""

from __future__ import annotations

import math
import operator
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given

import chainrules as cr
from chainrules.rules.elementwise import arithmetic
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.strategies import elementwise_args
from chainrules.testing.suite import rule_tests


def _reg(name: str) -> cr.Registration:
    """The registration of ``name`` in :mod:`chainrules.rules.elementwise.arithmetic`."""
    return next(r for r in cr.registrations() if r.module == arithmetic.__name__ and r.name == name)


def test_chunked_frule_with_broadcasting() -> None:
    x, y = np.arange(3.0), np.ones((2, 3))
    xd = np.stack([np.eye(3)[i] for i in range(3)])  # 3 directions for x
    _, yd = cr.frule((cr.NoTangent(), xd, cr.ZeroTangent()), np.multiply, x, y)
    assert yd.shape == (3, 2, 3)
    assert np.array_equal(yd[1], np.broadcast_to(np.eye(3)[1], (2, 3)))


@given(elementwise_args(_reg("sqrt"), np, dtype="float32"))
def test_hypothesis_float32_sqrt(args) -> None:  # type: ignore[no-untyped-def]
    test_rrule(np.sqrt, *args)
    test_frule(np.sqrt, *args)


def test_remainder_partial_matches_the_librarys_own_quotient() -> None:
    x1 = np.array([0.25, 7.5, -3.3, 1.0])
    x2 = np.array([0.001, 0.1, 0.7, 0.3])
    out = np.remainder(x1, x2)
    _, pb = cr.rrule(np.remainder, x1, x2)
    q = -pb(np.ones(4))[2]
    np.testing.assert_array_equal(q, np.round(q))  # an integer
    np.testing.assert_allclose(x1 - q * x2, out, atol=1e-15)


def test_power_with_zero_integer_exponent_has_zero_derivative() -> None:
    _, pb = cr.rrule(np.power, np.array([0.0, 2.0]), 0)
    np.testing.assert_array_equal(pb(np.ones(2))[1], [0.0, 0.0])


# --- issue 26 (fmod): d/dx2 is minus the exact quotient of the two float values -----------
def _exact_quotient(x1: float, x2: float, floor: bool) -> float:
    q = Fraction(x1) / Fraction(x2)
    return float(math.floor(q) if floor else math.trunc(q))


_BIG64, _BIG32 = float(np.finfo(np.float64).max), float(np.finfo(np.float32).max)


# PyTorch's OpInfo reference inputs where trunc(x1 / x2), rounded, is not the exact quotient
# (torch's autograd says 250 for fmod(0.25, 0.001), computed with quotient 249), then large
# operands whose difference x1 - out overflows for remainder
_QUOTIENT_CASES = {
    np.float64: (
        [0.25, -0.25, 1.0, -1.0, 1e20, -1e20, 1e20, 1e20, 7.5, 0.9 * _BIG64, -0.9 * _BIG64],
        [
            0.001,
            0.001,
            -0.001,
            0.001,
            13437.7,
            1001.2,
            -501.0,
            3.0,
            0.1,
            -0.8 * _BIG64,
            0.7 * _BIG64,
        ],
    ),
    np.float32: (
        [7.793135643005371, 1.0000000200408773e20, -1.0000000200408773e20, 0.9 * _BIG32],
        [-0.7084668874740601, 4988429.0, 1001.2000122070312, -0.8 * _BIG32],
    ),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    ("f", "floor"),
    [(np.fmod, False), (np.remainder, True), (operator.mod, True)],
    ids=["fmod", "remainder", "operator.mod"],
)
def test_fmod_quotient_partial_is_the_exact_quotient(f, floor, dtype) -> None:  # type: ignore[no-untyped-def]
    """Every rule built on ``_quotient`` (fmod, remainder, mod, ``%``): d/dx2 = -q with q the
    exact quotient of the float operands, within the dtype's rounding of q, and finite where
    q is (``(x1 - out) / x2`` overflowed to -inf for remainder(0.9 * max, -0.8 * max))."""
    x1, x2 = (np.array(v, dtype) for v in _QUOTIENT_CASES[dtype])
    with np.errstate(over="ignore"):
        out, pb = cr.rrule(f, x1, x2)
    np.testing.assert_array_equal(out, f(x1, x2))
    want = np.array([-_exact_quotient(float(a), float(b), floor) for a, b in zip(x1, x2)])
    _, d1, d2 = pb(np.ones_like(out))
    rtol = float(np.finfo(dtype).eps)
    np.testing.assert_array_equal(cr.unthunk(d1), np.ones_like(x1))
    np.testing.assert_allclose(cr.unthunk(d2), want, rtol=rtol, atol=0)
    _, t = cr.frule((cr.NoTangent(), np.zeros_like(x1), np.ones_like(x2)), f, x1, x2)
    np.testing.assert_allclose(t, want, rtol=rtol, atol=0)


test_rule = rule_tests(arithmetic)


@pytest.mark.parametrize("power", [np.power, np.float_power], ids=["power", "float_power"])
@pytest.mark.parametrize("c", [2.0, 3.0, 2.5, 2, "array"])
def test_power_second_derivative_at_zero(power, c) -> None:  # type: ignore[no-untyped-def]
    """``d^2/dx^2 x**c = c (c - 1) x**(c - 2)``, at ``x = 0`` too: the partial's mask for an
    infinite exponent (``p == 0``) also caught ``x = 0`` and took ``x**(c - 1)``'s derivative
    there, without the factor ``c`` (the Hessian of ``x**2.0`` was 1 at 0). Reverse over
    reverse, forward over reverse, forward over forward and under ``ad.jit``."""
    from chainrules import ad

    e = np.array(2.0) if c == "array" else c
    x = np.array([0.0, 0.5, 1.5])
    want = np.diag(float(e) * (float(e) - 1) * x ** (float(e) - 2))

    def f(x):  # type: ignore[no-untyped-def]
        return np.sum(power(x, e))

    for h in (
        ad.hessian(f),
        ad.jacobian(ad.grad(f), mode="rev"),
        ad.jacobian(ad.jacobian(f, mode="fwd"), mode="fwd"),
        ad.jit(ad.hessian(f)),
    ):
        np.testing.assert_allclose(h(x), want, rtol=1e-12, atol=1e-12)


def test_power_exponent_partial_warns_nowhere_the_power_does_not() -> None:
    """``x**w`` of a negative ``x`` with an integral ``w`` warns nowhere; the exponent's partial
    there is not real (NaN), and computing it must not warn either (issue 29, item 5)."""
    from chainrules import ad

    x, w = np.array([-1.5, 0.0, 2.0]), np.array(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gx = ad.grad(lambda x, w: np.sum(x**w))(x, w)
        gw = ad.grad(lambda w, x: np.sum(x**w), argnums=0)(w, x)
    np.testing.assert_allclose(gx, 2 * x)
    assert np.isnan(gw)  # d/dw at x < 0: log of a negative number
    gw_pos = ad.grad(lambda w: np.sum(np.array([0.0, 2.0]) ** w))(w)
    np.testing.assert_allclose(gw_pos, 4.0 * math.log(2.0))
