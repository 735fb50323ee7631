"""scipy.signal's rules: the tester on every backend that has each function, finite differences
over every mode with even and odd sizes, JAX's own derivatives as a reference, refused calls."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.suite import rule_tests

ss = pytest.importorskip("scipy.signal")

test_rule = rule_tests("chainrules.rules.scipy.signal")

RNG = np.random.default_rng(5)

# (in1 shape, in2 shape): odd and even lengths, in1 larger, smaller, equal, and n-d
SHAPES = [((5,), (3,)), ((5,), (4,)), ((4,), (3,)), ((4,), (2,)), ((3,), (6,)), ((2, 3), (2, 2))]


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize(("s1", "s2"), SHAPES)
def test_every_mode_and_size_against_finite_differences(
    name: str, mode: str, s1: tuple, s2: tuple
) -> None:
    f = getattr(ss, name)
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    if mode == "valid" and not (
        all(p >= q for p, q in zip(s1, s2)) or all(p <= q for p, q in zip(s1, s2))
    ):
        pytest.skip("SciPy refuses 'valid' when neither input is the larger on every axis")
    y, _ = cr.rrule(f, a, b, mode=mode)
    np.testing.assert_allclose(y, f(a, b, mode=mode))  # SciPy's own value
    test_rrule(f, a, b, mode=mode, scalar_free=False, jit=False)
    test_frule(f, a, b, mode=mode, scalar_free=False, jit=False)


@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_complex_inputs_follow_the_convention(name: str) -> None:
    """dL/dRe + i dL/dIm for complex inputs: correlate conjugates in2, so its cotangent is
    conjugate-linear there; the tester checks both against finite differences."""
    f = getattr(ss, name)
    a = RNG.standard_normal(4) + 1j * RNG.standard_normal(4)
    b = RNG.standard_normal(2) + 1j * RNG.standard_normal(2)
    test_rrule(f, a, b, mode="same", scalar_free=False, jit=False)
    test_frule(f, a, b, scalar_free=False, jit=False)


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_agrees_with_jax_grad(name: str, mode: str) -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    f = getattr(jax.scipy.signal, name)
    a, b = jnp.asarray(RNG.standard_normal((3, 4))), jnp.asarray(RNG.standard_normal((2, 2)))
    y, pb = cr.rrule(f, a, b, mode=mode)
    w = jnp.asarray(RNG.standard_normal(y.shape))
    _, a_bar, b_bar = map(cr.unthunk, pb(w))
    want = jax.grad(lambda p, q: jnp.sum(w * f(p, q, mode=mode)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(a_bar, want[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b_bar, want[1], rtol=1e-12, atol=1e-12)


def test_pullback_passes_the_method_on_and_refuses_bad_modes() -> None:
    a, b = RNG.standard_normal(6), RNG.standard_normal(3)
    for method in ("direct", "fft"):
        _, pb = cr.rrule(ss.convolve, a, b, "same", method)
        w = RNG.standard_normal(6)
        _, a_bar, _, m_bar, meth_bar = map(cr.unthunk, pb(w))
        assert isinstance(m_bar, cr.NoTangent) and isinstance(meth_bar, cr.NoTangent)
        # the transpose of the Jacobian, column k = convolve(e_k, b, 'same')
        jac = np.stack([ss.convolve(e, b, "same", "direct") for e in np.eye(6)], axis=1)
        np.testing.assert_allclose(a_bar, jac.T @ w, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match=r"convolve: mode must be 'full', 'same' or 'valid'"):
        cr.rrule(ss.convolve, a, b, mode="circular")
    with pytest.raises(TypeError, match="convolve"):
        cr.rrule(ss.convolve, a, b, out=np.zeros(8))


def test_integer_inputs_have_no_tangent() -> None:
    a, b = np.arange(4), RNG.standard_normal(3)
    _, pb = cr.rrule(ss.convolve, a, b)
    _, a_bar, b_bar = map(cr.unthunk, pb(np.ones(6)))
    assert isinstance(a_bar, cr.NoTangent)
    np.testing.assert_allclose(b_bar, ss.correlate(np.ones(6), a, mode="valid"))


def test_an_empty_operand_moves_nothing() -> None:
    a, k = np.zeros(0), np.array([1.0, 2.0])
    for f in (ss.correlate, ss.convolve):
        y, pb = cr.rrule(f, a, k, mode="same")
        np.testing.assert_array_equal(y, f(a, k, mode="same"))
        _, ga, gk = (cr.unthunk(g) for g in pb(np.ones(y.shape)))
        assert ga.shape == (0,)
        np.testing.assert_array_equal(gk, [0.0, 0.0])  # y has no entries: k does not reach it
        _, yd = cr.frule((cr.NoTangent(), np.zeros(0), np.ones(2)), f, a, k, mode="same")
        assert isinstance(yd, cr.ZeroTangent)
