"""scipy.integrate.odeint's rule: generated tests (func = np.multiply, which has rules of its
own), and under chainrules.ad with a Python func of the user's, against finite differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.testing.suite import rule_tests

si = pytest.importorskip("scipy.integrate")

test_rule = rule_tests("chainrules.rules.scipy.integrate")

TIGHT = {"rtol": 1e-10, "atol": 1e-10}
RNG = np.random.default_rng(3)
A1, A2 = RNG.standard_normal(2), RNG.standard_normal(2)
Y0, T = np.array([0.7, 1.2]), np.linspace(0.1, 0.5, 3)  # small: each solve traces func per step
odeint = cr.traceable(si.odeint)  # what an engine sees as one operation, with odeint's rules


def func(y: Any, t: Any, a1: Any, a2: Any) -> Any:  # autograd's own test dynamics
    return -np.sqrt(t) - y + a1 - np.mean((y + a2) ** 2)


def loss(y0: Any, t: Any, a1: Any, a2: Any) -> Any:
    return np.sum(odeint(func, y0, t, (a1, a2), **TIGHT) ** 2)


def _fd_grad(f: Any, xs: list[Any], i: int, h: float = 1e-6) -> Any:
    out = np.zeros_like(xs[i])
    for j in range(xs[i].size):
        p, m = [x.copy() for x in xs], [x.copy() for x in xs]
        p[i].flat[j] += h
        m[i].flat[j] -= h
        out.flat[j] = (f(*p) - f(*m)) / (2 * h)
    return out


def test_grad_of_a_python_func_matches_finite_differences() -> None:
    xs = [Y0, T, A1, A2]
    grads = ad.grad(loss, argnums=(0, 1, 2, 3))(*xs)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, _fd_grad(loss, xs, i), rtol=1e-6, atol=1e-7)


def test_forward_and_reverse_jacobians_agree() -> None:
    def f(y0: Any) -> Any:
        return odeint(func, y0, T, (A1, A2), **TIGHT)

    j_fwd = ad.jacobian(f, mode="fwd")(Y0)
    j_rev = ad.jacobian(f, mode="rev")(Y0)
    assert j_fwd.shape == (3, 2, 2)
    np.testing.assert_allclose(j_fwd, j_rev, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(j_fwd[0], np.eye(2), atol=1e-12)  # y(t0) = y0


def test_hessian_through_the_adjoint_solve() -> None:
    # second order: the pullback's own solves are differentiated again
    def f(a1: Any) -> Any:
        return loss(Y0, T, a1, A2)

    h = ad.hessian(f)(A1)
    g = ad.grad(f)
    fd = np.stack([(g(A1 + 1e-5 * e) - g(A1 - 1e-5 * e)) / 2e-5 for e in np.eye(2)])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)


def test_tfirst() -> None:
    def f_t(t: Any, y: Any, a1: Any, a2: Any) -> Any:
        return func(y, t, a1, a2)

    def loss_t(y0: Any, a1: Any) -> Any:
        return np.sum(odeint(f_t, y0, T, (a1, A2), tfirst=True, **TIGHT) ** 2)

    g = ad.grad(loss_t, argnums=(0, 1))(Y0, A1)
    np.testing.assert_allclose(g[0], ad.grad(loss)(Y0, T, A1, A2), rtol=1e-10)
    np.testing.assert_allclose(g[1], ad.grad(loss, argnums=2)(Y0, T, A1, A2), rtol=1e-10)


def test_without_an_engine_func_needs_rules_of_its_own() -> None:
    y, pb = cr.rrule(si.odeint, func, Y0, T, (A1, A2))
    np.testing.assert_array_equal(y, si.odeint(func, Y0, T, (A1, A2)))
    with pytest.raises(cr.NoRuleError, match="func"):
        pb(np.ones_like(y))


def test_refusals_name_the_function() -> None:
    with pytest.raises(ValueError, match=r"integrate.odeint: full_output"):
        cr.rrule(si.odeint, np.multiply, Y0, T, full_output=True)
    with pytest.raises(ValueError, match=r"integrate.odeint: y0 must be 0-d or 1-D"):
        cr.rrule(si.odeint, np.multiply, np.ones((2, 2)), T)
    with pytest.raises(TypeError, match=r"integrate.odeint: func must be callable"):
        cr.rrule(si.odeint, 3.0, Y0, T)


def test_primal_takes_every_option_as_given() -> None:
    # an array tcrit and step settings reach SciPy unchanged: the primal is odeint(*args)
    opts = {"tcrit": np.array([0.3]), "hmax": 0.05, "mxstep": 800}
    y, _ = cr.rrule(si.odeint, np.multiply, Y0, T, **opts)
    np.testing.assert_array_equal(y, si.odeint(np.multiply, Y0, T, **opts))
