"""The markers' cells, engine by engine: the truth (JAX's differentiation of the bodies), the
markers as programs of one flat vector, and per engine the transformations each cell runs (the
native engine, the JAX, autograd, torch and PyTensor bridges; the Keras bridge's cells run in a
child process per Keras backend, :mod:`.keras_cells`); :mod:`.markers` classifies what they
give."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
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
#: torch.func's transformations, each run eagerly, compiled and exported
FUNC_TRANSFORMS = ("grad", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap(grad)")


def _state_restored(cell: CellFn) -> CellFn:
    """``cell``, run with torch's transformation state restored after it (whatever happens)."""

    def restoring(m: Marker) -> Any:
        import torch

        with _torch_state_restored(torch):
            return cell(m)

    return restoring


@contextlib.contextmanager
def _torch_state_restored(torch: Any) -> Iterator[None]:
    """An exception inside a transformation can leave torch.func's layers on its stack and a
    forward-mode AD level open (torch 2.13: the exported ``jvp``), which fails every later
    transformation in the process ("Nested forward mode AD is not supported"). A cell puts both
    back as it found them, as Dynamo does with the layers."""
    functorch, C = torch._C._functorch, torch._C

    def dual_level_open() -> bool:  # torch has one forward-mode level at most
        try:
            level = C._enter_dual_level()
        except RuntimeError:  # "Nested forward mode AD is not supported"
            return True
        C._exit_dual_level(level=level)
        return False

    depth, was_open = functorch.get_dynamic_layer_stack_depth(), dual_level_open()
    try:
        yield
    finally:
        functorch.pop_dynamic_layer_stack_and_undo_to_depth(depth)
        if not was_open and dual_level_open():
            C._exit_dual_level(level=0)


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

    def transformed(which: str, m: Marker) -> tuple[Callable[[Any], Any], np.ndarray, bool]:
        """``which`` of ``torch.func`` as a function of ``v``, the truth, and ``per_input``."""
        torch, L, F, _ = setup(m)
        tf = torch.func
        if which == "grad":
            return tf.grad(L), truth(m).grad, True
        if which == "vjp":
            cs = tuple(torch.as_tensor(c) for c in m.weights())
            return (lambda v: tf.vjp(F, v)[1](cs)), truth(m).grad, True
        if which == "jvp":
            t = torch.as_tensor(m.tangent())
            return (lambda v: tf.jvp(F, (v,), (t,))[1]), truth(m).jvp, False
        if which in ("jacrev", "jacfwd"):
            return getattr(tf, which)(F), truth(m).jac, False
        if which == "hessian":
            return tf.hessian(L), truth(m).hess, False
        if which == "vmap(grad)":
            shift = torch.as_tensor(m.point(0.1) - m.point())
            both = np.concatenate([truth(m).grad, truth(m).grad2])
            return (lambda v: tf.vmap(tf.grad(L))(torch.stack([v, v + shift]))), both, False
        raise AssertionError(which)

    def func(which: str, how: str = "") -> CellFn:
        """``torch.func``'s ``which``: eager, under ``torch.compile(fullgraph=True)`` or through
        ``torch.export`` (the exported program of the transformed function, then run)."""

        def cell(m: Marker) -> Any:
            torch, _, _, v = setup(m)
            return run(torch, v, *transformed(which, m))

        def run(torch: Any, v: Any, fn: Any, want: np.ndarray, per_input: bool) -> Any:
            if how == "compile":
                # fullgraph: a graph break would run the frame eagerly (where the rules are used)
                # and hide what the compiled graph does; reset: every marker's L shares one code
                # object, whose recompilations Dynamo limits (past the limit it runs eagerly)
                torch._dynamo.reset()
                fn = torch.compile(fn, backend="aot_eager", fullgraph=True)
            elif how == "export":
                inner = fn

                class Program(torch.nn.Module):
                    def forward(self, v: Any) -> Any:
                        return inner(v)

                fn = torch.export.export(Program(), (v.clone(),)).module()
            return _flat(fn(v)), want, per_input

        return cell

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
    for how in ("", "compile", "export"):
        for which in FUNC_TRANSFORMS:
            cells[f"{how}(func.{which})" if how else f"func.{which}"] = func(which, how)
    cells["export+backward"] = export_backward
    return {name: _state_restored(cell) for name, cell in cells.items()}


# --- the PyTensor bridge: each transformation compiled by pytensor.function
#: the compilation mode of the PyTensor cells: FAST_COMPILE skips PyTensor's C code (the Ops run
#: Python either way), and compiles each cell's graph in milliseconds
PYTENSOR_MODE = "FAST_COMPILE"


def _pytensor_cells() -> dict[str, CellFn]:
    def setup(m: Marker) -> tuple[Any, Any, Any, Any]:
        import pytensor
        import pytensor.tensor as pt

        from ...interop import pytensor as crpt

        # a static length: the bridge finds its outputs' types from the inputs' shapes
        v = pt.tensor("v", shape=(m.n,), dtype="float64")
        F, L = programs(m, crpt.wrap(m.fn), pt.as_tensor_variable, pt.sum)
        return pytensor, v, F, L

    def compiled(pytensor: Any, v: Any, out: Any, *inputs: Any) -> Any:
        return pytensor.function([v, *inputs], out, mode=PYTENSOR_MODE)

    def grad(m: Marker) -> Any:
        pytensor, v, _, L = setup(m)
        g = compiled(pytensor, v, pytensor.grad(L(v), v))(m.point())
        return _flat(g), truth(m).grad, True

    def rop(m: Marker) -> Any:
        pytensor, v, F, _ = setup(m)
        t = v.type("t")
        ys = list(F(v))
        dots = pytensor.gradient.Rop(ys, v, t, use_op_rop_implementation=True)
        return _flat(compiled(pytensor, v, dots, t)(m.point(), m.tangent())), truth(m).jvp, False

    def hessian(m: Marker) -> Any:
        pytensor, v, _, L = setup(m)
        H = compiled(pytensor, v, pytensor.gradient.hessian(L(v), v))(m.point())
        return _flat(H), truth(m).hess, False

    def rop_of_grad(m: Marker) -> Any:  # Hessian-vector product, forward over reverse
        pytensor, v, _, L = setup(m)
        t = v.type("t")
        hv = pytensor.gradient.Rop(pytensor.grad(L(v), v), v, t, use_op_rop_implementation=True)
        got = compiled(pytensor, v, hv, t)(m.point(), m.tangent())
        return _flat(got), truth(m).hess @ m.tangent(), False

    return {"grad": grad, "Rop": rop, "hessian": hessian, "Rop(grad)": rop_of_grad}


# --- the Keras bridge: one child process per Keras backend (keras_cells)
def _keras_cells(backend: str) -> dict[str, CellFn]:
    from .keras_cells import parent_cells

    return parent_cells(backend, truth)


_ENGINES: dict[str, Callable[[], dict[str, CellFn]]] = {
    "native": _native_cells,
    "jax-bridge": lambda: _jax_cells("jvp"),
    "jax-bridge-vjp": lambda: _jax_cells("vjp"),
    "autograd-bridge": _autograd_cells,
    "torch-bridge": _torch_cells,
    "keras-jax": lambda: _keras_cells("jax"),
    "keras-torch": lambda: _keras_cells("torch"),
    "pytensor": _pytensor_cells,
}
