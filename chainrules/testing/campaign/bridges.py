"""The relations of the bridges (``chainrules.interop``): the program run under JAX's
``custom_vjp``, autograd's primitives and torch's ``autograd.Function`` (and ``torch.compile``
where it is cheap), each gradient compared with the native engine's (:mod:`.oracles`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..backends import BACKENDS
from .cells import _Cells, _ident, _native_fns, _ns, _out_dtype, _quiet, _sym, _to_np
from .programs import Program
from .tolerances import close, worst


# --- bridges ----------------------------------------------------------------------------------
def _fns(p: Program) -> list[tuple[Any, Any]]:
    """Each step with its NumPy function."""
    numpy = BACKENDS["numpy"]
    return [(s, numpy.function(s.reg)) for s in p.steps]


def _wrapped(p: Program, c: _Cells, engine: str, wrap: Callable[[Any], Any]) -> Any:
    """Each step's NumPy function wrapped by the bridge (``id(reg) -> wrapped``), or None when
    one cannot be wrapped (recorded as the ``wrap`` cell's error)."""
    with c.guard(engine, "wrap", "wrap"):
        return {id(s.reg): wrap(f) for s, f in _fns(p)}
    return None


def jax_bridge(p: Program, c: _Cells, ref: dict[str, Any]) -> None:
    import jax
    import jax.numpy as jnp

    from ...interop import jax as crjax

    BACKENDS["jax"].namespace()  # x64
    E = "jax-bridge"
    table = _wrapped(p, c, E, crjax.wrap)
    if table is None:
        return

    def F_with(tab: dict[int, Any], x: Any) -> Any:
        """The program with each step's function from ``tab`` (a table of wrapped functions)."""
        return p.run(x, d, lambda r: tab[id(r)], jnp.asarray, _ns)

    def L_with(tab: dict[int, Any], x: Any) -> Any:
        return p.loss_of(F_with(tab, x), jnp.asarray, _ns)

    x = jnp.asarray(p.x)
    d = None if p.d is None else jnp.asarray(p.d)
    # the same program of JAX's own functions: where a transformation of it raises too, the
    # bridge's error there is JAX's limit
    own = _engine_own(p, "jax")

    def F_own(x: Any) -> Any:
        assert own is not None
        return p.run(x, d, lambda r: own[id(r)], jnp.asarray, _ns)

    def own_fails(
        transform: Callable[[Any], Any], of_loss: bool = True
    ) -> Callable[[], str | None]:
        def why() -> str | None:
            if own is None:
                return None
            f = (lambda x: p.loss_of(F_own(x), jnp.asarray, _ns)) if of_loss else F_own
            return _raises(lambda: transform(f)(x))

        return why

    kind = "single" if p.dtype in ("float32", "complex64") else "oracle"  # its library's kernels
    # SciPy's functions take host arrays: their rules run on the host (jax.pure_callback) in
    # eager transformations, one direction per mode (chainrules.interop.jax): reverse mode
    # (grad, jacrev) through wrap(f, mode="vjp"), forward mode (jacfwd) through the default
    # mode; not where JAX traces abstract primals (jit, vmap, a Hessian's inner trace)
    host = any(s.reg.family == "scipy" for s in p.steps)
    abstract = "a SciPy function: host arrays only, and JAX traces abstract values here"
    vjp_table: list[dict[int, Any]] = []

    def reverse(run: Callable[[dict[int, Any]], Any]) -> Any:
        """``run(table)`` for a reverse-mode cell: through the default mode, and through
        ``mode="vjp"`` where the program has a SciPy function or JAX cannot transpose a rule
        that ran on the host (what JAX's error tells a user to do)."""
        if not host:
            try:
                return run(table)
            except ValueError as e:
                if "Pure callbacks do not support transpose" not in str(e):
                    raise
        if not vjp_table:
            vjp_table.append({id(s.reg): crjax.wrap(t, mode="vjp") for s, t in _fns(p)})
        return run(vjp_table[0])

    # the primal first: where jax.numpy's functions compute another value (partition's order of
    # the elements off the kth), the derivatives are of another function: a known difference
    same_primal = False
    with _own_guard(c, E, "forward", "primal", own_fails(lambda f: f)):
        with _quiet():
            vb = _to_np(L_with(table, x))
            vn = _to_np(_native_fns(p)[1](p.x, p.d))
        same_primal = close(vb, vn, kind)
        if same_primal:
            c.record(E, "forward", "primal", "agree")
        else:
            differs = "known: oracle-primal-differs: " + worst(vb, vn)
            c.record(E, "forward", "primal", "skip", differs)
    if not same_primal:
        return  # another function, or the forward raised (its error is the one recorded)
    for name, transform in (("grad", jax.grad), ("jit(grad)", lambda f: jax.jit(jax.grad(f)))):
        if host and name != "grad":
            c.record(E, name, "grad", "skip", abstract)
            continue
        with _own_guard(c, E, name, "grad", own_fails(transform)):
            g = reverse(lambda tab: transform(lambda x: L_with(tab, x))(x))  # noqa: B023
            gx = np.conj(_to_np(g))
            c.compare(E, name, "grad", gx, ref["gx"], kind)
    if p.x.dtype.kind == "f" and not p.y_complex and p.x.size <= 16:
        if host:
            c.record(E, "vmap(grad)", "grad", "skip", abstract)
        else:
            vg = own_fails(lambda f: lambda x: jax.vmap(jax.grad(f))(jnp.stack([x, x])))
            with _own_guard(c, E, "vmap(grad)", "grad", vg):
                xs = jnp.stack([x, x])
                gs = _to_np(jax.vmap(jax.grad(lambda x: L_with(table, x)))(xs))
                c.compare(E, "vmap(grad)", "grad", gs[1], ref["gx"], kind)
        # against the native engine's own (the native cells judge those; skipped where it raised)
        for name, jt in (("jacfwd", jax.jacfwd), ("jacrev", jax.jacrev)):
            if name not in ref:
                c.record(E, name, "jacobian", "skip", "the native jacobian raised")
                continue
            with _own_guard(c, E, name, "jacobian", own_fails(jt, of_loss=False)):
                if name == "jacfwd":
                    J = jt(lambda x: F_with(table, x))(x)
                else:
                    J = reverse(lambda tab: jt(lambda x: F_with(tab, x))(x))  # noqa: B023
                c.compare(E, name, "jacobian", _to_np(J), ref[name], kind)
        if host or "hessian" not in ref:
            why = abstract if host else "the native hessian raised"
            c.record(E, "hessian", "hessian", "skip", why)
        else:
            with _own_guard(c, E, "hessian", "hessian", own_fails(jax.hessian)):
                H = _to_np(jax.hessian(lambda x: L_with(table, x))(x))
                c.compare(E, "hessian", "hessian", H, ref["hessian"], kind)


def autograd_bridge(p: Program, c: _Cells, ref: dict[str, Any]) -> None:
    import autograd

    from ...interop import autograd as crag

    E = "autograd-bridge"
    table = _wrapped(p, c, E, crag.wrap)
    if table is None:
        return
    import autograd.numpy as anp

    def ns(a: Any) -> Any:
        return _AutogradNS(anp)

    def L(x: Any, d: Any) -> Any:
        return p.loss_of(p.run(x, d, lambda r: table[id(r)], _ident, ns), _ident, ns)

    kind = "single" if p.dtype in ("float32", "complex64") else "same"  # NumPy's kernels
    with c.guard(E, "grad", "grad"):
        gx = np.conj(_to_np(autograd.grad(lambda x: L(x, p.d))(p.x)))  # autograd: conjugate
        c.compare(E, "grad", "grad", gx, ref["gx"], kind)


# torch.compile and torch.export cells cost seconds per program (Dynamo traces the program and
# the bridge's forward and backward): they run on real float64 programs whose input has at
# most this many elements, with at most this many calls
TORCH_COMPILE_MAX_SIZE = 16


TORCH_COMPILE_MAX_STEPS = 3


def torch_compile_gate(p: Program) -> str | None:
    """Why the torch.compile / torch.export cells skip ``p`` (None: they run). The gate is on
    cost only: real float64 programs, small inputs, short compositions."""
    if p.dtype != "float64" or p.y_complex:
        return "gated to real float64 programs (compile cells cost seconds each)"
    if p.x.size > TORCH_COMPILE_MAX_SIZE or len(p.steps) > TORCH_COMPILE_MAX_STEPS:
        return (
            f"gated to inputs of at most {TORCH_COMPILE_MAX_SIZE} elements and at most "
            f"{TORCH_COMPILE_MAX_STEPS} calls (compile cells cost seconds each)"
        )
    return None


def runs_on(engine: str, p: Program) -> str | None:
    """Why ``engine`` gives ``p`` no cell but a skip (None: it runs ``p``). The torch engines
    take only programs whose every call has a torch function (the NumPy-only registrations
    have none); ``torch-compile`` further only the programs :func:`torch_compile_gate` lets
    through. :func:`chainrules.testing.campaign.stratify` draws its sample among the programs
    that every engine of the run takes, so a bridge's sample is of programs it runs."""
    if engine in ("torch-bridge", "torch-compile"):
        be = BACKENDS["torch"]
        if any(be.function(s.reg) is None for s in p.steps):
            return "a step has no counterpart in torch"
        if engine == "torch-compile":
            return torch_compile_gate(p)
    return None


def _torch_table(p: Program, c: _Cells, E: str) -> tuple[dict[int, Any], dict[int, Any]] | None:
    """Each step's function as a torch user calls it (torch's own, or the standard's signature
    through array_api_compat.torch) wrapped by the bridge (``id(reg) -> wrapped``), and the same
    functions unwrapped; None where ``E`` does not run ``p`` (a skip) or a step cannot be
    wrapped (an error), each recorded as the ``wrap`` cell."""
    from ...interop import torch as crtorch

    why = runs_on(E, p)
    if why is not None:
        c.record(E, "wrap", "wrap", "skip", why)
        return None
    fns = [BACKENDS["torch"].function(s.reg) for s in p.steps]
    with c.guard(E, "wrap", "wrap"):
        table = {id(s.reg): crtorch.wrap(f) for s, f in zip(p.steps, fns)}
        return table, {id(s.reg): f for s, f in zip(p.steps, fns)}
    return None


def torch_bridge(p: Program, c: _Cells, ref: dict[str, Any]) -> None:
    """Each step wrapped by ``chainrules.interop.torch.wrap``, differentiated by torch: autograd's
    ``backward``; ``torch.func`` ``grad``, ``vjp``, ``jacrev``, ``jacfwd``, ``hessian`` and
    ``vmap(grad)``, against the native engine. PyTorch's complex cotangent is chainrules' own
    (``dL/dRe + i dL/dIm``): nothing is conjugated."""
    tables = _torch_table(p, c, "torch-bridge")
    if tables is not None:
        with BACKENDS["torch"].precision(p.dtype):
            _torch_bridge_cells(p, c, ref, *tables)


def torch_compile(p: Program, c: _Cells, ref: dict[str, Any]) -> None:
    """``torch.compile(torch.func.grad)`` and ``torch.export`` followed by ``backward`` of the
    bridged program, against the native engine; the exported graph must hold one chainrules op
    per call (the rule, not a body, is differentiated). Compile cells cost seconds each: they
    run on the programs :func:`torch_compile_gate` lets through."""
    tables = _torch_table(p, c, "torch-compile")
    if tables is not None:
        with BACKENDS["torch"].precision(p.dtype):
            _torch_compile_cells(p, c, ref, *tables)


def _torch_primal(
    p: Program, c: _Cells, E: str, table: dict[int, Any], own: dict[int, Any]
) -> bool:
    """Record ``E``'s ``forward`` cell; whether its derivatives are to be compared. The bridged
    program against the same program of torch's own functions (a difference is the bridge's:
    wrong), then torch's against NumPy's: where torch's own functions compute another value (an
    SVD's singular vectors with other signs), the derivatives are of another function, skipped
    as a known difference, never compared."""
    import torch

    kind = "single" if p.dtype in ("float32", "complex64") else "oracle"  # its library's kernels
    xt, dt = torch.asarray(p.x.copy()), None if p.d is None else torch.asarray(p.d.copy())

    def value(tab: dict[int, Any]) -> Any:
        with _quiet():
            y = p.run(xt, dt, lambda r: tab[id(r)], torch.asarray, _ns)
            return _to_np(p.loss_of(y, torch.asarray, _ns))

    def own_fails() -> str | None:
        return _raises(lambda: value(own)) if _engine_own(p, "torch") is not None else None

    vb: Any = None
    with _own_guard(c, E, "forward", "primal", own_fails):
        vb = value(table)
    if vb is None:
        return False  # an error cell, or torch's own functions refuse the program too
    with _quiet():
        vn = _to_np(_native_fns(p)[1](p.x, p.d))
    try:
        vt = value(own)
    except Exception:  # noqa: BLE001  (torch's own function refuses: the bridge is judged alone)
        vt = vn
    same = "single" if kind == "single" else "same"  # bridged and own: torch's kernels both
    if not close(vb, vt, same):
        # recorded here, not through compare: the known primal difference is between
        # libraries, and never excuses the bridge's own primal
        c.record(E, "forward", "primal", "wrong", worst(vb, vt))
        return False
    if not close(vt, vn, kind):
        c.record(E, "forward", "primal", "skip", "known: oracle-primal-differs: " + worst(vt, vn))
        return False
    c.record(E, "forward", "primal", "agree")
    return True


def _torch_bridge_cells(
    p: Program, c: _Cells, ref: dict[str, Any], table: dict[int, Any], own: dict[int, Any]
) -> None:
    import torch

    E = "torch-bridge"
    kind = "single" if p.dtype in ("float32", "complex64") else "oracle"  # its library's kernels
    if not _torch_primal(p, c, E, table, own):
        return

    def fn_of(r: Any) -> Any:
        return table[id(r)]

    def F(x: Any, d: Any) -> Any:
        return p.run(x, d, fn_of, torch.asarray, _ns)

    def L(x: Any, d: Any) -> Any:
        return p.loss_of(F(x, d), torch.asarray, _ns)

    # the same program of torch's own functions: where a transformation of it raises too, the
    # bridge's error there is torch's limit (the known difference own-program-fails-too)
    def F_own(x: Any, d: Any) -> Any:
        return p.run(x, d, lambda r: own[id(r)], torch.asarray, _ns)

    def L_own(x: Any, d: Any) -> Any:
        return p.loss_of(F_own(x, d), torch.asarray, _ns)

    torch_own = _engine_own(p, "torch") is not None
    own_runs: list[bool] = []  # whether torch's own program runs untransformed (asked once)

    def own_fails(run: Callable[[Any, Any], Any]) -> Callable[[], str | None]:
        """Why the transformation of torch's own program raises too; None where it does not,
        and where torch's own program does not even run untransformed (``full`` of a tensor
        fill value): a program torch cannot express says nothing of the transformation."""

        def why() -> str | None:
            if not torch_own:
                return None
            if not own_runs:
                own_runs.append(_raises(lambda: L_own(fresh(p.x), fresh(p.d))) is None)
            return _raises(lambda: run(fresh(p.x), fresh(p.d))) if own_runs[0] else None

        return why

    def fresh(a: Any) -> Any:
        return None if a is None else torch.asarray(a.copy())

    has_d = p.d is not None and ref.get("gd") is not None
    want = np.concatenate([ref["gx"].ravel(), ref["gd"].ravel()]) if has_d else ref["gx"]

    def both(gx: Any, gd: Any) -> Any:
        return np.concatenate([_to_np(gx).ravel(), _to_np(gd).ravel()]) if has_d else _to_np(gx)

    with c.guard(E, "backward", "grad"):
        x = fresh(p.x).requires_grad_(True)
        d = fresh(p.d)
        if has_d:
            d.requires_grad_(True)
        L(x, d).backward()
        c.compare(E, "backward", "grad", both(x.grad, d.grad if has_d else None), want, kind)
    x, d = fresh(p.x), fresh(p.d)
    with _own_guard(
        c, E, "func.grad", "grad", own_fails(lambda x, d: torch.func.grad(L_own)(x, d))
    ):
        if has_d:
            gx, gd = torch.func.grad(L, argnums=(0, 1))(x, d)
        else:
            gx, gd = torch.func.grad(lambda x: L(x, d))(x), None
        c.compare(E, "func.grad", "grad", both(gx, gd), want, kind)
    own_vjp = own_fails(lambda x, d: torch.func.vjp(lambda x: F_own(x, d), x))
    with _own_guard(c, E, "func.vjp", "grad", own_vjp):
        pb = torch.func.vjp(lambda x: F(x, d), x)[1]
        # the cotangent of the loss sum(real(y) w) + sum(imag(y) w_imag) at y, in torch's (and
        # chainrules') convention dL/dRe + i dL/dIm
        u = np.broadcast_to(p.w, p.y_shape)
        if p.y_complex:
            u = u + 1j * np.broadcast_to(p.w_imag, p.y_shape)
        (xb,) = pb(torch.asarray(np.asarray(u).astype(_out_dtype(p))))
        c.compare(E, "func.vjp", "grad", _to_np(xb), ref["gx"], kind)
    if not (p.x.dtype.kind == "f" and not p.y_complex):
        return
    from ... import ad

    Fn, Ln = _native_fns(p)
    # x read as a Hermitian matrix (one triangle): derivatives are compared along Hermitian
    # directions only, as the native relations are
    herm = p.steps[0].hermitian

    def native_ref(compute: Callable[[], Any]) -> Any:
        """The native engine's value, or None where it raised (counted in its own cells)."""
        try:
            with _quiet():
                return _to_np(compute())
        except Exception:  # noqa: BLE001  (the native cells record this error)
            return None

    if p.x.size * max(1, int(np.prod(p.y_shape))) <= 4096:
        for name, jt, mode in (
            ("func.jacrev", torch.func.jacrev, "rev"),
            ("func.jacfwd", torch.func.jacfwd, "fwd"),
        ):
            Jn = native_ref(lambda: ad.jacobian(lambda x: Fn(x, p.d), mode=mode)(p.x))  # noqa: B023
            if Jn is None:
                c.record(E, name, "jacobian", "skip", "the native engine raised")
                continue
            own_jac = own_fails(lambda x, d: jt(lambda x: F_own(x, d))(x))  # noqa: B023
            with _own_guard(c, E, name, "jacobian", own_jac):
                J = _sym(_to_np(jt(lambda x: F(x, d))(x)), p.x, herm)
                c.compare(E, name, "jacobian", J, _sym(Jn, p.x, herm), kind)
    if p.x.size <= 16:
        Hn = native_ref(lambda: ad.hessian(lambda x: Ln(x, p.d))(p.x))
        if Hn is None:
            c.record(E, "func.hessian", "hessian", "skip", "the native engine raised")
        else:
            own_h = own_fails(lambda x, d: torch.func.hessian(lambda x: L_own(x, d))(x))
            with _own_guard(c, E, "func.hessian", "hessian", own_h):
                n = p.x.size
                H = _to_np(torch.func.hessian(lambda x: L(x, d))(x)).reshape(n, n)
                H = _sym(_sym(H, p.x, herm).T, p.x, herm)
                Hn = _sym(_sym(Hn.reshape(n, n), p.x, herm).T, p.x, herm)
                c.compare(E, "func.hessian", "hessian", H, Hn, kind)
        own_vg = own_fails(
            lambda x, d: torch.func.vmap(torch.func.grad(lambda x: L_own(x, d)))(
                torch.stack([x, x])
            )
        )
        with _own_guard(c, E, "vmap(grad)", "grad", own_vg):
            gs = _to_np(torch.func.vmap(torch.func.grad(lambda x: L(x, d)))(torch.stack([x, x])))
            c.compare(E, "vmap(grad)", "grad", gs[1], ref["gx"], kind)


def _torch_compile_cells(
    p: Program, c: _Cells, ref: dict[str, Any], table: dict[int, Any], own: dict[int, Any]
) -> None:
    import torch

    E = "torch-compile"
    if not _torch_primal(p, c, E, table, own):
        return
    kind = "oracle"  # real float64 programs only (torch_compile_gate): its library's kernels
    x, d = torch.asarray(p.x.copy()), None if p.d is None else torch.asarray(p.d.copy())
    torch_own = _engine_own(p, "torch") is not None

    def fn_of(r: Any) -> Any:
        return table[id(r)]

    # the program with its constants as tensors: Dynamo traces NumPy arrays as tensors of its
    # own (and stumbles on them), which would judge Dynamo's NumPy support, not the bridge
    q = _tensor_program(p)

    def Lq(x: Any, d: Any) -> Any:
        return q.loss_of(q.run(x, d, fn_of, _TensorTarget.asarray, _ns), torch.asarray, _ns)

    def own_compile_fails() -> str | None:
        """Why torch.compile(fullgraph=True) refuses the same program of torch's own functions
        (None: it compiles). A shape that depends on values (repeat by a tensor of counts,
        arange to a traced bound) is such a refusal: torch's limit, not the bridge's."""

        def compiled(x: Any) -> Any:
            q_own = q.run(x, d, lambda r: own[id(r)], _TensorTarget.asarray, _ns)
            return q.loss_of(q_own, torch.asarray, _ns)

        if not torch_own:
            return None
        torch._dynamo.reset()
        return _raises(lambda: torch.compile(compiled, backend="aot_eager", fullgraph=True)(x))

    with _own_guard(c, E, "compile(func.grad)", "grad", own_compile_fails):
        # backend "aot_eager": Dynamo traces the program and the bridge's Function, AOTAutograd
        # its forward and backward -- everything the bridge decides -- and the graphs run
        # eagerly (inductor would only generate kernels for the same graphs, at seconds each).
        # fullgraph=True: a graph break is an error cell, never a silent eager fallback
        torch._dynamo.reset()  # a fresh cache: no recompile limit falling back to eager
        g = torch.compile(torch.func.grad(lambda x: Lq(x, d)), backend="aot_eager", fullgraph=True)(
            x
        )
        c.compare(E, "compile(func.grad)", "grad", _to_np(g), ref["gx"], kind)
    with _own_guard(c, E, "export+backward", "grad", own_compile_fails):

        class M(torch.nn.Module):
            def forward(self, x: Any) -> Any:
                return Lq(x, d)

        torch._dynamo.reset()
        ep = torch.export.export(M(), (x.clone(),))
        # each call is one node of the bridge's custom ops (whose backward is the rule's
        # pullback), not the operations of a body, whose derivative would agree silently
        ops = sum(
            1
            for n in ep.graph.nodes
            if n.op == "call_function" and getattr(n.target, "namespace", None) == "chainrules"
        )
        if ops != len(p.steps):
            c.record(
                E,
                "export+backward",
                "rule-used",
                "wrong",
                f"{ops} chainrules ops recorded for {len(p.steps)} bridged calls",
            )
        else:
            c.record(E, "export+backward", "rule-used", "agree")
        xe = x.clone().requires_grad_(True)
        ep.module()(xe).backward()
        c.compare(E, "export+backward", "grad", _to_np(xe.grad), ref["gx"], kind)


def _engine_own(p: Program, engine: str) -> dict[int, Any] | None:
    """Each step's function of ``engine``'s own library (``id(reg) -> function``): the program
    the known difference ``own-program-fails-too`` runs. None where a step has no such function,
    or is chainrules' own (a ``traceable`` function: ``scatter_add``), whose failures are never
    the engine's limit. Python's operators (``operator.mod``) are the engine's own: they call
    its tensors' methods."""
    be = BACKENDS[engine]
    fns = [_own_spelling(engine, be.function(s.reg)) for s in p.steps]
    if any(f is None or getattr(f, "__chainrules_traceable__", False) is True for f in fns):
        return None
    return {id(s.reg): f for s, f in zip(p.steps, fns)}


def _own_spelling(engine: str, f: Any) -> Any:
    """``f``, or the engine's own spelling of chainrules' ``scatter_add``: JAX's
    ``dest.at[index].add(values)`` (a map from our function to JAX's, test code only), so a
    program with a scatter has a JAX program to judge JAX's limits by (a boolean mask or a
    value-dependent shape under ``jit``)."""
    from ...core.scatter import scatter_add

    if f is scatter_add and engine == "jax":
        import jax.numpy as jnp

        return lambda dest, index, values: jnp.asarray(dest).at[index].add(values)
    return f


def _raises(run: Callable[[], Any]) -> str | None:
    """The first line of the error ``run()`` raises (None: it returns)."""
    try:
        with _quiet():
            run()
    except Exception as e:  # noqa: BLE001  (any error: its first line)
        return f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
    return None


@contextlib.contextmanager
def _own_guard(
    c: _Cells, engine: str, transform: str, relation: str, own_fails: Callable[[], str | None]
) -> Iterator[None]:
    """``c.guard`` for a bridge cell: an error where the same transformation of the program of
    the engine's own functions (torch's, JAX's) raises too (``own_fails``: its error, or None)
    is the known difference ``own-program-fails-too``, recorded as skipped with that error;
    any other error is an error cell. Only consulted when the bridge's cell raised: never a
    value excused."""
    excused: list[str] = []
    with c.guard(engine, transform, relation):
        try:
            yield
        except Exception:
            why = own_fails()
            if why is None:
                raise
            excused.append(why)
    if excused:
        detail = f"known: own-program-fails-too: {excused[0]}"
        c.record(engine, transform, relation, "skip", detail)


class _TensorTarget:
    """A step's slot value (which the glue reads for its shape and dtype only, and adds to) with
    its tensor: what :func:`_tensor_program` puts where the NumPy example value was."""

    __slots__ = ("dtype", "shape", "tensor")

    def __init__(self, a: np.ndarray) -> None:
        import torch

        self.shape, self.dtype, self.tensor = a.shape, a.dtype, torch.asarray(a.copy())

    @staticmethod
    def asarray(v: Any) -> Any:
        import torch

        return v.tensor if type(v) is _TensorTarget else torch.asarray(v)


def _tensor_program(p: Program) -> Program:
    """``p`` with every NumPy constant (examples, loss weights) a tensor."""
    import dataclasses

    import torch

    from ...core.examples import Example
    from .programs import _get, _put

    def conv(v: Any) -> Any:
        if isinstance(v, np.ndarray):
            return torch.asarray(v.copy())
        if type(v) in (list, tuple):
            return type(v)(conv(e) for e in v)
        return v

    steps = []
    for k, s in enumerate(p.steps):
        args = [conv(a) for a in s.example.args]
        if k:
            _put(args, s.slot, _TensorTarget(_get(s.example.args, s.slot)))
        kwargs = {key: conv(v) for key, v in s.example.kwargs.items()}
        ex = Example(tuple(args), kwargs, s.example.note, s.example.complex)
        steps.append(dataclasses.replace(s, example=ex))
    w: Any = torch.asarray(p.w.copy())  # loss_of reads them through its asarray
    w_imag: Any = torch.asarray(p.w_imag.copy())
    return dataclasses.replace(p, steps=steps, w=w, w_imag=w_imag)


class _AutogradNS:
    """The few Array API names the glue and the loss use, on autograd.numpy."""

    def __init__(self, anp: Any) -> None:
        self.anp = anp

    def __getattr__(self, name: str) -> Any:
        if name == "isdtype":
            return lambda dt, kind: np.dtype(dt).kind == "c"
        if name == "matrix_transpose":
            return lambda a: self.anp.swapaxes(a, -1, -2)
        return getattr(self.anp, name)
