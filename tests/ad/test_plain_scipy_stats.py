"""``scipy.stats``' distributions with rules reach them from plain code: ``from scipy.stats import
norm`` binds the distribution *object*, and ``norm.logpdf(x, m, s)`` inside ``ad.grad`` is one
operation differentiated by its rules, wherever the name was bound. Before, SciPy's body ran
and converted the tracer with ``numpy.asarray`` (also with ``SCIPY_ARRAY_API=1``): autograd's
examples that use ``scipy.stats`` (Gaussian-process regression, ICA, black-box SVI) failed.

The scope of a transformation (``chainrules.ad._compat``) gives each distribution object of
``scipy.stats`` whose methods the registry has rules for a class of its own while a
transformation runs: a subclass that overrides exactly those methods, calling the rule's route
in a context inside a transformation and SciPy's method everywhere else. Which objects is read
from the registry (``table.bound_methods``) and checked here against the registry's own
``scipy:stats.*`` registrations. Each condition of a scoped patch has its test: restored after,
exceptions, nesting, other threads, a method kept after the exit.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.core.table import bound_methods
from chainrules.testing.examples import registered_scipy, traced_examples
from chainrules.testing.finite_differences import gradient

st = pytest.importorskip("scipy.stats")
from scipy.stats import gamma, multivariate_normal, norm, poisson, t  # noqa: E402  (bound before)

X = np.array([0.3, -1.2, 0.8])
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])


REGISTERED = registered_scipy("stats")  # by SciPy's bound method
OBJECTS = {id(m.__self__): m.__self__ for m in REGISTERED}


def _own(obj: Any) -> type:
    return getattr(type(obj), "_cr_own", type(obj))


@pytest.fixture(autouse=True)
def _classes_restored() -> Any:
    yield
    for obj in OBJECTS.values():
        assert type(obj) is _own(obj), f"{obj}'s class was not put back"


def test_the_objects_are_the_registrys() -> None:
    """Inside a transformation exactly the objects the registry holds methods of have a class
    of ours, which overrides exactly their registered methods; outside, every class is SciPy's."""
    assert {id(m.__self__) for m in bound_methods()} >= set(OBJECTS)
    assert {type(o).__name__ for o in OBJECTS.values()} >= {"norm_gen", "t_gen", "gamma_gen"}
    seen: dict[int, type] = {}

    def f(x: Any) -> Any:
        for name in dir(st):
            v = getattr(st, name)
            if not isinstance(v, type) and hasattr(type(v), "_cr_own"):
                seen[id(v)] = type(v)
        return np.sum(norm.logpdf(x))

    ad.grad(f)(X)
    assert set(seen) == set(OBJECTS)
    for i, cls in seen.items():
        methods = {m.__func__ for m in REGISTERED if id(m.__self__) == i}
        overridden = {getattr(cls._cr_own, a) for a in vars(cls) if not a.startswith("_")}
        assert overridden == methods, OBJECTS[i]
    assert all(type(o) is _own(o) for o in OBJECTS.values())


def _fd(f: Any, x: Any, h: float = 1e-6) -> Any:
    """Central differences of the scalar ``f`` at ``x`` (the project's ``gradient``)."""
    return gradient(lambda xs: f(xs[0]), [np.asarray(x, dtype=float)], 0, h)


PROGRAMS = {
    "norm.logpdf": (lambda x, m, s: np.sum(norm.logpdf(x, m, s)), (X, 0.2, 1.3)),
    "norm.logpdf(loc=, scale=)": (
        lambda x, m, s: np.sum(norm.logpdf(x, loc=m, scale=s)),
        (X, 0.2, 1.3),
    ),
    "norm.cdf + sf": (lambda x, m, s: np.sum(norm.cdf(x, m, s) * norm.sf(x, m, s)), (X, 0.2, 1.3)),
    "t.logpdf": (lambda x, df, s: np.sum(t.logpdf(x, df, 0.1, s)), (X, 2.4, 0.9)),
    "gamma.logpdf": (lambda x, a, s: np.sum(gamma.logpdf(x, a, scale=s)), (X**2 + 0.5, 2.5, 1.5)),
    "poisson.logpmf": (
        lambda mu: np.sum(poisson.logpmf(np.array([0, 2, 5]), mu)),
        (np.array([1.5, 2.0, 4.0]),),
    ),
    "multivariate_normal.logpdf": (
        lambda x, m, c: multivariate_normal.logpdf(x, m, c @ c.T + np.eye(3)),
        (X, np.array([0.1, 0.0, -0.2]), COV),
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_plain_code_differentiates_through_the_rules(name: str) -> None:
    f, args = PROGRAMS[name]
    argnums = tuple(range(len(args)))
    got = ad.grad(f, argnums=argnums)(*args)
    for i, g in enumerate(got):
        fd = _fd(lambda v, i=i: f(*args[:i], v, *args[i + 1 :]), args[i])
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8, err_msg=f"argument {i}")
    h = ad.hessian(lambda v: f(v, *args[1:]))(args[0])
    g0 = ad.grad(lambda v: f(v, *args[1:]))
    x0 = np.asarray(args[0], dtype=float)
    eye = np.eye(x0.size).reshape(x0.size, *x0.shape)
    fd = np.stack([(g0(x0 + 1e-6 * e) - g0(x0 - 1e-6 * e)) / 2e-6 for e in eye], -1)
    np.testing.assert_allclose(h, fd.reshape(np.shape(h)), rtol=1e-5, atol=1e-7)


def test_a_call_is_one_operation_through_its_rule(clean_registry: Any) -> None:
    """A marked rule (7x the true derivative) shows that the rule, not the body, was used."""
    calls = []
    method = norm.logpdf
    real = cr.find_rrule(method)

    @cr.register_rrule(method)
    def marked(*args: Any, **kwargs: Any) -> Any:
        y, pb = real(*args, **kwargs)
        calls.append(1)
        return y, lambda g: tuple(7 * cr.unthunk(v) if i == 1 else v for i, v in enumerate(pb(g)))

    g = ad.grad(lambda x: np.sum(norm.logpdf(x, 0.2, 1.3)))(X)
    np.testing.assert_allclose(g, -7 * (X - 0.2) / 1.3**2, rtol=1e-12)
    assert calls == [1]


def _examples() -> list[Any]:
    return [
        pytest.param(m, ex, i, id=f"{reg.target}-{k}")
        for m, reg in REGISTERED.items()
        for k, ex, i in traced_examples(reg)
    ]


@pytest.mark.parametrize(("method", "ex", "i"), _examples())
def test_every_registered_method_called_on_its_object(method: Any, ex: Any, i: int) -> None:
    """At each real example, the first floating argument traced and the call written as plain
    code does (``obj.NAME(...)`` looked up inside the function, ``obj`` bound before): the
    gradient is the rule's own cotangent, from ``cr.rrule`` on plain arrays."""
    obj, attr = method.__self__, method.__func__.__name__
    args, kwargs = ex.args, ex.kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y = method(*args, **kwargs)
    w = np.random.default_rng(3).standard_normal(np.shape(y))

    def loss(v: Any) -> Any:
        return np.sum(getattr(obj, attr)(*args[:i], v, *args[i + 1 :], **kwargs) * w)

    got = ad.grad(loss)(args[i])
    _, pullback = cr.rrule(method, *args, **kwargs)
    want = cr.unthunk(pullback(w)[1 + i])
    if isinstance(want, cr.ZeroTangent):  # entropy's mean: no dependence
        want = np.zeros_like(args[i])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# --- the scope -----------------------------------------------------------------------------------
def test_restored_after_an_exception_and_in_nested_transformations() -> None:
    def fails(x: Any) -> Any:
        norm.logpdf(x)
        raise RuntimeError("the user's")

    with pytest.raises(RuntimeError, match="the user's"):
        ad.grad(fails)(X)
    assert type(norm) is _own(norm)
    h = ad.hessian(lambda x: np.sum(norm.logpdf(x, 0.0, 2.0)))(X)  # nested: jacobian of grad
    assert type(norm) is _own(norm)
    np.testing.assert_allclose(h, -np.eye(3) / 4.0, rtol=1e-12)


def test_another_thread_gets_scipys_methods_meanwhile(grad_while_another_thread: Any) -> None:
    """While one thread is inside a transformation, another thread's calls are SciPy's (the same
    result, on plain arrays), and its own transformation works too."""

    def loss(x: Any) -> Any:
        return np.sum(norm.logpdf(x, 0.2, 1.3))

    g, (value, other_grad) = grad_while_another_thread(
        loss, X, lambda: (norm.logpdf(X, 0.2, 1.3), ad.grad(loss)(X))
    )
    want = -0.5 * ((X - 0.2) / 1.3) ** 2 - np.log(1.3) - 0.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(value, want, rtol=1e-12)
    assert type(value) is np.ndarray
    np.testing.assert_allclose(other_grad, g, rtol=1e-12)


def test_a_method_kept_after_the_exit_is_scipys() -> None:
    kept = []

    def f(x: Any) -> Any:
        kept.append(norm.logpdf)  # looked up inside: our class's method
        return np.sum(norm.logpdf(x))

    ad.grad(f)(X)
    np.testing.assert_array_equal(kept[0](X, 0.5), st.norm.logpdf(X, 0.5))
    assert np.isnan(kept[0](X, 0.0, -1.0)).all()  # SciPy's own answer to a negative scale


def test_a_method_looked_up_before_the_transformation_is_scipys_own() -> None:
    """A bound method taken before (``lp = norm.logpdf``) is SciPy's function, which the scope
    does not see: it converts the tracer, and the error names the way that works."""
    lp = norm.logpdf
    with pytest.raises(TypeError, match=r"chainrules\.ad\.scipy"):
        ad.grad(lambda x: np.sum(lp(x)))(X)
    ad.grad(lambda x: np.sum(cr.traceable(lp)(x)))(X)


def test_a_method_looked_up_inside_finds_its_rules() -> None:
    """Looked up inside a transformation, ``norm.logpdf`` is our class's method; handed to the
    registry (``cr.find_rrule``, ``cr.rrule``, ``cr.traceable``, as the campaign's checker does)
    it finds SciPy's method's rules (the registry answers a wrapper's method with the wrapped
    function bound to the same object)."""
    seen: list[Any] = []

    def f(x: Any) -> Any:
        m = multivariate_normal.logpdf
        seen.append((cr.find_rrule(m), cr.find_rrule(st.multivariate_normal.logpdf)))
        return cr.traceable(m)(x, np.zeros(3), COV)

    g = ad.grad(f)(X)
    inside, original = seen[0]
    assert inside is not None and inside is original
    np.testing.assert_allclose(g, -np.linalg.solve(COV, X), rtol=1e-12)
