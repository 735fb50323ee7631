"""scipy.special's rules: the tester on every backend that has each function, JAX's own
derivatives as a reference, the derivatives with no closed form, edge values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special")

sps = pytest.importorskip("scipy.special")


def test_import_chainrules_imports_no_scipy_jax_or_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, chainrules; print([m for m in ('scipy', 'jax', 'torch') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_jax_scipy_special_name_but_bessel_jn_is_registered() -> None:
    jsp = pytest.importorskip("jax.scipy.special")
    names = {n for n in dir(jsp) if not n.startswith("_")}
    regs = {r.name for r in cr.registrations()}
    missing = {n for n in names if f"scipy:special.{n}" not in regs}
    assert missing <= {"bessel_jn"}, missing


def test_derivative_from_the_same_library() -> None:
    x = np.array([0.5, 1.5, 4.0])
    _, pb = cr.rrule(sps.gammaln, x)
    np.testing.assert_allclose(pb(np.ones(3))[1], sps.digamma(x))
    torch = pytest.importorskip("torch")
    t = torch.tensor(x)
    _, pb = cr.rrule(torch.special.gammaln, t)
    g = pb(torch.ones(3))[1]
    assert isinstance(g, torch.Tensor)
    np.testing.assert_allclose(g.numpy(), sps.digamma(x))


@pytest.mark.parametrize(
    ("name", "args", "argnums"),
    [
        ("gammaln", (np.array([0.7, 2.5]),), (0,)),
        ("erfinv", (np.array([-0.6, 0.3]),), (0,)),
        ("betaln", (np.array([0.7, 2.5]), np.array([1.3, 0.4])), (0, 1)),
        ("xlogy", (np.array([0.0, 2.0]), np.array([0.5, 3.0])), (0, 1)),
        ("i1e", (np.array([-1.5, 0.0, 2.0]),), (0,)),
        ("log_ndtr", (np.array([-8.0, 0.5]),), (0,)),
        ("gammainc", (np.array([1.5, 3.0]), np.array([0.5, 2.0])), (1,)),
        ("betainc", (np.array([1.5, 3.0]), np.array([2.0, 0.7]), np.array([0.3, 0.6])), (2,)),
        ("zeta", (np.array([2.0, 3.0]), np.array([0.5, 2.0])), (1,)),
        ("owens_t", (np.array([-1.0, 0.5]), np.array([0.3, 2.0])), (0, 1)),
        # JAX's own spence derivative is 0 at z = 1 and NaN above; ours is log(z)/(1-z), -1 at 1
        ("spence", (np.array([0.3, 0.5]),), (0,)),
        # JAX's boxcox derivative in lmbda is 0 at lmbda = 0; ours is the limit (log x)**2 / 2
        ("boxcox", (np.array([0.5, 2.0]), np.array([-0.4, 0.7])), (0, 1)),
    ],
)
def test_pullback_agrees_with_jax_grad(name: str, args: tuple, argnums: tuple) -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    f = getattr(jax.scipy.special, name)
    jargs = tuple(jnp.asarray(a) for a in args)
    _, pb = cr.rrule(f, *jargs)
    ours = pb(jnp.ones(jnp.broadcast_shapes(*(a.shape for a in jargs))))
    for i in argnums:
        want = jax.grad(lambda *a: jnp.sum(f(*a)), argnums=i)(*jargs)
        np.testing.assert_allclose(np.asarray(cr.unthunk(ours[i + 1])), want, rtol=1e-10)


@pytest.mark.parametrize(
    ("name", "args", "arg"),
    [
        ("gammainc", (np.array([1.5]), np.array([0.5])), "a"),
        ("betainc", (np.array([1.5]), np.array([2.0]), np.array([0.3])), "a"),
        ("zeta", (np.array([2.5]), np.array([0.5])), "x"),
        ("hyp1f1", (np.array([1.5]), np.array([2.0]), np.array([0.3])), "a"),
    ],
)
def test_no_closed_form_raises_only_when_forced(name: str, args: tuple, arg: str) -> None:
    f = getattr(sps, name)
    _, pb = cr.rrule(f, *args)
    res = pb(np.ones(1))
    assert isinstance(res[1], cr.Thunk)  # nothing raised yet: the other cotangents are usable
    assert isinstance(res[-1], np.ndarray)
    with pytest.raises(NotImplementedError, match=rf"{name}.*'{arg}'"):
        cr.unthunk(res[1])
    tangents = (cr.NoTangent(), np.ones(1), *[cr.ZeroTangent()] * (len(args) - 1))
    with pytest.raises(NotImplementedError, match=name):
        cr.frule(tangents, f, *args)
    # an integer order has no tangent space: nothing to force
    _, pb = cr.rrule(f, np.array([2]), *args[1:])
    assert isinstance(pb(np.ones(1))[1], cr.NoTangent)


def test_edge_values_follow_the_limits() -> None:
    x = np.array([0.0])
    assert cr.rrule(sps.i1, x)[1](np.ones(1))[1][0] == 0.5
    assert cr.rrule(sps.i1e, x)[1](np.ones(1))[1][0] == 0.5
    with np.errstate(divide="ignore"):  # d/dx xlogy(0, 0) = log 0
        _, dx, dy = cr.rrule(sps.xlogy, x, np.array([0.0]))[1](np.ones(1))
    assert dy[0] == 0.0 and dx[0] == -np.inf
    assert cr.rrule(sps.spence, np.array([1.0]))[1](np.ones(1))[1][0] == -1.0
    _, _, dl = cr.rrule(sps.boxcox, np.array([2.0]), np.array([0.0]))[1](np.ones(1))
    np.testing.assert_allclose(dl, np.log(2.0) ** 2 / 2)
    with np.errstate(divide="ignore"):  # the value is log(0) = -inf
        g = cr.rrule(sps.logsumexp, np.array([-np.inf, -np.inf]))[1](np.ones(()))[1]
    np.testing.assert_array_equal(g, [0.0, 0.0])
    np.testing.assert_array_equal(cr.rrule(sps.comb, np.array([2.0]), np.array([3.0]))[0], [0.0])


def test_logsumexp_matches_scipy_with_b_and_return_sign() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    (y, s), pb = cr.rrule(sps.logsumexp, a, 1, b, False, True)
    want_y, want_s = sps.logsumexp(a, 1, b, return_sign=True)
    np.testing.assert_allclose(y, want_y)
    np.testing.assert_array_equal(s, want_s)
    _, ga, _, gb, _, _ = pb(cr.Tangent(np.ones(2), cr.NoTangent()))
    w = np.exp(a - want_y[:, None]) * want_s[:, None]
    np.testing.assert_allclose(ga, b * w)
    np.testing.assert_allclose(gb, w)


def _cplx(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# (args, kwargs) of logsumexp on complex input: the weights b real, complex, broadcast; the sign
_LSE_COMPLEX = (
    ((4,), {}),
    ((2, 3), {"axis": 1}),
    ((2, 3), {"axis": 0, "b": "real", "keepdims": True}),
    ((2, 3), {"axis": -1, "b": "complex"}),
    ((4,), {"return_sign": True}),
    ((2, 3), {"axis": 0, "b": "complex", "return_sign": True}),
)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize(("shape", "kw"), _LSE_COMPLEX)
def test_logsumexp_complex_pullback_conjugates_softmax(
    shape: tuple[int, ...], kw: dict[str, object], dtype: type
) -> None:
    # the cotangent of a complex input is dL/dRe + i dL/dIm: for the holomorphic
    # lse = log sum(b exp a), a_bar = conj(b softmax) y_bar (the rule gave b softmax y_bar); with
    # return_sign the complex sign S/|S| moves with the phase of S
    from chainrules.testing import test_frule, test_rrule

    rng = np.random.default_rng(5)
    a = _cplx(rng, *shape).astype(dtype)
    kw = dict(kw)
    args: tuple[object, ...] = (a,)
    if "b" in kw:
        kind = kw.pop("b")
        b = rng.uniform(0.5, 2.0, shape) if kind == "real" else _cplx(rng, *shape)
        args = (a, kw.pop("axis"), b.astype(dtype))
    test_rrule(sps.logsumexp, *args, **kw)
    test_frule(sps.logsumexp, *args, **kw)


def test_logsumexp_complex_value_and_cotangent_match_torch() -> None:
    # torch.logsumexp takes complex tensors and shares the cotangent convention (dL/dRe + i dL/dIm)
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    a, y_bar = _cplx(rng, 2, 5) * 3, _cplx(rng, 2)
    y, pb = cr.rrule(sps.logsumexp, a, axis=1)
    t = torch.tensor(a, requires_grad=True)
    ty = torch.logsumexp(t, dim=1)
    torch.sum(torch.real(torch.conj(torch.tensor(y_bar)) * ty)).backward()
    np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(y, sps.logsumexp(a, axis=1), rtol=1e-13)  # the phase in (-pi, pi]
    assert t.grad is not None
    np.testing.assert_allclose(pb(y_bar)[1], t.grad.numpy(), rtol=1e-12)
    # the same through the namespace formula (not SciPy's primal): JAX's own logsumexp
    jnp = pytest.importorskip("jax.numpy")
    jsp = pytest.importorskip("jax.scipy.special")
    from chainrules.testing import backends

    backends.BACKENDS["jax"].namespace()  # float64
    yj, pbj = cr.rrule(jsp.logsumexp, jnp.asarray(a), axis=1)
    np.testing.assert_allclose(np.asarray(yj), y, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(pbj(jnp.asarray(y_bar))[1]), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("f", ["softmax", "log_softmax"])
def test_softmax_complex_pullback_conjugates_jacobian(f: str, dtype: type) -> None:
    # softmax and log_softmax are holomorphic: x_bar = J^H y_bar; the rules gave J^T y_bar
    from chainrules.testing import test_frule, test_rrule

    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x, y_bar = _cplx(rng, 2, 3), _cplx(rng, 2, 3)
    test_rrule(getattr(sps, f), x.astype(dtype), axis=1)
    test_frule(getattr(sps, f), x.astype(dtype), axis=1)
    # torch has no complex softmax kernel: its composite, differentiated by torch
    t = torch.tensor(x, requires_grad=True)
    lse = torch.logsumexp(t, dim=1, keepdim=True)
    ty = torch.exp(t - lse) if f == "softmax" else t - lse
    torch.sum(torch.real(torch.conj(torch.tensor(y_bar)) * ty)).backward()
    _, pb = cr.rrule(getattr(sps, f), x, axis=1)
    assert t.grad is not None
    np.testing.assert_allclose(pb(y_bar)[1], t.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_bad_inputs_numpy_accepts() -> None:
    # bool and int inputs, empty and NaN ones: the primal is SciPy's own, the pullback runs
    xb = np.array([True, False, True])
    for f, args in ((sps.owens_t, (xb, np.ones(3))), (sps.rel_entr, (xb, np.full(3, 2.0)))):
        y, pb = cr.rrule(f, *args)
        np.testing.assert_array_equal(y, f(*args))
        g = cr.unthunk(pb(np.ones(3))[2])  # d/d(second argument): the first one is bool
        assert g.dtype == np.float64 and np.all(np.isfinite(g))
    np.testing.assert_array_equal(
        cr.rrule(sps.rel_entr, xb, np.full(3, 2.0))[1](np.ones(3))[2], -(xb / 2.0)
    )
    with pytest.warns(cr.IntegerArgumentWarning, match="argument 0 .* dtype bool"):
        y, pb = cr.rrule(sps.logsumexp, xb)  # SciPy computes a bool input in float64
    np.testing.assert_allclose(y, sps.logsumexp(xb), rtol=1e-15)
    for a, kw in (
        (np.zeros(0), {}),
        (np.zeros((2, 0)), {"axis": 1}),
        (np.zeros((0, 2)), {"axis": 0, "return_sign": True}),
    ):
        with np.errstate(divide="ignore"):  # an empty sum: log 0 = -inf, sign -1
            y, pb = cr.rrule(sps.logsumexp, a, **kw)
            want = sps.logsumexp(a, **kw)
        np.testing.assert_array_equal(y, want)
        sign = "return_sign" in kw
        y_bar = (
            cr.Tangent(np.ones(np.shape(want[0])), cr.NoTangent())
            if sign
            else np.ones(np.shape(want))
        )
        g = pb(y_bar)
        assert cr.unthunk(g[1] if isinstance(g, tuple) else g).shape == a.shape
    xi = np.array([-3, 0, 2, 5, -1])
    for f in (sps.softmax, sps.log_softmax):  # to the last bit, int and float
        for x in (xi, np.random.default_rng(0).standard_normal((2, 3))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", cr.IntegerArgumentWarning)  # xi: its own test
                y, _ = cr.rrule(f, x)
            want = f(x)
            assert y.dtype == want.dtype
            np.testing.assert_array_equal(y, want)
    n = np.array([np.nan, -1.0, 2.0])  # factorial: NaN at NaN, 0 below 0
    y, pb = cr.rrule(sps.factorial, n)
    np.testing.assert_array_equal(y, sps.factorial(n))
    with np.errstate(invalid="ignore"):  # 0 * digamma(0), masked out below 0
        g = cr.unthunk(pb(np.ones(3))[1])
    assert np.isnan(g[0]) and g[1] == 0.0


def test_torch_special_names_follow_scipy() -> None:
    torch = pytest.importorskip("torch")
    from chainrules.rules.scipy.special import TORCH_NAMES

    for n in ("softmax", "log_softmax", "logsumexp", "multigammaln"):
        assert n not in TORCH_NAMES
        assert cr.find_rrule(getattr(torch.special, n)) is None
    for n in TORCH_NAMES:
        assert cr.find_rrule(getattr(torch.special, n)) is not None, n


def test_sph_harm_y_refuses_diff_n() -> None:
    if not hasattr(sps, "sph_harm_y"):
        pytest.skip("SciPy < 1.15")
    with pytest.raises(TypeError, match="diff_n"):
        cr.rrule(sps.sph_harm_y, 1, 0, np.array([0.5]), np.array([0.2]), diff_n=1)


# --- Bessel functions of any order, rgamma, erfcinv ----------------------------------------------
ORDERS = [
    ("j0", (np.array([-2.5, 0.0, 1.3]),)),
    ("j1", (np.array([-2.5, 0.4, 3.1]),)),
    ("y0", (np.array([0.4, 1.3, 3.7]),)),
    ("y1", (np.array([0.4, 1.3, 3.7]),)),
    ("jv", (np.array([0, 1, 3]), np.array([-1.7, 0.9, 2.4]))),
    ("yn", (np.array([0, 2, 3]), np.array([0.6, 0.9, 2.4]))),
    ("iv", (np.array([0, 1, 3]), np.array([-1.7, 0.9, 2.4]))),
    ("ive", (np.array([0, 1, 3]), np.array([-1.7, 0.9, 2.4]))),
    ("rgamma", (np.array([0.4, 1.3, 3.7]),)),
    ("erfcinv", (np.array([0.2, 1.0, 1.7]),)),
]


@pytest.mark.parametrize(("name", "args"), ORDERS)
def test_bessel_rgamma_erfcinv_agree_with_autograd(name: str, args: tuple) -> None:
    """autograd (the coverage anchor) differentiates these names too: the same gradients in x
    (autograd's jn is SciPy's jv), and the primal is SciPy's own value."""
    ag = pytest.importorskip("autograd")
    asp = pytest.importorskip("autograd.scipy.special")
    f = getattr(sps, name)
    y, pb = cr.rrule(f, *args)
    np.testing.assert_array_equal(y, f(*args))
    g = pb(np.ones(3))[-1]
    af = getattr(asp, "jn" if name == "jv" else name)
    if len(args) == 1:
        want = ag.elementwise_grad(af)(args[0])
    else:
        want = ag.elementwise_grad(lambda x: af(args[0], x))(args[1])
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def test_bessel_orders_have_no_derivative() -> None:
    x = np.array([0.5, 1.5])
    for f in (sps.jv, sps.iv, sps.ive):
        _, pb = cr.rrule(f, np.array([0.5, 1.5]), x)  # a real order: no closed form
        _, v_bar, x_bar = pb(np.ones(2))
        assert isinstance(v_bar, cr.Thunk)
        with pytest.raises(NotImplementedError, match=rf"{f.__name__}.*'v'"):
            cr.unthunk(v_bar)
        v, h = np.array([0.5, 1.5]), 1e-6  # the cotangent of x is there at a real order
        np.testing.assert_allclose(x_bar, (f(v, x + h) - f(v, x - h)) / (2 * h), rtol=1e-7)
        with pytest.raises(NotImplementedError, match=f.__name__):
            cr.frule((cr.NoTangent(), np.ones(2), cr.ZeroTangent()), f, np.array([0.5, 1.5]), x)
    _, pb = cr.rrule(sps.yn, 2, x)  # an integer order: no tangent space
    assert isinstance(pb(np.ones(2))[1], cr.NoTangent)


def test_bessel_edge_values_and_identities() -> None:
    # J1'(0) = 1/2, its limit; J0' = -J1; at x = 0, ive's sign(x) term vanishes
    assert cr.rrule(sps.j1, np.array([0.0]))[1](np.ones(1))[1][0] == 0.5
    x = np.array([0.7, 2.2])
    np.testing.assert_allclose(cr.rrule(sps.j0, x)[1](np.ones(2))[1], -sps.j1(x))
    np.testing.assert_allclose(cr.rrule(sps.y0, x)[1](np.ones(2))[1], -sps.y1(x))
    # order 1 through jv equals j1 itself
    np.testing.assert_allclose(
        cr.rrule(sps.jv, 1, x)[1](np.ones(2))[2], cr.rrule(sps.j1, x)[1](np.ones(2))[1]
    )
    # ive = exp(-|x|) iv on both sides of 0
    for xs in (x, -x):
        d_ive = cr.rrule(sps.ive, 2, xs)[1](np.ones(2))[2]
        d_iv = cr.rrule(sps.iv, 2, xs)[1](np.ones(2))[2]
        want = np.exp(-np.abs(xs)) * (d_iv - np.sign(xs) * sps.iv(2, xs))
        np.testing.assert_allclose(d_ive, want, rtol=1e-12)


def test_bessel_frule_pushes_a_chunk() -> None:
    x = np.array([0.7, 2.2, 3.0])
    dots = np.stack([np.ones(3), np.arange(3.0)])  # a chunk of 2 tangents
    _, y_dot = cr.frule((cr.NoTangent(), cr.NoTangent(), dots), sps.jv, 2, x)
    d = cr.rrule(sps.jv, 2, x)[1](np.ones(3))[2]
    np.testing.assert_allclose(y_dot, dots * d)


def test_rgamma_second_derivative() -> None:
    """rgamma' = -rgamma digamma; finite differences of the pullback give rgamma'' =
    rgamma (digamma**2 - trigamma)."""
    x = np.array([0.8, 2.5])
    _, pb = cr.rrule(sps.rgamma, x)
    r, psi, tri = sps.rgamma(x), sps.digamma(x), sps.polygamma(1, x)
    np.testing.assert_allclose(pb(np.ones(2))[1], -r * psi)
    h = 1e-6
    fd = (
        cr.rrule(sps.rgamma, x + h)[1](np.ones(2))[1]
        - cr.rrule(sps.rgamma, x - h)[1](np.ones(2))[1]
    ) / (2 * h)
    np.testing.assert_allclose(fd, r * (psi**2 - tri), rtol=1e-6)


def test_log_expit_first_and_second_derivatives() -> None:
    # found by tests/external/user_code (scipy.special.log_expit had no rule)
    from chainrules import ad

    x = np.array([-8.0, -1.5, 0.2, 5.0, 40.0])
    _, pb = cr.rrule(sps.log_expit, x)
    np.testing.assert_allclose(pb(np.ones(5))[1], sps.expit(-x), rtol=1e-14)
    h = ad.hessian(lambda v: np.sum(sps.log_expit(v)))(x)
    np.testing.assert_allclose(h, np.diag(-sps.expit(x) * sps.expit(-x)), rtol=1e-12, atol=1e-300)


def test_torch_special_second_derivatives_through_the_traced_namespace() -> None:
    # found by tests/external/user_code: SciPy calls xp.special.<f>; at second order the rule
    # called torch.special's own function on a tracer (TypeError: must be Tensor)
    torch = pytest.importorskip("torch")
    from array_api_compat import array_namespace

    from chainrules import ad

    x = np.array([0.5, 1.5, 3.0])
    s = sps.expit(x)
    for name, d2 in (
        ("gammaln", sps.polygamma(1, x)),
        ("expit", s * (1 - s) * (1 - 2 * s)),
        ("entr", -1 / x),
        ("digamma", sps.polygamma(2, x)),
    ):

        def loss(v, name=name):  # type: ignore[no-untyped-def]
            xp = array_namespace(v)
            return xp.sum(getattr(xp.special, name)(v))

        h = ad.hessian(loss)(torch.tensor(x))
        # torch's own trigamma agrees with SciPy's to about 5e-10
        np.testing.assert_allclose(np.diag(h.numpy()), d2, rtol=1e-8, err_msg=name)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_ive_complex_input_is_not_holomorphic(dtype: type) -> None:
    # ive(v, z) = iv(v, z) exp(-|Re z|): d ive = ive' dz - sign(Re z) ive d(Re z). The shared
    # elementwise mechanism conjugated one holomorphic partial, which gave the real direction's
    # term to the imaginary direction too (complex128 as wrong as complex64)
    from chainrules.testing import test_frule, test_rrule

    rng = np.random.default_rng(10)
    v = np.array([[0], [1], [3]])  # integer orders: no tangent space (no closed form in v)
    z = (rng.uniform(0.3, 2.0, (3, 4)) * rng.choice([-1, 1], (3, 4))).astype(dtype)
    z = z + (1j * rng.uniform(-2.0, 2.0, (3, 4))).astype(dtype)
    test_rrule(sps.ive, v, z)
    test_frule(sps.ive, v, z)
    # the same real-direction term as before on real z
    x = np.array([-1.5, 0.7, 2.0])
    _, pb = cr.rrule(sps.ive, 1.0, x)
    d = (sps.ive(0.0, x) + sps.ive(2.0, x)) / 2 - np.sign(x) * sps.ive(1.0, x)
    np.testing.assert_allclose(cr.unthunk(pb(np.ones(3))[2]), d, rtol=1e-14)


# --- issue 26: comb's primal is SciPy's for every keyword and edge input --------------------------
_COMB_VALUES = [-3.0, -1.5, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 5.5, 10.0, 100.0, 1e3, 1e10]
_COMB_EDGES = [*_COMB_VALUES, np.nan, np.inf, -np.inf]


def _same_value(got, want, what) -> None:  # type: ignore[no-untyped-def]
    assert type(got) is type(want), f"{what}: {type(got).__name__}, SciPy {type(want).__name__}"
    assert getattr(got, "dtype", None) == getattr(want, "dtype", None), what
    assert np.shape(got) == np.shape(want), what
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("repetition", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_comb_primal_is_scipys_on_an_edge_grid(repetition, dtype) -> None:  # type: ignore[no-untyped-def]
    """Arrays of every pair of edge values (negative, non-integer, N < k, large, NaN, inf) and
    each pair as Python floats, NumPy scalars and 0-d arrays: the rule's primal is
    scipy.special.comb's value, type, dtype and shape (repetition=True gave 0 where SciPy's
    binom(N + k - 1, k) is not, e.g. comb(0, 0) = 1 and comb(-1.5, 2) = 0.375; scalars gave a
    0-d array, SciPy a NumPy scalar)."""
    n, k = (g.astype(dtype) for g in np.meshgrid(_COMB_EDGES, _COMB_EDGES, indexing="ij"))
    with np.errstate(all="ignore"):
        want = sps.comb(n, k, repetition=repetition)
        got = cr.rrule(sps.comb, n, k, repetition=repetition)[0]
        _same_value(got, want, "arrays")
        for a, b in zip(n.ravel().tolist(), k.ravel().tolist()):
            for conv in (float, dtype, np.asarray):
                x, y = conv(a), conv(b)
                want = sps.comb(x, y, repetition=repetition)
                got = cr.rrule(sps.comb, x, y, repetition=repetition)[0]
                _same_value(got, want, f"comb({x!r}, {y!r}, repetition={repetition})")


@pytest.mark.parametrize("repetition", [False, True])
def test_comb_exact_primal_is_scipys(repetition) -> None:  # type: ignore[no-untyped-def]
    """exact=True: Python ints, floats and NumPy integers (float operands raised an
    AttributeError in the rule), including N < k, negative and large operands."""
    ints = [-3, -1, 0, 1, 2, 3, 10, 100]
    for a in ints:
        for b in ints:
            for conv in (int, float, np.int64, np.float64):
                x, y = conv(a), conv(b)
                want = sps.comb(x, y, exact=True, repetition=repetition)
                got, pb = cr.rrule(sps.comb, x, y, exact=True, repetition=repetition)
                _same_value(got, want, f"comb({x!r}, {y!r}, exact=True)")
                for bar in pb(1.0)[1:]:  # an integer, piecewise constant: no derivative
                    bar = cr.unthunk(bar)
                    assert isinstance(bar, cr.AbstractZero) or not np.any(bar), (x, y, bar)


def test_comb_repetition_derivative_where_scipy_is_nonzero() -> None:
    """With repetition=True the derivatives are those of binom(N + k - 1, k) wherever SciPy
    returns it (N < 1 too, where the rule gave 0): central differences agree."""
    rng = np.random.default_rng(3)
    n, k = rng.uniform(-3.8, 0.9, 200), rng.uniform(0.1, 4.0, 200)
    n = n[np.abs(n - np.round(n)) > 0.05]  # off the poles of digamma(N)
    k = k[: n.size]
    _, pb = cr.rrule(sps.comb, n, k, repetition=True)
    _, dn, dk = pb(np.ones(n.size))
    h = 1e-6
    fd_n = (sps.comb(n + h, k, repetition=True) - sps.comb(n - h, k, repetition=True)) / (2 * h)
    fd_k = (sps.comb(n, k + h, repetition=True) - sps.comb(n, k - h, repetition=True)) / (2 * h)
    assert np.any(fd_n != 0)
    np.testing.assert_allclose(dn, fd_n, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dk, fd_k, rtol=1e-6, atol=1e-7)


# --- issue 26: hyp1f1 at huge x ----------------------------------------------------------------
_HYP1F1_PROBE = """
import json, sys
import numpy as np, scipy.special as sp
import chainrules as cr
out = []
for a, b, x in json.loads(sys.argv[1]):
    x = np.asarray(x, dtype=np.float64)
    try:
        y, pb = cr.rrule(sp.hyp1f1, a, b, x)
        bars = pb(np.ones_like(y))
        out.append(["ok", np.asarray(y).tolist(), np.asarray(bars[3]).tolist()])
    except ValueError as e:
        out.append(["ValueError", str(e)])
print(json.dumps(out))
"""


def _hyp1f1_probe(cases):  # type: ignore[no-untyped-def]
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONWARNINGS="ignore")
    done = subprocess.run(
        [sys.executable, "-c", _HYP1F1_PROBE, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=60,  # a hang fails the test instead of hanging the suite
        env=env,
        check=True,
    )
    return json.loads(done.stdout)


def test_hyp1f1_huge_x_is_a_value_error_not_a_hang() -> None:
    """SciPy's hyp1f1 takes time linear in a large x (13 s at 1e13) and never returns at
    x = inf: the rule raises a ValueError naming hyp1f1, x and the range before calling it."""
    from chainrules.rules.scipy.special import HYP1F1_X_MAX

    inf = float("inf")
    refused = [
        [1.5, 2.5, inf],
        [1.5, 2.5, 1e13],
        [1.5, 2.5, 1e300],
        [0.5, -2.5, [1.0, inf]],  # one element is enough
        [2.5, 2.0, [[0.5], [1e15]]],
    ]
    for case, got in zip(refused, _hyp1f1_probe(refused), strict=True):
        assert got[0] == "ValueError", (case, got)
        assert got[1].startswith("hyp1f1: x = "), got[1]
        assert f"x must be <= {HYP1F1_X_MAX:g}" in got[1], got[1]


def test_hyp1f1_inside_the_range_is_scipys() -> None:
    """Below the bound, at -inf, NaN, and for a a non-positive integer (a polynomial, which
    SciPy evaluates at once, as the derivative's hyp1f1(a + 1, b + 1, x); a = 0 has
    derivative 0) the rule returns SciPy's value."""
    inf = float("inf")
    allowed = [
        [1.5, 2.5, [1e11, -inf, -1e15]],
        [-2.0, 2.5, [1e13, 1e300]],
        [0.0, 2.5, [1e13, inf]],
    ]
    got = _hyp1f1_probe(allowed)
    for (a, b, x), (status, y, x_bar) in zip(allowed, got, strict=True):
        assert status == "ok"
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(y, sps.hyp1f1(a, b, np.asarray(x)))
        if a == 0.0:
            np.testing.assert_array_equal(x_bar, [0.0, 0.0])
