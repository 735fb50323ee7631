"""A function with only an rrule, or only an frule, works in every bridge: the missing mode is
derived from the other (``chainrules.interop._derived``; issue 28, "every bridge takes every
rule"). Before, torch and autograd raised ``NoRuleError`` (they need both), and so did Keras and
the JAX bridge's ``mode="vjp"`` for an frule alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

import chainrules as cr
from chainrules.core.calls import find_rules
from chainrules.interop._derived import complete

CALLS = {"rrule": 0, "frule": 0}


def softplus(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.log1p(xp.exp(x))


@cr.register_rrule(softplus)
def _softplus_rrule(x: Any) -> Any:
    CALLS["rrule"] += 1
    xp = array_namespace(x)
    return softplus(x), lambda y_bar: (cr.NoTangent(), y_bar / (1 + xp.exp(-x)))


def cube(x: Any, a: Any) -> Any:
    return a * x**3


@cr.register_frule(cube)
def _cube_frule(tangents: Any, x: Any, a: Any) -> Any:
    CALLS["frule"] += 1
    _, dx, da = tangents
    dy: Any = cr.ZeroTangent()
    if not isinstance(dx, cr.AbstractZero):
        dy = 3 * a * x**2 * dx
    if not isinstance(da, cr.AbstractZero):
        term = x**3 * da
        dy = term if isinstance(dy, cr.AbstractZero) else dy + term
    return cube(x, a), dy


X = np.array([0.3, -1.2, 0.7])
A = np.array([2.0, 3.0, -0.5])
SIG = 1 / (1 + np.exp(-X))  # softplus'
SOFTPLUS_HESS = SIG * (1 - SIG)


def test_derived_frule_is_the_transposed_pullback_and_costs_one_rrule_call() -> None:
    rules = complete(find_rules(softplus, "test"))
    assert rules.frule is not None
    t = np.array([1.0, 2.0, -1.0])
    CALLS["rrule"] = 0
    y, y_dot = rules.frule((cr.NoTangent(), t), X)
    np.testing.assert_allclose(y, np.log1p(np.exp(X)))
    np.testing.assert_allclose(y_dot, SIG * t, rtol=1e-12)
    assert CALLS["rrule"] <= 3  # the bound; one call here


def test_derived_rrule_is_the_transposed_pushforward() -> None:
    rules = complete(find_rules(cube, "test"))
    assert rules.rrule is not None
    CALLS["frule"] = 0
    y, pb = rules.rrule(X, A)
    np.testing.assert_allclose(y, A * X**3)
    _, xb, ab = pb(np.array([1.0, -2.0, 0.5]))
    np.testing.assert_allclose(xb, 3 * A * X**2 * [1.0, -2.0, 0.5], rtol=1e-12)
    np.testing.assert_allclose(ab, X**3 * [1.0, -2.0, 0.5], rtol=1e-12)
    assert CALLS["frule"] <= 3


def test_torch_bridge_takes_an_rrule_alone_and_an_frule_alone() -> None:
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crt

    sp, cu = crt.wrap(softplus), crt.wrap(cube)
    x, a = torch.tensor(X), torch.tensor(A)
    g = torch.func.grad(lambda z: sp(z).sum())(x)
    np.testing.assert_allclose(g.numpy(), SIG, rtol=1e-12)
    J = torch.func.jacfwd(sp)(x)  # forward mode: the derived frule
    np.testing.assert_allclose(torch.diagonal(J).numpy(), SIG, rtol=1e-12)
    H = torch.func.hessian(lambda z: sp(z).sum())(x)
    np.testing.assert_allclose(H.numpy(), np.diag(SOFTPLUS_HESS), rtol=1e-10, atol=1e-14)
    xr = x.clone().requires_grad_(True)
    cu(xr, a).sum().backward()  # reverse mode: the derived rrule
    np.testing.assert_allclose(xr.grad.numpy(), 3 * A * X**2, rtol=1e-12)
    Hc = torch.func.hessian(lambda z: cu(z, a).sum())(x)
    np.testing.assert_allclose(Hc.numpy(), np.diag(6 * A * X), rtol=1e-10, atol=1e-14)


def test_autograd_bridge_takes_an_rrule_alone_and_an_frule_alone() -> None:
    autograd = pytest.importorskip("autograd")
    from chainrules.interop import autograd as crag

    sp, cu = crag.wrap(softplus), crag.wrap(cube)
    np.testing.assert_allclose(autograd.grad(lambda z: np.sum(sp(z)))(X), SIG, rtol=1e-12)
    H = autograd.hessian(lambda z: np.sum(sp(z)))(X)
    np.testing.assert_allclose(H, np.diag(SOFTPLUS_HESS), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(autograd.grad(lambda z: np.sum(cu(z, A)))(X), 3 * A * X**2)
    Hc = autograd.hessian(lambda z: np.sum(cu(z, A)))(X)
    np.testing.assert_allclose(Hc, np.diag(6 * A * X), rtol=1e-10, atol=1e-14)


def test_jax_vjp_mode_takes_an_frule_alone() -> None:
    jax = pytest.importorskip("jax")
    from chainrules.interop import jax as crj

    jax.config.update("jax_enable_x64", True)
    cu = crj.wrap(cube, mode="vjp")
    g = jax.grad(lambda z: cu(z, jax.numpy.asarray(A)).sum())(jax.numpy.asarray(X))
    np.testing.assert_allclose(np.asarray(g), 3 * A * X**2, rtol=1e-12)
    gj = jax.jit(jax.grad(lambda z: cu(z, jax.numpy.asarray(A)).sum()))(jax.numpy.asarray(X))
    np.testing.assert_allclose(np.asarray(gj), 3 * A * X**2, rtol=1e-12)


def scaled_pair(p: Any, a: Any) -> Any:
    return a * p[0] * p[1]


@cr.register_frule(scaled_pair)
def _scaled_pair_frule(tangents: Any, p: Any, a: Any) -> Any:
    return scaled_pair(p, a), cr.ZeroTangent()  # never reached: the derived rrule refuses


def test_derived_rules_refuse_a_container_of_arrays() -> None:
    """A derived rule differentiates positional arrays only; a tuple of arrays would get no
    derivative (a silent zero through the bridges, which give zeros for a zero cotangent), so
    the call is refused, naming the argument."""
    rules = complete(find_rules(scaled_pair, "test"))
    assert rules.rrule is not None
    with pytest.raises(TypeError, match=r"argument 0 is a tuple holding floating arrays"):
        rules.rrule((X, X), A)
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crt

    x = torch.tensor(X, requires_grad=True)
    with pytest.raises(TypeError, match=r"argument 0 is a tuple"):
        crt.wrap(scaled_pair)((x, x), torch.tensor(A)).sum().backward()
    frules = complete(find_rules(softplus, "test"))
    assert frules.frule is not None
    with pytest.raises(TypeError, match=r"frule derived .* argument 0 is a list"):
        frules.frule((cr.NoTangent(), [X]), [X])
