"""The relations checked on every program, engine by engine.

Each check gives :class:`Outcome`\\ s: ``agree``, ``wrong`` (a disagreement no known difference
covers, or a broken contract: a mutated input, a pullback that answers differently the second
time, a scalar read of a device array), ``error`` (the engine raised; the report counts these per
engine and transformation), ``skip`` (not applicable, with the reason).

``native``: :mod:`chainrules.ad` on NumPy --

* ``arg-vs-closure``: the gradient of an argument equals the gradient of the same value closed
  over (for the program's ``x`` and ``d``, whatever the signature: positional, tuple, dict,
  keyword);
* ``generic-path``: the same gradient with every library method declared beside a rule switched
  off (``chainrules.core.specialise.generic_only``);
* ``layout``: the same gradient with ``x`` and ``d`` in another memory layout (column-major,
  strided or with negative strides: ``chainrules.testing.arrays.LAYOUTS``, by the seed);
* ``grad-vs-vjp``, ``vjp-vs-jvp`` (``<u, J v>`` both ways), ``jac-rev-vs-fwd`` and
  ``jac-vs-jvp`` (real programs), ``fd`` (a directional derivative by finite differences,
  in float64);
* ``hessian`` (real programs of at most 16 inputs): symmetric, equal to
  ``jacobian(grad, mode="fwd")`` and ``mode="rev"``, and to finite differences of the gradient;
* ``pure``: the inputs and the cotangent are not mutated, a pullback called twice answers the same;
* ``single``: a float32/complex64 program's gradient against the float64 program's.

``device``: the same gradient on ``chainrules.testing.device_array`` inputs (scalar-guarded).
``jax``, ``torch``: the engine's own gradient of the same program built from its own functions.
``jax-bridge``, ``autograd-bridge``: the program with each step's function wrapped by the bridge,
differentiated by that engine (``jax.grad``, ``jax.jit(jax.grad)``, ``jax.jacfwd``/``jacrev`` and
``jax.hessian`` of real programs; ``autograd.grad``), against the native engine.
``torch-bridge``: the same with torch's autograd and ``torch.func``; ``torch-compile``:
``torch.compile(torch.func.grad)`` and ``torch.export`` followed by ``backward``.

The bridges' relations live in :mod:`.bridges`, the outcomes and what the relations share in
:mod:`.cells`; :func:`check` runs them all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.registry import resolve_name
from ...core.specialise import generic_only
from .. import finite_differences as fdiff
from ..arrays import LAYOUTS, relaid
from ..backends import BACKENDS
from .bridges import autograd_bridge, jax_bridge, torch_bridge, torch_compile
from .cells import (
    Outcome,
    _Cells,
    _direction,
    _ident,
    _inner,
    _native_fns,
    _ns,
    _out_dtype,
    _quiet,
    _random_like,
    _sym,
    _to_np,
    native_function,
)
from .programs import Program
from .tolerances import close, worst

__all__ = ["ENGINES", "Outcome", "check", "native_function"]


def _grads(p: Program, L: Callable[..., Any], x: Any, d: Any) -> tuple[Any, Any]:
    """(dL/dx, dL/dd) through the program's own signature, in one call."""
    from ... import ad

    user = p.as_user_function(L)
    if p.signature == "args" and d is not None:
        gx, gd = ad.grad(user, argnums=(0, 1))(x, d)
        return gx, gd
    if p.signature == "args":
        return ad.grad(lambda x: L(x, None))(x), None
    if p.signature == "kwarg":
        return ad.grad(user)(x, d=d), None
    g = ad.grad(user)(*p.user_args(x, d))
    return (g[0], g[1]) if p.signature == "tuple" else (g["x"], g["d"])


def _differentiable_leaf(a: Any) -> bool:
    """A floating or complex array or number: what can carry a cotangent."""
    if isinstance(a, (tuple, list)):
        return any(_differentiable_leaf(e) for e in a)
    if isinstance(a, dict):
        return any(_differentiable_leaf(e) for e in a.values())
    if isinstance(a, (float, complex, np.floating, np.complexfloating)):
        return True
    return isinstance(a, np.ndarray) and a.dtype.kind in "fc"


def _ones_cotangent(y: Any) -> Any:
    """A cotangent of ``y``: ones for each floating leaf, ``NoTangent()`` for the others."""
    from ...core.tangents import NoTangent

    if isinstance(y, (tuple, list)):
        parts = [_ones_cotangent(e) for e in y]
        return type(y)(*parts) if hasattr(y, "_fields") else type(y)(parts)
    y = np.asarray(y)
    return np.ones_like(y) if y.dtype.kind in "fc" else NoTangent()


def no_tangents(p: Program, c: _Cells) -> None:
    """docs/conventions.md: every positional argument that cannot be differentiated (integer and
    boolean arrays, Python ints, axes, orders, dtypes, strings, ``None``) gets ``NoTangent()``
    from the pullback of each step's rrule, called on the arguments the program gives it."""
    from ... import rrule
    from ...core.tangents import NoTangent, unthunk

    found: list[str] = []

    def checked(reg: Any) -> Any:
        f = native_function(reg)

        def call(*args: Any, **kwargs: Any) -> Any:
            y, pb = rrule(f, *args, **kwargs)
            cts = pb(_ones_cotangent(y))
            for i, (a, ct) in enumerate(zip(args, cts[1:], strict=True)):
                ct = unthunk(ct)
                if not _differentiable_leaf(a) and not isinstance(ct, NoTangent):
                    what = type(a).__name__ if not isinstance(a, np.ndarray) else a.dtype.name
                    found.append(f"{reg.name}: argument {i} ({what}) got {type(ct).__name__}")
            return y

        return call

    with c.guard("native", "vjp", "no-tangent"), _quiet():
        p.run(p.x.copy(), None if p.d is None else p.d.copy(), checked, _ident, _ns)
        if found:
            c.record("native", "vjp", "no-tangent", "wrong", "; ".join(found))
        else:
            c.record("native", "vjp", "no-tangent", "agree")


def _same_gradient(c: _Cells, relation: str, got: tuple[Any, Any], want: tuple[Any, Any]) -> None:
    """Compare ``(dL/dx, dL/dd)`` computed another way with the reference (``dL/dd`` where both
    have it), under the ``same`` tolerance."""
    (gx, gd), (wx, wd) = got, want
    both = gd is not None and wd is not None
    c.compare(
        "native",
        "grad",
        relation,
        np.concatenate([_to_np(gx).ravel()] + ([_to_np(gd).ravel()] if both else [])),
        np.concatenate([wx.ravel()] + ([wd.ravel()] if both else [])),
        "same",
    )


def native(p: Program, c: _Cells, rng: np.random.Generator) -> dict[str, Any]:
    """The native relations; returns the reference gradients for the other engines."""
    from ... import ad

    F, L = _native_fns(p)
    x, d = p.x, p.d
    x0, d0 = x.copy(), (None if d is None else d.copy())  # type: Any, Any
    ref: dict[str, Any] = {}
    E = "native"
    with c.guard(E, "grad", "grad"):
        gx, gd = _grads(p, L, x, d)
        ref["gx"], ref["gd"] = _to_np(gx), None if gd is None else _to_np(gd)
    if "gx" not in ref:
        return ref
    gx, gd = ref["gx"], ref["gd"]
    # the same values closed over
    if d is not None:
        with c.guard(E, "grad", "arg-vs-closure"):
            gx_c = _to_np(ad.grad(lambda x: L(x, d))(x))
            gd_c = _to_np(ad.grad(lambda d: L(x, d))(d))
            if gd is None:  # the keyword signature: d's gradient by closure only
                gd = ref["gd"] = gd_c
            c.compare(
                E,
                "grad",
                "arg-vs-closure",
                np.concatenate([gx.ravel(), gd.ravel()]),
                np.concatenate([gx_c.ravel(), gd_c.ravel()]),
                "same",
            )
    # the generic path: every library method declared beside a rule (chainrules.core.specialise)
    # off, the same gradient
    with c.guard(E, "grad", "generic-path"):
        with generic_only():
            again = _grads(p, L, x, d)
        _same_gradient(c, "generic-path", again, (gx, gd))
    # the same values in another memory layout (column-major, strided or negative strides, by
    # the seed): the same gradient -- NumPy's fast paths beside the rules meet them too
    layout = LAYOUTS[p.seed % len(LAYOUTS)]
    with c.guard(E, "grad", "layout"):
        again = _grads(p, L, relaid(x, layout), None if d is None else relaid(d, layout))
        _same_gradient(c, "layout", again, (gx, gd))
    # finite differences, in float64
    pd = p if p.dtype in ("float64", "complex128") else p.in_double()
    _, Ld = _native_fns(pd)
    herm = p.steps[0].hermitian
    v = _direction(rng, pd.x, herm)
    # along d too where its gradient is known (the keyword signature's comes from the closure,
    # which may have raised: then along x alone, never with a missing gradient taken as zero)
    dv: Any = None if pd.d is None or gd is None else _direction(rng, pd.d, pd.d_hermitian)
    with c.guard(E, "grad", "fd"):
        h = fdiff.STEP[np.dtype(np.float64)]

        def along(t: float) -> Any:
            return Ld(pd.x + t * v, pd.d if dv is None else pd.d + t * dv)

        with _quiet():
            fd = fdiff.central_difference(along, h)
        if pd is p:
            gxd, gdd = gx, gd
        else:
            gxd, gdd = (_to_np(g) if g is not None else None for g in _grads(pd, Ld, pd.x, pd.d))
            if gdd is None and pd.d is not None:
                gdd = _to_np(ad.grad(lambda d: Ld(pd.x, d))(pd.d))
            both = gd is not None and gdd is not None
            c.compare(
                E,
                "grad",
                "single",
                np.concatenate([gx.ravel(), gd.ravel()]) if both else gx,
                np.concatenate([gxd.ravel(), gdd.ravel()]) if both else gxd,  # type: ignore[union-attr]
                "single",
            )
        want = _inner(gxd, v) + (0.0 if dv is None else _inner(gdd, dv))
        if not close(want, np.real(fd), "fd"):
            fd = _refined(along, h, fd)
        c.compare(E, "grad", "fd", want, np.real(fd), "fd")
    # vjp, jvp, jacobians (in x, d closed over)
    Fx = lambda x: F(x, d)
    u = _random_like(rng, np.zeros(p.y_shape, dtype=_out_dtype(p)))
    # what a cell that raised leaves unset (its error is counted there): the cells comparing
    # with it are skipped, not counted as errors of their own
    xb: Any = None
    ydot: Any = None
    with c.guard(E, "vjp", "grad-vs-vjp"):
        _y, pb = ad.vjp(Fx, x)
        u0 = u.copy()
        (xb,) = pb(u)
        (xb2,) = pb(u)
        if not (np.array_equal(_to_np(xb), _to_np(xb2), equal_nan=True)):
            c.record(E, "vjp", "pure", "wrong", "a pullback called twice answered differently")
        elif not np.array_equal(u, u0, equal_nan=True):
            c.record(E, "vjp", "pure", "wrong", "the pullback mutated its cotangent")
        else:
            c.record(E, "vjp", "pure", "agree")
        if not p.y_complex:
            w = p.w
            (xw,) = pb(
                w.astype(u.dtype)
                if w.shape == u.shape
                else np.broadcast_to(w, u.shape).astype(u.dtype)
            )
            c.compare(E, "vjp", "grad-vs-vjp", _to_np(xw), gx, "same")
    with c.guard(E, "jvp", "vjp-vs-jvp"):
        _, ydot = ad.jvp(Fx, (x,), (v.astype(x.dtype),))
        if xb is None:
            c.record(E, "jvp", "vjp-vs-jvp", "skip", "the vjp raised (its cell counts it)")
        else:
            c.compare(E, "jvp", "vjp-vs-jvp", _inner(u, ydot), _inner(xb, v), "same")
    real = x.dtype.kind == "f" and not p.y_complex
    if real and x.size * max(1, int(np.prod(p.y_shape))) <= 4096:
        with c.guard(E, "jacobian", "jac-rev-vs-fwd"):
            ref["jacrev"] = _to_np(ad.jacobian(Fx, mode="rev")(x))
            ref["jacfwd"] = _to_np(ad.jacobian(Fx, mode="fwd")(x))
            Jr, Jf = _sym(ref["jacrev"], x, herm), _sym(ref["jacfwd"], x, herm)
            c.compare(E, "jacobian", "jac-rev-vs-fwd", Jr, Jf, "same")
            jv = np.tensordot(Jf, v, axes=x.ndim) if x.ndim else Jf * v
            if ydot is None:
                c.record(E, "jacobian", "jac-vs-jvp", "skip", "the jvp raised (its cell counts it)")
            else:
                c.compare(E, "jacobian", "jac-vs-jvp", jv, _to_np(ydot), "same")
    if real and x.size <= 16:
        Lx = lambda x: L(x, d)
        with c.guard(E, "hessian", "hessian"):
            n = x.size
            ref["hessian"] = _to_np(ad.hessian(Lx)(x))
            H = _sym(_sym(ref["hessian"].reshape(n, n), x, herm).T, x, herm)
            c.compare(E, "hessian", "symmetric", H, H.T, "same")
            Hf = _to_np(ad.jacobian(ad.grad(Lx), mode="fwd")(x)).reshape(n, n)
            Hf = _sym(_sym(Hf, x, herm).T, x, herm)
            c.compare(E, "hessian", "jacfwd(grad)", Hf, H, "same")
            Hr = _to_np(ad.jacobian(ad.grad(Lx), mode="rev")(x)).reshape(n, n)
            Hr = _sym(_sym(Hr, x, herm).T, x, herm)
            c.compare(E, "hessian", "jacrev(grad)", Hr, H, "same")
            if pd is p:
                gfun = ad.grad(Lx)
                along_g = lambda t: _to_np(gfun(x + t * v))
                fdg = np.real(fdiff.central_difference(along_g, h)).ravel()
                if not close(H @ v.ravel(), fdg, "fd"):  # truncation error at h (seed 5866)
                    fdg = np.real(_refined(along_g, h, fdg)).ravel()
                c.compare(E, "hessian", "fd", H @ v.ravel(), fdg, "fd")
        if herm:
            pass
        elif "hessian" not in ref:
            c.record(
                E, "hessian", "zero-cotangent", "skip", "the hessian raised (its cell counts it)"
            )
        else:
            _zero_cotangent(c, Lx, x, gx)
    no_tangents(p, c)
    # purity of the program's inputs
    same = np.array_equal(x, x0, equal_nan=True)
    if not same or (d is not None and not np.array_equal(d, d0, equal_nan=True)):
        c.record(E, "grad", "pure", "wrong", "an input was mutated")
    return ref


def jit(p: Program, c: _Cells, ref: dict[str, Any]) -> None:
    """``chainrules.ad.jit`` of the native transformations: recorded at another point (``x``
    scaled by 0.97, inside the same domain for the programs' functions), then called at ``x``,
    where a replay must give the native engine's result ("same"); a signature that is not
    replayed runs the function as it is and is compared all the same (the detail says which).
    The replay leaves the inputs as they were."""
    from ... import ad

    F, L = _native_fns(p)
    x, d = p.x, p.d
    x1 = (x * 0.97).astype(x.dtype)
    E = "jit"

    def replayed(j: Any) -> str:
        why = [r for r in j.recordings.values() if isinstance(r, str)]
        return "replayed" if not why else f"ran as it is: {why[0][:120]}"

    x0, d0 = x.copy(), (None if d is None else d.copy())  # type: Any, Any
    with c.guard(E, "grad", "replay"):
        j = ad.jit(lambda x, d: _grads(p, L, x, d))
        with contextlib.suppress(Exception):  # a recording that raises runs f as it is
            j(x1, d)
        gx, gd = j(x, d)
        both = gd is not None and ref["gd"] is not None
        want = [ref["gx"].ravel()] + ([ref["gd"].ravel()] if both else [])
        got = [_to_np(gx).ravel()] + ([_to_np(gd).ravel()] if both else [])
        if c.compare(E, "grad", "replay", np.concatenate(got), np.concatenate(want), "same"):
            c.out[-1].detail = replayed(j)
    if not np.array_equal(x, x0, equal_nan=True) or (
        d is not None and not np.array_equal(d, d0, equal_nan=True)
    ):
        c.record(E, "grad", "pure", "wrong", "an input was mutated")
    checks = (
        ("hessian", "hessian", lambda: ad.hessian(lambda x: L(x, d))),
        ("jacrev", "jacobian", lambda: ad.jacobian(lambda x: F(x, d), mode="rev")),
    )
    for key, transform, make in checks:
        if key not in ref:
            continue
        with c.guard(E, transform, "replay"):
            j = ad.jit(make())
            with contextlib.suppress(Exception):
                j(x1)
            if c.compare(E, transform, "replay", _to_np(j(x)), ref[key], "same"):
                c.out[-1].detail = replayed(j)


def _zero_cotangent(c: _Cells, Lx: Callable[[Any], Any], x: Any, gx: Any) -> None:
    """The Hessian of ``g(x) = L(x) * h(x)`` with ``h(x) = sum(x - x0)`` over the finite
    entries, at ``x0``: ``h`` is exactly 0 there and its derivative is not, so every rule of the
    program pulls back a cotangent that is exactly 0 and whose derivative is not. ``H_g = grad L
    m^T + m grad L^T`` (``h`` is linear and 0; ``m`` marks the finite entries), from the
    first-order gradient alone: a rule that differentiates its pullback's treatment of a zero
    cotangent as a constant (the strong zero's mask did: 40 of the first 150 seeds' Hessians)
    is wrong here, in every program, where random points never give an exact zero."""
    from ... import ad

    # h sums the finite entries only: a NaN entry (the nan* functions' inputs) would make h NaN
    keep = np.isfinite(x)
    x0 = np.where(keep, x, 0)
    with c.guard("native", "hessian", "zero-cotangent"):
        n = x.size
        h = lambda x: np.sum(np.where(keep, x - x0, 0))
        # h first: a program may write into its argument (x[0] = ...), and h must read x itself
        Hz = _to_np(ad.hessian(lambda x: h(x) * Lx(x))(x)).reshape(n, n)
        g = np.real(gx).ravel()
        one = keep.astype(float).ravel()
        c.compare(
            "native", "hessian", "zero-cotangent", Hz, np.outer(g, one) + np.outer(one, g), "same"
        )


def _refined(g: Callable[[float], Any], h: float, fd: Any) -> Any:
    """The stencil again at smaller steps, for a program whose curvature makes ``h`` too large
    (an ill-conditioned ``solve_sylvester``: its truncation error was 6%): the first estimate
    that agrees with the next smaller step's, else the original one (judged as it is)."""
    prev = fd
    for k in (10.0, 100.0, 1000.0):
        with _quiet():
            nxt = fdiff.central_difference(g, h / k)
        if close(nxt, prev, "fd") and not close(nxt, fd, "fd"):
            return nxt
        prev = nxt
    return fd


# --- device array ----------------------------------------------------------------------------
def _device_function(reg: Any) -> Any:
    """A step's function as GPU code calls it: a function of the standard from the namespace of
    its array arguments (``xp = array_namespace(x, y); xp.asarray(...)``: the traced namespace
    where one is traced, the device's for plain device arrays), NumPy's own for the others
    (which reach device arrays through NumPy's dispatch protocols). NumPy's functions that do
    not dispatch (``np.array``, ``np.asarray``) refuse a plain device array with a
    ``DeviceMismatchError``, as CuPy's ``TypeError`` does: a clear error of the program, counted
    as such (a scalar read, ``ScalarIndexingError``, is a wrong outcome)."""
    if reg.family != "array_api":
        return native_function(reg)
    from array_api_compat import array_namespace

    from ...core.pytree import flatten

    name = str(reg.target)

    def call(*args: Any, **kwargs: Any) -> Any:
        arrays = [a for a in flatten((args, kwargs))[0] if hasattr(a, "__array_namespace__")]
        if not arrays:
            return native_function(reg)(*args, **kwargs)
        return resolve_name("array_api", name, array_namespace(*arrays))(*args, **kwargs)

    return call


def device(p: Program, c: _Cells, ref: dict[str, Any]) -> None:
    from ... import ad
    from ..device import device_array

    def L(x: Any, d: Any) -> Any:
        return p.loss_of(p.run(x, d, _device_function, device_array, _ns), device_array, _ns)

    if any(s.reg.family == "scipy" for s in p.steps):
        # SciPy's functions take host arrays; on a device a program calls its library's own
        # (cupyx.scipy, jax.scipy, torch.special), which the NumPy-backed stand-in does not have
        c.record("device", "grad", "scalar-free", "skip", "a SciPy function: host arrays only")
        return
    for s in p.steps:
        for e in s.reg.expectations:
            if e.column == "scalar-free" and e.example is None and e.dtype is None:
                # a limit declared on the registration (the library's own function reads the
                # host: NumPy's poly, roots), which the rule tester reports as such too
                c.record("device", "grad", "scalar-free", "skip", f"declared: {e.reason}")
                return
    with c.guard("device", "grad", "scalar-free"):
        xd = device_array(p.x)
        dd = None if p.d is None else device_array(p.d)
        g = ad.grad(lambda x: L(x, None))(xd) if dd is None else ad.grad(lambda x: L(x, dd))(xd)
        c.compare("device", "grad", "scalar-free", _to_np(g), ref["gx"], "same")


# --- other engines' own gradients -------------------------------------------------------------
def _engine_grads(p: Program, engine: str) -> tuple[Any, Any, Any] | None:
    """(value, dL/dx, dL/dd) by ``engine`` (jax or torch) differentiating the program built from
    its own functions; None when a step has no counterpart there."""
    be = BACKENDS[engine]
    if not be.available():
        return None
    fns = [be.function(s.reg) for s in p.steps]
    if any(f is None for f in fns):
        return None
    table = {id(s.reg): f for s, f in zip(p.steps, fns)}

    def fn_of(reg: Any) -> Any:
        return table[id(reg)]

    if engine == "jax":
        import jax
        import jax.numpy as jnp

        be.namespace()  # x64 on
        asarray = jnp.asarray

        def L(x: Any, d: Any) -> Any:
            return p.loss_of(p.run(x, d, fn_of, asarray, _ns), asarray, _ns)

        x = jnp.asarray(p.x)
        if p.d is None:
            val, gx = jax.value_and_grad(lambda x: L(x, None))(x)
            gd = None
        else:
            val, (gx, gd) = jax.value_and_grad(L, argnums=(0, 1))(x, jnp.asarray(p.d))
            gd = np.conj(_to_np(gd))
        return _to_np(val), np.conj(_to_np(gx)), gd  # JAX's cotangent: the conjugate of ours
    import torch

    def asarray_t(v: Any) -> Any:
        return torch.asarray(v)

    def Lt(x: Any, d: Any) -> Any:
        return p.loss_of(p.run(x, d, fn_of, asarray_t, _ns), asarray_t, _ns)

    xt: Any = torch.asarray(p.x.copy()).requires_grad_(True)
    d: Any = None if p.d is None else torch.asarray(p.d.copy()).requires_grad_(True)
    val = Lt(xt, d)
    inputs: Any = [xt] if d is None else [xt, d]
    gs = torch.autograd.grad(val, inputs, allow_unused=True, materialize_grads=True)
    return _to_np(val), _to_np(gs[0]), None if d is None else _to_np(gs[1])


def _steps(
    p: Program, fn_of: Callable[[Any], Any], asarray: Callable[[Any], Any], inputs: bool = False
) -> list[Any]:
    """Each step's output on the program's inputs (the part the next step takes), as NumPy; with
    ``inputs``, each step's positional arguments instead (a tuple, as given)."""
    outs: list[Any] = []

    def capture(reg: Any) -> Any:
        f = fn_of(reg)

        def call(*args: Any, **kwargs: Any) -> Any:
            out = f(*args, **kwargs)
            s = p.steps[len(outs)]
            outs.append(args if inputs else _to_np(out if s.output is None else out[s.output]))
            return out

        return call

    with _quiet():
        p.run(asarray(p.x), None if p.d is None else asarray(p.d), capture, asarray, _ns)
    return outs


def step_arguments(p: Program) -> list[tuple[Any, ...]]:
    """Each step's positional arguments when NumPy runs the program (the glued values)."""
    return _steps(p, native_function, lambda v: v, inputs=True)


def step_differs(p: Program, engine: str, kind: str) -> str | None:
    """Where the engine's own functions (jax or torch) compute another value than ours on the
    way: ``"step k (name): worst entry"`` for the first step whose output differs and whose next
    step's output differs too, ``None`` if there is none. The final value may agree while steps
    differ (the unused triangle of ``cho_factor``, left as it was by SciPy and zeroed by JAX,
    read by the next step: seed 5392), and then the derivatives are of another function too (the
    known difference ``oracle-step-differs``)."""
    be = BACKENDS[engine]
    table = {id(s.reg): be.function(s.reg) for s in p.steps}
    if engine == "jax":
        import jax.numpy as jnp

        asarray: Callable[[Any], Any] = jnp.asarray
    else:
        import torch

        asarray = torch.asarray
    theirs = _steps(p, lambda reg: table[id(reg)], asarray)
    mine = _steps(p, native_function, lambda v: v)
    differ = [
        k
        for k, (t, m) in enumerate(zip(theirs, mine))
        if t.shape != m.shape or not close(t, m, kind)
    ]
    # a difference that the next step does not carry on (it reads only the part both agree on:
    # cho_factor's factor, not its unused triangle) changes no derivative: not counted
    for k in differ:
        if k + 1 in differ:
            t, m = theirs[k], mine[k]
            where = worst(t, m) if t.shape == m.shape else f"shape {t.shape} against {m.shape}"
            return f"step {k} ({p.steps[k].reg.name}): {where}"
    return None


def oracle(p: Program, c: _Cells, engine: str, ref: dict[str, Any]) -> None:
    _, L = _native_fns(p)
    with c.guard(engine, "grad", "grad"):
        got = _engine_grads(p, engine)
        if got is None:
            c.record(engine, "grad", "grad", "skip", "a step has no counterpart in " + engine)
            return
        val, gx, gd = got
        with _quiet():
            mine = _to_np(L(p.x, p.d))
        kind = "single" if p.dtype in ("float32", "complex64") else "oracle"
        if not close(val, mine, kind):
            c.record(
                engine,
                "grad",
                "primal",
                "skip",
                "known: oracle-primal-differs: " + worst(val, mine),
            )
            return
        want = [ref["gx"].ravel()]
        got_ = [gx.ravel()]
        if gd is not None and ref.get("gd") is not None:
            want.append(ref["gd"].ravel())
            got_.append(gd.ravel())
        c.compare(engine, "grad", "grad", np.concatenate(got_), np.concatenate(want), kind)


ENGINES = (
    "native",
    "device",
    "jax",
    "torch",
    "jax-bridge",
    "autograd-bridge",
    "torch-bridge",
    "torch-compile",
    "jit",
)


def check(p: Program, engines: tuple[str, ...] = ("native",)) -> list[Outcome]:
    """Every relation of ``engines`` on ``p``."""
    c = _Cells(p)
    rng = np.random.default_rng([p.seed, 1])
    ref = native(p, c, rng)
    if "gx" in ref:
        for e in engines:
            if e == "device":
                device(p, c, ref)
            elif e in ("jax", "torch"):
                oracle(p, c, e, ref)
            elif e == "jax-bridge":
                jax_bridge(p, c, ref)
            elif e == "autograd-bridge":
                autograd_bridge(p, c, ref)
            elif e == "torch-bridge":
                torch_bridge(p, c, ref)
            elif e == "torch-compile":
                torch_compile(p, c, ref)
            elif e == "jit":
                jit(p, c, ref)
    return c.out
