"""A function with only an rrule, or only an frule, works in every bridge: the missing mode is
derived from the other (``chainrules.interop._derived``; issue 28, "every bridge takes every
rule"). Before, torch and autograd raised ``NoRuleError`` (they need both), and so did Keras and
the JAX bridge's ``mode="vjp"`` for an frule alone."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

import chainrules as cr
from chainrules.core.calls import cotangent_leaves, find_rules, split
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


# --- pytrees: containers as arguments and as results ----------------------------------------------
# ``model(x, p) = pack(u, v)``, ``u = w x^3 + b x``, ``v = w b x``, with ``(w, b)`` in a
# container ``p`` of one kind and ``(u, v)`` in a container of another (or the same); one function
# per pair of kinds with an rrule alone, one with an frule alone. The exact derivatives: the
# gradient of ``L = sum(u) + 2 sum(v)``, and the tangent of ``(u, v)`` along ``(tx, tw, tb)``.

KINDS = ("dict", "tuple", "list", "namedtuple")
Params = namedtuple("Params", ["w", "b"])
Out = namedtuple("Out", ["u", "v"])
W, B = np.array([0.5, -1.5, 2.0]), np.array([1.0, 0.25, -0.75])
TX, TW, TB = np.array([1.0, -1.0, 0.5]), np.array([0.5, 2.0, 1.0]), np.array([-2.0, 1.0, 3.0])
GRAD_X = 3 * W * X**2 + B + 2 * W * B
GRAD_W = X**3 + 2 * B * X
GRAD_B = X + 2 * W * X
DU = (3 * W * X**2 + B) * TX + X**3 * TW + X * TB
DV = W * B * TX + B * X * TW + W * X * TB


def pack(kind: str, a: Any, b: Any, out: bool = False) -> Any:
    """``(a, b)`` in a container of ``kind``: keys / fields ``w, b`` (``u, v`` for a result)."""
    k0, k1 = ("u", "v") if out else ("w", "b")
    if kind == "dict":
        return {k0: a, k1: b}
    if kind == "tuple":
        return (a, b)
    if kind == "list":
        return [a, b]
    return (Out if out else Params)(a, b)


def unpack(kind: str, p: Any, out: bool = False) -> tuple[Any, Any]:
    """The two entries of ``p`` -- a container of ``kind``, its ``Tangent``, or a zero marker
    (which indexes to itself)."""
    if kind == "dict" or (kind == "namedtuple" and isinstance(p, cr.Tangent) and not p.is_sequence):
        return (p["u"], p["v"]) if out else (p["w"], p["b"])
    return p[0], p[1]


def _structural(kind: str, a: Any, b: Any) -> Any:
    """The cotangent of a container argument in a form the bridges read: a ``Tangent`` of named
    fields for a dict and a named tuple, the sequence itself for a tuple and a list."""
    if kind == "dict":
        return cr.Tangent(w=a, b=b)
    if kind == "namedtuple":
        return cr.Tangent(w=a, b=b, primal_type=Params)
    return pack(kind, a, b)


def _model(kind: str, out: str) -> Any:
    def model(x: Any, p: Any) -> Any:
        w, b = unpack(kind, p)
        return pack(out, w * x**3 + b * x, w * b * x, out=True)

    return model


def _with_rrule(kind: str, out: str) -> Any:
    model = _model(kind, out)
    model.__name__ = model.__qualname__ = f"model_rrule_{kind}_{out}"

    @cr.register_rrule(model)
    def _rrule(x: Any, p: Any) -> Any:
        CALLS["rrule"] += 1
        w, b = unpack(kind, p)

        def model_pullback(y_bar: Any) -> Any:
            ub, vb = unpack(out, y_bar, out=True)
            return (
                cr.NoTangent(),
                ub * (3 * w * x**2 + b) + vb * (w * b),
                _structural(kind, ub * x**3 + vb * (b * x), ub * x + vb * (w * x)),
            )

        return model(x, p), model_pullback

    return model


def _with_frule(kind: str, out: str) -> Any:
    model = _model(kind, out)
    model.__name__ = model.__qualname__ = f"model_frule_{kind}_{out}"

    @cr.register_frule(model)
    def _frule(tangents: Any, x: Any, p: Any) -> Any:
        CALLS["frule"] += 1
        _, dx, dp = tangents
        w, b = unpack(kind, p)
        dw, db = unpack(kind, dp)
        du = dx * (3 * w * x**2 + b) + dw * x**3 + db * x
        dv = dx * (w * b) + dw * (b * x) + db * (w * x)
        return model(x, p), pack(out, du, dv, out=True)

    return model


PAIRS = [(k, k) for k in KINDS] + [(k, "tuple") for k in KINDS if k != "tuple"]
RULES = {
    (rule, kind, out): (_with_rrule if rule == "rrule" else _with_frule)(kind, out)
    for rule in ("rrule", "frule")
    for kind, out in PAIRS
}


def _np(v: Any) -> np.ndarray:
    return np.asarray(v.detach() if hasattr(v, "detach") else v)


def _check_grads(got: Any) -> None:
    gx, gw, gb = (_np(g) for g in got)
    np.testing.assert_allclose(gx, GRAD_X, rtol=1e-12)
    np.testing.assert_allclose(gw, GRAD_W, rtol=1e-12)
    np.testing.assert_allclose(gb, GRAD_B, rtol=1e-12)


def _check_tangent(out: str, y_dot: Any) -> None:
    du, dv = unpack(out, y_dot, out=True)
    np.testing.assert_allclose(_np(du), DU, rtol=1e-12)
    np.testing.assert_allclose(_np(dv), DV, rtol=1e-12)


def _loss(out: str, total: Any) -> Any:
    def loss(y: Any) -> Any:
        u, v = unpack(out, y, out=True)
        return total(u) + 2 * total(v)

    return loss


@pytest.mark.parametrize("kind", KINDS)
def test_derived_rrule_differentiates_the_leaves_of_containers(kind: str) -> None:
    """The pullback derived from an frule returns a structural cotangent for the container
    argument (read as the bridges read it) and takes one for the container result."""
    rules = complete(find_rules(RULES["frule", kind, kind], "test"))
    assert rules.rrule is not None
    y, pb = rules.rrule(X, pack(kind, W, B))
    assert type(y) is type(pack(kind, 0, 0, out=True))
    np.testing.assert_allclose(unpack(kind, y, out=True)[0], W * X**3 + B * X)
    f_bar, x_bar, p_bar = pb(pack(kind, np.ones(3), 2 * np.ones(3), out=True))
    assert isinstance(f_bar, cr.NoTangent)
    _check_grads((x_bar, *cotangent_leaves(p_bar, pack(kind, W, B))))
    # a zero part of the result's cotangent: the other part's alone
    _, x_bar, _ = pb(pack(kind, cr.ZeroTangent(), 2 * np.ones(3), out=True))
    np.testing.assert_allclose(x_bar, 2 * W * B, rtol=1e-12)
    if kind in ("dict", "namedtuple"):  # a Tangent of named fields, one missing: a zero
        _, x_bar, _ = pb(cr.Tangent(v=2 * np.ones(3)))
        np.testing.assert_allclose(x_bar, 2 * W * B, rtol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_derived_frule_pushes_the_leaves_of_containers(kind: str) -> None:
    """The pushforward derived from an rrule takes a structural tangent for the container
    argument (as the bridges build it) and returns the result's structure; one rrule call."""
    rules = complete(find_rules(RULES["rrule", kind, kind], "test"))
    assert rules.frule is not None
    p = pack(kind, W, B)
    sp = split((X, p), {}, lambda v: isinstance(v, np.ndarray))
    tangents = sp.tangents(dict(zip(sp.dynamic, (TX, TW, TB), strict=True)), cr.NoTangent())
    CALLS["rrule"] = 0
    y, y_dot = rules.frule((cr.NoTangent(), *tangents), X, p)
    assert CALLS["rrule"] == 1
    assert type(y_dot) is type(y)
    _check_tangent(kind, y_dot)
    # the container's tangent alone: x's part drops out
    _, y_dot = rules.frule((cr.NoTangent(), cr.ZeroTangent(), tangents[1]), X, p)
    np.testing.assert_allclose(unpack(kind, y_dot, out=True)[0], X**3 * TW + X * TB)


def _call(f: Any, kind: str, keyword: bool) -> Any:
    """``(x, w, b) -> f(x, pack(w, b))``, the container passed positionally or by keyword."""
    if keyword:
        return lambda x, w, b: f(x, p=pack(kind, w, b))
    return lambda x, w, b: f(x, pack(kind, w, b))


@pytest.mark.parametrize("keyword", [False, True], ids=["positional", "keyword"])
@pytest.mark.parametrize(("kind", "out"), PAIRS)
@pytest.mark.parametrize("rule", ["rrule", "frule"])
def test_jax_bridge_pytrees(rule: str, kind: str, out: str, keyword: bool) -> None:
    """``mode="vjp"`` with an frule alone (the derived rrule) and ``mode="jvp"`` with an rrule
    alone (JAX transposes the pullback): ``grad`` (and ``jit(grad)``) in ``x`` and the
    container's leaves; ``jvp`` too in ``jvp`` mode."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    jax.config.update("jax_enable_x64", True)
    from chainrules.interop import jax as crj

    fn = RULES[rule, kind, out]
    of = _call(crj.wrap(fn, mode="vjp" if rule == "frule" else "jvp"), kind, keyword)
    loss = _loss(out, jnp.sum)
    args = tuple(map(jnp.asarray, (X, W, B)))
    grad = jax.grad(lambda *a: loss(of(*a)), argnums=(0, 1, 2))
    _check_grads(grad(*args))
    _check_grads(jax.jit(grad)(*args))
    if rule == "rrule":
        _check_tangent(out, jax.jvp(of, args, tuple(map(jnp.asarray, (TX, TW, TB))))[1])


@pytest.mark.parametrize("keyword", [False, True], ids=["positional", "keyword"])
@pytest.mark.parametrize(("kind", "out"), PAIRS)
@pytest.mark.parametrize("rule", ["rrule", "frule"])
def test_torch_bridge_pytrees(rule: str, kind: str, out: str, keyword: bool) -> None:
    """Backward (the frule's derived rrule, or the rrule) and ``torch.func.jvp`` (the rrule's
    derived frule, or the frule) in ``x`` and the container's leaves."""
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crt

    of = _call(crt.wrap(RULES[rule, kind, out]), kind, keyword)
    loss = _loss(out, torch.sum)
    x, w, b = (torch.tensor(a, requires_grad=True) for a in (X, W, B))
    _check_grads(torch.autograd.grad(loss(of(x, w, b)), (x, w, b)))
    primals = tuple(torch.tensor(a) for a in (X, W, B))
    _, y_dot = torch.func.jvp(of, primals, tuple(torch.tensor(a) for a in (TX, TW, TB)))
    _check_tangent(out, y_dot)


# A result nested two levels deep, ``{"u": u, "vs": (v, [v])}`` (so ``L = sum(u) + sum of the
# two v's`` has the gradient above), and a named-tuple result: the torch bridge's Function returns
# the leaves as a flat tuple (PyTorch records tuples of tensors only) and the bridge rebuilds the
# structure after ``apply``, in eager autograd, under ``torch.func`` and on the custom-op route.


def _nested(x: Any, p: Any) -> Any:
    w, b = p
    v = w * b * x
    return {"u": w * x**3 + b * x, "vs": (v, [v])}


def _nested_parts(y: Any) -> tuple[Any, Any, Any]:
    return y["u"], y["vs"][0], y["vs"][1][0]


def nested_rrule_only(x: Any, p: Any) -> Any:
    return _nested(x, p)


def nested_frule_only(x: Any, p: Any) -> Any:
    return _nested(x, p)


@cr.register_rrule(nested_rrule_only)
def _nested_rrule(x: Any, p: Any) -> Any:
    w, b = p

    def nested_pullback(y_bar: Any) -> Any:
        ub, vb0, vb1 = (cr.unthunk(c) for c in _nested_parts(y_bar))
        vb = vb0 + vb1
        return (
            cr.NoTangent(),
            ub * (3 * w * x**2 + b) + vb * (w * b),
            (ub * x**3 + vb * (b * x), ub * x + vb * (w * x)),
        )

    return _nested(x, p), nested_pullback


@cr.register_frule(nested_frule_only)
def _nested_frule(tangents: Any, x: Any, p: Any) -> Any:
    _, dx, dp = tangents
    w, b = p
    dw, db = dp[0], dp[1]
    du = dx * (3 * w * x**2 + b) + dw * x**3 + db * x
    dv = dx * (w * b) + dw * (b * x) + db * (w * x)
    return _nested(x, p), {"u": du, "vs": (dv, [dv])}


def _check_nested(y: Any, values: tuple[Any, Any]) -> None:
    """``y`` has the structure ``{"u": ., "vs": (., [.])}`` with ``u, v = values``."""
    assert type(y) is dict and list(y) == ["u", "vs"]
    assert type(y["vs"]) is tuple and type(y["vs"][1]) is list
    u, v0, v1 = (_np(e) for e in _nested_parts(y))
    np.testing.assert_allclose(u, values[0], rtol=1e-12)
    np.testing.assert_allclose(v0, values[1], rtol=1e-12)
    np.testing.assert_allclose(v1, values[1], rtol=1e-12)


@pytest.mark.parametrize("fn", [nested_rrule_only, nested_frule_only], ids=["rrule", "frule"])
def test_torch_bridge_nested_results(fn: Any) -> None:
    """A nested dict / tuple / list result keeps its structure, and backward, ``torch.func``'s
    ``grad``, ``jvp``, ``jacrev`` and ``vmap``, and the custom-op route differentiate it."""
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crt

    f = crt.wrap(fn)

    def loss(x: Any, w: Any, b: Any) -> Any:
        return sum(e.sum() for e in _nested_parts(f(x, (w, b))))

    x, w, b = (torch.tensor(a, requires_grad=True) for a in (X, W, B))
    y = f(x, (w, b))
    _check_nested(y, (W * X**3 + B * X, W * B * X))
    assert all(e.grad_fn is not None for e in _nested_parts(y))
    _check_grads(torch.autograd.grad(loss(x, w, b), (x, w, b)))
    primals = tuple(torch.tensor(a) for a in (X, W, B))
    _check_grads(torch.func.grad(loss, argnums=(0, 1, 2))(*primals))
    tangents = tuple(torch.tensor(a) for a in (TX, TW, TB))
    y, y_dot = torch.func.jvp(lambda x, w, b: f(x, (w, b)), primals, tangents)
    _check_nested(y, (W * X**3 + B * X, W * B * X))
    _check_nested(y_dot, (DU, DV))
    jac = torch.func.jacrev(lambda x: f(x, primals[1:]))(primals[0])
    diag = torch.diagonal
    _check_nested(
        {"u": diag(jac["u"]), "vs": (diag(jac["vs"][0]), [diag(jac["vs"][1][0])])},
        (3 * W * X**2 + B, W * B),
    )
    xs = torch.stack([primals[0], 2 * primals[0]])
    batched = torch.func.vmap(lambda x: f(x, primals[1:]))(xs)
    _check_nested(
        {"u": batched["u"][1], "vs": (batched["vs"][0][1], [batched["vs"][1][0][1]])},
        (W * (2 * X) ** 3 + B * 2 * X, W * B * 2 * X),
    )
    if fn is nested_rrule_only:  # the custom op calls the rrule (torch.export's route)
        x, w, b = (torch.tensor(a, requires_grad=True) for a in (X, W, B))
        y = crt._custom_op_route(fn)(x, (w, b))
        _check_nested(y, (W * X**3 + B * X, W * B * X))
        total = sum(e.sum() for e in _nested_parts(y))
        _check_grads(torch.autograd.grad(total, (x, w, b)))


@pytest.mark.parametrize("rule", ["rrule", "frule"])
def test_torch_bridge_named_tuple_results(rule: str) -> None:
    """A named-tuple result comes back as that named tuple (not a plain tuple), in eager
    autograd, under ``torch.func.grad`` / ``jvp`` and on the custom-op route."""
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crt

    fn = RULES[rule, "namedtuple", "namedtuple"]
    f = crt.wrap(fn)
    loss = _loss("namedtuple", torch.sum)
    x, w, b = (torch.tensor(a, requires_grad=True) for a in (X, W, B))
    y = f(x, Params(w, b))
    assert type(y) is Out
    np.testing.assert_allclose(_np(y.u), W * X**3 + B * X, rtol=1e-12)
    _check_grads(torch.autograd.grad(loss(y), (x, w, b)))
    primals = tuple(torch.tensor(a) for a in (X, W, B))
    grad = torch.func.grad(lambda x, w, b: loss(f(x, Params(w, b))), argnums=(0, 1, 2))
    _check_grads(grad(*primals))
    tangents = tuple(torch.tensor(a) for a in (TX, TW, TB))
    y, y_dot = torch.func.jvp(lambda x, w, b: f(x, Params(w, b)), primals, tangents)
    assert type(y) is Out and type(y_dot) is Out
    _check_tangent("namedtuple", y_dot)
    if rule == "rrule":
        x, w, b = (torch.tensor(a, requires_grad=True) for a in (X, W, B))
        y = crt._custom_op_route(fn)(x, Params(w, b))
        assert type(y) is Out
        _check_grads(torch.autograd.grad(loss(y), (x, w, b)))


@pytest.mark.parametrize("keyword", [False, True], ids=["positional", "keyword"])
@pytest.mark.parametrize(("kind", "out"), PAIRS)
@pytest.mark.parametrize("rule", ["rrule", "frule"])
def test_autograd_bridge_pytrees(rule: str, kind: str, out: str, keyword: bool) -> None:
    """``autograd.grad`` (the frule's derived rrule, or the rrule) and ``make_jvp`` (the rrule's
    derived frule, or the frule) in ``x`` and the container's leaves, and the Hessian in ``x``
    (second order through the derived rule)."""
    autograd = pytest.importorskip("autograd")
    import autograd.numpy as anp
    from autograd import make_jvp

    from chainrules.interop import autograd as crag

    of = _call(crag.wrap(RULES[rule, kind, out]), kind, keyword)
    loss = _loss(out, anp.sum)
    _check_grads(autograd.grad(lambda a: loss(of(*a)))((X, W, B)))
    _check_tangent(out, make_jvp(lambda a: of(*a))((X, W, B))((TX, TW, TB))[1])
    H = autograd.hessian(lambda x: loss(of(x, W, B)))(X)
    np.testing.assert_allclose(H, np.diag(6 * W * X), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("keyword", [False, True], ids=["positional", "keyword"])
@pytest.mark.parametrize(("kind", "out"), PAIRS)
@pytest.mark.parametrize("rule", ["rrule", "frule"])
def test_pytensor_bridge_pytrees(rule: str, kind: str, out: str, keyword: bool) -> None:
    """``pytensor.grad`` (the frule's derived rrule in the pullback Op, or the rrule) and
    ``Rop`` with the Op's ``R_op`` (the rrule's derived frule in the pushforward Op, or the
    frule) in ``x`` and the container's leaves, compiled."""
    pytensor = pytest.importorskip("pytensor")
    import pytensor.tensor as pt
    from pytensor.gradient import Rop

    from chainrules.interop import pytensor as crpt

    of = _call(crpt.wrap(RULES[rule, kind, out]), kind, keyword)
    x, w, b = pt.dvector("x"), pt.dvector("w"), pt.dvector("b")
    tx, tw, tb = pt.dvector("tx"), pt.dvector("tw"), pt.dvector("tb")
    y = of(x, w, b)
    u, v = unpack(out, y, out=True)
    grads = pytensor.grad(u.sum() + 2 * v.sum(), [x, w, b])
    dots = [Rop(e, [x, w, b], [tx, tw, tb], use_op_rop_implementation=True) for e in (u, v)]
    fn = pytensor.function([x, w, b, tx, tw, tb], [*grads, *dots])
    gx, gw, gb, du, dv = fn(X, W, B, TX, TW, TB)
    _check_grads((gx, gw, gb))
    np.testing.assert_allclose(du, DU, rtol=1e-12)
    np.testing.assert_allclose(dv, DV, rtol=1e-12)


def keyword_only(x: Any, *, w: Any) -> Any:
    return w * x


@cr.register_frule(keyword_only)
def _keyword_only_frule(tangents: Any, x: Any, *, w: Any) -> Any:
    return w * x, w * tangents[1]


def test_a_differentiated_keyword_only_array_raises_through_a_derived_rule() -> None:
    """An array that needs a gradient gets it, or the call raises: a keyword-only array given
    to the derived rrule gets no cotangent, so the bridges refuse to differentiate it."""
    torch = pytest.importorskip("torch")
    from chainrules.core.calls import KeywordDerivativeError
    from chainrules.interop import autograd as crag
    from chainrules.interop import torch as crt

    x = torch.tensor(X, requires_grad=True)
    (gx,) = torch.autograd.grad(crt.wrap(keyword_only)(x, w=torch.tensor(W)).sum(), (x,))
    np.testing.assert_allclose(gx.numpy(), W)
    with pytest.raises(KeywordDerivativeError, match=r"keyword_only.*'w'"):
        crt.wrap(keyword_only)(x, w=torch.tensor(W, requires_grad=True))
    autograd = pytest.importorskip("autograd")
    with pytest.raises(KeywordDerivativeError, match=r"keyword_only.*'w'"):
        autograd.grad(lambda w: crag.wrap(keyword_only)(X, w=w).sum())(W)


# --- Keras: its backend is fixed per process, so each runs this file as a script -----------------
def _keras_single(kind: str) -> Any:
    """``(x, p) -> u + 2 v`` with an frule alone: Keras takes one result on its torch backend."""

    def single(x: Any, p: Any) -> Any:
        w, b = unpack(kind, p)
        return w * x**3 + b * x + 2 * (w * b * x)

    single.__name__ = single.__qualname__ = f"single_frule_{kind}"

    @cr.register_frule(single)
    def _frule(tangents: Any, x: Any, p: Any) -> Any:
        _, dx, dp = tangents
        w, b = unpack(kind, p)
        dw, db = unpack(kind, dp)
        return single(x, p), dx * (3 * w * x**2 + b + 2 * w * b) + dw * (x**3 + 2 * b * x) + db * (
            x + 2 * w * x
        )

    return single


def _keras_main() -> None:
    """Print, as JSON, ``kind -> None`` (the gradients of ``sum(single(x, pack(w, b)))`` in
    ``x``, ``w`` and ``b`` are exact, the container passed positionally and by keyword) or the
    failure's traceback."""
    import json
    import traceback

    import keras

    from chainrules.interop import keras as crk

    backend = keras.backend.backend()
    out: dict[str, Any] = {"backend": backend, "kinds": {}}
    for kind in KINDS:
        try:
            f = crk.wrap(_keras_single(kind))
            for keyword in (False, True):
                of = _call(f, kind, keyword)
                if backend == "jax":
                    import jax

                    got = jax.grad(
                        lambda x, w, b, of=of: keras.ops.sum(of(x, w, b)), argnums=(0, 1, 2)
                    )(*(keras.ops.convert_to_tensor(a, dtype="float32") for a in (X, W, B)))
                else:
                    import torch

                    ts = [
                        torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in (X, W, B)
                    ]
                    got = torch.autograd.grad(keras.ops.sum(of(*ts)), ts)
                gx, gw, gb = (keras.ops.convert_to_numpy(g) for g in got)
                np.testing.assert_allclose(gx, GRAD_X, rtol=1e-5)
                np.testing.assert_allclose(gw, GRAD_W, rtol=1e-5)
                np.testing.assert_allclose(gb, GRAD_B, rtol=1e-5)
            out["kinds"][kind] = None
        except Exception:  # noqa: BLE001 -- reported, the test fails on it
            out["kinds"][kind] = traceback.format_exc()[-2000:]
    print(json.dumps(out))


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_keras_bridge_pytree_arguments_of_a_derived_rrule(backend: str, tmp_path: Any) -> None:
    """Keras's ``custom_gradient`` takes a pullback: an frule alone gets its derived rrule, and
    the leaves of dict, tuple, list and named-tuple arguments their exact gradients, on Keras's
    JAX and torch backends (one process each: Keras fixes its backend at import)."""
    import importlib.util
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    for mod in ("keras", backend):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed")
    root = str(Path(cr.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "KERAS_BACKEND": backend,
        "KERAS_HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p),
    }
    r = subprocess.run(
        [sys.executable, __file__], env=env, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert report["backend"] == backend
    assert sorted(report["kinds"]) == sorted(KINDS)
    failed = {k: tb for k, tb in report["kinds"].items() if tb is not None}
    assert not failed, "\n\n".join(f"{k}:\n{tb}" for k, tb in failed.items())


if __name__ == "__main__":
    _keras_main()
