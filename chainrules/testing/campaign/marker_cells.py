"""The markers' cells, engine by engine: the truth (JAX's differentiation of the bodies), the
markers as programs of one flat vector, and per engine the transformations each cell runs (the
native engine, the JAX, autograd and torch bridges); :mod:`.markers` classifies what they give."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .marker_rules import Marker


# --- the truth: JAX's differentiation of the bodies ----------------------------------------------
def _jax() -> Any:
    from ..backends import BACKENDS

    BACKENDS["jax"].namespace()  # x64
    import jax

    return jax


def _flat(x: Any) -> np.ndarray:
    from ..arrays import to_numpy

    if isinstance(x, (tuple, list)):
        return np.concatenate([_flat(e) for e in x]) if x else np.zeros(0)
    if isinstance(x, dict):
        return np.concatenate([_flat(e) for e in x.values()])
    if hasattr(x, "detach"):
        x = x.detach()
    return np.asarray(to_numpy(x), dtype=np.float64).ravel()


@dataclass
class Truth:
    """The true derivatives of a marker's program (JAX on the body), as flat NumPy arrays."""

    grad: np.ndarray  # dL/dv at point()
    grad2: np.ndarray  # dL/dv at point(0.1)
    jac: np.ndarray  # the Jacobian of the outputs (flattened, concatenated) by v
    jvp: np.ndarray  # jac @ tangent()
    hess: np.ndarray


_TRUTH: dict[str, Truth] = {}


def truth(m: Marker) -> Truth:
    """The true derivatives of ``m``'s program, by JAX on the marker's body."""
    t = _TRUTH.get(m.kind)
    if t is not None:
        return t
    jax = _jax()
    jnp = jax.numpy
    body = m.body

    consts = tuple(map(jnp.asarray, m.constants))

    def F(v: Any) -> Any:
        return m.outputs(body, v, consts)

    def L(v: Any) -> Any:
        return sum(jnp.sum(jnp.asarray(c) * y) for c, y in zip(m.weights(), F(v), strict=True))

    @jax.jit  # one compilation: eager JAX dispatches (and compiles) op by op
    def derivatives(v: Any, v2: Any) -> Any:
        return jax.grad(L)(v), jax.grad(L)(v2), jax.jacfwd(F)(v), jax.hessian(L)(v)

    g, g2, J, H = derivatives(jnp.asarray(m.point()), jnp.asarray(m.point(0.1)))
    jac = np.concatenate([np.asarray(b) for b in J])
    t = _TRUTH[m.kind] = Truth(np.asarray(g), np.asarray(g2), jac, jac @ m.tangent(), np.asarray(H))
    return t


# --- the cells ------------------------------------------------------------------------------------


# Each cell function takes the marker and returns (got, want, per_input) -- the value the engine
# computed and the truth (1x) to compare it with, both as flat NumPy arrays.
CellFn = Callable[[Marker], tuple[np.ndarray, np.ndarray, bool]]


def programs(
    m: Marker, fn: Callable[..., Any], lift: Callable[[Any], Any], sum_: Any
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``(F, L)``: the outputs of ``m``'s program through ``fn`` (the marker, or a bridge's
    wrapper of it), and its loss; ``lift`` makes the engine's arrays of the constants (here,
    not inside the functions that engines trace and compile)."""
    cs = [lift(c) for c in m.weights()]
    consts = tuple(map(lift, m.constants))

    def F(v: Any) -> Any:
        return m.outputs(fn, v, consts)

    def L(v: Any) -> Any:
        out = None
        for c, y in zip(cs, F(v), strict=True):
            term = sum_(c * y)
            out = term if out is None else out + term
        return out

    return F, L


# --- native: chainrules.ad
def _native_cells() -> dict[str, CellFn]:
    from ... import ad

    def L(m: Marker) -> Any:
        return programs(m, m.fn, np.asarray, np.sum)[1]

    def F(m: Marker) -> Any:
        return programs(m, m.fn, np.asarray, np.sum)[0]

    def vjp(m: Marker) -> Any:
        _, pb = ad.vjp(F(m), m.point())
        return _flat(pb(tuple(m.weights()))[0]), truth(m).grad, True

    def jvp(m: Marker) -> Any:
        _, t = ad.jvp(F(m), (m.point(),), (m.tangent(),))
        return _flat(t), truth(m).jvp, False

    def jac(mode: str) -> CellFn:
        return lambda m: (_flat(ad.jacobian(F(m), mode=mode)(m.point())), truth(m).jac, False)

    def jac_of_grad(mode: str) -> CellFn:
        return lambda m: (
            _flat(ad.jacobian(ad.grad(L(m)), mode=mode)(m.point())),
            truth(m).hess,
            False,
        )

    return {
        "grad": lambda m: (_flat(ad.grad(L(m))(m.point())), truth(m).grad, True),
        "vjp": vjp,
        "jvp": jvp,
        "jacobian(rev)": jac("rev"),
        "jacobian(fwd)": jac("fwd"),
        "hessian": lambda m: (_flat(ad.hessian(L(m))(m.point())), truth(m).hess, False),
        "jacobian(grad, fwd)": jac_of_grad("fwd"),
        "jacobian(grad, rev)": jac_of_grad("rev"),
    }


# --- the JAX bridge, in both modes
def _jax_cells(mode: str) -> dict[str, CellFn]:
    def setup(m: Marker) -> tuple[Any, Any, Any]:
        jax = _jax()
        from ...interop import jax as crjax

        jnp = jax.numpy
        F, L = programs(m, crjax.wrap(m.fn, mode=mode), jnp.asarray, jnp.sum)
        return jax, L, F

    def grad(m: Marker) -> Any:
        jax, L, _ = setup(m)
        return _flat(jax.grad(L)(jax.numpy.asarray(m.point()))), truth(m).grad, True

    def jit_grad(m: Marker) -> Any:
        jax, L, _ = setup(m)
        return _flat(jax.jit(jax.grad(L))(jax.numpy.asarray(m.point()))), truth(m).grad, True

    def vmap_grad(m: Marker) -> Any:
        jax, L, _ = setup(m)
        vs = jax.numpy.asarray(np.stack([m.point(), m.point(0.1)]))
        gs = np.asarray(jax.vmap(jax.grad(L))(vs))
        return gs.ravel(), np.concatenate([truth(m).grad, truth(m).grad2]), False

    def jac(which: str) -> CellFn:
        def cell(m: Marker) -> Any:
            jax, _, F = setup(m)
            J = getattr(jax, which)(F)(jax.numpy.asarray(m.point()))
            return _flat(J), truth(m).jac, False

        return cell

    def hessian(m: Marker) -> Any:
        jax, L, _ = setup(m)
        return _flat(jax.hessian(L)(jax.numpy.asarray(m.point()))), truth(m).hess, False

    return {
        "grad": grad,
        "jit(grad)": jit_grad,
        "vmap(grad)": vmap_grad,
        "jacfwd": jac("jacfwd"),
        "jacrev": jac("jacrev"),
        "hessian": hessian,
    }


# --- the autograd bridge
def _autograd_cells() -> dict[str, CellFn]:
    def setup(m: Marker) -> tuple[Any, Any, Any]:
        import autograd
        import autograd.numpy as anp

        from ...interop import autograd as crag

        F, L = programs(m, crag.wrap(m.fn), np.asarray, anp.sum)

        def F1(v: Any) -> Any:  # autograd's jacobian takes one array output
            ys = F(v)
            return ys[0] if len(ys) == 1 else anp.concatenate(ys)

        return autograd, L, F1

    def grad(m: Marker) -> Any:
        autograd, L, _ = setup(m)
        return _flat(autograd.grad(L)(m.point())), truth(m).grad, True

    def jacobian(m: Marker) -> Any:
        autograd, _, F = setup(m)
        return _flat(autograd.jacobian(F)(m.point())), truth(m).jac, False

    def hessian(m: Marker) -> Any:
        autograd, L, _ = setup(m)
        return _flat(autograd.hessian(L)(m.point())), truth(m).hess, False

    def make_jvp(m: Marker) -> Any:
        autograd, _, F = setup(m)
        _, t = autograd.make_jvp(F)(m.point())(m.tangent())
        return _flat(t), truth(m).jvp, False

    return {"grad": grad, "make_jvp": make_jvp, "jacobian": jacobian, "hessian": hessian}


# --- the torch bridge
def _torch_cells() -> dict[str, CellFn]:
    def setup(m: Marker) -> tuple[Any, Any, Any, Any]:
        import torch

        from ...interop import torch as crtorch

        F, L = programs(m, crtorch.wrap(m.fn), torch.as_tensor, torch.sum)
        return torch, L, F, torch.as_tensor(m.point())

    def backward(m: Marker) -> Any:
        torch, L, _, v = setup(m)
        v = v.clone().requires_grad_()
        L(v).backward()
        return _flat(v.grad if v.grad is not None else torch.zeros_like(v)), truth(m).grad, True

    def func(which: str) -> CellFn:
        def cell(m: Marker) -> Any:
            torch, L, F, v = setup(m)
            tf = torch.func
            if which == "grad":
                return _flat(tf.grad(L)(v)), truth(m).grad, True
            if which == "vjp":
                _, pb = tf.vjp(F, v)
                return (
                    _flat(pb(tuple(torch.as_tensor(c) for c in m.weights()))),
                    truth(m).grad,
                    True,
                )
            if which == "jvp":
                _, t = tf.jvp(F, (v,), (torch.as_tensor(m.tangent()),))
                return _flat(t), truth(m).jvp, False
            if which in ("jacrev", "jacfwd"):
                return _flat(getattr(tf, which)(F)(v)), truth(m).jac, False
            if which == "hessian":
                return _flat(tf.hessian(L)(v)), truth(m).hess, False
            if which == "vmap(grad)":
                vs = torch.as_tensor(np.stack([m.point(), m.point(0.1)]))
                gs = tf.vmap(tf.grad(L))(vs)
                return _flat(gs), np.concatenate([truth(m).grad, truth(m).grad2]), False
            raise AssertionError(which)

        return cell

    def compiled_grad(m: Marker) -> Any:
        torch, L, _, v = setup(m)
        # fullgraph: a graph break would run the frame eagerly (where the rules are used) and
        # hide what the compiled graph does; reset: every marker's L shares one code object,
        # whose recompilations Dynamo limits (past the limit it runs it eagerly)
        torch._dynamo.reset()
        g = torch.compile(torch.func.grad(L), backend="aot_eager", fullgraph=True)
        return _flat(g(v)), truth(m).grad, True

    def export_backward(m: Marker) -> Any:
        torch, L, _, v = setup(m)

        class Program(torch.nn.Module):  # type: ignore[name-defined]
            def forward(self, v: Any) -> Any:
                return L(v)

        ep = torch.export.export(Program(), (v.clone(),))
        x = v.clone().requires_grad_()
        ep.module()(x).backward()
        return _flat(x.grad if x.grad is not None else torch.zeros_like(x)), truth(m).grad, True

    def double_backward(m: Marker) -> Any:  # torch.autograd.grad(create_graph=True), twice
        torch, L, _, v = setup(m)
        H = torch.autograd.functional.hessian(L, v)
        return _flat(H), truth(m).hess, False

    cells: dict[str, CellFn] = {
        "backward": backward,
        "autograd.functional.hessian": double_backward,
    }
    for which in ("grad", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap(grad)"):
        cells[f"func.{which}"] = func(which)
    cells["compile(func.grad)"] = compiled_grad
    cells["export+backward"] = export_backward
    return cells


_ENGINES: dict[str, Callable[[], dict[str, CellFn]]] = {
    "native": _native_cells,
    "jax-bridge": lambda: _jax_cells("jvp"),
    "jax-bridge-vjp": lambda: _jax_cells("vjp"),
    "autograd-bridge": _autograd_cells,
    "torch-bridge": _torch_cells,
}
