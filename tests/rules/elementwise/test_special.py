"""sinc and i0: i0's derivative against SciPy's i1, and the generated cells."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules.rules.elementwise import special
from chainrules.testing.suite import rule_tests


def test_i0_derivative_is_i1() -> None:
    from chainrules.rules._util import bessel_i1 as _i1

    x = np.array([-700.0, -30.0, -2.0, -1e-8, 0.0, 0.5, 0.999, 1.0, 7.0, 100.0])
    scipy_special = pytest.importorskip("scipy.special")
    np.testing.assert_allclose(_i1(np, x), scipy_special.i1(x), rtol=2e-14, atol=0)


test_rule = rule_tests(special)


def test_sinc_second_derivative_at_zero() -> None:
    """``sinc''(0) = -pi^2 / 3``: the first derivative's continuation at 0 was the constant 0,
    whose derivative is 0."""
    from chainrules import ad

    x = np.array([0.0, 0.5])
    want = np.diag([-(np.pi**2) / 3, ad.grad(ad.grad(lambda t: np.sinc(t)))(np.array(0.5))])
    for h in (
        ad.hessian(lambda x: np.sum(np.sinc(x))),
        ad.jit(ad.hessian(lambda x: np.sum(np.sinc(x)))),
    ):
        np.testing.assert_allclose(h(x), want, rtol=1e-12, atol=1e-15)
    # and the 0.5 entry against the closed form: sinc'' = ((2 - (pi x)^2) sin(pi x) - 2 pi x
    # cos(pi x)) / (pi x^3)
    px = np.pi * 0.5
    closed = ((2 - px**2) * np.sin(px) - 2 * px * np.cos(px)) / (np.pi * 0.5**3)
    np.testing.assert_allclose(want[1, 1], closed, rtol=1e-12)
