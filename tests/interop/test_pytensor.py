"""The PyTensor bridge (issue 28, item 4): ``pytensor.grad``, ``Rop`` with the Op's own ``R_op``,
second order (``pytensor.gradient.hessian``, Hessian-vector products) and compiled graphs, each
judged by central differences; a marker rule proves the rule is what runs; a PyMC model's
``logp`` and ``dlogp`` agree with the same model written with PyTensor's own operations."""

from __future__ import annotations

import importlib.util
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import chainrules as cr

pytensor = pytest.importorskip(
    "pytensor", reason="pytensor is not installed (the pytensor extra; all has it)"
)
import pytensor.tensor as pt  # noqa: E402
from pytensor.gradient import NullTypeGradError, Rop, hessian  # noqa: E402

from chainrules.interop import pytensor as crpt  # noqa: E402


def _load_cases():  # type: ignore[no-untyped-def]
    """tests/interop/conftest.py as a module of its own (two conftest modules share the name)."""
    spec = importlib.util.spec_from_file_location(
        "_interop_cases", Path(__file__).with_name("conftest.py")
    )
    assert spec is not None and spec.loader is not None
    mod = sys.modules.get("_interop_cases")
    if mod is None:
        mod = sys.modules["_interop_cases"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    return mod


_cases = _load_cases()


def _fn(inputs: list[Any], outputs: Any) -> Any:
    return pytensor.function(inputs, outputs)


def _central(f: Any, x: list[np.ndarray], v: list[np.ndarray], eps: float = 1e-6) -> Any:
    """The central difference of ``f`` (arrays -> array or list of arrays) along ``v``."""
    plus = f(*[a + eps * d for a, d in zip(x, v, strict=True)])
    minus = f(*[a - eps * d for a, d in zip(x, v, strict=True)])
    if isinstance(plus, list):
        return [(p - m) / (2 * eps) for p, m in zip(plus, minus, strict=True)]
    return (plus - minus) / (2 * eps)


# --- every GPU-safe registration: grad, Rop and a Hessian-vector product vs differences -------


def _floating_outputs(y: Any) -> list[Any]:
    from chainrules.core.calls import output_leaves

    return [v for v in output_leaves(y)[0] if np.dtype(v.dtype).kind == "f"]


def test_grad_rop_and_hvp_match_central_differences(gpu_safe_case):  # type: ignore[no-untyped-def]
    """Per GPU-safe registration (real inputs): the compiled ``pytensor.grad`` of a weighted sum
    of the outputs, ``Rop`` through the Op's ``R_op`` (the frule), and ``grad`` of
    ``<grad, v>`` (the pullback Op's own ``L_op``: a Hessian-vector product) agree with central
    differences of the compiled value and gradient."""
    case = gpu_safe_case
    if case.complex:
        pytest.skip("complex inputs: the bridge refuses them (test_complex_inputs_are_refused)")
    leaves, rebuild = case.split()
    rng = np.random.default_rng(3)
    xs = [pt.tensor(f"x{i}", dtype=str(a.dtype), shape=a.shape) for i, a in enumerate(leaves)]
    args, kwargs = rebuild(*xs)
    ys = _floating_outputs(crpt.wrap(case.f)(*args, **kwargs))
    ws = [rng.standard_normal(tuple(y.type.shape)) for y in ys]
    loss = sum((y * w).sum() for y, w in zip(ys, ws, strict=True))
    grads = pytensor.grad(loss, xs)
    vs = [pt.tensor(f"v{i}", dtype=str(a.dtype), shape=a.shape) for i, a in enumerate(leaves)]
    rop = Rop(loss, xs, vs, use_op_rop_implementation=True)
    gv = sum((g * v).sum() for g, v in zip(grads, vs, strict=True))
    hvp = pytensor.grad(gv, xs)

    f_loss = _fn(xs, loss)
    f_grad = _fn(xs, grads)
    f_rest = _fn(xs + vs, [rop, *hvp])
    d = [rng.standard_normal(a.shape) for a in leaves]
    g = f_grad(*leaves)
    rop_val, *hvp_val = f_rest(*leaves, *d)
    want_dir = _central(lambda *x: f_loss(*x), leaves, d)
    got_dir = sum(float(np.sum(gi * di)) for gi, di in zip(g, d, strict=True))
    np.testing.assert_allclose(got_dir, want_dir, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rop_val, want_dir, rtol=1e-5, atol=1e-6)
    want_hvp = _central(lambda *x: f_grad(*x), leaves, d)
    for got, want in zip(hvp_val, want_hvp, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# --- a marker rule: the rules are what runs, at every order ------------------------------------


def _marked_rules(
    registry: Any, frule: bool = True, rrule: bool = True, frule_factor: float = 3.0
) -> Any:
    """``marked(x) = sum(sin(x))`` (a test-local function) whose rules give 3x the true
    derivative: the pullback ``3 cos(x) g``, the pushforward ``3 sum(cos(x) dx)`` (or
    ``frule_factor`` times, to tell the two apart)."""

    def marked(x):  # type: ignore[no-untyped-def]
        return np.sum(np.sin(x))

    if rrule:

        @cr.register_rrule(marked)
        def _rrule(x):  # type: ignore[no-untyped-def]
            return marked(x), lambda g: (cr.NoTangent(), 3.0 * np.cos(x) * g)

    if frule:

        @cr.register_frule(marked)
        def _frule(tangents, x):  # type: ignore[no-untyped-def]
            return marked(x), frule_factor * np.sum(np.cos(x) * tangents[1])

    return marked


X = np.array([0.3, -1.2, 2.0])
V = np.array([1.0, 0.5, -2.0])


def test_marker_rule_is_used_by_grad_rop_and_hessian(clean_registry):  # type: ignore[no-untyped-def]
    f = crpt.wrap(_marked_rules(clean_registry))
    x, v = pt.dvector("x"), pt.dvector("v")
    y = f(x)
    g = pytensor.grad(y, x)
    r = Rop(y, x, v, use_op_rop_implementation=True)
    h = hessian(y, x)
    got_g, got_r, got_h = _fn([x, v], [g, r, h])(X, V)
    np.testing.assert_allclose(got_g, 3.0 * np.cos(X), rtol=1e-14)
    np.testing.assert_allclose(got_r, 3.0 * np.sum(np.cos(X) * V), rtol=1e-14)
    # the second derivative is the derivative of the rule's own pullback, 3 cos(x) g
    np.testing.assert_allclose(got_h, np.diag(-3.0 * np.sin(X)), rtol=1e-14, atol=1e-15)
    # Rop of the gradient: the pullback Op's own R_op
    hv = Rop(g, x, v, use_op_rop_implementation=True)
    np.testing.assert_allclose(_fn([x, v], hv)(X, V), -3.0 * np.sin(X) * V, rtol=1e-14)


def test_rop_with_the_op_rop_implementation_is_the_frule(clean_registry):  # type: ignore[no-untyped-def]
    """With ``use_op_rop_implementation=True`` PyTensor's ``Rop`` calls the Op's ``R_op``: the
    frule (marked 5x); without it, PyTensor goes through ``L_op`` twice: the rrule (3x)."""
    f = crpt.wrap(_marked_rules(clean_registry, frule_factor=5.0))
    x, v = pt.dvector("x"), pt.dvector("v")
    y = f(x)
    by_rop = Rop(y, x, v, use_op_rop_implementation=True)
    by_lop = Rop(y, x, v, use_op_rop_implementation=False)
    got_rop, got_lop = _fn([x, v], [by_rop, by_lop])(X, V)
    np.testing.assert_allclose(got_rop, 5.0 * np.sum(np.cos(X) * V), rtol=1e-14)
    np.testing.assert_allclose(got_lop, 3.0 * np.sum(np.cos(X) * V), rtol=1e-14)


def test_rrule_only_gets_rop_from_the_pullback(clean_registry):  # type: ignore[no-untyped-def]
    """A function with only an rrule: ``R_op`` is the transpose of its pullback (the marker's
    3x shows the rrule is used), and second order still works."""
    f = crpt.wrap(_marked_rules(clean_registry, frule=False))
    x, v = pt.dvector("x"), pt.dvector("v")
    y = f(x)
    r = Rop(y, x, v, use_op_rop_implementation=True)
    h = hessian(y, x)
    got_r, got_h = _fn([x, v], [r, h])(X, V)
    np.testing.assert_allclose(got_r, 3.0 * np.sum(np.cos(X) * V), rtol=1e-14)
    np.testing.assert_allclose(got_h, np.diag(-3.0 * np.sin(X)), rtol=1e-14, atol=1e-15)


def test_frule_only_gets_grad_from_the_pushforward(clean_registry):  # type: ignore[no-untyped-def]
    """A function with only an frule: ``L_op`` is the transpose of its pushforward."""
    f = crpt.wrap(_marked_rules(clean_registry, rrule=False))
    x, v = pt.dvector("x"), pt.dvector("v")
    y = f(x)
    g = pytensor.grad(y, x)
    r = Rop(y, x, v, use_op_rop_implementation=True)
    h = hessian(y, x)
    got_g, got_r, got_h = _fn([x, v], [g, r, h])(X, V)
    np.testing.assert_allclose(got_g, 3.0 * np.cos(X), rtol=1e-14)
    np.testing.assert_allclose(got_r, 3.0 * np.sum(np.cos(X) * V), rtol=1e-14)
    np.testing.assert_allclose(got_h, np.diag(-3.0 * np.sin(X)), rtol=1e-14, atol=1e-15)


def test_third_order() -> None:
    """grad of grad of grad of a wrapped sin: cos, -sin, -cos (each level an Op of its own)."""
    f = crpt.wrap(np.sin)
    x = pt.dvector("x")
    g1 = pytensor.grad(f(x).sum(), x)
    g2 = pytensor.grad(g1.sum(), x)
    g3 = pytensor.grad(g2.sum(), x)
    got = _fn([x], [g1, g2, g3])(X)
    for a, b in zip(got, [np.cos(X), -np.sin(X), -np.cos(X)], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


# --- second order against central differences ---------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_hessian_matches_central_differences(dtype: str) -> None:
    """``pytensor.gradient.hessian`` of a loss through a wrapped norm and logsumexp (static axis)
    equals central differences of the compiled gradient, in float64 and float32."""
    import scipy.special

    norm, lse = crpt.wrap(np.linalg.norm), crpt.wrap(scipy.special.logsumexp)

    def loss(p: Any) -> Any:  # hessian takes a vector: the matrix is its reshape
        m = p.reshape((2, 3))
        return norm(m) + lse(m, axis=1).sum() + lse(m, axis=0).max()

    p, p64 = pt.vector("p", dtype=dtype), pt.dvector("p64")
    g, h = pytensor.grad(loss(p), p), hessian(loss(p), p)
    assert g.dtype == dtype and h.dtype == dtype
    f_g, f_h = _fn([p], g), _fn([p], h)
    f_g64 = _fn([p64], pytensor.grad(loss(p64), p64))  # the differences in float64
    x = np.random.default_rng(0).standard_normal(6).astype(dtype)
    x64 = x.astype(np.float64)
    got = f_h(x)
    assert got.shape == (6, 6) and got.dtype == dtype
    want = np.stack([_central(f_g64, [x64], [e], 1e-5) for e in np.eye(6)])  # symmetric
    tol = {"float64": 1e-6, "float32": 1e-4}[dtype]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(f_g(x), f_g64(x64), rtol=tol, atol=tol)


# --- arguments: static leaves are props, integers are disconnected, keywords --------------------


def test_static_leaves_are_op_props_and_tensors_inputs() -> None:
    import scipy.special

    lse = crpt.wrap(scipy.special.logsumexp)
    m = pt.dmatrix("m")
    a, b, c = lse(m, axis=1), lse(m, axis=1), lse(m, axis=0)
    assert a.owner.inputs == [m] and c.owner.inputs == [m]
    assert "structure" in a.owner.op.__props__
    assert a.owner.op == b.owner.op and hash(a.owner.op) == hash(b.owner.op)
    assert a.owner.op != c.owner.op
    x = np.arange(6.0).reshape(2, 3)
    got_a, got_c = _fn([m], [a, c])(x)
    np.testing.assert_allclose(got_a, scipy.special.logsumexp(x, axis=1), rtol=1e-14)
    np.testing.assert_allclose(got_c, scipy.special.logsumexp(x, axis=0), rtol=1e-14)


def test_integer_inputs_are_disconnected_and_the_floating_one_differentiated() -> None:
    take = crpt.wrap(np.take)
    x, idx = pt.dvector("x"), pt.lvector("idx")
    y = take(x, idx)
    assert not any(y.owner.op.connection_pattern(y.owner)[1])
    w = np.array([1.0, 10.0, 100.0])
    g = pytensor.grad((y * w).sum(), x)
    got = _fn([x, idx], g)(np.zeros(4), np.array([2, 0, 2]))
    np.testing.assert_array_equal(got, [10.0, 0.0, 101.0, 0.0])


def scaled(x, *, w):  # type: ignore[no-untyped-def]
    return x * w


def test_keyword_only_array_gradient_raises_not_zeros(clean_registry):  # type: ignore[no-untyped-def]
    """A floating keyword-only argument cannot move to a position (a pullback returns positional
    cotangents): its gradient is undefined, so ``pytensor.grad`` raises naming it, never a zero;
    the positional argument's gradient is computed."""

    @cr.register_rrule(scaled)
    def _rrule(x, *, w):  # type: ignore[no-untyped-def]
        return x * w, lambda g: (cr.NoTangent(), g * w)

    @cr.register_frule(scaled)
    def _frule(tangents, x, *, w):  # type: ignore[no-untyped-def]
        return x * w, tangents[1] * w

    f = crpt.wrap(scaled)
    x, w, v = pt.dvector("x"), pt.dvector("w"), pt.dvector("v")
    y = f(x, w=w).sum()
    np.testing.assert_array_equal(_fn([x, w], pytensor.grad(y, x))(X, V), V)
    with pytest.raises(NullTypeGradError, match="'w'"):
        pytensor.grad(y, w)
    with pytest.raises(crpt.KeywordDerivativeError, match="'w'"):
        Rop(f(x, w=w), w, v, use_op_rop_implementation=True)
    # Rop in x alone: PyTensor gives w a zero tangent, which is no derivative of w
    r = Rop(f(x, w=w), x, v, use_op_rop_implementation=True)
    np.testing.assert_array_equal(_fn([x, w, v], r)(X, V, np.full(3, 2.0)), 2.0 * V)


def test_keyword_argument_that_can_move_is_differentiated() -> None:
    """``np.linalg.norm(x=...)``: a floating keyword that names a positional parameter moves to
    its position and is differentiated."""
    norm = crpt.wrap(np.linalg.norm)
    x = pt.dvector("x")
    got = _fn([x], pytensor.grad(norm(x=x), x))(np.array([3.0, 4.0]))
    np.testing.assert_allclose(got, [0.6, 0.8], rtol=1e-15)


def test_pytree_arguments(clean_registry):  # type: ignore[no-untyped-def]
    """Variables inside a dict and a tuple are inputs of the Op, and get their gradients."""

    def weighted(params, xs):  # type: ignore[no-untyped-def]
        return params["a"] * xs[0] + params["b"] * xs[1]

    @cr.register_rrule(weighted)
    def _rrule(params, xs):  # type: ignore[no-untyped-def]
        def pullback(g):  # type: ignore[no-untyped-def]
            dp = cr.Tangent(primal_type=dict, a=np.sum(g * xs[0]), b=np.sum(g * xs[1]))
            return cr.NoTangent(), dp, cr.Tangent(g * params["a"], g * params["b"])

        return weighted(params, xs), pullback

    f = crpt.wrap(weighted)
    a, b = pt.dscalar("a"), pt.dscalar("b")
    x0, x1 = pt.dvector("x0"), pt.dvector("x1")
    y = f({"a": a, "b": b}, (x0, x1)).sum()
    got = _fn([a, b, x0, x1], pytensor.grad(y, [a, b, x0, x1]))(2.0, 3.0, X, V)
    for g, want in zip(got, [X.sum(), V.sum(), np.full(3, 2.0), np.full(3, 3.0)], strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-15)


def test_complex_inputs_are_refused() -> None:
    with pytest.raises(TypeError, match="complex inputs"):
        crpt.wrap(np.sum)(pt.zvector("z"))


def test_no_rule_raises() -> None:
    def no_rule(x):  # type: ignore[no-untyped-def]
        return x

    with pytest.raises(cr.NoRuleError, match="no_rule"):
        crpt.wrap(no_rule)


def test_output_types_need_static_shapes_where_placeholders_fail() -> None:
    """The output types come from running f on placeholders; where that fails (a product whose
    inner dimensions are unknown placeholders of length 3 and 2), the error asks for static
    shapes, and static shapes make it work."""
    matmul = crpt.wrap(np.matmul)
    a, b = pt.tensor("a", shape=(None, 2)), pt.dmatrix("b")
    with pytest.raises(TypeError, match="static shapes"):
        matmul(a, b)
    a2, b2 = pt.tensor("a2", shape=(3, 2)), pt.tensor("b2", shape=(2, 4))
    y = matmul(a2, b2)
    assert y.type.shape == (3, 4)
    A, B = np.ones((3, 2)), np.arange(8.0).reshape(2, 4)
    g = _fn([a2, b2], pytensor.grad(y.sum(), a2))(A, B)
    np.testing.assert_allclose(g, np.ones((3, 4)) @ B.T, rtol=1e-15)


# --- outputs: tuples, named tuples, lists; dtypes -----------------------------------------------


def test_named_tuple_output_slogdet() -> None:
    slogdet = crpt.wrap(np.linalg.slogdet)
    a = pt.dmatrix("a")
    res = slogdet(a)
    assert hasattr(res, "_fields") and len(res) == 2
    sign, logabsdet = res
    g = pytensor.grad(logabsdet, a)
    A = np.array([[2.0, 1.0], [0.5, -3.0]])
    got_s, got_l, got_g = _fn([a], [sign, logabsdet, g])(A)
    want = np.linalg.slogdet(A)
    assert got_s == want.sign
    np.testing.assert_allclose(got_l, want.logabsdet, rtol=1e-15)
    np.testing.assert_allclose(got_g, np.linalg.inv(A).T, rtol=1e-14)


def test_list_output_split_each_part_weighted() -> None:
    split = crpt.wrap(np.split)
    x = pt.dvector("x")
    parts = split(x, 3)
    assert isinstance(parts, list) and len(parts) == 3
    loss = parts[0].sum() + 10.0 * parts[2].sum()  # parts[1] disconnected
    got = _fn([x], pytensor.grad(loss, x))(np.arange(6.0))
    np.testing.assert_array_equal(got, [1.0, 1.0, 0.0, 0.0, 10.0, 10.0])


def test_float32_stays_float32() -> None:
    norm = crpt.wrap(np.linalg.norm)
    x = pt.fvector("x")
    y = norm(x)
    g = pytensor.grad(y, x)
    assert y.dtype == "float32" and g.dtype == "float32"
    got_y, got_g = _fn([x], [y, g])(np.array([3.0, 4.0], dtype=np.float32))
    assert got_y.dtype == np.float32 and got_g.dtype == np.float32
    np.testing.assert_allclose(got_g, [0.6, 0.8], rtol=1e-6)


def test_compiles_in_fast_compile_and_fast_run() -> None:
    """The same graph compiles and runs in both of PyTensor's modes (C code around the Ops)."""
    norm = crpt.wrap(np.linalg.norm)
    x = pt.dvector("x")
    loss = pt.exp(norm(x)) * pt.sum(x**2)
    g = pytensor.grad(loss, x)
    xv = np.array([0.3, -0.4])
    outs = []
    for mode in ("FAST_COMPILE", "FAST_RUN"):
        t = time.perf_counter()
        fn = pytensor.function([x], [loss, g], mode=mode)
        print(f"{mode}: compiled in {time.perf_counter() - t:.2f} s")
        outs.append(fn(xv))
    r = np.linalg.norm(xv)
    want_g = np.exp(r) * (xv / r * np.sum(xv**2) + 2 * xv)
    for loss_val, g_val in outs:
        np.testing.assert_allclose(loss_val, np.exp(r) * np.sum(xv**2), rtol=1e-14)
        np.testing.assert_allclose(g_val, want_g, rtol=1e-14)


# --- PyMC ----------------------------------------------------------------------------------------


def _pymc() -> Any:
    pytest.importorskip("pymc", reason="pymc is not installed (the pytensor extra has it)")
    with warnings.catch_warnings():
        # ArviZ (imported by PyMC) warns once a day of its coming refactor
        warnings.filterwarnings("ignore", category=FutureWarning, module="arviz")
        import pymc

    return pymc


DATA = np.array([-2.1, -1.7, -2.4, 1.9, 2.2, 2.6, 1.4, -1.9])
LOG_W = np.log(np.array([0.4, 0.6]))


def _mixture(pm: Any, logsumexp: Any, norm: Any) -> Any:
    """A two-component normal mixture, its likelihood through ``logsumexp`` (over the components)
    and a penalty on the means through ``norm``."""
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 3.0, shape=2)
        sigma = pm.HalfNormal("sigma", 2.0)
        comp = pm.logp(pm.Normal.dist(mu, sigma), DATA[:, None]) + LOG_W  # (8, 2)
        pm.Potential("likelihood", logsumexp(comp, axis=1).sum())
        pm.Potential("penalty", -0.1 * norm(mu))
    return model


def test_pymc_model_logp_and_dlogp_match_native_pytensor(clean_registry):  # type: ignore[no-untyped-def]
    """A PyMC model whose likelihood calls a wrapped logsumexp (a registered rule) and whose
    prior calls a wrapped norm: ``compile_logp`` and ``compile_dlogp`` (through sigma's log
    transform) equal the same model written with PyTensor's own ``logsumexp`` and norm."""
    import scipy.special

    pm = _pymc()
    ours = _mixture(pm, crpt.wrap(scipy.special.logsumexp), crpt.wrap(np.linalg.norm))
    native = _mixture(pm, pt.logsumexp, lambda v: pt.sqrt(pt.sum(v**2)))
    assert any(
        isinstance(n.op, crpt._RuleOp)
        for n in pytensor.graph.traversal.applys_between(ours.value_vars, [ours.logp()])
    )
    logp, dlogp = ours.compile_logp(), ours.compile_dlogp()
    logp_native, dlogp_native = native.compile_logp(), native.compile_dlogp()
    rng = np.random.default_rng(0)
    for _ in range(3):
        point = {"mu": rng.standard_normal(2) * 2, "sigma_log__": np.array(rng.standard_normal())}
        np.testing.assert_allclose(logp(point), logp_native(point), rtol=1e-13)
        np.testing.assert_allclose(dlogp(point), dlogp_native(point), rtol=1e-12, atol=1e-13)


def test_pymc_dlogp_uses_the_rule(clean_registry):  # type: ignore[no-untyped-def]
    """The marker rule inside a PyMC model: ``dlogp`` carries its 3x, so PyMC's gradient is the
    rule's."""
    pm = _pymc()
    marked = crpt.wrap(_marked_rules(clean_registry))
    with pm.Model() as model:
        x = pm.Flat("x", shape=3)
        pm.Potential("p", marked(x))
    point = {"x": X}
    np.testing.assert_allclose(model.compile_logp()(point), np.sum(np.sin(X)), rtol=1e-14)
    np.testing.assert_allclose(model.compile_dlogp()(point), 3.0 * np.cos(X), rtol=1e-14)
