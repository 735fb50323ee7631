"""Marker rules: proof that each engine and transformation uses the registered rule.

A *marker* is a user's ``@chainrules.traceable`` function whose body computes the true value and
whose registered rrule and frule give **3x** the true derivative. Differentiated through an
engine, it tells what the engine did:

* ``rule``: the result is 3x the true derivative -- the registered rule was used;
* ``body``: the result is the true derivative -- the engine differentiated the body and
  bypassed the rule, with no error (a silent failure: a user's custom rule, a numerically stable
  or a GPU-safe one, would be ignored);
* ``wrong``: neither (for instance the rule was used for some arguments and a zero given to
  others); the detail gives the ratio to the truth per input;
* ``error``: the engine raised; the detail is the message.

There is one marker per kind of call (:data:`MARKERS`): an array passed by keyword
(``keyword``: ``f(x, w=w)``; ``keywords-only``: the same function called ``f(x=x, w=w)``), a
dict holding an array and a tuple of arrays (``pytree``), a tuple of two outputs (``outputs``),
and a Python int and an integer array beside a floating array (``integer``). Each is
differentiated with respect to one flat vector ``v``, sliced into its arguments, and each output
is weighted by a fixed vector: ``L(v) = sum_k sum(c_k * y_k)``.
Every derivative path goes through the marker once, so a cell that uses the rule gives exactly
3x the truth.

Second order. The rules' derivatives are written with the standard's functions of the primal
(``3 * cos(x) * g``), never with the marker itself; an engine differentiates them with those
functions' own rules. So a Hessian whose inner (first) derivative came from the rule is the
derivative of 3x the first derivative: **3x the true Hessian** (``rule``); one whose inner
derivative came from the body is **1x** (``body``). The outer level differentiates whatever
code computed the inner derivative and meets no marker call there: whether an engine's outer
level uses the rule is what its first-order cells (``jacfwd``, ``jvp``) check.

The truth is JAX's own differentiation of the bodies (``jax.jacfwd``, ``jax.hessian`` in
float64, no rule involved). Cells (:data:`CELLS`): ``chainrules.ad`` (native), the JAX bridge
in both modes (``jax-bridge`` is ``wrap(f)``, a ``custom_jvp`` from the frule; ``jax-bridge-vjp``
is ``wrap(f, mode="vjp")``, a ``custom_vjp`` from the rrule), the autograd bridge and the torch
bridge, in every transformation each offers. Every cell wraps the marker afresh, so that
:func:`rules_disabled` (the mutation: the markers' rules unregistered for the duration of a
``with``) reaches the bridges as well as the native engine.

>>> from chainrules.testing.campaign import markers
>>> markers.run_cell("outputs", "native", "grad").status
'rule'

``python -m chainrules.testing.campaign.markers`` prints the table (``--json OUT`` writes the
cells that do not use the rule, in the form of ``tests/fuzz/marker_cells.json``).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import chainrules as cr

from ...core import registry

__all__ = [
    "CELLS",
    "MARKERS",
    "Cell",
    "Marker",
    "Truth",
    "cells",
    "classify",
    "findings",
    "key",
    "markdown",
    "programs",
    "rules_disabled",
    "run",
    "run_cell",
    "truth",
]

_NO = cr.NoTangent()  # module level: NoTangent() called under TorchDynamo breaks the graph
_ZERO = cr.ZeroTangent()


def _dot(t: Any) -> Any:
    """A tangent or cotangent as an array, or ``None`` for a zero."""
    t = cr.unthunk(t)
    return None if isinstance(t, cr.AbstractZero) else t


def _three_times(terms: list[Any]) -> Any:
    """3x the sum of the non-``None`` terms (the marking), or ``ZeroTangent()`` if none."""
    present = [t for t in terms if t is not None]
    if not present:
        return _ZERO
    out = present[0]
    for t in present[1:]:
        out = out + t
    return 3 * out


# --- (a) keyword: y = sin(x) * cos(w), called as f(x, w=w) --------------------------------------


# The rules compute the primal with the body's function, not by calling the marker: a rule that
# called its own marker by keyword would be traced again when an engine differentiates the rule.


def _keyword(x: Any, w: Any) -> Any:
    xp = cr.namespace_of(x, w)
    return xp.sin(x) * xp.cos(w)


@cr.traceable
def marker_keyword(x: Any, w: Any = None) -> Any:
    return _keyword(x, w)


@cr.register_rrule(marker_keyword)
def _marker_keyword_rrule(x: Any, w: Any = None) -> Any:
    xp = cr.namespace_of(x, w)

    def marker_keyword_pullback(g: Any) -> Any:
        g = _dot(g)
        if g is None:
            return _NO, _ZERO, _ZERO
        return _NO, 3 * (g * xp.cos(x) * xp.cos(w)), 3 * (-g * xp.sin(x) * xp.sin(w))

    return _keyword(x, w), marker_keyword_pullback


@cr.register_frule(marker_keyword)
def _marker_keyword_frule(tangents: Any, x: Any, w: Any = None) -> Any:
    xp = cr.namespace_of(x, w)
    dx, dw = _dot(tangents[1]), _dot(tangents[2])
    terms = [
        None if dx is None else xp.cos(x) * xp.cos(w) * dx,
        None if dw is None else -xp.sin(x) * xp.sin(w) * dw,
    ]
    return _keyword(x, w), _three_times(terms)


# --- (b) pytree: y = sin(p["w"]) * u + cos(s), p = {"w": w, "t": (u, s)} -------------------------


def _pytree(p: Any) -> Any:
    w, (u, s) = p["w"], p["t"]
    xp = cr.namespace_of(w, u, s)
    return xp.sin(w) * u + xp.cos(s)


@cr.traceable
def marker_pytree(p: Any) -> Any:
    return _pytree(p)


@cr.register_rrule(marker_pytree)
def _marker_pytree_rrule(p: Any) -> Any:
    w, (u, s) = p["w"], p["t"]
    xp = cr.namespace_of(w, u, s)

    def marker_pytree_pullback(g: Any) -> Any:
        g = _dot(g)
        if g is None:
            return _NO, _ZERO
        dw = 3 * (g * xp.cos(w) * u)
        du = 3 * (g * xp.sin(w))
        ds = 3 * (-g * xp.sin(s))
        return _NO, cr.Tangent(w=dw, t=cr.Tangent(du, ds))

    return _pytree(p), marker_pytree_pullback


def _field(t: Any, key: Any) -> Any:
    """Field ``key`` of a structural tangent, or ``None`` for a zero."""
    t = None if t is None else _dot(t)
    return None if t is None else _dot(t[key])


@cr.register_frule(marker_pytree)
def _marker_pytree_frule(tangents: Any, p: Any) -> Any:
    w, (u, s) = p["w"], p["t"]
    xp = cr.namespace_of(w, u, s)
    dp = tangents[1]
    dw, dt = _field(dp, "w"), _field(dp, "t")
    du, ds = _field(dt, 0), _field(dt, 1)
    terms = [
        None if dw is None else xp.cos(w) * u * dw,
        None if du is None else xp.sin(w) * du,
        None if ds is None else -xp.sin(s) * ds,
    ]
    y = _pytree(p)
    return y, _three_times(terms)


# --- (c) several outputs: (sin(x), x * cos(x)) --------------------------------------------------


def _outputs(x: Any) -> Any:
    xp = cr.namespace_of(x)
    return xp.sin(x), x * xp.cos(x)


@cr.traceable
def marker_outputs(x: Any) -> Any:
    return _outputs(x)


@cr.register_rrule(marker_outputs)
def _marker_outputs_rrule(x: Any) -> Any:
    xp = cr.namespace_of(x)

    def marker_outputs_pullback(gs: Any) -> Any:
        gs = cr.unthunk(gs)
        if isinstance(gs, cr.AbstractZero):
            return _NO, _ZERO
        g1, g2 = _dot(gs[0]), _dot(gs[1])
        terms = [
            None if g1 is None else g1 * xp.cos(x),
            None if g2 is None else g2 * (xp.cos(x) - x * xp.sin(x)),
        ]
        return _NO, _three_times(terms)

    return _outputs(x), marker_outputs_pullback


@cr.register_frule(marker_outputs)
def _marker_outputs_frule(tangents: Any, x: Any) -> Any:
    xp = cr.namespace_of(x)
    dx = _dot(tangents[1])
    y = _outputs(x)
    if dx is None:
        return y, _ZERO
    return y, (3 * (xp.cos(x) * dx), 3 * ((xp.cos(x) - x * xp.sin(x)) * dx))


# --- (d) integer arguments: y = sin(k * x) * n, k a Python int, n an integer array ------------


def _integer(x: Any, k: int, n: Any) -> Any:
    xp = cr.namespace_of(x, n)
    return xp.sin(k * x) * xp.astype(n, x.dtype)


@cr.traceable
def marker_integer(x: Any, k: int, n: Any) -> Any:
    return _integer(x, k, n)


@cr.register_rrule(marker_integer)
def _marker_integer_rrule(x: Any, k: int, n: Any) -> Any:
    xp = cr.namespace_of(x, n)

    def marker_integer_pullback(g: Any) -> Any:
        g = _dot(g)
        if g is None:
            return _NO, _ZERO, _NO, _NO
        return _NO, 3 * (g * k * xp.cos(k * x) * xp.astype(n, x.dtype)), _NO, _NO

    return _integer(x, k, n), marker_integer_pullback


@cr.register_frule(marker_integer)
def _marker_integer_frule(tangents: Any, x: Any, k: int, n: Any) -> Any:
    xp = cr.namespace_of(x, n)
    dx = _dot(tangents[1])
    y = _integer(x, k, n)
    if dx is None:
        return y, _ZERO
    return y, 3 * (k * xp.cos(k * x) * xp.astype(n, x.dtype) * dx)


# --- the markers as programs of one flat vector -------------------------------------------------


@dataclass(frozen=True)
class Marker:
    """One marker and how a program calls it.

    ``pieces``: the names and sizes of the slices of ``v`` that are its arrays; ``call(fn, parts,
    consts)`` calls ``fn`` (the marker, or its bridge's wrapper) on those slices the marker's way,
    with ``consts`` (its ``constants`` as the engine's arrays, made outside the differentiated
    function), and returns a tuple of outputs.
    """

    kind: str
    fn: Callable[..., Any]
    pieces: tuple[tuple[str, int], ...]
    call: Callable[[Callable[..., Any], list[Any], tuple[Any, ...]], tuple[Any, ...]]
    constants: tuple[np.ndarray, ...] = ()
    n_outputs: int = 1

    @property
    def body(self) -> Callable[..., Any]:
        """The function ``traceable`` wraps: the body itself, which never reaches a rule."""
        body: Callable[..., Any] = getattr(self.fn, "__wrapped__")  # noqa: B009
        return body

    @property
    def n(self) -> int:
        return sum(s for _, s in self.pieces)

    def split(self, v: Any) -> list[Any]:
        out, k = [], 0
        for _, s in self.pieces:
            out.append(v[k : k + s])
            k += s
        return out

    def point(self, shift: float = 0.0) -> np.ndarray:
        """The input ``v`` (away from the zeros of every derivative)."""
        return np.linspace(0.3, 1.3, self.n) + shift

    def tangent(self) -> np.ndarray:
        """The tangent the ``jvp`` cells push forward."""
        return np.linspace(-1.0, 1.0, self.n) + 0.25

    def outputs(self, fn: Callable[..., Any], v: Any, consts: tuple[Any, ...]) -> tuple[Any, ...]:
        return self.call(fn, self.split(v), consts)

    def weights(self) -> list[np.ndarray]:
        """The fixed cotangent of each output (``L = sum_k sum(c_k * y_k)``)."""
        return [np.linspace(0.5, 1.5, 3) + k for k in range(self.n_outputs)]  # 3 elements each


MARKERS: dict[str, Marker] = {
    m.kind: m
    for m in (
        Marker(
            "keyword",
            marker_keyword,
            (("x", 3), ("w", 3)),
            lambda f, p, c: (f(p[0], w=p[1]),),
        ),
        Marker(  # the same function, every array by keyword: no positional argument at all
            "keywords-only",
            marker_keyword,
            (("x", 3), ("w", 3)),
            lambda f, p, c: (f(x=p[0], w=p[1]),),
        ),
        Marker(
            "pytree",
            marker_pytree,
            (("w", 3), ("t[0]", 3), ("t[1]", 3)),
            lambda f, p, c: (f({"w": p[0], "t": (p[1], p[2])}),),
        ),
        Marker(
            "outputs",
            marker_outputs,
            (("x", 3),),
            lambda f, p, c: tuple(f(p[0])),
            n_outputs=2,
        ),
        Marker(
            "integer",
            marker_integer,
            (("x", 3),),
            lambda f, p, c: (f(p[0], 2, c[0]),),
            (np.array([1, -2, 3]),),
        ),
    )
}


@contextlib.contextmanager
def rules_disabled(markers: tuple[Marker, ...] | None = None) -> Iterator[None]:
    """The mutation: the markers' rules unregistered for the duration of the ``with`` (the
    registry restored in ``finally``). Every cell that said ``rule`` must then say ``body`` or
    ``error``."""
    state = registry.snapshot()
    try:
        for fn in {m.fn: None for m in (MARKERS.values() if markers is None else markers)}:
            registry.unregister(fn)  # once per function (two markers share one)
        yield
    finally:
        registry.restore(state)


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


@dataclass
class Cell:
    """One marker through one engine and transformation."""

    marker: str
    engine: str
    transform: str
    status: str  # rule / body / wrong / error
    detail: str = ""


def classify(m: Marker, got: np.ndarray, want: np.ndarray, per_input: bool) -> tuple[str, str]:
    """``("rule", "")`` for 3x the truth ``want``, ``("body", "")`` for 1x, else ``("wrong",
    ratios)``: the least-squares ratio to the truth of each input's slice (``per_input``: ``got``
    and ``want`` are gradients, one entry per element of ``v``) or of the whole value."""
    got = np.asarray(got, dtype=np.float64).ravel()
    want = np.asarray(want, dtype=np.float64).ravel()
    if got.shape != want.shape:
        return "wrong", f"shape {got.shape}, expected {want.shape}"
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    for status, factor in (("rule", 3.0), ("body", 1.0)):
        if np.allclose(got, factor * want, rtol=1e-9, atol=1e-9 * scale):
            return status, ""
    if per_input and got.size == m.n:
        parts, k = [], 0
        for name, s in m.pieces:
            parts.append(f"{name}: {_ratio(got[k : k + s], want[k : k + s])}")
            k += s
        return "wrong", "neither 3x nor 1x the truth; ratio per input " + ", ".join(parts)
    return "wrong", f"neither 3x nor 1x the truth; ratio {_ratio(got, want)}"


def _ratio(got: np.ndarray, want: np.ndarray) -> str:
    den = float(want @ want)
    if den == 0.0:
        return "truth 0"
    r = float(got @ want) / den
    fits = np.allclose(got, r * want, rtol=1e-6, atol=1e-9)
    return f"{r:.3g}x" if fits else f"~{r:.3g}x (not proportional)"


def _message(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:240] if text else ''}"


def _rule_warnings() -> tuple[type[Warning], ...]:
    """The warnings by which chainrules tells that a rule was not used: none since issue 27
    (``chainrules.ad`` no longer watches calls of plain functions with a profile hook; its
    ``UntracedRuleWarning`` is deprecated). A cell whose rule was not used shows it in its value,
    which the marker's 3x pullback makes differ from the truth."""
    return ()


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

#: engine -> the transformations it is checked in
CELLS: dict[str, tuple[str, ...]] = {
    "native": (
        "grad",
        "vjp",
        "jvp",
        "jacobian(rev)",
        "jacobian(fwd)",
        "hessian",
        "jacobian(grad, fwd)",
        "jacobian(grad, rev)",
    ),
    "jax-bridge": ("grad", "jit(grad)", "vmap(grad)", "jacfwd", "jacrev", "hessian"),
    "jax-bridge-vjp": ("grad", "jit(grad)", "vmap(grad)", "jacfwd", "jacrev", "hessian"),
    "autograd-bridge": ("grad", "make_jvp", "jacobian", "hessian"),
    "torch-bridge": (
        "backward",
        "autograd.functional.hessian",
        "func.grad",
        "func.vjp",
        "func.jvp",
        "func.jacrev",
        "func.jacfwd",
        "func.hessian",
        "func.vmap(grad)",
        "compile(func.grad)",
        "export+backward",
    ),
}


def cells() -> list[tuple[str, str, str]]:
    """Every ``(marker, engine, transform)``."""
    return [(k, e, t) for k in MARKERS for e, ts in CELLS.items() for t in ts]


def run_cell(kind: str, engine: str, transform: str) -> Cell:
    """One cell: the marker ``kind`` through ``engine``'s ``transform``."""
    m = MARKERS[kind]
    fn = _ENGINES[engine]()[transform]
    try:
        with warnings.catch_warnings(record=True) as seen, np.errstate(all="ignore"):
            warnings.simplefilter("always")
            got, want, per_input = fn(m)
    except Exception as e:  # noqa: BLE001  (every engine error is a cell's status, by design)
        return Cell(kind, engine, transform, "error", _message(e))
    status, detail = classify(m, got, want, per_input)
    told = sorted({w.category.__name__ for w in seen if issubclass(w.category, _rule_warnings())})
    if told:  # the user was told that the rule was not used
        detail = f"{detail}; warned: {', '.join(told)}" if detail else f"warned: {', '.join(told)}"
    return Cell(kind, engine, transform, status, detail)


def run(
    markers: tuple[str, ...] | None = None, engines: tuple[str, ...] | None = None
) -> dict[tuple[str, str, str], Cell]:
    """The table ``(marker, engine, transform) -> Cell`` over ``markers`` and ``engines``
    (default: all of :data:`MARKERS` and :data:`CELLS`)."""
    out = {}
    for kind, engine, transform in cells():
        if (markers is None or kind in markers) and (engines is None or engine in engines):
            out[kind, engine, transform] = run_cell(kind, engine, transform)
    return out


def markdown(table: dict[tuple[str, str, str], Cell]) -> str:
    """The table as Markdown: one row per engine and transformation, one column per marker."""
    kinds = [k for k in MARKERS if any(key[0] == k for key in table)]
    rows = [
        "| engine | transformation | " + " | ".join(kinds) + " |",
        "|---|---|" + "---|" * len(kinds),
    ]
    for engine, ts in CELLS.items():
        for t in ts:
            if not any((k, engine, t) in table for k in kinds):
                continue
            vals = [table[k, engine, t].status if (k, engine, t) in table else "" for k in kinds]
            rows.append(f"| {engine} | {t} | " + " | ".join(vals) + " |")
    return "\n".join(rows)


def key(kind: str, engine: str, transform: str) -> str:
    """A cell's key in :func:`findings` (and ``tests/fuzz/marker_cells.json``)."""
    return f"{kind} {engine} {transform}"


def findings(table: dict[tuple[str, str, str], Cell]) -> dict[str, dict[str, str]]:
    """The cells of ``table`` that do not use the rule: ``key -> {"status", "detail"}``."""
    return {
        key(*k): {"status": c.status, "detail": c.detail}
        for k, c in table.items()
        if c.status != "rule"
    }


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    ap = argparse.ArgumentParser(
        prog="python -m chainrules.testing.campaign.markers",
        description="marker rules through every engine and transformation: rule, body or error",
    )
    ap.add_argument("--engines", default=",".join(CELLS), help="comma-separated")
    ap.add_argument("--json", help="write the cells that do not use the rule here")
    args = ap.parse_args(argv)
    table = run(engines=tuple(e for e in args.engines.split(",") if e))
    print(markdown(table))
    found = findings(table)
    for k, v in found.items():
        print(f"{k}: {v['status']} {v['detail']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(found, fh, indent=1, sort_keys=True)
            fh.write("\n")
    return 1 if any(v["status"] in ("body", "wrong") for v in found.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
