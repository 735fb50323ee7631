"""The drop-in namespace ``chainrules.ad.scipy`` (issue 29, point 1).

* Outside a transformation every name is SciPy's: ufuncs SciPy's own objects, and every routed
  function (a Python function or a distribution's method with a rule) gives SciPy's result, of
  SciPy's type.
* Inside one, the distributions of autograd.scipy.stats (``norm``, ``t``, ``chi2``, ``gamma``,
  ``beta``, ``poisson``, ``multivariate_normal``, ``dirichlet``) give SciPy's values, and their
  gradients in every argument that has a derivative -- given positionally or by keyword --
  agree with finite differences; so do Hessians (finite differences of ``ad.grad``). So do
  ``special``'s, ``linalg``'s, ``signal``'s and ``integrate``'s functions with rules.
* The guarded device array: ``scipy.stats`` converts its inputs with ``numpy.asarray``, which
  the device array refuses (its registrations say so); ``special``'s functions take it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy
import pytest

pytest.importorskip("scipy")

import scipy.integrate
import scipy.linalg
import scipy.special
import scipy.stats

import chainrules.ad.numpy as np
import chainrules.ad.scipy.integrate as si
import chainrules.ad.scipy.linalg as sl
import chainrules.ad.scipy.signal as ss
import chainrules.ad.scipy.special as sp
import chainrules.ad.scipy.stats as st
from chainrules import ad
from chainrules.testing import device_array, gradient, to_numpy

X = numpy.array([0.2, 0.5, 0.9])


def fd_grad(f: Callable[[Any], Any], x: Any) -> Any:
    x = numpy.asarray(x, dtype=numpy.float64)
    return gradient(lambda xs: float(f(xs[0])), [x], 0, 1e-4)


# (distribution, method, arguments, the positions with a derivative)
UNIVARIATE = [
    *[("norm", m, (X, 0.3, 1.7), (0, 1, 2)) for m in ("logpdf", "pdf", "cdf", "logcdf", "sf")],
    ("norm", "logsf", (X, 0.3, 1.7), (0, 1, 2)),
    *[("t", m, (X - 0.5, 3.5, 0.1, 1.3), (0, 1, 2, 3)) for m in ("logpdf", "pdf")],
    # the cdf's derivative in a shape parameter has no closed form (the rules raise for it)
    *[("t", m, (X - 0.5, 3.5, 0.1, 1.3), (0, 2, 3)) for m in ("cdf", "logcdf")],
    *[("chi2", m, (X + 0.3, 3.0), (0, 1)) for m in ("logpdf", "pdf")],
    ("chi2", "cdf", (X + 0.3, 3.0), (0,)),
    *[("gamma", m, (X + 0.1, 2.5, -0.05, 1.2), (0, 1, 2, 3)) for m in ("logpdf", "pdf")],
    ("gamma", "cdf", (X + 0.1, 2.5, -0.05, 1.2), (0, 2, 3)),
    *[("beta", m, (X * 0.9, 2.0, 3.0), (0, 1, 2)) for m in ("logpdf", "pdf")],
    ("beta", "cdf", (X * 0.9, 2.0, 3.0), (0,)),
    # poisson's k is an integer
    *[("poisson", m, (numpy.array([0.0, 2.0, 5.0]), 2.5), (1,)) for m in ("logpmf", "pmf", "cdf")],
]


def _replace(args: tuple[Any, ...], i: int, v: Any) -> list[Any]:
    out = list(args)
    out[i] = v
    return out


@pytest.mark.parametrize(
    ("dist", "method", "args", "wrt"),
    UNIVARIATE,
    ids=[f"{d}.{m}" for d, m, _, _ in UNIVARIATE],
)
def test_univariate_values_and_gradients(dist: str, method: str, args: Any, wrt: Any) -> None:
    f = getattr(getattr(st, dist), method)
    want = getattr(getattr(scipy.stats, dist), method)(*args)
    numpy.testing.assert_array_equal(f(*args), want)  # outside: SciPy's
    assert type(f(*args)) is type(want)
    for i in wrt:

        def g(v: Any, i: int = i) -> Any:
            return np.sum(f(*_replace(args, i, v)) * numpy.array([1.0, 2.0, -1.5]))

        value, grad = ad.value_and_grad(g)(numpy.asarray(args[i], dtype=numpy.float64))
        numpy.testing.assert_allclose(value, numpy.sum(want * [1.0, 2.0, -1.5]), rtol=1e-14)
        numpy.testing.assert_allclose(grad, fd_grad(g, args[i]), rtol=1e-6, atol=1e-10)


def test_a_shape_derivative_without_closed_form_says_so() -> None:
    with pytest.raises(NotImplementedError, match=r"gamma\.cdf: the derivative in 'a'"):
        ad.grad(lambda a: np.sum(st.gamma.cdf(X, a)))(2.5)


KEYWORDS: list[tuple[str, Callable[[Any], Any], Any]] = [
    ("norm loc=", lambda v: st.norm.logpdf(X, loc=v, scale=1.7), 0.3),
    ("norm scale= alone", lambda v: st.norm.cdf(X, scale=v), 1.3),
    ("norm x= loc=", lambda v: st.norm.pdf(x=X, loc=v), 0.3),
    ("t scale=", lambda v: st.t.logpdf(X, 3.0, scale=v), 1.3),
    ("t df= scale=", lambda v: st.t.logpdf(X, df=v, scale=1.2), 3.3),
    ("t x=", lambda v: st.t.logpdf(x=v, df=3.0), X),
    ("gamma a= loc=", lambda v: st.gamma.logpdf(X, a=2.0, loc=v), -0.1),
    ("beta b=", lambda v: st.beta.logpdf(X, 2.0, b=v), 3.0),
    ("poisson mu=", lambda v: st.poisson.logpmf(numpy.array([1, 2]), mu=v), 2.3),
    ("poisson loc=", lambda v: st.poisson.pmf(numpy.array([1, 2]), v, loc=0), 2.3),
]


@pytest.mark.parametrize(("call", "at"), [k[1:] for k in KEYWORDS], ids=[k[0] for k in KEYWORDS])
def test_parameters_by_keyword(call: Callable[[Any], Any], at: Any) -> None:
    def g(v: Any) -> Any:
        return np.sum(call(v))

    numpy.testing.assert_allclose(ad.grad(g)(numpy.asarray(at)), fd_grad(g, at), rtol=1e-6)


def test_a_missing_shape_parameter_is_scipys_error() -> None:
    with pytest.raises(TypeError, match="df"):
        ad.grad(lambda v: np.sum(st.t.logpdf(X, loc=v)))(0.3)


COV = numpy.array([[2.0, 0.3], [0.3, 1.0]])
XS = numpy.array([[0.1, 0.4], [1.0, -0.5]])
MEAN = numpy.array([0.2, 0.1])
ALPHA = numpy.array([1.5, 2.0, 3.0])
P = numpy.array([0.2, 0.3, 0.5])

MULTIVARIATE: list[tuple[str, Callable[[Any], Any], Any]] = [
    ("mvn.logpdf x", lambda v: st.multivariate_normal.logpdf(v, MEAN, COV), XS),
    ("mvn.logpdf mean", lambda v: st.multivariate_normal.logpdf(XS, v, COV), MEAN),
    ("mvn.logpdf mean=", lambda v: st.multivariate_normal.logpdf(XS, mean=v, cov=COV), MEAN),
    ("mvn.logpdf cov", lambda v: st.multivariate_normal.logpdf(XS, MEAN, v @ v.T), COV),
    ("mvn.pdf cov", lambda v: st.multivariate_normal.pdf(XS, MEAN, v @ v.T), COV),
    ("mvn.entropy", lambda v: st.multivariate_normal.entropy(MEAN, v @ v.T), COV),
    ("dirichlet.logpdf alpha", lambda v: st.dirichlet.logpdf(P, v), ALPHA),
    ("dirichlet.pdf x", lambda v: st.dirichlet.pdf(v / np.sum(v), ALPHA), P),
]


@pytest.mark.parametrize(
    ("call", "at"), [k[1:] for k in MULTIVARIATE], ids=[k[0] for k in MULTIVARIATE]
)
def test_multivariate(call: Callable[[Any], Any], at: Any) -> None:
    def g(v: Any) -> Any:
        return np.sum(call(v))

    numpy.testing.assert_allclose(ad.grad(g)(at), fd_grad(g, at), rtol=1e-6, atol=1e-10)


def test_multivariate_values_are_scipys() -> None:
    mvn, dirichlet = scipy.stats.multivariate_normal, scipy.stats.dirichlet
    numpy.testing.assert_array_equal(
        st.multivariate_normal.logpdf(XS, MEAN, COV), mvn.logpdf(XS, MEAN, COV)
    )
    numpy.testing.assert_array_equal(st.dirichlet.pdf(P, ALPHA), dirichlet.pdf(P, ALPHA))
    v = ad.value_and_grad(lambda m: st.multivariate_normal.logpdf(XS, m, COV)[1])(MEAN)[0]
    numpy.testing.assert_allclose(v, mvn.logpdf(XS, MEAN, COV)[1], rtol=1e-14)


HESSIANS: list[tuple[str, Callable[[Any], Any], Any]] = [
    ("norm.logpdf", lambda v: st.norm.logpdf(X, v[0], v[1]), numpy.array([0.3, 1.7])),
    ("t.logpdf", lambda v: st.t.logpdf(X, v[0], v[1], v[2]), numpy.array([3.0, 0.1, 1.2])),
    ("norm.logcdf", lambda v: st.norm.logcdf(v * 2.0), X),
    ("gamma.logpdf", lambda v: st.gamma.logpdf(X + 0.1, v[0], scale=v[1]), numpy.array([2.5, 1.2])),
    ("mvn.logpdf", lambda v: st.multivariate_normal.logpdf(XS, v, COV), MEAN),
    ("logsumexp", lambda v: sp.logsumexp(v * v), X),
]


@pytest.mark.parametrize(("call", "at"), [k[1:] for k in HESSIANS], ids=[k[0] for k in HESSIANS])
def test_hessians(call: Callable[[Any], Any], at: Any) -> None:
    def g(v: Any) -> Any:
        return np.sum(call(v))

    grad = ad.grad(g)
    rows = [fd_grad(lambda v, i=i: grad(v)[i], at) for i in range(at.size)]
    numpy.testing.assert_allclose(ad.hessian(g)(at), numpy.stack(rows), rtol=1e-6, atol=1e-9)


# --- special, linalg, signal, integrate ---------------------------------------------------------
A = numpy.array([[2.0, 0.5], [0.1, 1.5]])
T = numpy.array([0.0, 0.5, 1.0])  # (odeint's rule takes an array of times, not a list)


def _decay(y: Any, t: Any, a: float) -> Any:
    return -a * y


OTHERS: list[tuple[str, Callable[[Any], Any], Any]] = [
    ("special.logsumexp", lambda v: sp.logsumexp(v * 2.0), X),
    ("special.softmax", lambda v: sp.softmax(v) * X, X),
    ("special.log_softmax", lambda v: sp.log_softmax(v, axis=0) * X, X),
    ("special.gammaln (a ufunc)", lambda v: sp.gammaln(v + 1.0), X),
    ("special.multigammaln", lambda v: sp.multigammaln(v + 3.0, 2), X),
    ("linalg.expm", sl.expm, A),
    ("linalg.sqrtm", lambda v: sl.sqrtm(v @ v.T), A),
    ("linalg.solve_triangular", lambda v: sl.solve_triangular(numpy.triu(A), v), A[0]),
    ("linalg.cholesky", lambda v: sl.cholesky(v @ v.T + numpy.eye(2)), A),
    ("linalg.det", sl.det, A),
    ("linalg.inv", sl.inv, A),
    ("signal.convolve", lambda v: ss.convolve(v, X) ** 2, X),
    ("integrate.odeint", lambda v: si.odeint(_decay, v, T, args=(0.7,)), A[0]),
]


@pytest.mark.parametrize(("call", "at"), [k[1:] for k in OTHERS], ids=[k[0] for k in OTHERS])
def test_special_linalg_signal_integrate(call: Callable[[Any], Any], at: Any) -> None:
    def g(v: Any) -> Any:
        return np.sum(call(v))

    numpy.testing.assert_allclose(ad.grad(g)(at), fd_grad(g, at), rtol=1e-6, atol=1e-9)


def test_outside_a_transformation_it_is_scipy() -> None:
    assert sp.gammaln is scipy.special.gammaln and sp.ndtr is scipy.special.ndtr  # ufuncs
    assert sl.LinAlgError is scipy.linalg.LinAlgError
    for name in scipy.special.__all__:
        assert hasattr(sp, name), name
    for mod, theirs in ((sp, scipy.special), (sl, scipy.linalg), (si, scipy.integrate)):
        routed = [n for n in mod.__all__ if getattr(mod, n) is not getattr(theirs, n)]
        assert routed, mod  # each has functions with rules, routed
        for n in routed:
            assert getattr(mod, n).__wrapped__ is getattr(theirs, n), n
    numpy.testing.assert_array_equal(sp.logsumexp(X), scipy.special.logsumexp(X))
    assert type(sp.logsumexp(X)) is type(scipy.special.logsumexp(X))
    numpy.testing.assert_array_equal(sl.expm(A), scipy.linalg.expm(A))
    assert type(st.norm.logpdf(0.5)) is type(scipy.stats.norm.logpdf(0.5))
    assert st.norm.logpdf(0.5) == scipy.stats.norm.logpdf(0.5)
    assert st.norm.ppf is not None and st.norm.mean() == 0.0  # the distribution's other methods
    assert st.lognorm is scipy.stats.lognorm  # a distribution with no rules: SciPy's


def test_special_on_the_guarded_device_array() -> None:
    def g(v: Any) -> Any:
        return sp.logsumexp(v * 2.0) + np.sum(sp.gammaln(v + 1.0))

    got = ad.grad(g)(device_array(X))
    assert type(got) is type(device_array(X))
    numpy.testing.assert_allclose(to_numpy(got), fd_grad(g, X), rtol=1e-6)


def test_a_likelihood_through_the_engines_jit() -> None:
    data = numpy.array([0.2, 1.1, -0.4])

    def nll(theta: Any) -> Any:
        return -np.sum(st.norm.logpdf(data, loc=theta[0], scale=np.exp(theta[1])))

    g = ad.jit(ad.grad(nll))
    for theta in (numpy.array([0.1, 0.0]), numpy.array([-0.3, 0.4])):
        numpy.testing.assert_allclose(g(theta), fd_grad(nll, theta), rtol=1e-6)
    assert g.recordings and all(callable(r) for r in g.recordings.values())
