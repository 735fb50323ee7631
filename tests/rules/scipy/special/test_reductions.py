"""scipy.special's reductions (logsumexp, softmax, log_softmax): every registration on every
backend, SciPy's values with b and return_sign, complex input against torch and JAX."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special.reductions")

sps = pytest.importorskip("scipy.special")


def test_logsumexp_matches_scipy_with_b_and_return_sign() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    (y, s), pb = cr.rrule(sps.logsumexp, a, 1, b, False, True)
    want_y, want_s = sps.logsumexp(a, 1, b, return_sign=True)
    np.testing.assert_allclose(y, want_y)
    np.testing.assert_array_equal(s, want_s)
    _, ga, _, gb, _, _ = pb(cr.Tangent(np.ones(2), cr.NoTangent()))
    w = np.exp(a - want_y[:, None]) * want_s[:, None]
    np.testing.assert_allclose(ga, b * w)
    np.testing.assert_allclose(gb, w)


def _cplx(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# (args, kwargs) of logsumexp on complex input: the weights b real, complex, broadcast; the sign
_LSE_COMPLEX = (
    ((4,), {}),
    ((2, 3), {"axis": 1}),
    ((2, 3), {"axis": 0, "b": "real", "keepdims": True}),
    ((2, 3), {"axis": -1, "b": "complex"}),
    ((4,), {"return_sign": True}),
    ((2, 3), {"axis": 0, "b": "complex", "return_sign": True}),
)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize(("shape", "kw"), _LSE_COMPLEX)
def test_logsumexp_complex_pullback_conjugates_softmax(
    shape: tuple[int, ...], kw: dict[str, object], dtype: type
) -> None:
    # the cotangent of a complex input is dL/dRe + i dL/dIm: for the holomorphic
    # lse = log sum(b exp a), a_bar = conj(b softmax) y_bar (the rule gave b softmax y_bar); with
    # return_sign the complex sign S/|S| moves with the phase of S
    from chainrules.testing import test_frule, test_rrule

    rng = np.random.default_rng(5)
    a = _cplx(rng, *shape).astype(dtype)
    kw = dict(kw)
    args: tuple[object, ...] = (a,)
    if "b" in kw:
        kind = kw.pop("b")
        b = rng.uniform(0.5, 2.0, shape) if kind == "real" else _cplx(rng, *shape)
        args = (a, kw.pop("axis"), b.astype(dtype))
    test_rrule(sps.logsumexp, *args, **kw)
    test_frule(sps.logsumexp, *args, **kw)


def test_logsumexp_complex_value_and_cotangent_match_torch() -> None:
    # torch.logsumexp takes complex tensors and shares the cotangent convention (dL/dRe + i dL/dIm)
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    a, y_bar = _cplx(rng, 2, 5) * 3, _cplx(rng, 2)
    y, pb = cr.rrule(sps.logsumexp, a, axis=1)
    t = torch.tensor(a, requires_grad=True)
    ty = torch.logsumexp(t, dim=1)
    torch.sum(torch.real(torch.conj(torch.tensor(y_bar)) * ty)).backward()
    np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(y, sps.logsumexp(a, axis=1), rtol=1e-13)  # the phase in (-pi, pi]
    assert t.grad is not None
    np.testing.assert_allclose(pb(y_bar)[1], t.grad.numpy(), rtol=1e-12)
    # the same through the namespace formula (not SciPy's primal): JAX's own logsumexp
    jnp = pytest.importorskip("jax.numpy")
    jsp = pytest.importorskip("jax.scipy.special")
    from chainrules.testing import backends

    backends.BACKENDS["jax"].namespace()  # float64
    yj, pbj = cr.rrule(jsp.logsumexp, jnp.asarray(a), axis=1)
    np.testing.assert_allclose(np.asarray(yj), y, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(pbj(jnp.asarray(y_bar))[1]), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("f", ["softmax", "log_softmax"])
def test_softmax_complex_pullback_conjugates_jacobian(f: str, dtype: type) -> None:
    # softmax and log_softmax are holomorphic: x_bar = J^H y_bar; the rules gave J^T y_bar
    from chainrules.testing import test_frule, test_rrule

    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x, y_bar = _cplx(rng, 2, 3), _cplx(rng, 2, 3)
    test_rrule(getattr(sps, f), x.astype(dtype), axis=1)
    test_frule(getattr(sps, f), x.astype(dtype), axis=1)
    # torch has no complex softmax kernel: its composite, differentiated by torch
    t = torch.tensor(x, requires_grad=True)
    lse = torch.logsumexp(t, dim=1, keepdim=True)
    ty = torch.exp(t - lse) if f == "softmax" else t - lse
    torch.sum(torch.real(torch.conj(torch.tensor(y_bar)) * ty)).backward()
    _, pb = cr.rrule(getattr(sps, f), x, axis=1)
    assert t.grad is not None
    np.testing.assert_allclose(pb(y_bar)[1], t.grad.numpy(), rtol=1e-12, atol=1e-14)
