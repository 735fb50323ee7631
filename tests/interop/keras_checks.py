"""The Keras bridge's checks on one Keras backend, run by ``test_keras.py`` in a process of their
own (Keras fixes its backend per process, from ``KERAS_BACKEND``):
``KERAS_BACKEND=jax python tests/interop/keras_checks.py`` prints one JSON object on its last
line, ``{check: null}`` for a check that passed and ``{check: "what failed"}`` for one that did
not. Never collected by pytest (``conftest.py``): importing it imports Keras.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

import array_api_compat
import keras
import numpy as np
import pytest

import chainrules as cr
from chainrules.core.calls import KeywordDerivativeError
from chainrules.interop import keras as crk

BACKEND = keras.backend.backend()
XP = array_api_compat.array_namespace(keras.ops.zeros(1))  # jax.numpy / array_api_compat.torch
_NO = cr.NoTangent()

if BACKEND == "jax":
    import jax
    import jax.numpy as jnp
elif BACKEND == "torch":
    import torch


def tensor(a: Any, dtype: str = "float32") -> Any:
    return keras.ops.convert_to_tensor(np.asarray(a), dtype=dtype)


def to_numpy(t: Any) -> np.ndarray:
    return np.asarray(keras.ops.convert_to_numpy(t))


def grads(loss: Callable[[dict[str, Any]], Any], params: dict[str, Any]) -> dict[str, np.ndarray]:
    """The gradient of the scalar ``loss(params)`` in each entry of ``params``, by the backend's
    own reverse mode (``jax.grad``; ``backward`` on torch), as NumPy arrays. A parameter left
    without a gradient (``None`` on torch) fails."""
    if BACKEND == "jax":
        g = jax.grad(loss)(params)
        return {k: to_numpy(v) for k, v in g.items()}
    leaves = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    loss(leaves).backward()
    out = {}
    for k, v in leaves.items():
        assert v.grad is not None, f"{k} got no gradient (None)"
        out[k] = to_numpy(v.grad)
    return out


# --- test-local functions and their rules --------------------------------------------------------


def cube(x):  # type: ignore[no-untyped-def]
    return x * x * x


@cr.register_rrule(cube)
def _cube_rrule(x):  # type: ignore[no-untyped-def]
    # the marker: 3x the true derivative. 3x means the rule was used, 1x that the body was
    return cube(x), lambda g: (_NO, 3 * (g * 3 * x * x))


def affine(x, params, axis):  # type: ignore[no-untyped-def]
    """``sum(w * x + b, axis=axis)`` of an ``(n, d)`` ``x`` (``axis`` 1 or -1): a dict of
    parameters and a static axis."""
    xp = array_api_compat.array_namespace(x)
    return xp.sum(params["w"] * x + params["b"], axis=axis)


@cr.register_rrule(affine)
def _affine_rrule(x, params, axis):  # type: ignore[no-untyped-def]
    xp = array_api_compat.array_namespace(x)

    def pullback(g):  # type: ignore[no-untyped-def]
        g = xp.expand_dims(g, axis=axis)  # (n, 1): the rows' cotangents
        w_bar = xp.sum(g * x, axis=0)
        b_bar = xp.sum(g * xp.ones_like(x), axis=0)
        return _NO, g * params["w"], cr.Tangent(w=w_bar, b=b_bar), _NO

    return affine(x, params, axis), pullback


def weighted(x, pair):  # type: ignore[no-untyped-def]
    """``x * pair[0] + pair[1][0]``: a tuple holding a nested list."""
    return x * pair[0] + pair[1][0]


@cr.register_rrule(weighted)
def _weighted_rrule(x, pair):  # type: ignore[no-untyped-def]
    w = pair[0]
    return weighted(x, pair), lambda g: (_NO, g * w, (g * x, [g]))


def scale_kwonly(x, *, w):  # type: ignore[no-untyped-def]
    return w * x


@cr.register_rrule(scale_kwonly)
def _scale_kwonly_rrule(x, *, w):  # type: ignore[no-untyped-def]
    return w * x, lambda g: (_NO, g * w)


def scaled(x, w):  # type: ignore[no-untyped-def]
    return w * x


@cr.register_rrule(scaled)
def _scaled_rrule(x, w):  # type: ignore[no-untyped-def]
    # a ZeroTangent for w, which the engine asks for: the bridge must give zeros, never None
    return w * x, lambda g: (_NO, g * w, cr.ZeroTangent())


def gather(x, idx):  # type: ignore[no-untyped-def]
    xp = array_api_compat.array_namespace(x)
    return xp.take(x, idx, axis=0)


@cr.register_rrule(gather)
def _gather_rrule(x, idx):  # type: ignore[no-untyped-def]
    xp = array_api_compat.array_namespace(x)

    def pullback(g):  # type: ignore[no-untyped-def]
        n = x.shape[0]
        onehot = xp.astype(xp.arange(n)[:, None] == idx[None, :], g.dtype)
        return _NO, xp.sum(onehot * g[None, :], axis=1), _NO

    return gather(x, idx), pullback


def sincos(x):  # type: ignore[no-untyped-def]
    xp = array_api_compat.array_namespace(x)
    return xp.sin(x), xp.cos(x)


@cr.register_rrule(sincos)
def _sincos_rrule(x):  # type: ignore[no-untyped-def]
    xp = array_api_compat.array_namespace(x)
    return sincos(x), lambda g: (_NO, g[0] * xp.cos(x) - g[1] * xp.sin(x))


def sincos_mixed(x):  # type: ignore[no-untyped-def]
    """sin and cos of ``x``, the cosine in another floating dtype."""
    xp = array_api_compat.array_namespace(x)
    return xp.sin(x), xp.astype(xp.cos(x), xp.float64)


@cr.register_rrule(sincos_mixed)
def _sincos_mixed_rrule(x):  # type: ignore[no-untyped-def]
    xp = array_api_compat.array_namespace(x)
    return sincos_mixed(x), lambda g: (_NO, g[0] * xp.cos(x))


def no_rule(x):  # type: ignore[no-untyped-def]
    return x


CALLS = {"lse_pullback": 0}


def row_lse(x):  # type: ignore[no-untyped-def]
    """log(sum(exp(x))) over the last axis (keepdims), without overflow."""
    xp = array_api_compat.array_namespace(x)
    m = xp.max(x, axis=-1, keepdims=True)
    return xp.log(xp.sum(xp.exp(x - m), axis=-1, keepdims=True)) + m


@cr.register_rrule(row_lse)
def _row_lse_rrule(x):  # type: ignore[no-untyped-def]
    xp = array_api_compat.array_namespace(x)
    y = row_lse(x)

    def pullback(g):  # type: ignore[no-untyped-def]
        CALLS["lse_pullback"] += 1  # counts calls (and JAX's traces) of the pullback
        return _NO, g * xp.exp(x - y)

    return y, pullback


# --- the model: a layer that calls wrapped functions --------------------------------------------

NORM = crk.wrap(XP.linalg.vector_norm)  # the standard's rule, for this backend's namespace
LSE = crk.wrap(row_lse)  # a user's rule


class Pool(keras.layers.Layer):
    """``[h, ||h||, logsumexp(h)]`` over the last axis: through the bridge, or Keras's own ops."""

    def __init__(self, bridged: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bridged = bridged

    def call(self, h):  # type: ignore[no-untyped-def]
        if self.bridged:
            n, s = NORM(h, axis=-1, keepdims=True), LSE(h)
        else:
            n = keras.ops.norm(h, axis=-1, keepdims=True)
            s = keras.ops.logsumexp(h, axis=-1, keepdims=True)
        return keras.ops.concatenate([h, n, s], axis=-1)


def model(bridged: bool) -> Any:
    keras.utils.set_random_seed(0)
    inp = keras.Input((4,))
    h = keras.layers.Dense(8, activation="tanh")(inp)
    h = Pool(bridged)(h)
    out = keras.layers.Dense(1)(h)
    return keras.Model(inp, out)


RNG = np.random.default_rng(0)
X = RNG.normal(size=(64, 4)).astype("float32")
Y = (np.sin(X[:, :1]) + np.linalg.norm(X, axis=1, keepdims=True)).astype("float32")


def model_gradients(m: Any) -> list[np.ndarray]:
    """The gradient of the mean squared error in each trainable weight of ``m``, by the backend's
    own reverse mode."""
    x, y = tensor(X), tensor(Y)
    if BACKEND == "jax":
        ntv = [v.value for v in m.non_trainable_variables]

        def loss(tv):  # type: ignore[no-untyped-def]
            pred, _ = m.stateless_call(tv, ntv, x)
            return jnp.mean((pred - y) ** 2)

        return [to_numpy(g) for g in jax.grad(loss)([v.value for v in m.trainable_variables])]
    for v in m.trainable_variables:
        v.value.grad = None
    keras.ops.mean((m(x) - y) ** 2).backward()
    out = []
    for v in m.trainable_variables:
        assert v.value.grad is not None, f"{v.path}: no gradient"
        out.append(to_numpy(v.value.grad))
    return out


# --- the checks ----------------------------------------------------------------------------------


def check_marker() -> None:
    """The marker rule's 3x reaches the backend's gradient: eagerly, under ``jit`` (JAX), and
    through a layer's weight inside a Keras model."""
    x = tensor([0.5, -1.0, 2.0])
    true = 3 * to_numpy(x) ** 2
    got = grads(lambda p: keras.ops.sum(crk.wrap(cube)(p["x"])), {"x": x})["x"]
    np.testing.assert_allclose(got, 3 * true, rtol=1e-6)
    if BACKEND == "jax":
        f = jax.jit(jax.grad(lambda v: jnp.sum(crk.wrap(cube)(v))))
        np.testing.assert_allclose(to_numpy(f(x)), 3 * true, rtol=1e-6)

    layer = Cube()
    inp = tensor([[1.0, 2.0, -1.0]])
    layer(inp)  # builds the weight (w = 1)
    if BACKEND == "jax":

        def loss(w):  # type: ignore[no-untyped-def]
            out, _ = layer.stateless_call([w], [], inp)
            return jnp.sum(out)

        gw = to_numpy(jax.grad(loss)(layer.w.value))
    else:
        keras.ops.sum(layer(inp)).backward()
        gw = to_numpy(layer.w.value.grad)
    xv = to_numpy(inp)[0]
    np.testing.assert_allclose(gw, 3 * (3 * xv**3), rtol=1e-6)  # d/dw (w x)^3 = 3 w^2 x^3


class Cube(keras.layers.Layer):
    """``cube(w) * h**3``, the marker rule given the layer's weight ``w`` (a ``keras.Variable``,
    ones) itself: ``(w h)^3``, whose rule-made derivative in ``w`` is ``3 * 3 w^2 h^3``."""

    def build(self, shape):  # type: ignore[no-untyped-def]
        self.w = self.add_weight(shape=shape[1:], initializer="ones")

    def call(self, h):  # type: ignore[no-untyped-def]
        return crk.wrap(cube)(self.w) * (h * h * h)


def check_marker_in_fit() -> None:
    """One SGD step of ``model.fit`` on ``sum(cube(w * x))``, with Keras's train step compiled
    (``jit_compile=True``: ``jax.jit`` on JAX, ``torch.compile`` on torch) and, on torch, eager
    too: the step is the marker's 3x (``w - lr * 3 * 3 w^2 x^3`` at ``w = 1``)."""
    xv = np.array([[1.0, 2.0, -1.0]], dtype="float32")
    for jit in (True, False) if BACKEND == "torch" else (True,):
        inp = keras.Input((3,))
        m = keras.Model(inp, Cube()(inp))
        m.compile(
            optimizer=keras.optimizers.SGD(0.01),
            loss=lambda y, p: keras.ops.sum(p),
            jit_compile=jit,
        )
        m.fit(xv, xv, epochs=1, batch_size=1, verbose=0)
        (w,) = m.trainable_weights
        want = 1 - 0.01 * 3 * (3 * xv[0] ** 3)
        np.testing.assert_allclose(to_numpy(w), want, rtol=1e-6, err_msg=f"jit_compile={jit}")


def check_pytree_arguments() -> None:
    """Arrays in a dict (keyword-moved too) and a tuple holding a list get their gradients; an
    axis passes through as a static leaf."""
    f = crk.wrap(affine)
    x, w, b = tensor([[1.0, 2.0], [3.0, 4.0]]), tensor([0.5, -1.0]), tensor([2.0, 3.0])
    for by_keyword in (False, True):

        def loss(p, kw=by_keyword):  # type: ignore[no-untyped-def]
            params = {"w": p["w"], "b": p["b"]}
            y = f(p["x"], params=params, axis=1) if kw else f(p["x"], params, 1)
            return keras.ops.sum(y * tensor([1.0, 2.0]))

        g = grads(loss, {"x": x, "w": w, "b": b})
        gy = np.array([[1.0], [2.0]])
        np.testing.assert_allclose(g["w"], (gy * to_numpy(x)).sum(0), rtol=1e-6)
        np.testing.assert_allclose(g["b"], np.full(2, 3.0), rtol=1e-6)
        np.testing.assert_allclose(g["x"], gy * to_numpy(w)[None, :], rtol=1e-6)
    h = crk.wrap(weighted)
    g = grads(
        lambda p: keras.ops.sum(h(p["x"], (p["w"], [p["b"]])) * tensor([1.0, 3.0])),
        {"x": tensor([1.0, 2.0]), "w": tensor([4.0, 5.0]), "b": tensor([0.0, 1.0])},
    )
    np.testing.assert_allclose(g["w"], [1.0, 6.0], rtol=1e-6)
    np.testing.assert_allclose(g["b"], [1.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(g["x"], [4.0, 15.0], rtol=1e-6)


def check_keyword_only() -> None:
    """A keyword-only array the backend differentiates raises ``KeywordDerivativeError``; a
    constant one is fine and ``x`` gets its gradient."""
    f = crk.wrap(scale_kwonly)
    x, w = tensor([1.0, 2.0]), tensor([3.0, 4.0])
    with pytest.raises(KeywordDerivativeError, match=r"scale_kwonly.*'w'"):
        grads(lambda p: keras.ops.sum(f(p["x"], w=p["w"])), {"x": x, "w": w})
    g = grads(lambda p: keras.ops.sum(f(p["x"], w=w)), {"x": x})
    np.testing.assert_allclose(g["x"], [3.0, 4.0])


def check_zero_cotangent_is_zeros() -> None:
    """A rule's ``ZeroTangent`` for an input that needs a gradient arrives as zeros, not None."""
    f = crk.wrap(scaled)
    g = grads(lambda p: keras.ops.sum(f(p["x"], p["w"])), {"x": tensor([1.0]), "w": tensor([2.0])})
    np.testing.assert_array_equal(g["w"], [0.0])
    np.testing.assert_allclose(g["x"], [2.0])


def check_integer_leaf() -> None:
    """An index array passes through the bridge (no gradient); the data gets its own."""
    f = crk.wrap(gather)
    idx = tensor([2, 0, 2], dtype="int32")
    weights = tensor([1.0, 2.0, 3.0])
    g = grads(lambda p: keras.ops.sum(f(p["x"], idx) * weights), {"x": tensor([5.0, 6.0, 7.0])})
    np.testing.assert_allclose(g["x"], [2.0, 0.0, 4.0])


def check_fit_halves_the_loss() -> None:
    """``model.fit`` with a Keras optimizer, 100 full-batch steps, a layer calling two wrapped
    functions: the loss falls by at least half, and the rule's pullback ran."""
    m = model(bridged=True)
    m.compile(optimizer=keras.optimizers.Adam(0.02), loss="mse")
    before = CALLS["lse_pullback"]
    hist = m.fit(X, Y, batch_size=len(X), epochs=100, verbose=0, shuffle=False).history["loss"]
    assert len(hist) == 100
    assert hist[-1] <= 0.5 * hist[0], f"loss {hist[0]} -> {hist[-1]}"
    assert CALLS["lse_pullback"] > before, "the rule's pullback never ran"
    print(f"{BACKEND}: loss {hist[0]:.4f} -> {hist[-1]:.4f} in 100 steps", file=sys.stderr)


def check_gradients_match_native() -> None:
    """The bridged model's gradients against the same model with Keras's own ``norm`` and
    ``logsumexp`` (same initial weights), in every trainable weight."""
    gb, gn = model_gradients(model(bridged=True)), model_gradients(model(bridged=False))
    assert len(gb) == len(gn) == 4
    for a, b in zip(gb, gn, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    worst = max(float(np.max(np.abs(a - b))) for a, b in zip(gb, gn, strict=True))
    print(f"{BACKEND}: largest gradient difference {worst:.3g}", file=sys.stderr)


def check_second_order() -> None:
    """The Hessian of ``||x||`` through the bridge: JAX's ``jacrev(grad)``; torch's
    ``create_graph=True`` backward, differentiated again."""
    xv = np.array([3.0, 4.0], dtype="float32")
    r = np.linalg.norm(xv)
    want = (np.eye(2) * r**2 - np.outer(xv, xv)) / r**3
    if BACKEND == "jax":
        hess = jax.jacrev(jax.grad(lambda v: NORM(v)))(tensor(xv))
        got = to_numpy(hess)
    else:
        xt = tensor(xv).requires_grad_(True)
        (g,) = torch.autograd.grad(NORM(xt), xt, create_graph=True)
        rows = [torch.autograd.grad(g[i], xt, retain_graph=True)[0] for i in range(2)]
        got = np.stack([to_numpy(r) for r in rows])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def check_transformations() -> None:
    """JAX: ``vmap(grad)``, ``jacrev`` and ``hessian`` (forward over reverse) under ``jit`` give
    the rule's values; ``jvp`` and ``jacfwd`` raise (a ``custom_vjp``). torch:
    ``torch.func.grad``, ``torch.func.vmap`` and forward-mode AD raise the bridge's
    ``NotImplementedError`` naming the transformation and the function (Keras's Function has
    neither ``setup_context`` nor ``jvp``: torch's own errors came from inside it), and leave
    torch's state as it was; ``torch.compile(fullgraph=True)`` of a backward pass uses the rule
    with no graph break (Dynamo broke the graph in the rules' Python)."""
    f = crk.wrap(cube)
    xs = tensor([[1.0, 2.0], [-1.0, 0.5]])
    want = 3 * 3 * to_numpy(xs) ** 2
    if BACKEND == "jax":
        got = jax.jit(jax.vmap(jax.grad(lambda v: jnp.sum(f(v)))))(xs)
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-6)
        jac = jax.jit(jax.jacrev(f))(xs[0])
        np.testing.assert_allclose(to_numpy(jac), np.diag(want[0]), rtol=1e-6)
        with pytest.raises(TypeError, match="custom_vjp"):
            jax.jvp(f, (xs,), (xs,))
        with pytest.raises(TypeError, match="custom_vjp"):
            jax.jacfwd(f)(xs)
        # forward over reverse: JAX's forward mode sees the custom_vjp's forward and its traced
        # pullback as plain operations, so the Hessian is the marker's: 3x the true 6x
        hess = jax.jit(jax.hessian(lambda v: jnp.sum(f(v))))(xs[0])
        np.testing.assert_allclose(to_numpy(hess), 3 * np.diag(6 * to_numpy(xs[0])), rtol=1e-6)
        return
    with pytest.raises(NotImplementedError, match=r"torch.func's grad of .*cube.*setup_context"):
        torch.func.grad(lambda v: f(v).sum())(xs)
    with pytest.raises(NotImplementedError, match=r"torch.func's vmap of .*cube"):
        torch.func.vmap(f)(xs)
    import torch.autograd.forward_ad as fwad

    with (
        pytest.raises(NotImplementedError, match=r"forward-mode AD .* of .*cube"),
        fwad.dual_level(),
    ):
        fwad.unpack_dual(f(fwad.make_dual(xs, torch.ones_like(xs))))
    assert not torch._C._are_functorch_transforms_active()
    # nothing left behind: a dual level opens, and the same function works eagerly
    with fwad.dual_level():
        pass
    v = xs.clone().requires_grad_(True)
    f(v).sum().backward()
    np.testing.assert_allclose(to_numpy(v.grad), want, rtol=1e-6)
    torch._dynamo.reset()  # a cold cache
    v = xs.clone().requires_grad_(True)
    torch.compile(lambda u: f(u).sum(), fullgraph=True, backend="aot_eager")(v).backward()
    np.testing.assert_allclose(to_numpy(v.grad), want, rtol=1e-6)


def check_tuple_output() -> None:
    """A function of two outputs: both are differentiated, on JAX (``custom_vjp`` takes a tuple)
    and on torch, where Keras's ``backward`` takes one upstream gradient: the bridge packs the
    outputs into one tensor (eagerly, under ``torch.compile(fullgraph=True)``, and to second
    order). Outputs of two floating dtypes cannot be packed: ``TypeError`` naming the function."""
    f = crk.wrap(sincos)
    x = tensor([0.3, 1.1])
    xv = to_numpy(x)
    want = np.cos(xv) - 2 * np.sin(xv)

    def loss(p: dict[str, Any]) -> Any:
        s, c = f(p["x"])
        return keras.ops.sum(s + 2 * c)

    np.testing.assert_allclose(grads(loss, {"x": x})["x"], want, rtol=1e-6)
    if BACKEND == "jax":
        return
    s, c = f(x)
    np.testing.assert_allclose(to_numpy(s), np.sin(xv), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(c), np.cos(xv), rtol=1e-6)
    torch._dynamo.reset()
    v = x.clone().requires_grad_(True)
    torch.compile(lambda u: loss({"x": u}), fullgraph=True, backend="aot_eager")(v).backward()
    np.testing.assert_allclose(to_numpy(v.grad), want, rtol=1e-6)
    # second order: d/dx (cos x - 2 sin x) = -sin x - 2 cos x
    h = torch.autograd.functional.hessian(lambda u: loss({"x": u}), x)
    np.testing.assert_allclose(to_numpy(h), np.diag(-np.sin(xv) - 2 * np.cos(xv)), rtol=1e-5)
    with pytest.raises(
        TypeError, match=r"sincos_mixed returned outputs of dtypes .*float32, .*float64"
    ):
        crk.wrap(sincos_mixed)(x)


def check_complex_input() -> None:
    """The gradient of a real loss of a complex input through ``abs``'s rule, against the
    backend's own (JAX's convention is the conjugate of chainrules': converted both ways)."""
    z = keras.ops.convert_to_tensor(np.array([3.0 + 4.0j, -1.0 + 0.5j]), dtype="complex64")
    bridged = crk.wrap(XP.abs)
    if BACKEND == "jax":
        g = jax.grad(lambda v: jnp.sum(bridged(v) ** 2 * jnp.array([1.0, 3.0])))(z)
        w = jax.grad(lambda v: jnp.sum(jnp.abs(v) ** 2 * jnp.array([1.0, 3.0])))(z)
    else:
        zt = z.clone().requires_grad_(True)
        (g,) = torch.autograd.grad((bridged(zt) ** 2 * torch.tensor([1.0, 3.0])).sum(), zt)
        (w,) = torch.autograd.grad((zt.abs() ** 2 * torch.tensor([1.0, 3.0])).sum(), zt)
    np.testing.assert_allclose(to_numpy(g), to_numpy(w), rtol=1e-5)
    assert np.any(to_numpy(g).imag != 0)


def check_refusals() -> None:
    """``NoRuleError`` at wrap time for a function without an rrule; ``TypeError`` for a symbolic
    ``KerasTensor`` given to the wrapped function directly."""
    with pytest.raises(cr.NoRuleError, match="no_rule"):
        crk.wrap(no_rule)
    with pytest.raises(TypeError, match="symbolic KerasTensor"):
        NORM(keras.Input((3,)))


CHECKS = {
    name[len("check_") :]: fn
    for name, fn in sorted(globals().items())
    if name.startswith("check_") and callable(fn)
}


def main() -> None:
    wanted = sys.argv[1:] or list(CHECKS)
    report: dict[str, str | None] = {}
    for name in wanted:
        try:
            CHECKS[name]()
            report[name] = None
        except Exception:  # noqa: BLE001 -- reported, and failed, by test_keras.py
            report[name] = traceback.format_exc()[-3000:]
    print(json.dumps({"backend": BACKEND, "checks": report}))


if __name__ == "__main__":
    main()
