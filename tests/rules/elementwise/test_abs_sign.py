"""abs, fabs, sign, copysign and heaviside: limits, the NumPy method of abs (``np.sign`` for
``unit``, issue 14), and the generated cells."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import _util
from chainrules.rules.elementwise import abs_sign
from chainrules.testing.suite import rule_tests


def test_abs_at_infinity_and_zero() -> None:
    x = np.array([np.inf, -np.inf, 0.0, -2.0, 3.0])
    _, pb = cr.rrule(np.abs, x)
    np.testing.assert_array_equal(pb(np.ones(5))[1], [1.0, -1.0, 0.0, -1.0, 1.0])
    _, t = cr.frule((cr.NoTangent(), np.ones(5)), np.abs, x)
    np.testing.assert_array_equal(t, [1.0, -1.0, 0.0, -1.0, 1.0])


def test_complex_sign_at_infinity_is_numpys_unit() -> None:
    # z/|z| is inf/inf there: NumPy gives the unit along the infinite part, the derivative's
    # limit is 0 (ds ~ 1/|z|); it was NaN
    z = np.array([complex(np.inf, 1.0), complex(1.0, -np.inf), 3 + 4j])
    y, pb = cr.rrule(np.sign, z)
    assert y.tolist() == [1 + 0j, -1j, 0.6 + 0.8j] == np.sign(z).tolist()
    z_bar = pb(np.ones(3, complex))[1]
    assert z_bar[:2].tolist() == [0j, 0j]
    _, y_dot = cr.frule((cr.NoTangent(), np.ones(3, complex)), np.sign, z)
    assert y_dot[:2].tolist() == [0j, 0j]


# --- abs's pullback on a real NumPy array takes np.sign (one pass) for unit: the same cotangent
SPECIAL = [-np.inf, -2.5, -0.0, 0.0, 1e-300, 3.0, np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_abs_pullback_is_unit_times_the_cotangent(dtype: Any) -> None:
    x = np.array(SPECIAL, dtype=dtype)
    g = np.arange(1, len(SPECIAL) + 1, dtype=dtype)
    _, pb = cr.rrule(np.abs, x)
    _, xb = pb(g)
    want = g * _util.unit(np, x, np.abs(x))
    assert xb.dtype == want.dtype and xb.shape == want.shape
    np.testing.assert_array_equal(xb, want)  # NaN at NaN, 0 at ±0, ±g at ±inf


def test_abs_pullback_on_numpy_skips_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = _util.unit

    def spy(*a: Any) -> Any:
        calls.append(1)
        return real(*a)

    monkeypatch.setattr(abs_sign, "unit", spy)
    _, pb = cr.rrule(np.abs, np.array([-1.0, 2.0]))
    np.testing.assert_array_equal(pb(np.ones(2))[1], [-1.0, 1.0])
    # a 0-d value in either of NumPy's forms (abs(x[0]) is of a NumPy scalar), either cotangent
    for x in (np.float64(-1.5), np.array(-1.5), np.float64(0.0)):
        for c in (np.float64(2.0), np.array(2.0)):
            y, pb = cr.rrule(np.abs, x)
            got = pb(c)[1]
            assert type(y) is np.float64 and type(got) is np.float64 and y == abs(float(x))
            assert got == (-2.0 if x < 0 else 0.0)
    assert not calls


def test_heaviside_value_at_zero() -> None:
    x1, x2 = np.array([-1.0, 0.0, 2.0]), np.array([0.3, 0.4, 0.5])
    _, pb = cr.rrule(np.heaviside, x1, x2)
    _, b1, b2 = pb(np.ones(3))
    assert isinstance(b1, cr.ZeroTangent)
    assert b2.tolist() == [0.0, 1.0, 0.0]


test_rule = rule_tests(abs_sign)


def test_abs_second_derivative_is_zero_at_zero() -> None:
    """``abs'`` is ``sign`` (0 at 0, the minimum-norm subgradient), whose derivative is 0
    everywhere; at 0 the generic direction ``x / 1`` was differentiated to 1."""
    from chainrules import ad

    x = np.array([0.0, -1.5, 2.0])
    for h in (
        ad.hessian(lambda x: np.sum(np.abs(x))),
        ad.jacobian(ad.jacobian(lambda x: np.sum(np.abs(x)), mode="fwd"), mode="fwd"),
        ad.jit(ad.hessian(lambda x: np.sum(np.abs(x)))),
    ):
        np.testing.assert_array_equal(h(x), np.zeros((3, 3)))
