"""chainrules.ad on code written for autograd or JAX (issue 10): NumPy scalars and Python numbers
as inputs, tangents, cotangents and losses; writes into traced arrays; arrays the code makes
itself; nested tracing; several argnums; user-registered rules."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from chainrules import ad


def close(a: Any, b: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


X = np.array([0.3, -1.2, 0.7, 2.0])


# --- numbers -----------------------------------------------------------------------------------
def test_numpy_scalar_input_differentiates() -> None:
    close(ad.grad(lambda x: x * x)(np.float64(1.5)), 3.0)
    close(ad.grad(lambda x: np.sin(x))(np.float32(0.5)), np.cos(np.float32(0.5)), rtol=1e-6)


def test_jvp_takes_python_and_numpy_number_tangents() -> None:
    y, t = ad.jvp(lambda x: x**3, (2.0,), (0.5,))
    close(y, 8.0)
    close(t, 6.0)
    _, t = ad.jvp(lambda x: x**3, (np.float64(2.0),), (np.float64(1.0),))
    close(t, 12.0)


def test_vjp_takes_a_python_number_cotangent() -> None:
    _, pb = ad.vjp(lambda x: np.sum(x**2), X)
    close(pb(1.0)[0], 2 * X)
    close(pb(np.float64(2.0))[0], 4 * X)


def test_loss_returning_a_python_float_has_zero_gradient() -> None:
    v, g = ad.value_and_grad(lambda x: 3.0)(X)
    close(v, 3.0)
    close(g, np.zeros(4))


def test_loss_of_one_element_differentiates() -> None:
    close(ad.grad(lambda x: np.sum(x**2, keepdims=True))(X), 2 * X)


def test_non_scalar_loss_error_says_what_to_return() -> None:
    with pytest.raises(ValueError, match=r"shape \(4,\), not a scalar; return a 0-d array"):
        ad.grad(np.sin)(X)


# --- writes into traced arrays -----------------------------------------------------------------
def _fd(f: Any, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def _writes(x: Any) -> Any:
    x = x * 1.0
    x[0] = 3 * x[1]  # x[k] = v
    x[1:3] += x[:2] ** 2  # x[idx] += v
    y = x[2:]  # a view: the write below changes x, as in NumPy
    y[0] = 5.0
    x *= 2  # x op= y changes x itself
    x[x > 5] = -1.0  # x[mask] = v
    return np.sum(x**2)


def test_writes_into_traced_arrays_are_functional_updates() -> None:
    def plain(x: Any) -> Any:
        return _writes(x.copy())

    close(ad.grad(_writes)(X), _fd(plain, X), rtol=1e-6, atol=1e-6)
    close(ad.jacobian(_writes, mode="fwd")(X), _fd(plain, X), rtol=1e-6, atol=1e-6)
    assert _writes(X.copy()) == pytest.approx(plain(X))


def test_write_into_an_allocated_array_and_repeated_indices() -> None:
    def f(x: Any) -> Any:
        buf = np.zeros_like(x)  # allocated by the code, then written with traced values
        buf[np.array([0, 0, 2])] = x[:3]  # repeated index: the last write wins, as in NumPy
        buf[3] = x[3] ** 2
        return np.sum(buf * x)

    def plain(x: Any) -> Any:
        buf = np.zeros_like(x)
        buf[np.array([0, 0, 2])] = x[:3]
        buf[3] = x[3] ** 2
        return np.sum(buf * x)

    close(ad.grad(f)(X), _fd(plain, X), rtol=1e-6, atol=1e-6)
    h = ad.hessian(f)(X)
    expected = np.zeros((4, 4))
    expected[0, 1] = expected[1, 0] = 1.0
    expected[2, 2] = 2.0
    expected[3, 3] = 6 * X[3]
    close(h, expected)


def test_write_through_an_untracked_view_is_refused() -> None:
    def f(x: Any) -> Any:
        y = x.reshape(2, 2)
        y[0, 0] = 1.0
        return np.sum(x)

    with pytest.raises(TypeError, match="reshape, transpose or similar view"):
        ad.grad(f)(X)


def test_write_into_a_transposed_view_is_refused() -> None:
    def f(x: Any) -> Any:
        x.T[0] = 1.0  # NumPy would change x
        return np.sum(x)

    with pytest.raises(TypeError, match="similar view"):
        ad.grad(f)(X)


# --- several outputs ---------------------------------------------------------------------------
def test_list_outputs_of_split_stay_traced() -> None:
    g = ad.grad(lambda x: np.sum(np.split(x, 2)[1] ** 2))(X)
    close(g, np.array([0.0, 0.0, 2 * X[2], 2 * X[3]]))
    _, t = ad.jvp(lambda x: np.split(x, 2), (X,), (np.ones(4),))
    assert type(t) is list
    close(t[0], np.ones(2))


def test_predicates_are_constants_and_a_bool_loss_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="must return a real scalar"):
        ad.grad(lambda x: np.allclose(x, x * 3.0 / 3.0))(X)


def test_array_of_traced_values_names_stack() -> None:
    with pytest.raises(TypeError, match=r"np\.stack"):
        ad.grad(lambda x: np.sum(np.array([x, 2 * x])))(X)


# --- the user's own rules ----------------------------------------------------------------------
def test_rule_of_a_plain_function_given_to_a_transformation_is_used(clean_registry: Any) -> None:
    """Issue 27: the function a transformation is given is a call the engine sees; its own rule
    (a marked answer, 7x) is used, not warned about. Inside other code a plain function's call
    runs its body (no introspection can see it): ``@cr.traceable`` is the documented way."""
    import warnings

    import chainrules as cr

    def mysoftplus(x: Any) -> Any:
        return np.sum(np.logaddexp(x, 0.0))

    @cr.register_rrule(mysoftplus)
    def _rrule(x: Any) -> Any:
        return mysoftplus(x), lambda y_bar: (cr.NoTangent(), y_bar * np.full(x.shape, 7.0))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is warned
        close(ad.grad(mysoftplus)(X), np.full(4, 7.0))
        close(ad.vjp(mysoftplus, X)[1](np.float64(1.0))[0], np.full(4, 7.0))
        close(ad.jacobian(mysoftplus, mode="rev")(X), np.full(4, 7.0))
        # a call inside the user's code: the body's derivative, sigmoid(x)
        close(ad.grad(lambda x: mysoftplus(x))(X), 1 / (1 + np.exp(-X)))


def test_transformations_never_set_a_profile_hook(clean_registry: Any) -> None:
    """Issue 27: no profile hook, with or without a user's rule of a plain function registered:
    a user's profiler sees every call, and inside the function ``sys.getprofile()`` is it."""
    import sys

    import chainrules as cr

    def mysoftplus(x: Any) -> Any:
        return np.logaddexp(x, 0.0)

    @cr.register_rrule(mysoftplus)
    def _rrule(x: Any) -> Any:
        return mysoftplus(x), lambda y_bar: (cr.NoTangent(), y_bar * 0.0)

    seen: list[Any] = []

    def loss(x: Any) -> Any:
        seen.append(sys.getprofile())
        return np.sum(mysoftplus(x))

    assert sys.getprofile() is None
    ad.grad(loss)(X)
    assert seen == [None] and sys.getprofile() is None

    def profiler(frame: Any, event: str, arg: Any) -> None:
        pass

    sys.setprofile(profiler)
    try:
        ad.grad(loss)(X)
        assert sys.getprofile() is profiler
    finally:
        sys.setprofile(None)
    assert seen == [None, profiler]


def test_rule_of_a_traceable_function_is_used(clean_registry: Any) -> None:
    import chainrules as cr

    @cr.traceable
    def mysoftplus(x: Any) -> Any:
        return np.logaddexp(x, 0.0)

    @cr.register_rrule(mysoftplus)
    def _rrule(x: Any) -> Any:
        return mysoftplus(x), lambda y_bar: (cr.NoTangent(), y_bar * 7.0)  # a marked answer

    close(ad.grad(lambda x: np.sum(mysoftplus(x)))(X), np.full(4, 7.0))


def test_pullback_with_too_few_entries_names_the_rule(clean_registry: Any) -> None:
    import chainrules as cr

    @cr.traceable
    def double(x: Any) -> Any:
        return 2.0 * x

    @cr.register_rrule(double)
    def double_rrule(x: Any) -> Any:
        def double_pullback(y_bar: Any) -> Any:
            return (2.0 * y_bar,)  # forgot the function's own NoTangent()

        return double(x), double_pullback

    with pytest.raises(TypeError, match=r"double_rrule.*returned 1 entries.*at least 2"):
        ad.grad(lambda x: np.sum(double(x)))(X)


def test_tuple_of_index_tuples_is_an_advanced_index() -> None:
    A = np.arange(12.0).reshape(3, 4)
    g = ad.grad(lambda x: np.sum(x[(0, 1, 0), (3, 3, 2)] ** 2))(A)
    expected = np.zeros((3, 4))
    expected[(0, 1, 0), (3, 3, 2)] = 2 * A[(0, 1, 0), (3, 3, 2)]
    close(g, expected)
    close(ad.grad(lambda x: np.sum(x[[0, 2]]))(A), np.array([[1.0] * 4, [0.0] * 4, [1.0] * 4]))


def test_list_holding_traced_values_is_stacked_for_array_arguments() -> None:
    w = np.array([1.0, 2.0, 3.0, 4.0])
    g = ad.grad(lambda a, b: np.sum(np.append(a, b) * w), argnums=(0, 1))([1.0, 2.0, 3.0], 4.0)
    close(np.stack(g[0]), w[:3])
    close(g[1], 4.0)
    _, t = ad.jvp(lambda a, b: np.append(a, b), ([1.0, 2.0, 3.0], 4.0), ([1.0, 1.0, 1.0], 0.0))
    close(t, np.array([1.0, 1.0, 1.0, 0.0]))


def test_plain_array_keyword_mixes_with_tracers_at_second_order() -> None:
    from scipy.special import logsumexp

    from chainrules.ad._core import dispatch

    b = np.array([1.0, 2.0, 0.5, 1.0])

    def f(x: Any) -> Any:
        return dispatch(logsumexp, (x,), {"b": b})  # logsumexp's rule, with a plain b=

    h = ad.hessian(f)(X)
    eps = 1e-5
    g = ad.grad(f)
    fd = np.array([(g(X + eps * e) - g(X - eps * e)) / (2 * eps) for e in np.eye(4)])
    close(h, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("lib", ["numpy", "torch"])
def test_traced_namespace_has_special_functions_with_rules(lib: str) -> None:
    import array_api_compat

    sp = pytest.importorskip("scipy.special")
    if lib == "torch":
        torch = pytest.importorskip("torch")
        x0: Any = torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64)
    else:
        x0 = np.array([0.5, 1.5, 3.0])

    def loss(x: Any) -> Any:
        xp = array_api_compat.array_namespace(x)  # what SciPy's array-API code asks for
        return xp.sum(xp.special.gammaln(x) * xp.special.expit(x))

    x = np.array([0.5, 1.5, 3.0])
    s = sp.expit(x)
    expected = sp.digamma(x) * s + sp.gammaln(x) * s * (1 - s)
    close(np.asarray(ad.grad(loss)(x0)), expected)
    h = ad.hessian(lambda x: np.sum(array_api_compat.array_namespace(x).special.gammaln(x)))(x)
    close(np.diag(h), sp.polygamma(1, x))


def test_traced_namespace_without_special_functions_says_so() -> None:
    xps = pytest.importorskip("array_api_strict")

    def loss(x: Any) -> Any:
        return x.__array_namespace__().special.gammaln(x)

    with pytest.raises(AttributeError, match="no special functions"):
        ad.grad(loss)(xps.asarray([1.0, 2.0]))
