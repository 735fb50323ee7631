"""Trigonometric and hyperbolic functions: limits at huge arguments, unwrap, and the generated
cells."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from hypothesis import given

import chainrules as cr
from chainrules.rules.elementwise import trigonometric
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.strategies import elementwise_args
from chainrules.testing.suite import rule_tests


def _reg(name: str) -> cr.Registration:
    """The registration of ``name`` in :mod:`chainrules.rules.elementwise.trigonometric`."""
    return next(
        r for r in cr.registrations() if r.module == trigonometric.__name__ and r.name == name
    )


@given(elementwise_args(_reg("atan2"), np))
def test_hypothesis_binary_broadcasting(args) -> None:  # type: ignore[no-untyped-def]
    test_rrule(np.arctan2, *args)
    test_frule(np.arctan2, *args)


# --- limits at extreme and infinite inputs: exact values, never NaN (issue 15, point 6) ---------
def _dx(f: Any, *args: Any) -> tuple[Any, ...]:
    y, pb = cr.rrule(f, *(np.asarray(a) for a in args))
    return tuple(pb(np.ones_like(y))[1:])


def test_inverse_trig_derivatives_do_not_overflow_at_1e300() -> None:
    # 1 / sqrt(1 + z^2) etc. are written through z / max(|Re z|, |Im z|, 1): no z^2 overflow.
    # The cotangent is conj(f'(z)) (complex convention); each value below is the exact one
    z = np.array([1e300 + 1e300j, 3e300 + 0j, 1e200j, -1e300 + 0j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (g,) = _dx(np.arcsinh, z)  # ~ 1 / z on the right half-plane, -1 / z on the left
        assert g.tolist() == [5e-301 + 5e-301j, 1 / 3e300 + 0j, 1e-200j, 1e-300 + 0j]
        (g,) = _dx(np.arctan, z)  # ~ 1 / z^2: underflows to 0, exactly
        assert g.tolist() == [0j] * 4
        (g,) = _dx(np.arctanh, z)  # ~ -1 / z^2
        assert g.tolist() == [0j] * 4
        (g,) = _dx(np.arcsinh, np.array([1e300, -1e300, 1e-300]))  # real: 1 / |x|, and 1
        assert g.tolist() == [1e-300, 1e-300, 1.0]
        (g,) = _dx(np.arctan, np.array([1e154]))
        assert g.tolist() == [1e-154 * 1e-154]


def test_unwrap_identity_at_threshold() -> None:
    p = np.array([0.0, np.pi, 2 * np.pi + 0.1])
    y, pb = cr.rrule(np.unwrap, p)
    np.testing.assert_array_equal(y, np.unwrap(p))
    assert pb(np.array([1.0, 2.0, 3.0]))[1].tolist() == [1.0, 2.0, 3.0]


test_rule = rule_tests(trigonometric)


def _second_derivatives(f: Any, x: np.ndarray) -> list[np.ndarray]:
    """The diagonal of ``f``'s Hessian (``f`` elementwise, summed) four ways: reverse over
    reverse, forward over reverse, forward over forward, and under ``ad.jit``."""
    from chainrules import ad

    def s(x: Any) -> Any:
        return np.sum(f(x))

    hs = (
        ad.hessian(s),
        ad.jacobian(ad.grad(s), mode="rev"),
        ad.jacobian(ad.jacobian(s, mode="fwd"), mode="fwd"),
        ad.jit(ad.hessian(s)),
    )
    return [np.diag(h(x)) for h in hs]


def test_atan_asinh_atanh_second_derivatives_at_plus_minus_one() -> None:
    """At ``x = ±1`` the overflow-safe scaling's ``clip(x, -1, 1)`` (a minimum and a maximum)
    tied with its bound, which took half the derivative: ``atan''(1)`` came out -1/4, not -1/2,
    and ``asinh''(1)`` half its value, with no error."""
    x = np.array([-1.0, 1.0, 0.5, -2.0])
    want = {
        np.arctan: -2 * x / (1 + x * x) ** 2,
        np.arcsinh: -x / (1 + x * x) ** 1.5,
    }
    for f, w in want.items():
        for got in _second_derivatives(f, x):
            np.testing.assert_allclose(got, w, rtol=1e-12, err_msg=f.__name__)
    xa = np.array([-0.5, 0.25])  # atanh: inside (-1, 1)
    for got in _second_derivatives(np.arctanh, xa):
        np.testing.assert_allclose(got, 2 * xa / (1 - xa * xa) ** 2, rtol=1e-12)


def test_hypot_second_derivative_at_the_origin_is_abs() -> None:
    """``hypot(x, 0)`` is ``abs(x)``: at the origin the minimum-norm subgradient 0, and no
    derivative of it (``x / 1`` there was differentiated to 1)."""
    x = np.array([0.0, 2.0])
    for got in _second_derivatives(lambda x: np.hypot(x, 0.0), x):
        np.testing.assert_allclose(got, [0.0, 0.0], atol=1e-15)
