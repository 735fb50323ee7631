"""Issue 26, defects 3 and 4: every array that needs a derivative gets the rule's, or the call
raises -- never a silent ``None`` or zero.

Defect 4: dict, tuple and named-tuple arguments and keyword arguments, in every bridge.
Defect 3: ``torch.compile`` and ``torch.export`` in the torch bridge, checked with a *marker* rule
whose derivatives are 3x the true ones: 3x means the rule was used, 1x that the body was traced.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import chainrules as cr

jax = pytest.importorskip("jax")
torch = pytest.importorskip("torch")
autograd = pytest.importorskip("autograd")
import array_api_compat.torch as ctorch  # noqa: E402
import autograd.numpy as anp  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from chainrules.core.calls import KeywordDerivativeError  # noqa: E402
from chainrules.interop import autograd as crag  # noqa: E402
from chainrules.interop import jax as crjax  # noqa: E402
from chainrules.interop import torch as crtorch  # noqa: E402

_NO = cr.NoTangent()  # module level: NoTangent() called under TorchDynamo breaks the graph

Params = namedtuple("Params", ["w", "b"])


# --- defect 4: a model of parameters in a dict, a tuple or a named tuple -----------------------


# the bodies look up an array namespace, which autograd's boxes do not have: a bridge that hands
# autograd's boxes to the body (instead of the rules) fails, and does not pass by tracing it


@cr.traceable
def affine(x, params):  # type: ignore[no-untyped-def]
    xp = cr.namespace_of(x, params["w"], params["b"])
    return xp.add(xp.multiply(params["w"], x), params["b"])


@cr.register_rrule(affine)
def _affine_rrule(x, params):  # type: ignore[no-untyped-def]
    def pullback(g):  # type: ignore[no-untyped-def]
        return _NO, g * params["w"], cr.Tangent(w=g * x, b=g)

    return affine(x, params), pullback


@cr.register_frule(affine)
def _affine_frule(tangents, x, params):  # type: ignore[no-untyped-def]
    _, dx, dp = tangents
    return affine(x, params), dp["w"] * x + params["w"] * dx + dp["b"]


@cr.traceable
def affine_seq(x, params):  # type: ignore[no-untyped-def]
    w, b = params
    xp = cr.namespace_of(x, w, b)
    return xp.add(xp.multiply(w, x), b)


@cr.register_rrule(affine_seq)
def _affine_seq_rrule(x, params):  # type: ignore[no-untyped-def]
    w, _ = params

    def pullback(g):  # type: ignore[no-untyped-def]
        return _NO, g * w, (g * x, g)  # a plain tuple for a tuple or named tuple

    return affine_seq(x, params), pullback


@cr.register_frule(affine_seq)
def _affine_seq_frule(tangents, x, params):  # type: ignore[no-untyped-def]
    _, dx, dp = tangents
    w, _ = params
    return affine_seq(x, params), dp[0] * x + w * dx + dp[1]


@cr.traceable
def affine_nested(x, params):  # type: ignore[no-untyped-def]
    w, (b,) = params["layer"]
    xp = cr.namespace_of(x, w, b)
    return xp.add(xp.multiply(w, x), b)


@cr.register_rrule(affine_nested)
def _affine_nested_rrule(x, params):  # type: ignore[no-untyped-def]
    w, _ = params["layer"]

    def pullback(g):  # type: ignore[no-untyped-def]
        return _NO, g * w, cr.Tangent(layer=(g * x, [g]))  # a dict of a tuple holding a list

    return affine_nested(x, params), pullback


@cr.register_frule(affine_nested)
def _affine_nested_frule(tangents, x, params):  # type: ignore[no-untyped-def]
    _, dx, dp = tangents
    w, _ = params["layer"]
    dw, (db,) = dp["layer"]
    return affine_nested(x, params), dw * x + w * dx + db


def scale_kwonly(x, *, w):  # type: ignore[no-untyped-def]
    return w * x


@cr.register_rrule(scale_kwonly)
def _scale_kwonly_rrule(x, *, w):  # type: ignore[no-untyped-def]
    return w * x, lambda g: (_NO, g * w)


@cr.register_frule(scale_kwonly)
def _scale_kwonly_frule(tangents, x, *, w):  # type: ignore[no-untyped-def]
    return w * x, w * tangents[1]


X = np.array([1.0, 2.0, -0.5])
W = np.array([3.0, 4.0, 0.25])
B = np.array([0.5, -1.0, 2.0])
BRIDGES = ["jax-jvp", "jax-vjp", "torch", "autograd"]


def _grad_of_params(bridge, f, pack, keyword):  # type: ignore[no-untyped-def]
    """d sum(f(x, params)) / d(w, b) through ``bridge``, ``params = pack(w, b)`` passed
    positionally or by keyword; returns (dw, db) as NumPy arrays."""

    def call(g, x, p):  # type: ignore[no-untyped-def]
        return g(x, params=p) if keyword else g(x, p)

    # the engines differentiate with respect to (w, b); the bridge sees pack(w, b)
    if bridge.startswith("jax"):
        g = crjax.wrap(f, mode=bridge[4:])
        out = jax.grad(lambda wb: jnp.sum(call(g, jnp.asarray(X), pack(*wb))))(
            (jnp.asarray(W), jnp.asarray(B))
        )
        return np.asarray(out[0]), np.asarray(out[1])
    if bridge == "torch":
        g = crtorch.wrap(f)
        w = torch.tensor(W, requires_grad=True)
        b = torch.tensor(B, requires_grad=True)
        gw, gb = torch.autograd.grad(call(g, torch.tensor(X), pack(w, b)).sum(), (w, b))
        return gw.numpy(), gb.numpy()
    g = crag.wrap(f)
    out = autograd.grad(lambda wb: anp.sum(call(g, X, pack(*wb))))((W, B))
    return out[0], out[1]


PACKS = {
    "dict": (affine, lambda w, b: {"w": w, "b": b}),
    "tuple": (affine_seq, lambda w, b: (w, b)),
    "namedtuple": (affine_seq, Params),
    "list": (affine_seq, lambda w, b: [w, b]),
    "nested": (affine_nested, lambda w, b: {"layer": (w, [b])}),
}


@pytest.mark.parametrize("keyword", [False, True], ids=["positional", "keyword"])
@pytest.mark.parametrize("pack", list(PACKS))
@pytest.mark.parametrize("bridge", BRIDGES)
def test_defect4_structured_parameters_are_differentiated(bridge, pack, keyword):  # type: ignore[no-untyped-def]
    f, make = PACKS[pack]
    dw, db = _grad_of_params(bridge, f, make, keyword)
    np.testing.assert_allclose(dw, X)
    np.testing.assert_allclose(db, np.ones_like(B))


@pytest.mark.parametrize("bridge", ["jax-jvp", "autograd"])
def test_defect4_engine_boxes_the_whole_dict(bridge):  # type: ignore[no-untyped-def]
    # jax.grad / autograd.grad of a function of a dict: the engine's own container
    p = {"w": W, "b": B}
    if bridge == "jax-jvp":
        g = crjax.wrap(affine)
        out = jax.grad(lambda p: jnp.sum(g(jnp.asarray(X), p)))(jax.tree.map(jnp.asarray, p))
    else:
        g = crag.wrap(affine)
        out = autograd.grad(lambda p: anp.sum(g(X, p)))(p)
    np.testing.assert_allclose(np.asarray(out["w"]), X)
    np.testing.assert_allclose(np.asarray(out["b"]), np.ones_like(B))


@pytest.mark.parametrize("bridge", BRIDGES)
def test_defect4_keyword_only_array_that_is_differentiated_raises(bridge):  # type: ignore[no-untyped-def]
    match = r"scale_kwonly.*keyword argument 'w'"
    if bridge.startswith("jax"):
        g = crjax.wrap(scale_kwonly, mode=bridge[4:])
        x = jnp.asarray(X)
        # a constant keyword is fine; differentiating it raises
        gx = jax.grad(lambda x: jnp.sum(g(x, w=jnp.asarray(W))))(x)
        np.testing.assert_allclose(np.asarray(gx), W)
        with pytest.raises(KeywordDerivativeError, match=match):
            jax.grad(lambda w: jnp.sum(g(x, w=w)))(jnp.asarray(W))
    elif bridge == "torch":
        g = crtorch.wrap(scale_kwonly)
        x = torch.tensor(X, requires_grad=True)
        (gx,) = torch.autograd.grad(g(x, w=torch.tensor(W)).sum(), (x,))
        np.testing.assert_allclose(gx.numpy(), W)
        with pytest.raises(KeywordDerivativeError, match=match):
            g(x, w=torch.tensor(W, requires_grad=True))
    else:
        g = crag.wrap(scale_kwonly)
        gx = autograd.grad(lambda x: anp.sum(g(x, w=W)))(X)
        np.testing.assert_allclose(gx, W)
        with pytest.raises(KeywordDerivativeError, match=match):
            autograd.grad(lambda w: anp.sum(g(X, w=w)))(W)


@pytest.mark.parametrize("bridge", ["jax-jvp", "torch", "autograd"])
def test_defect4_forward_mode_through_a_dict(bridge):  # type: ignore[no-untyped-def]
    # the frule receives a Tangent of named fields for the dict argument
    want = X * B + W * 0.0 + B  # tangent (x_dot=0, w_dot=B, b_dot=B) of w * x + b
    if bridge == "jax-jvp":
        g = crjax.wrap(affine)
        p = {"w": jnp.asarray(W), "b": jnp.asarray(B)}
        t = {"w": jnp.asarray(B), "b": jnp.asarray(B)}
        _, got = jax.jvp(lambda p: g(jnp.asarray(X), p), (p,), (t,))
    elif bridge == "torch":
        g = crtorch.wrap(affine)
        p = {"w": torch.tensor(W), "b": torch.tensor(B)}
        t = {"w": torch.tensor(B), "b": torch.tensor(B)}
        _, got = torch.func.jvp(lambda p: g(torch.tensor(X), p), (p,), (t,))
    else:
        from autograd import make_jvp

        g = crag.wrap(affine)
        got = make_jvp(lambda p: g(X, p))({"w": W, "b": B})({"w": B, "b": B})[1]
    np.testing.assert_allclose(np.asarray(got), want)


# --- results: a dict, a list, a named tuple (a rule with both modes) ---------------------------

Moments = namedtuple("Moments", ["first", "second"])
RESULTS = {
    "dict": (lambda a, b: {"first": a, "second": b}, lambda y: (y["first"], y["second"])),
    "list": (lambda a, b: [a, b], lambda y: (y[0], y[1])),
    "namedtuple": (Moments, lambda y: (y[0], y[1])),  # autograd's box of it has no .first
}


def _moments(kind):  # type: ignore[no-untyped-def]
    """``x -> pack(w x, w x^2)`` with both rules, ``w = W``, its result a ``kind``."""
    make, parts = RESULTS[kind]

    def moments(x):  # type: ignore[no-untyped-def]
        w = cr.namespace_of(x).asarray(W)
        return make(w * x, w * x * x)

    moments.__name__ = f"moments_{kind}"

    @cr.register_rrule(moments)
    def _rrule(x):  # type: ignore[no-untyped-def]
        w = cr.namespace_of(x).asarray(W)

        def pullback(y_bar):  # type: ignore[no-untyped-def]
            a, b = parts(y_bar)
            return _NO, a * w + b * (2 * w * x)

        return moments(x), pullback

    @cr.register_frule(moments)
    def _frule(tangents, x):  # type: ignore[no-untyped-def]
        dx, w = tangents[1], cr.namespace_of(x).asarray(W)
        return moments(x), make(w * dx, 2 * w * x * dx)

    return moments


MOMENTS = {k: _moments(k) for k in RESULTS}


@pytest.mark.parametrize(("bridge", "kind"), [(b, k) for b in BRIDGES for k in RESULTS])
def test_results_are_pytrees(bridge, kind):  # type: ignore[no-untyped-def]
    """A dict, list or named-tuple result: d(sum(first) + 3 sum(second))/dx = W + 6 W x, the
    result's own structure back. (The torch bridge's Function returns the leaves as a flat tuple,
    which PyTorch records, and the bridge rebuilds the structure.)"""
    f = MOMENTS[kind]
    _, parts = RESULTS[kind]
    want = W + 6 * W * X
    if bridge.startswith("jax"):
        g = crjax.wrap(f, mode=bridge[4:])
        y = g(jnp.asarray(X))
        got = jax.grad(lambda x: jnp.sum(parts(g(x))[0]) + 3 * jnp.sum(parts(g(x))[1]))(
            jnp.asarray(X)
        )
    elif bridge == "torch":
        g = crtorch.wrap(f)
        x = torch.tensor(X, requires_grad=True)
        y = g(x)
        a, b = parts(y)
        (got,) = torch.autograd.grad(a.sum() + 3 * b.sum(), (x,))
    else:
        g = crag.wrap(f)
        y = g(X)
        got = autograd.grad(lambda x: anp.sum(parts(g(x))[0]) + 3 * anp.sum(parts(g(x))[1]))(X)
    np.testing.assert_allclose(np.asarray(got.detach() if bridge == "torch" else got), want)
    assert type(y) is type(RESULTS[kind][0](X, X))


def test_torch_keeps_a_named_tuple_result():  # type: ignore[no-untyped-def]
    """The torch bridge's named-tuple result comes back as that named tuple, not a plain
    tuple (PyTorch's Function.apply returns a plain one)."""
    y = crtorch.wrap(MOMENTS["namedtuple"])(torch.tensor(X, requires_grad=True))
    assert type(y) is Moments


# --- defect 3: torch.compile and torch.export, with a marker rule ------------------------------


def cube(x):  # type: ignore[no-untyped-def]
    return x * x * x


@cr.register_rrule(cube)
def _cube_rrule(x):  # type: ignore[no-untyped-def]
    return cube(x), lambda g: (_NO, 3 * (g * 3 * x * x))  # 3x the true derivative


@cr.register_frule(cube)
def _cube_frule(tangents, x):  # type: ignore[no-untyped-def]
    return cube(x), 3 * (tangents[1] * 3 * x * x)  # 3x the true tangent


XT = torch.tensor([1.0, 2.0, -0.5], dtype=torch.float64)
TRUE = 3 * XT * XT


def _loss(c):  # type: ignore[no-untyped-def]
    return lambda x: torch.sum(c(x))


def _eager(c):  # type: ignore[no-untyped-def]
    x = XT.clone().requires_grad_()
    _loss(c)(x).backward()
    return x.grad


def _vjp(c):  # type: ignore[no-untyped-def]
    return torch.func.vjp(c, XT)[1](torch.ones_like(XT))[0]


CELLS = {
    "eager-backward": _eager,
    "func.grad": lambda c: torch.func.grad(_loss(c))(XT),
    "func.vjp": _vjp,
    "func.jacrev": lambda c: torch.func.jacrev(c)(XT).diagonal(),
    "func.jacfwd": lambda c: torch.func.jacfwd(c)(XT).diagonal(),
}


@pytest.mark.parametrize("cell", list(CELLS))
def test_defect3_eager_cells_use_the_rule(cell):  # type: ignore[no-untyped-def]
    got = CELLS[cell](crtorch.wrap(cube))
    torch.testing.assert_close(got, 3 * TRUE)


def COMPILE_WARNINGS(f):  # type: ignore[no-untyped-def]
    f = pytest.mark.filterwarnings("ignore::UserWarning")(f)
    return pytest.mark.filterwarnings("ignore::DeprecationWarning")(f)


@COMPILE_WARNINGS
def test_defect3_compiled_func_grad_of_matmul_of_two_dependent_operands():  # type: ignore[no-untyped-def]
    # Dynamo's needs_input_grad said the first operand needs no gradient (it was dropped)
    torch._dynamo.reset()
    mm = crtorch.wrap(ctorch.matmul)
    x = torch.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=torch.float64)

    def loss(mm, x):  # type: ignore[no-untyped-def]
        return torch.sum(mm(x, x * 2.0 + 1.0) ** 2)

    got = torch.compile(torch.func.grad(lambda x: loss(mm, x)), fullgraph=True)(x)
    torch.testing.assert_close(got, torch.func.grad(lambda x: loss(torch.matmul, x))(x))


def _compile(f):  # type: ignore[no-untyped-def]
    # aot_eager: Dynamo and AOTAutograd trace everything the bridge decides; inductor would only
    # generate kernels for the same graphs (test_torch.py compiles with it)
    return torch.compile(f, backend="aot_eager", fullgraph=True)


def _compiled_backward(c):  # type: ignore[no-untyped-def]
    x = XT.clone().requires_grad_()
    _compile(_loss(c))(x).backward()
    return x.grad


# the marker's rules give 3x the true derivatives; its pullback is made of torch's own
# functions, so the Hessian through its rules is 3x the true one (18x against 6x)
COMPILED = {
    "backward": (_compiled_backward, 3 * TRUE),
    "func.grad": (lambda c: _compile(torch.func.grad(_loss(c)))(XT), 3 * TRUE),
    "func.vjp": (lambda c: _compile(_vjp)(c), 3 * TRUE),
    "func.jacrev": (
        lambda c: _compile(torch.func.jacrev(c))(XT).diagonal(),
        3 * TRUE,
    ),
    "func.jacfwd": (
        lambda c: _compile(torch.func.jacfwd(c))(XT).diagonal(),
        3 * TRUE,
    ),
    "func.hessian": (
        lambda c: _compile(torch.func.hessian(_loss(c)))(XT).diagonal(),
        3 * 6 * XT,
    ),
    "func.vmap(grad)": (
        lambda c: _compile(torch.func.vmap(torch.func.grad(_loss(c))))(torch.stack([XT, XT]))[1],
        3 * TRUE,
    ),
}


@COMPILE_WARNINGS
@pytest.mark.parametrize("cell", list(COMPILED))
def test_defect3_compiled_transforms_use_the_rule(cell):  # type: ignore[no-untyped-def]
    """Under ``torch.compile`` (a cold cache, ``fullgraph=True``) every transformation uses the
    marker's rules: the bridged call runs opaque to TorchDynamo (``nonstrict_trace``), so the
    forward-mode transforms work too (they raised ``RuleNotUsedError``)."""
    torch._dynamo.reset()
    run, want = COMPILED[cell]
    torch.testing.assert_close(run(crtorch.wrap(cube)), want)


def test_defect3_export_then_backward_uses_the_rule():  # type: ignore[no-untyped-def]
    c = crtorch.wrap(cube)

    class M(torch.nn.Module):
        def forward(self, x):  # type: ignore[no-untyped-def]
            return torch.sum(c(x))

    ep = torch.export.export(M(), (XT.clone(),))
    x = XT.clone().requires_grad_()
    ep.module()(x).backward()
    torch.testing.assert_close(x.grad, 3 * TRUE)  # the rule's (marker) derivative
