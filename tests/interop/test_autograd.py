"""The HIPS autograd bridge, judged by autograd's own checker: ``check_grads(f, modes=["fwd",
"rev"], order=2)`` for the worked example and every GPU-safe registration (real and complex
inputs), a third-order check, and agreement with autograd's own derivatives."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import examples_for
from chainrules.testing import gradient as fd_gradient

autograd = pytest.importorskip("autograd")
import autograd.numpy as anp  # noqa: E402
from autograd.test_util import check_grads  # noqa: E402

from chainrules.interop import autograd as crag  # noqa: E402

pytestmark = pytest.mark.usefixtures("seeded_numpy")  # autograd draws from the global state

DOCS = Path(__file__).resolve().parents[2] / "docs"


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
gpu_safe, ZERO_SENSITIVE = _cases.gpu_safe, _cases.ZERO_SENSITIVE
Case, _function = _cases.Case, _cases._function
MODES = ["fwd", "rev"]


def _fn(case):  # type: ignore[no-untyped-def]
    leaves, rebuild = case.split()
    wrapped = crag.wrap(case.f)

    def fn(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        return wrapped(*args, **kwargs)

    return fn, leaves


def _check_second_order(case):  # type: ignore[no-untyped-def]
    if any(isinstance(a, (tuple, list)) and a and isinstance(a[0], np.ndarray) for a in case.args):
        pytest.skip("autograd boxes top-level arguments only (a tuple of arrays is not boxed)")
    why = case.second_order_xfail("rrule") or case.second_order_xfail("frule")
    fn, xs = _fn(case)
    if why is None:
        check_grads(fn, modes=MODES, order=2)(*xs)
        return
    # the kink is real: the check must fail (a strict xfail written inline, per case)
    check_grads(fn, modes=MODES, order=1)(*xs)
    with pytest.raises(AssertionError):
        check_grads(fn, modes=MODES, order=2)(*xs)
    pytest.xfail(why)


def test_check_grads_second_order(gpu_safe_case):  # type: ignore[no-untyped-def]
    _check_second_order(gpu_safe_case)


# functions of real arguments only (ordering): no complex version
REAL_ONLY = ("max", "min", "amax", "amin", "ptp")


def _complexify(a):  # type: ignore[no-untyped-def]
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a + 0.5j * np.cos(3.0 * a + 1.0)
    return a


def _complex_cases() -> list:  # type: ignore[type-arg]
    """Per GPU-safe registration: its first complex example, or else its middle example with the
    floating arrays made complex (functions of complex arguments only)."""
    out = []
    for reg in cr.registrations():
        if not gpu_safe(reg) or reg.rrule is None:
            continue
        if reg.name.split(":")[-1] in REAL_ONLY:
            continue
        exs = examples_for(reg)
        cases = [
            (i, Case(reg.name, _function(reg), reg, tuple(e.args), dict(e.kwargs), e.note))
            for i, e in enumerate(exs)
        ]
        cases = [(i, c) for i, c in cases if c.split()[0] and all(x.size for x in c.split()[0])]
        if not cases:
            continue
        native = [(i, c) for i, c in cases if c.complex]
        if native:
            i, case = native[0]
        else:
            i, case = cases[len(cases) // 2]
            case = Case(
                case.reg,
                case.f,
                case.registration,
                tuple(_complexify(a) for a in case.args),
                case.kwargs,
                case.note + " (made complex)",
            )
        out.append(pytest.param(case, id=f"{reg.name}-{i}"))
    return out


COMPLEX_CASES = _complex_cases()


def test_there_are_complex_cases():  # type: ignore[no-untyped-def]
    assert len(COMPLEX_CASES) >= 20


@pytest.mark.parametrize("case", COMPLEX_CASES)
def test_check_grads_second_order_complex(case):  # type: ignore[no-untyped-def]
    _check_second_order(case)


def test_zero_sensitive_cumprod_is_exact_away_from_zero():  # type: ignore[no-untyped-def]
    assert {"cumulative_prod", "numpy:cumprod"} == ZERO_SENSITIVE
    x = np.array([[0.5, -1.5, 2.0], [1.2, 0.3, -0.7]])
    check_grads(crag.wrap(np.cumprod), modes=MODES, order=2)(x)


def test_max_at_a_tie():  # type: ignore[no-untyped-def]
    """At a tie the rule splits the cotangent evenly between the tied entries (DESIGN.md): the
    average of the one-sided derivatives, which is what central differences measure, so
    autograd's checker passes there too (max is piecewise linear: the Hessian is zero)."""
    f = crag.wrap(np.max)
    x = np.array([1.0, 2.0, 2.0])
    check_grads(f, modes=MODES, order=1)(x)
    np.testing.assert_array_equal(autograd.grad(f)(x), [0.0, 0.5, 0.5])


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="max at a tie, second order: the gradient jumps from the even split to a one-hot "
    "vector when the tie is broken, so finite differences of the gradient blow up (a kink)",
)
def test_max_at_a_tie_second_order():  # type: ignore[no-untyped-def]
    check_grads(crag.wrap(np.max), modes=MODES, order=2)(np.array([1.0, 2.0, 2.0]))


def _logsumexp(clean_registry):  # type: ignore[no-untyped-def]
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "interop.md").read_text(), flags=re.S)
    ns: dict = {"__name__": "doc"}  # type: ignore[type-arg]
    exec(compile(blocks[0], str(DOCS / "interop.md"), "exec"), ns)
    return ns["logsumexp"]


def test_logsumexp_example_second_order(clean_registry):  # type: ignore[no-untyped-def]
    f = crag.wrap(_logsumexp(clean_registry))
    x = np.random.default_rng(0).standard_normal((3, 4))
    check_grads(f, modes=MODES, order=2)(x)
    v = x[0]
    p = np.exp(v - np.log(np.sum(np.exp(v))))
    np.testing.assert_allclose(autograd.hessian(f)(v), np.diag(p) - np.outer(p, p), rtol=1e-12)


def test_third_order():  # type: ignore[no-untyped-def]
    x = np.array([[3.0, 4.0, 1.0], [0.5, -2.0, 1.5]])
    check_grads(crag.wrap(np.linalg.norm), modes=MODES, order=3)(x)
    f = crag.wrap(np.prod)
    check_grads(lambda x: f(x, axis=1), modes=MODES, order=3)(x)


def test_agrees_with_autograd_native():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    for ours, native, kw in [
        (crag.wrap(np.sum), anp.sum, {"axis": 1}),
        (crag.wrap(np.linalg.norm), anp.linalg.norm, {}),
        (crag.wrap(np.cumsum), anp.cumsum, {"axis": 0}),
        (crag.wrap(np.max), anp.max, {"axis": 0}),
        (crag.wrap(np.prod), anp.prod, {"axis": 1}),
        (crag.wrap(np.var), anp.var, {"axis": 0}),
    ]:
        w = np.cos(np.arange(np.size(native(x, **kw)))).reshape(np.shape(native(x, **kw)))

        def loss(x, f):  # type: ignore[no-untyped-def]
            return anp.sum(anp.sin(f(x, **kw)) * w)  # noqa: B023

        g1 = autograd.grad(loss)(x, ours)
        g2 = autograd.grad(loss)(x, native)
        np.testing.assert_allclose(g1, g2, rtol=1e-12)
        # second order: the Hessian of the scalar loss
        h1 = autograd.hessian(loss)(x, ours)
        h2 = autograd.hessian(loss)(x, native)
        np.testing.assert_allclose(h1, h2, rtol=1e-10, atol=1e-12)


def test_complex_convention_matches_autograd():  # type: ignore[no-untyped-def]
    """autograd's gradient of a real loss is dL/dRe - i dL/dIm (the conjugate of chainrules'):
    the bridge converts, so a holomorphic inner function and a real loss agree with autograd's
    own derivatives, to second order."""
    z = np.array([1.0 + 2.0j, 0.5 - 1.0j, -0.3 + 0.2j])
    s, cs = crag.wrap(np.sum), crag.wrap(np.cumsum)

    def ours(z):  # type: ignore[no-untyped-def]
        return anp.abs(s(anp.sin(cs(z)) * z)) ** 2

    def native(z):  # type: ignore[no-untyped-def]
        return anp.abs(anp.sum(anp.sin(anp.cumsum(z)) * z)) ** 2

    g = autograd.grad(ours)(z)
    np.testing.assert_allclose(g, autograd.grad(native)(z), rtol=1e-12)
    # chainrules' own gradient is the conjugate
    want = cr.ad.grad(lambda z: np.abs(np.sum(np.sin(np.cumsum(z)) * z)) ** 2)(z)
    np.testing.assert_allclose(g, np.conj(want), rtol=1e-12)
    # autograd has no complex VJP for cumprod: compare the bridge's with chainrules.ad's
    cp = crag.wrap(np.cumprod)
    g = autograd.grad(lambda z: anp.abs(s(cp(z) * z)) ** 2)(z)
    want = cr.ad.grad(lambda z: np.abs(np.sum(np.cumprod(z) * z)) ** 2)(z)
    np.testing.assert_allclose(g, np.conj(want), rtol=1e-12)
    # second order: a Hessian-vector product (autograd's hessian takes real inputs only)
    v = np.array([0.3 - 1.0j, 2.0 + 0.5j, -1.0 + 0.0j])

    def hvp(f):  # type: ignore[no-untyped-def]
        return autograd.grad(lambda z: anp.real(anp.sum(autograd.grad(f)(z) * v)))(z)

    np.testing.assert_allclose(hvp(ours), hvp(native), rtol=1e-10)


def test_first_order_shares_one_rrule_call(clean_registry):  # type: ignore[no-untyped-def]
    calls = []

    def two_args(x, y):  # type: ignore[no-untyped-def]
        return x * y

    @cr.register_rrule(two_args)
    def _rrule(x, y):  # type: ignore[no-untyped-def]
        calls.append(1)
        return x * y, lambda g: (cr.NoTangent(), g * y, g * x)

    @cr.register_frule(two_args)
    def _frule(tangents, x, y):  # type: ignore[no-untyped-def]
        dx, dy = (0.0 if isinstance(t, cr.AbstractZero) else t for t in tangents[1:])
        return x * y, dx * y + dy * x

    f = crag.wrap(two_args)
    gx, gy = autograd.grad(lambda x, y: anp.sum(f(x, y)), argnum=(0, 1))(
        np.ones(2), np.full(2, 3.0)
    )
    np.testing.assert_array_equal(gx, [3.0, 3.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0])
    assert len(calls) == 1
    check_grads(f, modes=MODES, order=2)(np.array([1.0, 2.0]), np.array([0.5, -1.0]))


def no_rule_function(x):  # type: ignore[no-untyped-def]
    return x


def test_wrap_without_rule_raises():  # type: ignore[no-untyped-def]
    with pytest.raises(cr.NoRuleError, match="no_rule_function"):
        crag.wrap(no_rule_function)


def bad_function(x, y):  # type: ignore[no-untyped-def]
    return x * y


def test_wrong_shape_cotangent_names_function_and_argument(clean_registry):  # type: ignore[no-untyped-def]
    @cr.register_rrule(bad_function)
    def _rrule(x, y):  # type: ignore[no-untyped-def]
        return x * y, lambda g: (cr.NoTangent(), g * y, (g * x)[:1])

    @cr.register_frule(bad_function)
    def _frule(tangents, x, y):  # type: ignore[no-untyped-def]
        return x * y, tangents[1] * y

    f = crag.wrap(bad_function)
    with pytest.raises(ValueError, match=r"rrule of .*bad_function.*\(1,\) for argument 1"):
        autograd.grad(lambda y: anp.sum(f(np.ones(3), y)))(np.ones(3))


def test_wrong_dtype_tangent_names_function(clean_registry):  # type: ignore[no-untyped-def]
    @cr.register_rrule(bad_function)
    def _rrule(x, y):  # type: ignore[no-untyped-def]
        return x * y, lambda g: (cr.NoTangent(), g * y, g * x)

    @cr.register_frule(bad_function)
    def _frule(tangents, x, y):  # type: ignore[no-untyped-def]
        return x * y, (tangents[1] * y).astype(np.float32)

    f = crag.wrap(bad_function)
    with pytest.raises(ValueError, match=r"frule of .*bad_function.*dtype float32"):
        autograd.make_jvp(lambda x: f(x, np.ones(3)))(np.ones(3))(np.ones(3))


@pytest.mark.parametrize("split", [np.vsplit, np.hsplit, np.split])
def test_campaign_complex_split_cotangent_is_conjugated(split: object) -> None:
    """Regression (differential campaign, seeds 136 and 187): a function with several outputs
    (a split) handed autograd's cotangent list to the rule unconjugated, so complex inputs got
    the conjugate gradient."""
    from chainrules import ad

    rng = np.random.default_rng(0)
    z = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    shape = split(z, 2)[0].shape
    w = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    wrapped = crag.wrap(split)

    def loss(f: object) -> object:
        def L(z: object) -> object:
            part = f(z, 2)[0]
            return anp.sum(anp.real(part * w)) if f is wrapped else np.sum(np.real(part * w))

        return L

    got = np.conj(autograd.grad(loss(wrapped))(z))  # autograd's convention: the conjugate
    want = ad.grad(loss(split))(z)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_named_tuple_output_cotangent_is_conjugated(named_tuple_output_case):  # type: ignore[no-untyped-def]
    """Regression (issue 26, campaign seed 5199: slogdet -> ... on complex64): autograd's
    cotangent of a function returning a named tuple (slogdet's SlogdetResult, eigh's, svd's)
    reached the pullback unconjugated (only a plain tuple or list was conjugated), so the
    gradient through a complex field was wrong. Every named-tuple output, each floating field
    weighted, on complex-shifted inputs where the function takes them."""
    case = named_tuple_output_case
    leaves, rebuild = case.split()
    rng = np.random.default_rng(7)
    f = crag.wrap(case.f)
    y0 = case.f(*case.args, **case.kwargs)
    ws = [
        rng.standard_normal(np.shape(v)) + (1j * rng.standard_normal(np.shape(v)))
        if np.iscomplexobj(v)
        else rng.standard_normal(np.shape(v))
        for v in y0
    ]
    fields = [k for k, v in enumerate(y0) if np.asarray(v).dtype.kind in "fc"]

    def loss(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        y = f(*args, **kwargs)
        return sum(anp.real(anp.sum(y[k] * ws[k])) for k in fields)

    def native(*vals):  # type: ignore[no-untyped-def]
        args, kwargs = rebuild(*vals)
        y = case.f(*args, **kwargs)
        return sum(np.real(np.sum(y[k] * ws[k])) for k in fields)

    from chainrules import ad

    for i in range(len(leaves)):
        g = autograd.grad(loss, i)(*leaves)
        want = ad.grad(native, argnums=i)(*leaves)
        np.testing.assert_allclose(np.conj(g), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("case", ["lstsq", "cho_factor"])
def test_a_tuple_output_with_an_integer_or_boolean_scalar(case):  # type: ignore[no-untyped-def]
    """Regression (campaign autograd-bridge seeds 69, 134, 282, 310, 1056, 1273, 2157): a
    function returning a tuple with an integer or boolean scalar (``lstsq``'s rank,
    ``cho_factor``'s ``lower``) raised "Can't find vector space for value 2 of type
    numpy.int32": autograd has no vector space for such a scalar. The scalar is a 0-d array
    inside the primitive and a NumPy scalar again outside; the gradient is right."""
    import autograd
    import autograd.numpy as anp

    sl = pytest.importorskip("scipy.linalg")
    a0 = np.random.default_rng(0).standard_normal((4, 3))
    b = np.linspace(1.0, 2.0, 4)
    if case == "lstsq":
        f = crag.wrap(np.linalg.lstsq)

        def loss(a, np_=anp):  # type: ignore[no-untyped-def]
            x, _, rank, _ = f(a, b, rcond=None) if np_ is anp else np.linalg.lstsq(a, b, None)
            assert isinstance(rank, np.integer)
            return np_.sum(x**2)
    else:
        f = crag.wrap(sl.cho_factor)

        def loss(a, np_=anp):  # type: ignore[no-untyped-def]
            m = a @ a.T + 3 * np.eye(4)
            c, lower = f(m) if np_ is anp else sl.cho_factor(m)
            assert isinstance(lower, (bool, np.bool_))
            return np_.sum(np_.tril(c) ** 2) if lower else np_.sum(np_.triu(c) ** 2)

    got = autograd.grad(loss)(a0)
    want = fd_gradient(lambda xs: loss(xs[0], np), [a0], 0, 1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
