"""NumPy's linalg extras: eig, eigvals, lstsq, multi_dot, cond, tensorsolve, tensorinv -- the
generated tests on every backend, plus the gauge, rank-deficient lstsq, and NumPy semantics."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

RNG = np.random.default_rng(11)


def _fd_grad(loss, a: np.ndarray, h: float = 1e-6) -> np.ndarray:  # type: ignore[no-untyped-def]
    g = np.zeros(a.shape, dtype=a.dtype)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = h
        g[i] = (loss(a + e) - loss(a - e)) / (2 * h)
        if np.iscomplexobj(a):
            e[i] = 1j * h
            g[i] += 1j * (loss(a + e) - loss(a - e)) / (2 * h)
    return g


def test_eig_phase_dependent_loss_matches_lapack_gauge() -> None:
    # Re(sum(c * V)) depends on the eigenvectors' phases: the rule fixes LAPACK's gauge
    a = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3)) + np.diag([0, 3, 6])
    _, v = np.linalg.eig(a)
    c = RNG.standard_normal(v.shape) + 1j * RNG.standard_normal(v.shape)
    _, pb = cr.rrule(np.linalg.eig, a)
    got = pb(cr.Tangent(cr.ZeroTangent(), c))[1]

    def loss(m: np.ndarray) -> float:
        return float(np.sum(np.real(np.conj(c) * np.linalg.eig(m)[1])))

    np.testing.assert_allclose(got, _fd_grad(loss, a), rtol=1e-6, atol=1e-7)


def test_eigvals_primal_is_numpys() -> None:
    a = RNG.standard_normal((4, 4))
    y, _ = cr.rrule(np.linalg.eigvals, a)
    np.testing.assert_allclose(y, np.linalg.eigvals(a), rtol=1e-12)


def test_lstsq_rank_deficient_solution() -> None:
    a = RNG.standard_normal((4, 2)) @ RNG.standard_normal((2, 3))  # rank 2
    b = RNG.standard_normal(4)
    y, pb = cr.rrule(np.linalg.lstsq, a, b, rcond=1e-3)
    assert y[2] == 2
    x_bar = RNG.standard_normal(3)
    _, a_bar, b_bar = map(
        cr.unthunk, pb((x_bar, cr.ZeroTangent(), cr.NoTangent(), cr.ZeroTangent()))
    )

    def loss_a(m: np.ndarray) -> float:
        return float(x_bar @ np.linalg.lstsq(m, b, rcond=1e-3)[0])

    def loss_b(v: np.ndarray) -> float:
        return float(x_bar @ np.linalg.lstsq(a, v, rcond=1e-3)[0])

    np.testing.assert_allclose(a_bar, _fd_grad(loss_a, a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b_bar, _fd_grad(loss_b, b), rtol=1e-6, atol=1e-7)


def test_lstsq_positional_rcond_and_empty_residuals() -> None:
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(2)  # wide: no residuals
    y, pb = cr.rrule(np.linalg.lstsq, a, b, 1e-12)
    assert y[1].shape == (0,)
    res = pb((np.ones(3), np.zeros(0), cr.NoTangent(), np.zeros(2)))
    assert isinstance(res[3], cr.ZeroTangent)
    with pytest.raises(ValueError, match="lstsq: a must be a matrix"):
        cr.rrule(np.linalg.lstsq, np.ones((2, 2, 2)), np.ones(2))


def test_multi_dot_primal_and_errors() -> None:
    arrs = [RNG.standard_normal(s) for s in ((5,), (5, 2), (2, 6), (6, 3))]
    y, pb = cr.rrule(np.linalg.multi_dot, arrs)
    np.testing.assert_allclose(y, np.linalg.multi_dot(arrs), rtol=1e-12)
    bars = pb(np.ones(3))[1]
    assert isinstance(bars, cr.Tangent) and bars[0].shape == (5,)
    with pytest.raises(ValueError, match="multi_dot: shapes"):
        cr.rrule(np.linalg.multi_dot, [np.ones((2, 3)), np.ones((2, 3))])


@pytest.mark.parametrize("p", [None, -2, "fro", 1, np.inf])
def test_cond_primal_is_numpys(p) -> None:  # type: ignore[no-untyped-def]
    a = RNG.standard_normal((3, 3)) + 2 * np.eye(3)
    y, pb = cr.rrule(np.linalg.cond, a, p)
    assert y == np.linalg.cond(a, p)
    assert pb(1.0)[1].shape == (3, 3)


@pytest.mark.parametrize(("p", "want"), [(None, [1.0, -2.0]), (2, [1.0, -2.0]), (-2, [-0.25, 0.5])])
def test_cond_gradient_at_tiny_singular_values(p, want) -> None:  # type: ignore[no-untyped-def]
    # cond = s_max / s_min at diag(2, 1) * 1e-300: d cond / d s = (1/s_min, -s_max/s_min^2)
    # = (1e300, -2e300), finite, where s_min^2 underflows (it gave NaN); p=-2: its inverse
    y, pb = cr.rrule(np.linalg.cond, np.diag([2e-300, 1e-300]), p)
    assert y == np.linalg.cond(np.diag([2e-300, 1e-300]), p)
    np.testing.assert_allclose(np.diag(pb(1.0)[1]), np.array(want) * 1e300, rtol=1e-14)
    # cond is scale-free: its gradient at c a is the gradient at a over c
    a = RNG.standard_normal((3, 3)) + 2 * np.eye(3)
    g = cr.rrule(np.linalg.cond, a, p)[1](1.0)[1]
    np.testing.assert_allclose(cr.rrule(np.linalg.cond, a * 1e-300, p)[1](1.0)[1], g * 1e300)


def test_tensorsolve_axes_and_tensorinv() -> None:
    a = RNG.standard_normal((2, 2, 2, 2)) + 3 * np.eye(4).reshape(2, 2, 2, 2)
    b = RNG.standard_normal((2, 2))
    y, pb = cr.rrule(np.linalg.tensorsolve, a, b, (0,))
    np.testing.assert_allclose(y, np.linalg.tensorsolve(a, b, (0,)), rtol=1e-12)
    c = RNG.standard_normal(y.shape)
    got = cr.unthunk(pb(c)[1])

    def loss(m: np.ndarray) -> float:
        return float(np.sum(c * np.linalg.tensorsolve(m, b, (0,))))

    np.testing.assert_allclose(got, _fd_grad(loss, a), rtol=1e-6, atol=1e-7)
    yi, _ = cr.rrule(np.linalg.tensorinv, a.reshape(4, 2, 2), ind=1)
    np.testing.assert_allclose(yi, np.linalg.tensorinv(a.reshape(4, 2, 2), ind=1))


def test_eigvals_gradient_of_trace_on_jax() -> None:
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    jax.config.update("jax_enable_x64", True)
    a = jnp.asarray(RNG.standard_normal((3, 3)) + np.diag([0.0, 2.0, 4.0]))
    _, pb = cr.rrule(jnp.linalg.eigvals, a)
    g = pb(jnp.ones(3, dtype=jnp.complex128))[1]
    # sum of the eigenvalues is the trace: its gradient is the identity
    np.testing.assert_allclose(np.asarray(g), np.eye(3), atol=1e-10)


test_rule = rule_tests("chainrules.rules.linalg.numpy_extras")
