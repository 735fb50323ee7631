"""scipy.special's rules as a whole (``chainrules/rules/scipy/special/``): importing them needs no
SciPy, JAX or PyTorch, every name of jax.scipy.special is registered, torch.special's names are
SciPy's; and the checks that span its modules: JAX's own derivatives and autograd's as a
reference, edge values, the inputs NumPy accepts, second derivatives through a traced namespace."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr

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


def test_torch_special_names_follow_scipy() -> None:
    torch = pytest.importorskip("torch")
    from chainrules.rules.scipy.special import TORCH_NAMES

    for n in ("softmax", "log_softmax", "logsumexp", "multigammaln"):
        assert n not in TORCH_NAMES
        assert cr.find_rrule(getattr(torch.special, n)) is None
    for n in TORCH_NAMES:
        assert cr.find_rrule(getattr(torch.special, n)) is not None, n


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
