"""Registered dataclasses as pytree nodes (issue 28 item 3: "arguments, keyword arguments and
results may be pytrees as each engine defines them: dict, list, tuple and namedtuple, and
registered dataclasses"), in ``chainrules.ad`` and the JAX, torch and autograd bridges.

``model(x, p) = Out(u, v)`` with ``u = w x^3 + b x``, ``v = w b x``, the parameters ``(w, b)`` in
a registered dataclass ``Params`` (with a static ``name``) and the result in a registered
dataclass ``Out`` (with a static ``tag``): a rule whose argument and result are dataclasses. The
exact derivatives (as ``tests/interop/test_derived.py``): the gradient of
``L = sum(u) + 2 sum(v)``, and the tangent of ``(u, v)`` along ``(tx, tw, tb)``. Each engine's
gradient of ``p`` is a ``Params`` again.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

import chainrules as cr
from chainrules import ad


@cr.register_dataclass
@dataclasses.dataclass
class Params:
    w: Any
    b: Any
    name: str = dataclasses.field(default="layer", metadata={"static": True})


@cr.register_dataclass
@dataclasses.dataclass
class Out:
    u: Any
    v: Any
    tag: str = dataclasses.field(default="", metadata={"static": True})


CALLS = {"rrule": 0, "frule": 0}


@cr.traceable
def model(x: Any, p: Params) -> Out:
    return Out(p.w * x**3 + p.b * x, p.w * p.b * x, tag=p.name)


@cr.register_rrule(model)
def _model_rrule(x: Any, p: Params) -> Any:
    CALLS["rrule"] += 1
    w, b = p.w, p.b

    def model_pullback(y_bar: Any) -> Any:
        y_bar = cr.unthunk(y_bar)  # an Out of cotangents
        parts = (cr.ZeroTangent(),) * 2 if cr.is_zero(y_bar) else (y_bar.u, y_bar.v)
        ub, vb = (0 * x if cr.is_zero(c) else c for c in map(cr.unthunk, parts))
        x_bar = ub * (3 * w * x**2 + b) + vb * (w * b)
        p_bar = cr.Tangent(w=ub * x**3 + vb * (b * x), b=ub * x + vb * (w * x), primal_type=Params)
        return cr.NoTangent(), x_bar, p_bar

    return model(x, p), model_pullback


@cr.register_frule(model)
def _model_frule(tangents: Any, x: Any, p: Params) -> Any:
    CALLS["frule"] += 1
    _, dx, dp = tangents
    w, b = p.w, p.b
    dw, db = (cr.ZeroTangent(), cr.ZeroTangent()) if cr.is_zero(dp) else (dp.w, dp.b)
    dx, dw, db = (0 * x if cr.is_zero(d) else d for d in (dx, dw, db))
    du = dx * (3 * w * x**2 + b) + dw * x**3 + db * x
    dv = dx * (w * b) + dw * (b * x) + db * (w * x)
    return model(x, p), Out(du, dv, tag=p.name)


X = np.array([0.3, -1.2, 0.7])
W, B = np.array([0.5, -1.5, 2.0]), np.array([1.0, 0.25, -0.75])
TX, TW, TB = np.array([1.0, -1.0, 0.5]), np.array([0.5, 2.0, 1.0]), np.array([-2.0, 1.0, 3.0])
GRAD_X = 3 * W * X**2 + B + 2 * W * B
GRAD_W = X**3 + 2 * B * X
GRAD_B = X + 2 * W * X
DU = (3 * W * X**2 + B) * TX + X**3 * TW + X * TB
DV = W * B * TX + B * X * TW + W * X * TB


def _np(v: Any) -> np.ndarray:
    return np.asarray(v.detach() if hasattr(v, "detach") else v)


def _loss(y: Out) -> Any:
    xp = array_namespace(y.u)
    return xp.sum(y.u) + 2 * xp.sum(y.v)


def _check_grads(gx: Any, gw: Any, gb: Any) -> None:
    np.testing.assert_allclose(_np(gx), GRAD_X, rtol=1e-12)
    np.testing.assert_allclose(_np(gw), GRAD_W, rtol=1e-12)
    np.testing.assert_allclose(_np(gb), GRAD_B, rtol=1e-12)


def _check_out(y: Any, u: Any, v: Any, tag: str = "layer") -> None:
    assert type(y) is Out and y.tag == tag
    np.testing.assert_allclose(_np(y.u), u, rtol=1e-12)
    np.testing.assert_allclose(_np(y.v), v, rtol=1e-12)


# --- chainrules.ad ------------------------------------------------------------------------------


def test_ad_grad_of_a_dataclass_argument_is_that_dataclass() -> None:
    """``grad`` / ``value_and_grad`` in a ``Params`` (a plain-NumPy body, no rule): the gradient
    is a ``Params`` with the meta field kept, under ``ad.jit`` too."""

    def loss(p: Params, x: Any) -> Any:
        return np.sum(p.w * x**2 + np.sin(p.b))

    p = Params(W, B, name="mine")
    for grad in (ad.grad(loss), ad.jit(ad.grad(loss))):
        g = grad(p, X)
        assert type(g) is Params and g.name == "mine"
        np.testing.assert_allclose(g.w, X**2, rtol=1e-12)
        np.testing.assert_allclose(g.b, np.cos(B), rtol=1e-12)
    value, g = ad.value_and_grad(loss)(p, X)
    np.testing.assert_allclose(value, loss(p, X), rtol=1e-12)
    assert type(g) is Params


def test_ad_differentiates_a_rule_whose_argument_and_result_are_dataclasses() -> None:
    """``model``'s rules, not its body: ``grad`` (the rrule, which gets an ``Out`` of
    cotangents), ``jvp`` (the frule, which gets a ``Tangent`` of ``Params``'s fields) and
    ``jacobian`` in ``p`` (a ``Params`` of Jacobians), under ``ad.jit`` too."""

    def loss(x: Any, p: Params) -> Any:
        return _loss(model(x, p))

    p = Params(W, B)
    CALLS["rrule"] = 0
    for grad in (ad.grad(loss, argnums=(0, 1)), ad.jit(ad.grad(loss, argnums=(0, 1)))):
        gx, gp = grad(X, p)
        assert type(gp) is Params and gp.name == "layer"
        _check_grads(gx, gp.w, gp.b)
    assert CALLS["rrule"] >= 2  # the rule, not the body
    CALLS["frule"] = 0
    y, y_dot = ad.jvp(model, (X, p), (TX, Params(TW, TB)))
    assert CALLS["frule"] >= 1
    _check_out(y, W * X**3 + B * X, W * B * X)
    _check_out(y_dot, DU, DV)
    jac = ad.jacobian(lambda q: model(X, q).u)(p)
    assert type(jac) is Params
    np.testing.assert_allclose(jac.w, np.diag(X**3), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(jac.b, np.diag(X), rtol=1e-12, atol=1e-15)


def test_ad_second_order_through_the_dataclass_rule() -> None:
    """The Hessian in ``x`` of ``L(model(x, p))``: ``diag(6 w x)``, through the pullback."""
    h = ad.hessian(lambda x: _loss(model(x, Params(W, B))))(X)
    np.testing.assert_allclose(h, np.diag(6 * W * X), rtol=1e-10, atol=1e-14)


# --- the JAX bridge -----------------------------------------------------------------------------


def _jax() -> Any:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    # JAX's own transformations take (and return) a dataclass registered with JAX: the bridge's
    # custom_jvp / custom_vjp returns an Out
    for cls, meta in ((Params, "name"), (Out, "tag")):
        with contextlib.suppress(ValueError):  # registered by an earlier test
            jax.tree_util.register_dataclass(cls, ["u", "v"] if cls is Out else ["w", "b"], [meta])
    return jax


@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_jax_bridge_dataclass_argument_and_result(mode: str) -> None:
    """``jax.grad`` in ``x`` and in the ``Params`` itself (a ``Params`` back), under
    ``jax.jit``; ``jax.jvp`` in ``jvp`` mode (the frule)."""
    jax = _jax()
    jnp = jax.numpy
    from chainrules.interop import jax as crj

    f = crj.wrap(model, mode=mode)
    x, p = jnp.asarray(X), Params(jnp.asarray(W), jnp.asarray(B))
    _check_out(f(x, p), W * X**3 + B * X, W * B * X)
    grad = jax.grad(lambda x, p: _loss(f(x, p)), argnums=(0, 1))
    for g in (grad, jax.jit(grad)):
        gx, gp = g(x, p)
        assert type(gp) is Params and gp.name == "layer"
        _check_grads(gx, gp.w, gp.b)
    if mode == "jvp":
        _, y_dot = jax.jvp(f, (x, p), (jnp.asarray(TX), Params(jnp.asarray(TW), jnp.asarray(TB))))
        _check_out(y_dot, DU, DV)


def test_jax_bridge_takes_a_dataclass_that_jax_knows() -> None:
    """A dataclass registered with ``jax.tree_util.register_dataclass`` only: the JAX bridge
    reads its data and meta fields from JAX's registration (and registers it with chainrules on
    first use), so its arrays are differentiated."""
    jax = _jax()
    jnp = jax.numpy
    from chainrules.core.pytree import dataclass_fields
    from chainrules.interop import jax as crj

    @dataclasses.dataclass
    class JaxParams:
        scale: float
        w: Any
        b: Any

    jax.tree_util.register_dataclass(JaxParams, data_fields=["w", "b"], meta_fields=["scale"])

    def affine(x: Any, p: JaxParams) -> Any:
        return p.scale * (p.w * x + p.b)

    @cr.register_rrule(affine)
    def _affine_rrule(x: Any, p: JaxParams) -> Any:
        def affine_pullback(g: Any) -> Any:
            return cr.NoTangent(), p.scale * g * p.w, {"w": p.scale * g * x, "b": p.scale * g}

        return affine(x, p), affine_pullback

    assert dataclass_fields(JaxParams) is None
    f = crj.wrap(affine, mode="vjp")
    p = JaxParams(2.0, jnp.asarray(W), jnp.asarray(B))
    g = jax.jit(jax.grad(lambda p: jnp.sum(f(jnp.asarray(X), p))))(p)
    assert type(g) is JaxParams
    np.testing.assert_allclose(np.asarray(g.w), 2.0 * X, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(g.b), 2.0 * np.ones(3), rtol=1e-12)
    assert dataclass_fields(JaxParams) == (("w", "b"), ("scale",))


# --- the torch bridge ---------------------------------------------------------------------------


def test_torch_bridge_dataclass_argument_and_result() -> None:
    """Backward, ``torch.func.grad`` and ``torch.func.jvp`` through ``model``'s rules; the
    result is an ``Out`` whose fields carry the graph; the custom-op route too."""
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crt

    f = crt.wrap(model)
    x, w, b = (torch.tensor(a, requires_grad=True) for a in (X, W, B))
    y = f(x, Params(w, b))
    _check_out(y, W * X**3 + B * X, W * B * X)
    assert y.u.grad_fn is not None and y.v.grad_fn is not None
    _check_grads(*torch.autograd.grad(_loss(y), (x, w, b)))
    primals = tuple(torch.tensor(a) for a in (X, W, B))

    def loss(x: Any, w: Any, b: Any) -> Any:
        return _loss(f(x, Params(w, b)))

    _check_grads(*torch.func.grad(loss, argnums=(0, 1, 2))(*primals))
    tangents = tuple(torch.tensor(a) for a in (TX, TW, TB))

    def uv(x: Any, w: Any, b: Any) -> Any:  # torch.func returns torch's pytrees only
        y = f(x, Params(w, b))
        return y.u, y.v

    _, (du, dv) = torch.func.jvp(uv, primals, tangents)
    _check_out(Out(du, dv, "layer"), DU, DV)
    x, w, b = (torch.tensor(a, requires_grad=True) for a in (X, W, B))
    y = crt._custom_op_route(model)(x, Params(w, b))
    _check_out(y, W * X**3 + B * X, W * B * X)
    _check_grads(*torch.autograd.grad(_loss(y), (x, w, b)))


# --- the autograd bridge ------------------------------------------------------------------------


def test_autograd_bridge_dataclass_argument_and_result() -> None:
    """``autograd.grad`` in ``x``, ``w`` and ``b`` through ``model``'s rules (an ``Out`` back,
    with its fields boxed), and the Hessian in ``x``."""
    autograd = pytest.importorskip("autograd")
    import autograd.numpy as anp

    from chainrules.interop import autograd as crag

    f = crag.wrap(model)
    _check_out(f(X, Params(W, B)), W * X**3 + B * X, W * B * X)

    def loss(x: Any, w: Any, b: Any) -> Any:
        y = f(x, Params(w, b))
        return anp.sum(y.u) + 2 * anp.sum(y.v)

    _check_grads(*autograd.grad(lambda a: loss(*a))((X, W, B)))
    h = autograd.hessian(lambda x: loss(x, W, B))(X)
    np.testing.assert_allclose(h, np.diag(6 * W * X), rtol=1e-10, atol=1e-14)


def test_bridges_refuse_an_unregistered_dataclass_holding_arrays() -> None:
    """An array that needs a gradient gets it, or the call raises: an unregistered dataclass
    holding one is an error naming the function, the argument and ``register_dataclass``."""
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crt

    @dataclasses.dataclass
    class Unregistered:
        w: Any

    def scale(x: Any, p: Any) -> Any:
        return p.w * x

    @cr.register_rrule(scale)
    def _scale_rrule(x: Any, p: Any) -> Any:
        return scale(x, p), lambda g: (cr.NoTangent(), g * p.w, cr.Tangent(w=g * x))

    with pytest.raises(TypeError, match=r"scale.*argument 1.*Unregistered.*register_dataclass"):
        crt.wrap(scale)(torch.tensor(X), Unregistered(torch.tensor(W, requires_grad=True)))
    jax = _jax()
    from chainrules.interop import jax as crj

    with pytest.raises(TypeError, match=r"scale.*argument 1.*Unregistered.*register_dataclass"):
        jax.grad(lambda w: crj.wrap(scale)(X, Unregistered(w)).sum())(jax.numpy.asarray(W))
    autograd = pytest.importorskip("autograd")
    from chainrules.interop import autograd as crag

    with pytest.raises(TypeError, match=r"scale.*argument 1.*Unregistered.*register_dataclass"):
        autograd.grad(lambda w: crag.wrap(scale)(X, Unregistered(w)).sum())(W)
