"""chainrules.ad on arrays the traced code makes itself (issue 10, point 3) and nested tracing
(point 5), on NumPy, array-api-strict, PyTorch and guarded device arrays; every result is
compared with JAX's grad / jacfwd / hessian of the same function on JAX arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

from chainrules import ad

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

BACKENDS = ["numpy", "array_api_strict", "torch", "device"]
X = [0.3, 1.2, 0.7, 2.0]
W = [1.0, 2.0, 3.0, 4.5]


def make(name: str, values: Any) -> Any:
    a = np.asarray(values, dtype=np.float64)
    if name == "numpy":
        return a
    if name == "array_api_strict":
        import array_api_strict

        return array_api_strict.asarray(a)
    if name == "torch":
        torch = pytest.importorskip("torch")
        return torch.asarray(a)
    if name == "device":
        from chainrules.testing import device_array

        return device_array(a)
    return jnp.asarray(a)


def host(a: Any) -> np.ndarray:
    from chainrules import allowscalar
    from chainrules.testing import to_numpy

    with allowscalar():
        if hasattr(a, "detach"):
            return np.asarray(a.detach())
        if type(a).__module__.startswith("array_api_strict"):
            return np.asarray(a._array)
        return np.array([host(e) for e in a]) if isinstance(a, tuple) else to_numpy(a)


# --- point 3: arrays the code makes itself -----------------------------------------------------
def zeros_add(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum((x + xp.zeros(x.shape, dtype=x.dtype)) ** 3)


def ones_mul_reflected(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum(xp.ones(x.shape, dtype=x.dtype) * 2.0 * x**2)


def full_in_where(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum(xp.where(x > 1.0, x**2, xp.full(x.shape, 0.5, dtype=x.dtype) * x))


def asarray_number(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum(xp.sin(x) * xp.asarray(0.1, dtype=x.dtype))


def arange_weights(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum(x**2 * xp.arange(x.shape[0], dtype=x.dtype))


def eye_matmul(x: Any) -> Any:
    xp = array_namespace(x)
    a = xp.reshape(x, (2, 2))
    return xp.sum((xp.eye(2, dtype=x.dtype) + a) @ a)


def linspace_weights(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum(xp.exp(x) * xp.linspace(0.0, 1.0, x.shape[0], dtype=x.dtype))


def numpy_float64(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum(np.float64(2.0) * x**2 + x * np.float64(0.5))


def finfo_eps(x: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum(xp.log(x * x + xp.finfo(x.dtype).eps) + xp.log(x + np.finfo(np.float64).eps))


def numpy_ints_in_shapes(x: Any) -> Any:
    xp = array_namespace(x)
    a = xp.reshape(x, (np.int64(2), np.int64(2)))
    return xp.sum(a @ a + xp.zeros((np.int64(2),), dtype=x.dtype))


def namespace_of_traced_and_created(x: Any) -> Any:
    z = array_namespace(x).ones(x.shape, dtype=x.dtype)
    xp = array_namespace(z, x)  # a created array first: one namespace, the traced one
    return xp.sum(xp.maximum(x * z, xp.zeros_like(x)) ** 2)


def concat_with_created(x: Any) -> Any:
    xp = array_namespace(x)
    y = xp.concat([x, xp.ones(2, dtype=x.dtype)])
    return xp.sum(xp.stack([y, 2 * y]) ** 3)


CREATED = [
    zeros_add,
    ones_mul_reflected,
    full_in_where,
    asarray_number,
    arange_weights,
    eye_matmul,
    linspace_weights,
    numpy_float64,
    finfo_eps,
    numpy_ints_in_shapes,
    namespace_of_traced_and_created,
    concat_with_created,
]


def _compare(f: Callable[..., Any], name: str, argnums: Any = 0, n_args: int = 1) -> None:
    args = [make(name, v) for v in (X, W)[:n_args]]
    jargs = [jnp.asarray(np.asarray(v)) for v in (X, W)[:n_args]]
    ours = {
        "grad": ad.grad(f, argnums=argnums)(*args),
        "jacfwd": ad.jacobian(f, argnums=argnums, mode="fwd")(*args),
        "hessian": ad.hessian(f, argnums=argnums)(*args),
    }
    theirs = {
        "grad": jax.grad(f, argnums=argnums)(*jargs),
        "jacfwd": jax.jacfwd(f, argnums=argnums)(*jargs),
        "hessian": jax.hessian(f, argnums=argnums)(*jargs),
    }
    for k in ours:
        a, b = ours[k], theirs[k]
        if isinstance(b, tuple) and isinstance(b[0], tuple):  # hessian with several argnums
            for ra, rb in zip(a, b):
                for ea, eb in zip(ra, rb):
                    np.testing.assert_allclose(host(ea), np.asarray(eb), rtol=1e-12, atol=1e-12)
        elif isinstance(b, tuple):
            for ea, eb in zip(a, b):
                np.testing.assert_allclose(host(ea), np.asarray(eb), rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_allclose(host(a), np.asarray(b), rtol=1e-12, atol=1e-12, err_msg=k)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("f", CREATED, ids=lambda f: f.__name__)
def test_created_arrays_mix_with_tracers(f: Callable[..., Any], name: str) -> None:
    _compare(f, name)


def standardised_by_data(x: Any, w: Any) -> Any:
    """``w`` is not differentiated: it and the arrays computed from it are constants."""
    xp = array_namespace(w, x)  # the data first
    m, s = xp.mean(w), xp.std(w)
    return xp.sum(((x - m) / s) ** 2 * w) + xp.sum(xp.asarray(w) * x**3)


@pytest.mark.parametrize("name", BACKENDS)
def test_data_arguments_mix_with_tracers(name: str) -> None:
    _compare(standardised_by_data, name, argnums=0, n_args=2)


@pytest.mark.parametrize("name", BACKENDS)
def test_data_arguments_can_be_read_on_the_host(name: str) -> None:
    """A constant of the trace depends on no input: reading it (as library code does with
    ``float(xp.max(w))``) loses no derivative, so it is allowed; the inputs stay refused."""

    from chainrules import allowscalar

    def f(x: Any, w: Any) -> Any:
        xp = array_namespace(x)
        with allowscalar():  # one read per call (device arrays refuse it otherwise)
            scale = float(xp.max(w))
        return xp.sum(x**2) / scale

    x, w = make(name, X), make(name, W)
    np.testing.assert_allclose(host(ad.grad(f)(x, w)), 2 * np.asarray(X) / 4.5, rtol=1e-12)
    with pytest.raises(TypeError, match=r"float\(x\) of a traced array"):
        ad.grad(lambda x: float(array_namespace(x).max(x)) * x[0])(x)


# --- point 5: nested tracing -------------------------------------------------------------------
def through_predicates(x: Any) -> Any:
    xp = array_namespace(x)
    ok = xp.isfinite(x) & ~xp.isnan(x)
    y = xp.where(ok, x, xp.zeros_like(x)) ** 3
    one = xp.ones((), dtype=x.dtype)
    bump = xp.where(xp.any(x > 1.5), one, 0 * one)
    return xp.sum(y * xp.astype(x >= 0.5, x.dtype)) + bump * xp.sum(x**2)


def through_shape_utilities(x: Any) -> Any:
    xp = array_namespace(x)
    a = xp.reshape(x, (2, 2))
    b = xp.expand_dims(xp.sum(a, axis=0), axis=0)
    c = xp.broadcast_to(b, (2, 2)) * xp.permute_dims(a, (1, 0))
    return xp.sum(xp.tril(c) ** 2) + xp.sum(xp.flip(x) * x) * float(x.shape[0])


def two_arguments(x: Any, w: Any) -> Any:
    xp = array_namespace(x)
    return xp.sum(xp.sin(x) * w**2) + xp.sum(x * w) ** 2 + xp.sum(xp.where(x < w, x * w, w))


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize(
    "f", [through_predicates, through_shape_utilities], ids=lambda f: f.__name__
)
def test_hessians_through_non_differentiable_functions(f: Callable[..., Any], name: str) -> None:
    _compare(f, name)


@pytest.mark.parametrize("name", BACKENDS)
def test_jacobian_of_jacobian(name: str) -> None:
    def g(x: Any) -> Any:
        xp = array_namespace(x)
        return xp.where(xp.isnan(x), 0.0, x**3) * xp.ones(x.shape, dtype=x.dtype)

    x = make(name, X)
    for outer in ("fwd", "rev"):
        for inner in ("fwd", "rev"):
            jj = ad.jacobian(ad.jacobian(g, mode=inner), mode=outer)(x)
            want = jax.jacfwd(jax.jacrev(g))(jnp.asarray(np.asarray(X)))
            np.testing.assert_allclose(host(jj), np.asarray(want), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("argnums", [(0, 1), (1, 0)], ids=str)
def test_several_argnums(name: str, argnums: tuple[int, int]) -> None:
    _compare(two_arguments, name, argnums=argnums, n_args=2)
    args = [make(name, v) for v in (X, W)]
    rev = ad.jacobian(two_arguments, argnums=argnums, mode="rev")(*args)
    want = jax.jacrev(two_arguments, argnums=argnums)(*(jnp.asarray(v) for v in (X, W)))
    for a, b in zip(rev, want):
        np.testing.assert_allclose(host(a), np.asarray(b), rtol=1e-12, atol=1e-12)
