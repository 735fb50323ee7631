"""interp: knots and outside values, complex fp, and the generated cells."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.elementwise import interp
from chainrules.testing import test_rrule
from chainrules.testing.suite import rule_tests


def test_interp_knots_and_outside() -> None:
    xk, fk = np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0])
    x = np.array([1.0, 3.0, -1.0, 4.0])  # a knot, the last knot, below, above
    y, pb = cr.rrule(np.interp, x, xk, fk)
    np.testing.assert_array_equal(y, np.interp(x, xk, fk))
    _, x_bar, _, fp_bar = pb(np.ones(4))
    assert x_bar.tolist() == [0.5, 0.5, 0.0, 0.0]  # right-hand slope; the last knot: left
    assert fp_bar.tolist() == [1.0, 1.0, 2.0]
    with pytest.raises(NotImplementedError, match="period"):
        cr.rrule(np.interp, x, xk, fk, period=2.0)


def test_interp_complex_fp() -> None:
    xk = np.array([0.0, 1.0, 3.0])
    fk = np.array([1 + 1j, 2 - 1j, 0.5j])
    x = np.array([0.3, 1.7, 2.9])
    test_rrule(np.interp, x, xk, fk, jit=False)


test_rule = rule_tests(interp)
