"""Arrays the traced code allocates, written into with traced values (issue 10, points 2 and 3):
``buf = xp.zeros(n); buf[k] = t`` is a differentiable functional update on NumPy,
array-api-strict, PyTorch and guarded device arrays, created arrays mix with tracers in every
operation and in ``array_namespace``, and nested transformations (a Jacobian of a reverse-mode
Jacobian, forward over forward with nested pytrees) see them as constants of no trace. Every
result is compared with JAX's grad / jacfwd / hessian of the same function, whose writes are
``.at[].set`` / ``.at[].add`` (JAX arrays are immutable)."""

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


def make(name: str, values: Any) -> Any:
    a = np.asarray(values, dtype=np.float64)
    if name == "array_api_strict":
        import array_api_strict

        return array_api_strict.asarray(a)
    if name == "torch":
        torch = pytest.importorskip("torch")
        return torch.asarray(a)
    if name == "device":
        from chainrules.testing import device_array

        return device_array(a)
    return a


def host(a: Any) -> np.ndarray:
    from chainrules import allowscalar
    from chainrules.testing import to_numpy

    with allowscalar():
        if hasattr(a, "detach"):
            return np.asarray(a.detach())
        if type(a).__module__.startswith("array_api_strict"):
            return np.asarray(a._array)
        return to_numpy(a)  # a device array: an explicit transfer (np.asarray refuses it)


def put(buf: Any, key: Any, v: Any) -> Any:
    """``buf[key] = v`` as user code writes it (JAX: ``.at[key].set``)."""
    if isinstance(buf, jax.Array):
        return buf.at[key].set(v)
    buf[key] = v
    return buf


def add_at(buf: Any, key: Any, v: Any) -> Any:
    """``buf[key] += v`` (JAX: ``.at[key].add``; keys here have no repeated index)."""
    if isinstance(buf, jax.Array):
        return buf.at[key].add(v)
    buf[key] += v
    return buf


def zeros_set_scalar(x: Any) -> Any:
    xp = array_namespace(x)
    buf = xp.zeros(3, dtype=x.dtype)
    buf = put(buf, 1, x[0] * x[2])
    buf = put(buf, 2, xp.sin(x[1]))
    return xp.sum(buf**2 * xp.arange(1, 4, dtype=x.dtype))


def zeros_set_slice(x: Any) -> Any:
    xp = array_namespace(x)
    buf = xp.zeros((2, 4), dtype=x.dtype)
    buf = put(buf, (0, slice(None)), x**2)
    buf = put(buf, (1, slice(1, 3)), x[:2] * x[2:])
    return xp.sum(xp.exp(buf) * buf)


def ones_add_in_place(x: Any) -> Any:
    xp = array_namespace(x)
    buf = xp.ones(4, dtype=x.dtype)
    buf = add_at(buf, slice(0, 2), x[1:3] ** 2)
    buf = buf * x  # then an operation: still a traced value
    return xp.sum(buf**2)


def iadd(acc: Any, v: Any) -> Any:
    """``acc += v`` (JAX: ``acc + v``)."""
    if isinstance(acc, jax.Array):
        return acc + v
    acc += v
    return acc


def full_then_iadd(x: Any) -> Any:
    xp = array_namespace(x)
    acc = xp.full(x.shape, 0.5, dtype=x.dtype)
    for k in range(2):  # an accumulator the code allocates: acc += term
        acc = iadd(acc, xp.cos(x) * (k + 1.0))
    return xp.sum(acc**3)


def eye_set_diagonal_block(x: Any) -> Any:
    xp = array_namespace(x)
    m = xp.eye(3, dtype=x.dtype)
    m = put(m, (slice(0, 2), slice(0, 2)), xp.reshape(x, (2, 2)))
    return xp.sum((m @ m) ** 2)


def created_op_created_then_write(x: Any) -> Any:
    """An array computed from created ones only, then written into."""
    xp = array_namespace(x)
    base = xp.linspace(0.0, 1.0, 4, dtype=x.dtype) * 2.0 + xp.asarray(0.1, dtype=x.dtype)
    base = put(base, 3, x[3] ** 3)
    return xp.sum(base * x)


def created_written_by_created(x: Any) -> Any:
    """A write of a created value into a created array (no tracer involved), then mixed."""
    xp = array_namespace(x)
    buf = xp.zeros(4, dtype=x.dtype)
    buf = put(
        buf, slice(0, 1), xp.asarray([2.0], dtype=x.dtype)
    )  # device arrays: no 1-element write
    return xp.sum((buf + x) ** 2)


def namespace_created_first(x: Any) -> Any:
    """``array_namespace(created, tracer)`` and the created array in many operations."""
    xp0 = array_namespace(x)
    z = xp0.full(x.shape, 2.0, dtype=x.dtype)
    xp = array_namespace(z, x)
    y = xp.where(z > x, z * x, x - z) + xp.maximum(z, x) + xp.concat([z[:1], x[1:]])
    return xp.sum(y**2 / (z + 1.0)) + xp.sum(xp.stack([z, x]) ** 2)


def diff_with_created_prepend(x: Any) -> Any:
    """A created array as a keyword argument (a pullback does this too: diff's own)."""
    xp = array_namespace(x)
    return xp.sum(xp.diff(x**2, prepend=xp.zeros(1, dtype=x.dtype)) ** 2)


WRITES = [
    diff_with_created_prepend,
    zeros_set_scalar,
    zeros_set_slice,
    ones_add_in_place,
    full_then_iadd,
    eye_set_diagonal_block,
    created_op_created_then_write,
    created_written_by_created,
    namespace_created_first,
]


def _compare(f: Callable[..., Any], name: str) -> None:
    x = make(name, X)
    jx = jnp.asarray(np.asarray(X))
    ours = {
        "grad": ad.grad(f)(x),
        "jacfwd": ad.jacobian(f, mode="fwd")(x),
        "hessian": ad.hessian(f)(x),
    }
    theirs = {"grad": jax.grad(f)(jx), "jacfwd": jax.jacfwd(f)(jx), "hessian": jax.hessian(f)(jx)}
    for k in ours:
        np.testing.assert_allclose(
            host(ours[k]), np.asarray(theirs[k]), rtol=1e-12, atol=1e-12, err_msg=k
        )


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("f", WRITES, ids=lambda f: f.__name__)
def test_writes_into_created_arrays(f: Callable[..., Any], name: str) -> None:
    _compare(f, name)


@pytest.mark.parametrize("name", BACKENDS)
def test_created_arrays_stay_plain_outside_traced_code(name: str) -> None:
    """Created constants exist only while a transformation runs: the value handed back by
    ``value_and_grad`` of a function returning a created array, and arrays the namespace
    creates outside traced code, are the library's own arrays."""
    x = make(name, X)
    lib = type(x)

    def f(x: Any) -> Any:
        xp = array_namespace(x)
        return xp.sum(xp.ones(x.shape, dtype=x.dtype))  # does not depend on x

    value, g = ad.value_and_grad(f)(x)
    assert not isinstance(value, ad.Tracer)
    assert not isinstance(g, ad.Tracer)
    np.testing.assert_allclose(host(g), np.zeros(4))
    y, _ = ad.jvp(lambda x: array_namespace(x).zeros(3, dtype=x.dtype), (x,), (x,))
    assert type(y) is lib


@pytest.mark.parametrize("name", BACKENDS)
def test_jacobian_of_reverse_jacobian_with_writes(name: str) -> None:
    """A reverse-mode Jacobian under a forward or reverse one, through a created buffer."""

    def g(x: Any) -> Any:
        xp = array_namespace(x)
        buf = xp.zeros(x.shape, dtype=x.dtype)
        buf = put(buf, slice(1, None), x[:-1] * x[1:])
        return buf + x**3

    x = make(name, X)
    want = jax.jacfwd(jax.jacrev(g))(jnp.asarray(np.asarray(X)))
    for outer in ("fwd", "rev"):
        jj = ad.jacobian(ad.jacobian(g, mode="rev"), mode=outer)(x)
        np.testing.assert_allclose(host(jj), np.asarray(want), rtol=1e-12, atol=1e-12)


def test_forward_over_forward_through_nested_pytrees() -> None:
    """A created constant inside a rule that runs on outer tracers belongs to no trace: with the
    outer input a tuple of dicts (whose tracers the engine does not see on entry) it once became
    a constant of the inner trace and the second derivative came out 0 (autograd's
    ``test_dict.py``)."""
    rng = np.random.default_rng(0)
    x, v, dx, dv = ({"a": rng.standard_normal(3)} for _ in range(4))

    def f(d: Any) -> Any:
        return 0.0 + np.sum(np.sin(d["a"])) * 1.0

    def jvp_f(x: Any, v: Any) -> Any:
        return ad.jvp(f, (x,), (v,))[1]

    got = ad.jvp(lambda t: jvp_f(*t), ((x, v),), ((dx, dv),))[1]
    # d/dx [cos(x) . v] dx + cos(x) . dv
    want = np.sum(-np.sin(x["a"]) * v["a"] * dx["a"]) + np.sum(np.cos(x["a"]) * dv["a"])
    np.testing.assert_allclose(host(got), want, rtol=1e-12)


PLAIN_FIRST = (
    "known limit: array_namespace(plain, tracer), with the plain array made by the library "
    "itself (not through the traced namespace) and put first, keeps the first of the two "
    "same-named namespaces (array_api_compat dedupes by name and asks the tracer nothing), so "
    "it returns the library's own namespace, whose functions do not take tracers outside NumPy. "
    "Put a traced argument first, or create the array with array_namespace(x) of a traced x"
)


@pytest.mark.parametrize(
    "name",
    [
        "numpy",
        *(
            pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=PLAIN_FIRST))
            for n in BACKENDS[1:]
        ),
    ],
)
def test_namespace_of_a_library_array_first(name: str) -> None:
    """The plain array comes from the library's own namespace: the engine never sees it made."""
    lib_ones = make(name, [1.0, 1.0, 1.0, 1.0])

    def f(x: Any) -> Any:
        xp = array_namespace(lib_ones, x)
        return xp.sum(xp.sin(x) * lib_ones)

    np.testing.assert_allclose(host(ad.grad(f)(make(name, X))), np.cos(X), rtol=1e-12)
