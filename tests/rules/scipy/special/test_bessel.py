"""scipy.special's Bessel functions (i0, i1, j0, j1, y0, y1, jv, yn, iv, ive, ...): every
registration on every backend, the orders with no derivative, edge values and identities, complex
ive."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special.bessel")

sps = pytest.importorskip("scipy.special")


def test_bessel_orders_have_no_derivative() -> None:
    x = np.array([0.5, 1.5])
    for f in (sps.jv, sps.iv, sps.ive):
        _, pb = cr.rrule(f, np.array([0.5, 1.5]), x)  # a real order: no closed form
        _, v_bar, x_bar = pb(np.ones(2))
        assert isinstance(v_bar, cr.Thunk)
        with pytest.raises(NotImplementedError, match=rf"{f.__name__}.*'v'"):
            cr.unthunk(v_bar)
        v, h = np.array([0.5, 1.5]), 1e-6  # the cotangent of x is there at a real order
        np.testing.assert_allclose(x_bar, (f(v, x + h) - f(v, x - h)) / (2 * h), rtol=1e-7)
        with pytest.raises(NotImplementedError, match=f.__name__):
            cr.frule((cr.NoTangent(), np.ones(2), cr.ZeroTangent()), f, np.array([0.5, 1.5]), x)
    _, pb = cr.rrule(sps.yn, 2, x)  # an integer order: no tangent space
    assert isinstance(pb(np.ones(2))[1], cr.NoTangent)


def test_bessel_edge_values_and_identities() -> None:
    # J1'(0) = 1/2, its limit; J0' = -J1; at x = 0, ive's sign(x) term vanishes
    assert cr.rrule(sps.j1, np.array([0.0]))[1](np.ones(1))[1][0] == 0.5
    x = np.array([0.7, 2.2])
    np.testing.assert_allclose(cr.rrule(sps.j0, x)[1](np.ones(2))[1], -sps.j1(x))
    np.testing.assert_allclose(cr.rrule(sps.y0, x)[1](np.ones(2))[1], -sps.y1(x))
    # order 1 through jv equals j1 itself
    np.testing.assert_allclose(
        cr.rrule(sps.jv, 1, x)[1](np.ones(2))[2], cr.rrule(sps.j1, x)[1](np.ones(2))[1]
    )
    # ive = exp(-|x|) iv on both sides of 0
    for xs in (x, -x):
        d_ive = cr.rrule(sps.ive, 2, xs)[1](np.ones(2))[2]
        d_iv = cr.rrule(sps.iv, 2, xs)[1](np.ones(2))[2]
        want = np.exp(-np.abs(xs)) * (d_iv - np.sign(xs) * sps.iv(2, xs))
        np.testing.assert_allclose(d_ive, want, rtol=1e-12)


def test_bessel_frule_pushes_a_chunk() -> None:
    x = np.array([0.7, 2.2, 3.0])
    dots = np.stack([np.ones(3), np.arange(3.0)])  # a chunk of 2 tangents
    _, y_dot = cr.frule((cr.NoTangent(), cr.NoTangent(), dots), sps.jv, 2, x)
    d = cr.rrule(sps.jv, 2, x)[1](np.ones(3))[2]
    np.testing.assert_allclose(y_dot, dots * d)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_ive_complex_input_is_not_holomorphic(dtype: type) -> None:
    # ive(v, z) = iv(v, z) exp(-|Re z|): d ive = ive' dz - sign(Re z) ive d(Re z). The shared
    # elementwise mechanism conjugated one holomorphic partial, which gave the real direction's
    # term to the imaginary direction too (complex128 as wrong as complex64)
    from chainrules.testing import test_frule, test_rrule

    rng = np.random.default_rng(10)
    v = np.array([[0], [1], [3]])  # integer orders: no tangent space (no closed form in v)
    z = (rng.uniform(0.3, 2.0, (3, 4)) * rng.choice([-1, 1], (3, 4))).astype(dtype)
    z = z + (1j * rng.uniform(-2.0, 2.0, (3, 4))).astype(dtype)
    test_rrule(sps.ive, v, z)
    test_frule(sps.ive, v, z)
    # the same real-direction term as before on real z
    x = np.array([-1.5, 0.7, 2.0])
    _, pb = cr.rrule(sps.ive, 1.0, x)
    d = (sps.ive(0.0, x) + sps.ive(2.0, x)) / 2 - np.sign(x) * sps.ive(1.0, x)
    np.testing.assert_allclose(cr.unthunk(pb(np.ones(3))[2]), d, rtol=1e-14)


@pytest.mark.parametrize("name", ["i0e", "i1e"])
def test_exponentially_scaled_bessel_under_torch_vmap_grad(name: str) -> None:
    """Campaign seeds 573, 702, 779 (the torch bridge, vmap(grad)): the partials of i0e and i1e
    took array-api-compat's sign, which writes NaN through a boolean mask that torch.func.vmap
    refuses ("batching operators that can support dynamic shape"). They take real_sign (a
    select on torch). The batched gradients equal the per-sample ones and central differences."""
    torch = pytest.importorskip("torch")
    import scipy.special as sp

    from chainrules.interop import torch as crtorch

    f = crtorch.wrap(getattr(torch.special, name))
    xs = torch.asarray(np.array([[-1.3, 0.4, 2.0], [0.7, -0.2, 1.1]]))
    g = torch.func.vmap(torch.func.grad(lambda x: torch.sum(f(x))))(xs)
    h = 1e-6
    ref = getattr(sp, name)
    fd = (ref(xs.numpy() + h) - ref(xs.numpy() - h)) / (2 * h)
    np.testing.assert_allclose(g.numpy(), fd, rtol=1e-6, atol=1e-9)
