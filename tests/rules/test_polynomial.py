"""NumPy's polynomial and signal functions: NumPy's offsets and semantics, closed-form checks,
errors, and the generated cells of every registration."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.suite import rule_tests


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize(("n", "m"), [(5, 3), (3, 5), (2, 5), (4, 4)])
def test_correlate_convolve_all_offsets(mode: str, n: int, m: int) -> None:
    rng = np.random.default_rng(n * 10 + m)
    a = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    v = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    for f in (np.convolve, np.correlate):
        test_rrule(f, a, v, mode, jit=False, scalar_free=False)
        test_frule(f, a, v, mode, jit=False, scalar_free=False)


def test_polyval_closed_form() -> None:
    p, x = np.array([2.0, -1.0, 3.0]), np.array([0.0, 2.0])
    y, pb = cr.rrule(np.polyval, p, x)
    np.testing.assert_array_equal(y, np.polyval(p, x))
    _, p_bar, x_bar = pb(np.ones(2))
    assert p_bar.tolist() == [4.0, 2.0, 2.0]  # sum of x^2, x^1, x^0
    assert x_bar.tolist() == [-1.0, 7.0]  # p'(x) = 4x - 1


def test_roots_sensitivity() -> None:
    # (x - 1)(x - 2): moving the constant term by eps moves the roots by -/+ eps
    r, pb = cr.rrule(np.roots, np.array([1.0, -3.0, 2.0]))
    g = np.where(np.isclose(r, 2.0), 1.0, 0.0)
    np.testing.assert_allclose(pb(g)[1], [-4.0, -2.0, -1.0])


def test_poly_of_roots_round_trip() -> None:
    r = np.array([0.5, -1.0, 2.0])
    c, _pb = cr.rrule(np.poly, r)
    np.testing.assert_allclose(c, np.poly(r))
    with pytest.raises(ValueError, match="poly"):
        cr.rrule(np.poly, np.eye(2))


@pytest.mark.parametrize("tester", [test_rrule, test_frule])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("which", ["x", "y", "both"])
@pytest.mark.parametrize("k", [None, 2])
def test_polyfit_complex_data(tester: Any, dtype: Any, which: str, k: int | None) -> None:
    """issue 26: a complex fit is the Hermitian least squares ``(V^H V)^-1 V^H y``; the shared
    ``_polyfit_parts`` cast x and y to float64 (dropping the imaginary part, ComplexWarning)
    and transposed without conjugating: wrong in complex64 and complex128 alike."""
    import warnings

    rng = np.random.default_rng(5)
    x = np.linspace(-1.0, 1.0, 6) + 0.05 * rng.standard_normal(6)
    y = rng.standard_normal((6,) if k is None else (6, k))
    if which in ("x", "both"):
        x = (x + 0.3j * rng.standard_normal(6)).astype(dtype)
    if which in ("y", "both"):
        y = (y + 1j * rng.standard_normal(y.shape)).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: nothing is dropped
        tester(np.polyfit, x, y, 2, jit=False, scalar_free=False)


def test_polyfit_exact_fit_is_solve() -> None:
    x = np.array([-1.0, 0.0, 1.0])
    p, pb = cr.rrule(np.polyfit, x, np.array([1.0, 0.0, 1.0]), 2)
    np.testing.assert_allclose(p, [1.0, 0.0, 0.0], atol=1e-12)
    # an exact fit: y_bar = V^-T p_bar
    y_bar = pb(np.array([0.0, 0.0, 1.0]))[2]
    v = np.vander(x, 3)
    np.testing.assert_allclose(y_bar, np.linalg.solve(v.T, [0.0, 0.0, 1.0]), atol=1e-12)
    with pytest.raises(TypeError, match="polyfit"):
        cr.rrule(np.polyfit, x, x, 1, full=True)


def test_polyder_polyint_inverse() -> None:
    p = np.array([1.0, 2.0, 3.0])
    q, pb = cr.rrule(np.polyint, p, 2, np.array([4.0, 5.0]))
    np.testing.assert_array_equal(q, np.polyint(p, 2, np.array([4.0, 5.0])))
    _, p_bar, _, k_bar = pb(np.arange(5.0))
    np.testing.assert_allclose(p_bar, np.arange(3.0) / np.array([12.0, 6.0, 2.0]))
    assert k_bar.tolist() == [3.0, 4.0]
    d, pb = cr.rrule(np.polyder, np.array([1.0, 2.0]), 3)  # every coefficient gone
    np.testing.assert_array_equal(d, np.polyder(np.array([1.0, 2.0]), 3))


def test_polyadd_padding() -> None:
    _, pb = cr.rrule(np.polysub, np.array([1.0, 2.0, 3.0]), np.array([5.0]))
    _, b1, b2 = pb(np.array([1.0, 2.0, 3.0]))
    assert b1.tolist() == [1.0, 2.0, 3.0] and b2.tolist() == [-3.0]


def test_vander_at_zero_is_finite() -> None:
    _, pb = cr.rrule(np.vander, np.array([0.0, 1.0]), 3)
    assert pb(np.ones((2, 3)))[1].tolist() == [1.0, 3.0]


test_rule = rule_tests("chainrules.rules.polynomial")


def test_polydiv_closed_form_and_numpy_semantics() -> None:
    u, v = np.array([1.0, 0.0, -1.0]), np.array([1.0, -1.0])  # x^2 - 1 = (x + 1)(x - 1)
    (q, r), pb = cr.rrule(np.polydiv, u, v)
    for got, want in zip((q, r), np.polydiv(u, v)):
        np.testing.assert_array_equal(got, want)
    # q = [u0, u0 + u1] for v = [1, -1]: q_bar = [1, 0] reaches u0 only; dq/dv0 = -q / v0 ...
    _, u_bar, v_bar = pb((np.array([1.0, 0.0]), cr.ZeroTangent()))
    np.testing.assert_allclose(u_bar, [1.0, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(v_bar, [-1.0, 0.0], atol=1e-15)
    # deg u < deg v: q = [0] is constant, r = u
    (q, r), pb = cr.rrule(np.polydiv, np.array([2.0, 3.0]), np.array([1.0, 0.5, 4.0]))
    assert q.tolist() == [0.0] and r.tolist() == [2.0, 3.0]
    _, u_bar, v_bar = pb((np.ones(1), np.array([5.0, 7.0])))
    assert u_bar.tolist() == [5.0, 7.0] and v_bar is cr.ZeroTangent()
    with pytest.raises(ValueError, match="polydiv: u must be 1-D"):
        cr.rrule(np.polydiv, np.eye(2), v)
    # a chunk of tangents at once
    u, v = np.array([0.5, -1.0, 2.0, 0.25]), np.array([1.5, 0.3])
    test_frule(np.polydiv, u, v, jit=False, scalar_free=False)
    test_rrule(np.polydiv, u, v, jit=False, scalar_free=False)


def test_polydiv_jax_under_jit_matches_jax_autodiff() -> None:
    # JAX keeps the remainder's len(u) entries: the rules against JAX's own derivative of its
    # loop, traced under jax.jit
    from chainrules.testing.backends import BACKENDS

    jnp = BACKENDS["jax"].namespace() if BACKENDS["jax"].available() else pytest.skip("no jax")
    import jax

    u = jnp.asarray([0.5, -1.0, 2.0, 0.25, 1.0])
    v = jnp.asarray([1.5, 0.3, -0.7])
    gq, gr = jnp.asarray([1.0, -2.0, 0.5]), jnp.asarray([0.3, 0.1, -1.0, 2.0, 0.7])
    du, dv = jnp.asarray([0.2, 0.1, -0.3, 0.4, 1.0]), jnp.asarray([0.5, -0.25, 0.1])

    def ours(u: Any, v: Any) -> Any:
        _, pb = cr.rrule(jnp.polydiv, u, v)
        _, (tq, tr) = cr.frule((cr.NoTangent(), du, dv), jnp.polydiv, u, v)
        return pb((gq, gr))[1:], (tq, tr)

    (u_bar, v_bar), (tq, tr) = jax.jit(ours)(u, v)
    _, vjp = jax.vjp(jnp.polydiv, u, v)
    want_u, want_v = vjp((gq, gr))
    _, (want_q, want_r) = jax.jvp(jnp.polydiv, (u, v), (du, dv))
    np.testing.assert_allclose(u_bar, want_u, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(v_bar, want_v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tq, want_q, rtol=1e-12, atol=1e-12)
    # JAX's own derivative of the structural zeros is rounding noise; ours is exactly 0
    np.testing.assert_allclose(tr, want_r, rtol=1e-12, atol=1e-12)
    assert np.asarray(tr)[:3].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("f", [np.convolve, np.polymul, np.polyadd, np.polysub, np.polydiv])
@pytest.mark.parametrize("where", [0, 1])
def test_a_0d_operand_is_one_coefficient(f: Any, where: int) -> None:
    # NumPy reads a 0-d operand as [c] (atleast_1d): same value, a 0-d cotangent
    args = [np.array([1.5, -2.0, 0.5]), np.asarray(2.0)]
    if where:
        args.reverse()
    want = f(*args)
    y, _ = cr.rrule(f, *args)
    for got, w in zip(
        y if isinstance(y, tuple) else (y,), want if isinstance(want, tuple) else (want,)
    ):
        np.testing.assert_array_equal(got, w)
    test_rrule(f, *args, jit=False, scalar_free=False)
    test_frule(f, *args, jit=False, scalar_free=False)


def test_polymul_of_an_empty_operand_is_the_zero_polynomial() -> None:
    a, v = np.zeros(0), np.array([1.0, 2.0, 3.0])
    y, pb = cr.rrule(np.polymul, a, v)
    np.testing.assert_array_equal(y, np.polymul(a, v))  # [0, 0, 0]
    _, a_bar, v_bar = (cr.unthunk(c) for c in pb(np.ones(3)))  # deferred cotangents
    assert a_bar.shape == (0,) and v_bar.tolist() == [0.0, 0.0, 0.0]
    _, y_dot = cr.frule((cr.NoTangent(), np.zeros(0), np.ones(3)), np.polymul, a, v)
    assert isinstance(y_dot, cr.ZeroTangent)


@pytest.mark.parametrize("f", [np.polyder, lambda p: np.polyval(p, np.array([1.0, 2.0]))])
def test_an_empty_polynomial(f: Any) -> None:
    p = np.zeros(0)
    y, pb = cr.rrule(f, p) if f is np.polyder else cr.rrule(np.polyval, p, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(y, f(p))
    assert pb(np.ones_like(y))[1].shape == (0,)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_polydiv_single_precision_agrees_with_double_on_kept_entries(dtype: Any) -> None:
    """Where finite differences cannot judge polydiv (its float64 remainder is trimmed shorter
    than the single-precision one: the tester refuses to compare), the single-precision rule
    equals the double-precision rule given the cotangent of the entries both keep."""
    rng = np.random.default_rng(1)
    u = rng.standard_normal(5) + (1j * rng.standard_normal(5) if dtype == np.complex64 else 0)
    v = np.array([1.5, 0.3, -0.7]) + (0.2j if dtype == np.complex64 else 0)
    v = v.astype(np.result_type(dtype, np.float64))  # v exact in both precisions
    (q, r), pb = cr.rrule(np.polydiv, u.astype(dtype), v.astype(dtype))
    (q2, r2), pb2 = cr.rrule(np.polydiv, u.astype(v.dtype), v)
    qb = rng.standard_normal(q.shape).astype(dtype)
    rb = rng.standard_normal(r.shape).astype(dtype)
    g = pb(cr.Tangent(qb, rb, primal_type=tuple))
    g2 = pb2(
        cr.Tangent(qb.astype(q2.dtype), rb[-r2.shape[0] :].astype(r2.dtype), primal_type=tuple)
    )
    for a, b in zip(g[1:], g2[1:]):
        np.testing.assert_allclose(cr.unthunk(a), cr.unthunk(b), rtol=1e-5, atol=1e-5)
