"""chainrules.ad on realistic programs, each written once against the Array API (``xp``).

Every program is differentiated by our engine on NumPy arrays and by JAX (``jax.grad``,
``jax.jacfwd``, ``jax.hessian``) on ``jax.numpy`` arrays; then the same programs run on
array-api-strict, PyTorch and guarded device arrays (``chainrules.testing.device``: any
single-element read raises, so a pass means the engine and the rules never read a value on the
host) and must reproduce the NumPy results.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

from chainrules import ad
from chainrules.core.scalar import scalar_mode
from chainrules.testing.device import device_array


# --- the programs ------------------------------------------------------------------------------
def rosenbrock(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    return xp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def logistic(w: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(w)
    z = d["X"] @ w
    return xp.mean(xp.log1p(xp.exp(-d["y"] * z))) + 0.01 * xp.sum(w * w)


def logistic_no_matmul(w: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(w)
    z = xp.sum(d["X"] * w, axis=1)
    return xp.mean(xp.log1p(xp.exp(-d["y"] * z))) + 0.01 * xp.sum(w * w)


def robust_inf(w: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(w)
    r = xp.sum(d["A"] * w, axis=1) - d["b"]
    return xp.linalg.vector_norm(r, ord=math.inf) + 0.1 * xp.linalg.vector_norm(w)


def gather(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    g = xp.take(x, d["idx"])
    return xp.sum(xp.sin(g) * x[d["idx2"]]) + xp.sum(x[::2] ** 2)


def cumsum_pipeline(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    c = xp.cumulative_sum(x)
    return xp.sum(xp.tanh(c) * c) + xp.var(c) + xp.std(x)


def sort_pipeline(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    s = xp.sort(x * d["scale"])
    c = xp.cumulative_sum(s)
    return xp.sum(xp.sin(c) * s)


def logsumexp(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    m = xp.max(x)
    return m + xp.log(xp.sum(xp.exp(x - m))) + xp.prod(x[:3]) * xp.mean(x)


def mlp(w: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(w)
    w1 = xp.reshape(w[:12], (4, 3))
    h = xp.tanh(d["Xm"] @ w1 + w[12:15])
    return xp.mean((h @ w[15:18] - d["ym"]) ** 2)


def attention(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    q = xp.reshape(x, (3, 4))
    s = (q @ xp.matrix_transpose(d["K"])) / 2.0
    s = s - xp.max(s, axis=-1, keepdims=True)
    e = xp.exp(s)
    p = e / xp.sum(e, axis=-1, keepdims=True)
    return xp.sum((p @ d["V"]) ** 2)


def linear_solve(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    a = d["S"] + xp.reshape(x, (3, 3)) * 0.1
    z = xp.linalg.solve(a, d["rhs"][:, None])
    return xp.sum(z * z)


def einsum_contraction(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    t = xp.reshape(x, (2, 3, 2))
    return xp.sum(xp.einsum("ijk,kl,jl->il", t, d["B"], d["C"]) ** 2)


def complex_loss(z: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(z)
    w = z * z + d["c"] * z
    return xp.sum(xp.real(w * xp.conj(w))) + xp.sum(xp.abs(xp.exp(z)))


# vector-valued programs (for jacobian)
def softmax(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    e = xp.exp(x - xp.max(x))
    return e / xp.sum(e)


def rosenbrock_residuals(x: Any, d: dict[str, Any]) -> Any:
    return 10.0 * (x[1:] - x[:-1] ** 2)


def cumsum_map(x: Any, d: dict[str, Any]) -> Any:
    xp = array_namespace(x)
    return xp.tanh(xp.cumulative_sum(x)) * x


def data(n: int = 6) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(42)
    s = rng.standard_normal((3, 3))
    return {
        "X": rng.standard_normal((5, n)),
        "y": np.sign(rng.standard_normal(5)),
        "A": rng.standard_normal((7, n)),
        "b": rng.standard_normal(7),
        "idx": np.array([0, 2, 2, n - 1, 1]),
        "idx2": np.array([1, 1, 3, 0, 4]),
        "c": rng.standard_normal(n) + 1j * rng.standard_normal(n),
        "scale": rng.standard_normal(n),
        "Xm": rng.standard_normal((5, 4)),
        "ym": rng.standard_normal(5),
        "K": rng.standard_normal((5, 4)),
        "V": rng.standard_normal((5, 2)),
        "S": s @ s.T + 3 * np.eye(3),
        "rhs": rng.standard_normal(3),
        "B": rng.standard_normal((2, 4)),
        "C": rng.standard_normal((3, 4)),
    }


SCALAR = {  # name: (program, input size, hessian mark)
    "rosenbrock": (rosenbrock, 6, None),
    "logistic": (logistic, 6, None),
    "logistic_no_matmul": (logistic_no_matmul, 6, None),
    "robust_inf": (robust_inf, 6, None),
    "gather": (gather, 6, None),
    "cumsum_pipeline": (cumsum_pipeline, 6, None),
    "sort_pipeline": (sort_pipeline, 6, None),
    "logsumexp": (logsumexp, 6, None),
    "mlp": (mlp, 18, None),
    "attention": (attention, 12, None),
    "linear_solve": (linear_solve, 9, None),
    "einsum_contraction": (einsum_contraction, 12, None),
}
VECTOR = {
    "softmax": (softmax, 6),
    "rosenbrock_residuals": (rosenbrock_residuals, 6),
    "cumsum_map": (cumsum_map, 6),
    "gather_vector": (lambda x, d: array_namespace(x).take(x, d["idx"]) * x[d["idx2"]], 6),
}


def point(n: int) -> np.ndarray:
    return np.random.default_rng(n).standard_normal(n)


@pytest.fixture(scope="module")
def jnp() -> Any:
    pytest.importorskip("jax")
    from chainrules.testing.backends import BACKENDS

    return BACKENDS["jax"].namespace()  # jax.numpy with float64 enabled


def to_jax(jnp: Any, d: dict[str, np.ndarray]) -> dict[str, Any]:
    return {k: jnp.asarray(v) for k, v in d.items()}


def close(a: Any, b: Any, rtol: float = 1e-9, atol: float = 1e-11) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


# --- agreement with JAX ------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(SCALAR))
def test_grad_agrees_with_jax(name: str, jnp: Any) -> None:
    import jax

    f, n, _ = SCALAR[name]
    x, d = point(n), data()
    value, g = ad.value_and_grad(f)(x, d)
    ref_value, ref = jax.value_and_grad(f)(jnp.asarray(x), to_jax(jnp, d))
    close(value, ref_value)
    close(g, ref)
    assert isinstance(g, np.ndarray) and g.dtype == np.float64 and g.shape == x.shape


@pytest.mark.parametrize("mode", ["fwd-1", "fwd-4", "fwd-default", "rev"])
@pytest.mark.parametrize("name", list(SCALAR) + list(VECTOR))
def test_jacobian_agrees_with_jax(name: str, mode: str, jnp: Any) -> None:
    import jax

    f, n = SCALAR[name][:2] if name in SCALAR else VECTOR[name]
    x, d = point(n), data()
    if mode == "rev":
        jac = ad.jacobian(f, mode="rev")
    else:
        chunk = {"fwd-1": 1, "fwd-4": 4, "fwd-default": None}[mode]
        jac = ad.jacobian(f, mode="fwd", chunk_size=chunk)
    close(jac(x, d), jax.jacfwd(f)(jnp.asarray(x), to_jax(jnp, d)))


@pytest.mark.parametrize("name", [pytest.param(k, marks=v[2] or ()) for k, v in SCALAR.items()])
def test_hessian_agrees_with_jax(name: str, jnp: Any) -> None:
    import jax

    f, n, _ = SCALAR[name]
    x, d = point(n), data()
    h = ad.hessian(f)(x, d)
    close(h, jax.hessian(f)(jnp.asarray(x), to_jax(jnp, d)), rtol=1e-8, atol=1e-10)
    close(h, np.swapaxes(h, 0, 1), rtol=1e-8, atol=1e-10)  # symmetric


@pytest.mark.parametrize("chunk", [1, 4, None])
def test_hessian_chunk_sizes(chunk: int | None, jnp: Any) -> None:
    import jax

    x, d = point(12), data()
    h = ad.hessian(attention, chunk_size=chunk)(x, d)
    close(h, jax.hessian(attention)(jnp.asarray(x), to_jax(jnp, d)), rtol=1e-8, atol=1e-10)


def test_complex_loss_agrees_with_jax(jnp: Any) -> None:
    """A real loss of a complex input: our gradient is dL/dRe + i dL/dIm, JAX's its conjugate."""
    import jax

    rng = np.random.default_rng(3)
    z = rng.standard_normal(6) + 1j * rng.standard_normal(6)
    d = data()
    g = ad.grad(complex_loss)(z, d)
    ref = jax.grad(complex_loss)(jnp.asarray(z), to_jax(jnp, d))
    close(g, np.conj(np.asarray(ref)))
    assert g.dtype == np.complex128
    # the reverse Jacobian of the real loss is the same covector
    close(ad.jacobian(complex_loss, mode="rev")(z, d), g)


# --- the same programs on other libraries ------------------------------------------------------
def _strict(v: np.ndarray) -> Any:
    import array_api_strict as xs

    return xs.asarray(v)


def _torch(v: np.ndarray) -> Any:
    torch = pytest.importorskip("torch")
    return torch.asarray(v)


def _to_numpy(a: Any) -> np.ndarray:
    if hasattr(a, "__chainrules_to_numpy__"):
        return a.__chainrules_to_numpy__()  # type: ignore[no-any-return]
    if type(a).__module__.startswith("torch"):
        return a.numpy()  # type: ignore[no-any-return]
    return np.asarray(a)


BACKENDS: dict[str, Callable[[np.ndarray], Any]] = {
    "array_api_strict": _strict,
    "torch": _torch,
    "device_numpy": lambda v: device_array(v),
    "device_strict": lambda v: device_array(v, backing="array_api_strict"),
}
# einsum is a NumPy extension, not a function of the standard
NO_EINSUM = {"array_api_strict", "device_strict"}


def _cases() -> list[Any]:
    out = []
    for b in BACKENDS:
        for k in SCALAR:
            if k == "einsum_contraction" and b in NO_EINSUM:
                continue
            marks = ()
            if k == "einsum_contraction" and b == "device_numpy":
                marks = pytest.mark.xfail(
                    strict=True,
                    raises=ad.NoRuleError,
                    reason="'numpy:einsum' covers numpy, cupy, jax.numpy and torch, not the "
                    "device namespace, which registers only the standard's family",
                )
            out.append(pytest.param(b, k, id=f"{b}-{k}", marks=marks))
    return out


@pytest.mark.parametrize(("backend", "name"), _cases())
def test_program_on_backend(backend: str, name: str) -> None:
    """grad, jacobian (fwd chunk 4, rev) and -- where its pullbacks allow -- hessian reproduce
    the NumPy results; device arrays refuse every single-element read, so this also shows that
    the engine and the rules it runs are scalar-free."""
    conv = BACKENDS[backend]
    f, n, hmark = SCALAR[name]
    x, d = point(n), data()
    dd = {k: conv(v) for k, v in d.items()}
    xb = conv(x)
    assert scalar_mode() == "disallowed"
    g = ad.grad(f)(xb, dd)
    assert type(g) is type(xb)
    close(_to_numpy(g), ad.grad(f)(x, d))
    close(_to_numpy(ad.jacobian(f, chunk_size=4)(xb, dd)), ad.grad(f)(x, d))
    close(_to_numpy(ad.jacobian(f, mode="rev")(xb, dd)), ad.grad(f)(x, d))
    if hmark is None:
        close(_to_numpy(ad.hessian(f)(xb, dd)), ad.hessian(f)(x, d), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("name", list(VECTOR))
def test_vector_program_on_backend(backend: str, name: str) -> None:
    conv = BACKENDS[backend]
    f, n = VECTOR[name]
    x, d = point(n), data()
    dd = {k: conv(v) for k, v in d.items()}
    ref = ad.jacobian(f)(x, d)
    for mode, chunk in (("fwd", 1), ("fwd", None), ("rev", None)):
        close(_to_numpy(ad.jacobian(f, mode=mode, chunk_size=chunk)(conv(x), dd)), ref)
