"""scipy.stats distributions' rules: every registration on every backend, JAX's own
derivatives as a reference, the derivatives with no closed form, SciPy's parameter forms."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.scipy import stats
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.stats")

ss = pytest.importorskip("scipy.stats")

AUTOGRAD_NAMES = (
    "norm.pdf norm.cdf norm.logpdf norm.logcdf norm.sf norm.logsf t.pdf t.cdf t.logpdf t.logcdf "
    "gamma.pdf gamma.cdf gamma.logpdf beta.pdf beta.cdf beta.logpdf chi2.pdf chi2.cdf chi2.logpdf "
    "poisson.pmf poisson.cdf poisson.logpmf dirichlet.pdf dirichlet.logpdf "
    "multivariate_normal.pdf multivariate_normal.logpdf multivariate_normal.entropy"
).split()


def _method(name: str):  # type: ignore[no-untyped-def]
    dist, method = name.split(".")
    return getattr(getattr(ss, dist), method)


def test_every_autograd_name_has_rules_for_scipys_bound_method() -> None:
    for name in AUTOGRAD_NAMES:
        f = _method(name)  # a fresh bound method each time: found by equality
        assert cr.find_rrule(f) is not None and cr.find_frule(f) is not None, name


def test_torch_and_strict_columns_are_not_applicable() -> None:
    from chainrules.testing.suite import run_cell

    regs = {r.name: r for r in cr.registrations() if r.meta.get("module") == stats.__name__}
    for name in ("norm.logpdf", "multivariate_normal.logpdf"):
        reg = regs[f"scipy:stats.{name}"] if f"scipy:stats.{name}" in regs else regs[name]
        for column in ("torch", "array_api_strict"):
            assert run_cell(reg, column).status == "n/a", (name, column)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("norm.logsf", (np.array([-1.0, 0.3, 4.0]), np.array([0.2]), np.array([1.3]))),
        ("t.cdf", (np.array([-1.0, 0.3, 4.0]), np.array([2.5, 4.0, 9.0]), 0.5, 2.0)),
        ("beta.pdf", (np.array([0.2, 0.7]), np.array([1.5, 3.0]), np.array([2.0, 0.8]))),
        ("poisson.pmf", (np.array([0, 2, 5]), np.array([0.5, 2.0, 4.0]))),
        ("dirichlet.logpdf", (np.array([0.2, 0.5, 0.3]), np.array([1.5, 2.0, 3.0]))),
    ],
)
def test_primal_is_scipys_own_value(name: str, args: tuple) -> None:
    f = _method(name)
    y, _ = cr.rrule(f, *args)
    np.testing.assert_array_equal(y, f(*args))


@pytest.mark.parametrize(
    ("name", "args", "argnums"),
    [
        (
            "norm.logcdf",
            (np.array([-30.0, -2.0, 0.5, 6.0]), np.array([0.3]), np.array([1.5])),
            (0, 1, 2),
        ),
        ("norm.logsf", (np.array([-3.0, 0.5, 25.0]),), (0,)),
        (
            "t.logpdf",
            (np.array([-1.5, 0.2, 3.0]), np.array([1.5, 3.0, 8.0]), 0.2, 1.4),
            (0, 1, 2, 3),
        ),
        ("gamma.pdf", (np.array([0.5, 1.5, 3.0]), np.array([1.5, 2.5, 4.0])), (0, 1)),
        ("gamma.cdf", (np.array([0.5, 1.5, 3.0]), np.array([1.5, 2.5, 4.0])), (0,)),
        (
            "beta.logpdf",
            (np.array([0.2, 0.7]), np.array([1.5, 3.0]), np.array([2.0, 0.8])),
            (0, 1, 2),
        ),
        ("chi2.logpdf", (np.array([0.5, 2.0, 4.0]), np.array([2.5, 3.0, 5.0])), (0, 1)),
        ("poisson.logpmf", (np.array([0, 2, 5]), np.array([0.5, 2.0, 4.0])), (1,)),
        ("poisson.cdf", (np.array([0, 2, 5]), np.array([0.5, 2.0, 4.0])), (1,)),
        # x with every entry: the ambient derivative (alpha - 1) / x, as jax.grad gives
        ("dirichlet.logpdf", (np.array([0.2, 0.5, 0.3]), np.array([1.5, 2.0, 3.0])), (0, 1)),
        ("dirichlet.pdf", (np.array([[0.2, 0.4], [0.5, 0.1]]), np.array([1.5, 2.0, 3.0])), (0, 1)),
        (
            "multivariate_normal.logpdf",
            (
                np.array([[0.3, -1.0], [1.2, 0.4]]),
                np.array([0.1, 0.2]),
                np.array([[2.0, 0.3], [0.3, 1.0]]),
            ),
            (0, 1, 2),
        ),
    ],
)
def test_pullback_agrees_with_jax_grad(name: str, args: tuple, argnums: tuple) -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    dist, method = name.split(".")
    f = getattr(getattr(jax.scipy.stats, dist), method)
    jargs = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    y, pb = cr.rrule(f, *jargs)
    np.testing.assert_allclose(y, f(*jargs), rtol=1e-12)
    ours = pb(jnp.ones(y.shape))
    wants = jax.grad(lambda *a: jnp.sum(f(*a)), argnums=argnums)(*jargs)  # one pass for all
    for i, want in zip(argnums, wants):
        got = np.asarray(cr.unthunk(ours[i + 1]))
        if name == "multivariate_normal.logpdf" and i == 2:  # JAX's reads one triangle
            want = (want + want.T) / 2
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_logcdf_and_logsf_stay_finite_in_the_tails() -> None:
    x = np.array([-40.0, -10.0, 10.0, 40.0])
    for f, sign in ((ss.norm.logcdf, -1.0), (ss.norm.logsf, 1.0)):
        _, pb = cr.rrule(f, x)
        g = pb(np.ones(4))[1]
        assert np.all(np.isfinite(g))
        # d log Phi(x) / dx -> -x in the lower tail (Mills ratio), 0 in the upper tail
        far = 0 if sign < 0 else 3
        np.testing.assert_allclose(g[far], -x[far], rtol=1e-3)
    _, pb = cr.rrule(ss.t.logcdf, np.array([-200.0, 0.0]), np.array([3.0, 3.0]))
    g = pb(np.ones(2))[1]
    assert np.all(np.isfinite(g)) and g[0] > 0  # ~ df / |x|: the pdf/cdf ratio in log space
    np.testing.assert_allclose(g[0], 3 / 200, rtol=2e-2)
    np.testing.assert_allclose(g[1], 2 * ss.t.pdf(0.0, 3.0), rtol=1e-12)


@pytest.mark.parametrize(
    ("name", "args", "arg"),
    [
        ("gamma.cdf", (np.array([1.5]), np.array([2.5])), "a"),
        ("beta.cdf", (np.array([0.3]), np.array([2.5]), np.array([1.5])), "a"),
        ("chi2.cdf", (np.array([1.5]), np.array([3.0])), "df"),
        ("t.logcdf", (np.array([1.5]), np.array([3.0])), "df"),
    ],
)
def test_cdf_shape_parameter_has_no_closed_form(name: str, args: tuple, arg: str) -> None:
    f = _method(name)
    _, pb = cr.rrule(f, *args)
    res = pb(np.ones(1))
    assert isinstance(res[2], cr.Thunk)  # nothing raised yet: x's cotangent is usable
    assert isinstance(res[1], np.ndarray)
    with pytest.raises(NotImplementedError, match=rf"{name}.*'{arg}'"):
        cr.unthunk(res[2])
    tangents = (cr.NoTangent(), cr.ZeroTangent(), np.ones(1), *[cr.ZeroTangent()] * (len(args) - 2))
    with pytest.raises(NotImplementedError, match=name):
        cr.frule(tangents, f, *args)
    _, y_dot = cr.frule(
        (cr.NoTangent(), np.ones(1), *[cr.ZeroTangent()] * (len(args) - 1)), f, *args
    )
    np.testing.assert_allclose(y_dot, pb(np.ones(1))[1])


def test_poisson_counts_have_no_tangent_space() -> None:
    k, mu = np.array([0, 2, 5]), np.array([0.5, 2.0, 4.0])
    _, dk, dmu = cr.rrule(ss.poisson.logpmf, k, mu)[1](np.ones(3))
    assert isinstance(dk, cr.NoTangent)
    np.testing.assert_allclose(dmu, k / mu - 1)
    _, dk, _, dloc = cr.rrule(ss.poisson.pmf, k * 1.0, mu, 0.0)[1](np.ones(3))
    assert isinstance(dk, cr.ZeroTangent) and isinstance(dloc, cr.ZeroTangent)  # piecewise constant
    # below the support: pmf 0 and logpmf -inf, with derivative 0 (not NaN)
    _, _, dmu, _ = cr.rrule(ss.poisson.logpmf, np.array([0, 1]), mu[:2], 1)[1](np.ones(2))
    np.testing.assert_array_equal(dmu[:1], [0.0])
    _, _, dmu = cr.rrule(ss.poisson.cdf, np.array([-1, 1]), mu[:2])[1](np.ones(2))
    assert dmu[0] == 0.0 and dmu[1] < 0


@pytest.mark.parametrize("method", ["pdf", "logpdf", "cdf"])
def test_outside_the_support_the_derivative_is_zero(method: str) -> None:
    # the pdf is 0 (logpdf -inf, cdf 0 or 1) there: constant, with no warning on the way
    for dist, x, shapes in (
        (ss.gamma, np.array([-0.5, 1.0]), (np.array([2.5, 2.5]),)),
        (ss.beta, np.array([1.5, 0.4]), (np.array([2.5, 2.5]), np.array([1.5, 1.5]))),
    ):
        f = getattr(dist, method)
        grads = cr.rrule(f, x, *shapes, 0.0, 1.0)[1](np.ones(2))[1:]
        for g in grads:
            if isinstance(g, np.ndarray):
                assert g[0] == 0.0 and np.isfinite(g[1]) and g[1] != 0.0


@pytest.mark.parametrize("cov", [np.array([1.5, 0.7, 2.0]), 1.7], ids=["diagonal", "scalar"])
def test_multivariate_normal_diagonal_and_scalar_cov(cov) -> None:  # type: ignore[no-untyped-def]
    from chainrules.testing import test_frule, test_rrule

    rng = np.random.default_rng(3)
    x, mean = rng.standard_normal((2, 3)), rng.standard_normal(3)
    cov = np.asarray(cov)
    for f in (ss.multivariate_normal.logpdf, ss.multivariate_normal.pdf):
        test_rrule(f, x, mean, cov, scalar_free=False, jit=False)
        test_frule(f, x, mean, cov, scalar_free=False, jit=False)
    if cov.ndim == 1:
        test_rrule(ss.multivariate_normal.entropy, mean, cov, scalar_free=False, jit=False)
        test_frule(ss.multivariate_normal.entropy, mean, cov, scalar_free=False, jit=False)


@pytest.mark.parametrize("tester", ["test_rrule", "test_frule"])
@pytest.mark.parametrize("method", ["pdf", "logpdf"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("which", [0, 1, 2])
def test_multivariate_normal_reads_complex_arguments_as_real(tester, method, dtype, which) -> None:  # type: ignore[no-untyped-def]
    """issue 26: SciPy reads x, mean and cov as real (``np.asarray(..., dtype=float)``, with a
    ComplexWarning), so a complex argument's imaginary part moves nothing; the shared setup of
    pdf and logpdf took mean and cov as real but kept x complex, and its cotangents followed the
    imaginary part: wrong in complex64 and complex128 alike."""
    import warnings

    import scipy.stats as ss

    from chainrules import testing

    rng = np.random.default_rng(4)
    args = [rng.standard_normal((4, 3)), rng.standard_normal(3), _cov3(rng)]
    args[which] = (args[which] + 0.3j * rng.standard_normal(args[which].shape)).astype(dtype)
    if which == 2:
        args[2] = (args[2] + args[2].conj().T) / 2  # a Hermitian direction's imaginary part
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # SciPy's own
        getattr(testing, tester)(
            getattr(ss.multivariate_normal, method),
            *args,
            hermitian=(2,),
            scalar_free=False,
            jit=False,
        )


def _cov3(rng):  # type: ignore[no-untyped-def]
    a = rng.standard_normal((3, 3))
    return a @ a.T / 3 + np.eye(3)


def test_multivariate_normal_univariate_samples() -> None:
    from chainrules.testing import test_rrule

    # dim 1 (scalar mean and cov): every element of x is a sample, as SciPy reads it
    for f in (ss.multivariate_normal.logpdf, ss.multivariate_normal.pdf):
        args = (np.array([0.3, -1.2, 2.0]), np.array(0.4), np.array(1.6))
        test_rrule(f, *args, scalar_free=False, jit=False)


def test_multivariate_normal_refuses_batched_parameters() -> None:
    jnp = pytest.importorskip("jax.numpy")
    import jax.scipy.stats as js

    x, mean, cov = jnp.zeros((2, 3)), jnp.zeros((2, 3)), jnp.eye(3)
    with pytest.raises(ValueError, match=r"multivariate_normal.logpdf.*mean of shape \(2, 3\)"):
        cr.rrule(js.multivariate_normal.logpdf, x, mean, cov)


def test_signature_errors_name_the_function() -> None:
    with pytest.raises(TypeError, match=r"norm\.pdf"):
        cr.rrule(ss.norm.pdf, np.ones(2), scal=2.0)
    with pytest.raises(TypeError, match="dirichlet"):
        cr.rrule(ss.dirichlet.logpdf, np.ones(2) / 2, np.ones(2), np.ones(2))


def test_multivariate_normal_of_a_0d_point_broadcasts_it_to_the_mean() -> None:
    # SciPy reads a 0-d x as the point (x, ..., x): its cotangent sums over the coordinates
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 3))
    cov, mean, x = a @ a.T / 3 + np.eye(3), rng.standard_normal(3), np.asarray(0.3)
    for f in (ss.multivariate_normal.pdf, ss.multivariate_normal.logpdf):
        y, pb = cr.rrule(f, x, mean, cov)
        want = f(x, mean, cov)
        assert type(y) is type(want)
        np.testing.assert_array_equal(y, want)
        h = 1e-6
        fd = (f(x + h, mean, cov) - f(x - h, mean, cov)) / (2 * h)
        g = cr.unthunk(pb(np.ones(()))[1])
        assert np.shape(g) == ()
        np.testing.assert_allclose(g, fd, rtol=1e-7)
        t = np.array([1.0, -2.0])  # a chunk of two tangents of the 0-d x
        _, yd = cr.frule((cr.NoTangent(), t, cr.NoTangent(), cr.NoTangent()), f, x, mean, cov)
        np.testing.assert_allclose(yd, g * t, rtol=1e-14)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("method", ["pdf", "logpdf"])
def test_dirichlet_cotangent_of_x_keeps_its_dtype(method: str, dtype: type) -> None:
    # SciPy computes in float64; the cotangent of x is projected onto x's own dtype. At x = 1/4,
    # alpha = (2, 3, 1.5, 2.5): d logpdf / d x_i = (alpha_i - 1) / x_i - (alpha_4 - 1) / x_4
    # (x completed by 1 - sum) = (-2, 2, -4), exact in float16
    f = getattr(ss.dirichlet, method)
    x, alpha = np.full(3, 0.25, dtype), np.array([2.0, 3.0, 1.5, 2.5])
    y, pb = cr.rrule(f, x, alpha)
    assert y == f(x, alpha)
    g = pb(np.float64(1.0))[1]
    assert g.dtype == dtype
    want = np.array([-2.0, 2.0, -4.0]) * (y if method == "pdf" else 1.0)
    np.testing.assert_array_equal(g, want.astype(dtype))


def test_t_pdf_df_derivative_far_in_the_tail() -> None:
    # at |x| ~ 1e300, x * x overflows: d logpdf / d df is finite, about -log|x| (the limit of
    # (psi((df+1)/2) - psi(df/2) - 1/df) / 2 - log(x^2 / df) / 2 + (df + 1) / (2 df)), and the
    # pdf's derivative pdf * (...) is its limit 0 (it was NaN)
    from scipy.special import digamma

    x, df = np.array([1e300, -3e300]), np.array([3.0, 1.5])
    with np.errstate(over="ignore"):  # SciPy's own t.pdf squares x
        _, pb = cr.rrule(ss.t.pdf, x, df)
        np.testing.assert_array_equal(cr.unthunk(pb(np.ones(2))[2]), [0.0, 0.0])
        _, pb = cr.rrule(ss.t.logpdf, x, df)
        bars = pb(np.ones(2))
    want = (digamma((df + 1) / 2) - digamma(df / 2) - 1 / df) / 2
    want = want - (2 * np.log(np.abs(x)) - np.log(df)) / 2 + (df + 1) / (2 * df)
    np.testing.assert_allclose(cr.unthunk(bars[2]), want, rtol=1e-14)
    np.testing.assert_allclose(cr.unthunk(bars[1]), -(df + 1) / x, rtol=1e-14)  # d / d x
    # and near 0 and at moderate |x| (both branches) against central differences
    x, df, h = np.array([0.3, 2.5]), np.array([3.0, 2.0]), 1e-6
    _, pb = cr.rrule(ss.t.pdf, x, df)
    fd = (ss.t.pdf(x, df + h) - ss.t.pdf(x, df - h)) / (2 * h)
    np.testing.assert_allclose(cr.unthunk(pb(np.ones(2))[2]), fd, rtol=1e-7)


def test_limits_at_infinite_x() -> None:
    """The derivatives at ``x = +-inf`` (and at ``1e300``, where the tails underflow) are their
    limits, not ``0 * inf`` or ``exp(-inf + inf)``: the pdf's are 0, the t's logpdf has the finite
    scale derivative ``df / scale``, and the log-tails go as the hazard ``|d log g / dz|``."""
    x = np.array([np.inf, -np.inf])

    def grads(f: object, *args: object) -> list[np.ndarray]:
        y, pb = cr.rrule(f, *args)
        return [np.asarray(cr.unthunk(g)) for g in pb(np.ones_like(y))[1:]]

    with np.errstate(all="ignore"):
        gx, gloc, gscale = grads(ss.norm.pdf, x, np.zeros(2), np.full(2, 2.0))
        for g in (gx, gloc, gscale):
            np.testing.assert_array_equal(g, 0.0)
        for g in grads(ss.t.pdf, x, np.full(2, 3.0), np.zeros(2), np.full(2, 2.0)):
            np.testing.assert_array_equal(g, 0.0)
        gscale = grads(ss.t.logpdf, x, np.full(2, 3.0), np.zeros(2), np.full(2, 2.0))[3]
        np.testing.assert_array_equal(gscale, 1.5)  # df / scale
        (g,) = grads(ss.norm.logsf, np.array([np.inf, 1e300]))
        np.testing.assert_array_equal(g, [-np.inf, -1e300])  # -z: the normal's hazard
        (g,) = grads(ss.norm.logcdf, np.array([-np.inf, -1e300]))
        np.testing.assert_array_equal(g, [np.inf, 1e300])


def test_a_python_numbers_cotangent_is_deferred() -> None:
    """A Python float parameter's cotangent (``t.logpdf(x, 2.4, ...)``'s ``df``) comes as a
    ``Thunk``, forced only by whoever wants it, as the scalar rules' (docs/conventions.md, "Only
    the cotangents asked for"): no engine traces a Python number, and ``df``'s partial costs
    digamma passes. Forced, it is the derivative; the array arguments' cotangents are arrays."""
    x, loc = np.array([0.3, -1.2, 0.8]), np.array([0.1, 0.0, 0.2])
    _, pullback = cr.rrule(ss.t.logpdf, x, 2.4, loc, 0.9)
    _, x_bar, df_bar, loc_bar, scale_bar = pullback(np.ones(3))
    assert isinstance(df_bar, cr.Thunk) and isinstance(scale_bar, cr.Thunk)
    assert type(x_bar) is np.ndarray and type(loc_bar) is np.ndarray
    h = 1e-6
    for bar, k in ((df_bar, 1), (scale_bar, 3)):
        args = [x, 2.4, loc, 0.9]
        up, down = list(args), list(args)
        up[k] += h
        down[k] -= h
        fd = np.sum(ss.t.logpdf(*up) - ss.t.logpdf(*down)) / (2 * h)
        np.testing.assert_allclose(cr.unthunk(bar), fd, rtol=1e-6)


@pytest.mark.parametrize("method", ["pdf", "logpdf"])
def test_dirichlet_at_complex_x_has_conjugated_partials(method: str) -> None:
    """SciPy's dirichlet.logpdf is holomorphic in a complex x (sum((alpha - 1) log x) - ln B):
    the cotangents are the conjugated partials (DESIGN's complex convention), x's and the real
    alpha's; they were the partials themselves (off by 2x on the probe that found it)."""
    import scipy.stats

    rng = np.random.default_rng(3)
    f = getattr(scipy.stats.dirichlet, method)
    x = np.array([0.2, 0.3, 0.1]) + 0.05j * rng.standard_normal(3)
    alpha = rng.uniform(1.5, 4.0, 4)
    y, pb = cr.rrule(f, x, alpha)
    np.testing.assert_array_equal(y, f(x, alpha))
    y_bar = np.complex128(0.7 - 0.4j)
    x_bar, a_bar = (cr.unthunk(b) for b in pb(y_bar)[1:])
    dx = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    da = rng.standard_normal(4)
    h = 1e-6

    def loss(t: float) -> float:
        return float(np.real(np.conj(y_bar) * f(x + t * dx, alpha + t * da)))

    fd = (loss(h) - loss(-h)) / (2 * h)
    got = np.real(np.sum(np.conj(x_bar) * dx)) + np.sum(a_bar * da)
    np.testing.assert_allclose(got, fd, rtol=1e-6)
