"""Cotangents and tangents of another library, device or dtype: converted by the one documented
rule (``docs/conventions.md``, "Cotangents and tangents of another library") or refused with a
``TypeError`` naming the function, the argument and both libraries -- never passed through.

The registry-wide tests feed every registration with a NumPy function (at its first example) a
JAX and a torch cotangent: every cotangent that comes back is a NumPy array or a zero marker.
About 10 s here (both libraries, 472 registrations).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.registry import registrations
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
torch = pytest.importorskip("torch")
xs = pytest.importorskip("array_api_strict")
tx = pytest.importorskip("array_api_compat.torch")

# known residuals, each with its reason (the test fails when one passes: remove it then)
RESIDUALS: dict[str, str] = {}


def _leaves(y: Any) -> list[Any]:
    if isinstance(y, cr.Tangent):
        parts = y.elements() if y.is_sequence else tuple(y.fields().values())
        return [e for v in parts for e in _leaves(v)]
    return [e for v in y for e in _leaves(v)] if isinstance(y, (tuple, list)) else [y]


def _cotangent(y: Any, make: Any) -> Any:
    if isinstance(y, (tuple, list)):
        return cr.Tangent(*(_cotangent(v, make) for v in y), primal_type=type(y))
    if isinstance(y, np.ndarray | np.generic) and np.asarray(y).dtype.kind in "fc":
        return make(np.ones_like(np.asarray(y)))
    return cr.NoTangent()


def _numpy_cases() -> list[tuple[str, Any, Any]]:
    out = []
    numpy_backend = BACKENDS["numpy"]
    for reg in registrations():
        f = numpy_backend.function(reg)
        if f is None or reg.non_differentiable:
            continue
        try:
            ex = examples_for(reg)[0]
        except Exception:  # noqa: BLE001 -- no examples: nothing to call
            continue
        out.append((reg.name, f, ex))
    return out


MAKERS = {
    "jax": lambda a: jnp.asarray(a),
    "torch": lambda a: torch.as_tensor(np.array(a)),
}


@pytest.mark.parametrize("lib", sorted(MAKERS))
def test_every_numpy_rule_returns_numpy_cotangents_for_a_foreign_cotangent(lib: str) -> None:
    make = MAKERS[lib]
    leaks: dict[str, str] = {}
    checked = 0
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for name, f, ex in _numpy_cases():
            if name == "scipy:special.hyp1f1":  # slow at some inputs (tests/fuzz declares it)
                continue
            try:
                y, pb = cr.rrule(f, *ex.args, **ex.kwargs)
            except Exception:  # noqa: BLE001 -- the example itself is tested elsewhere
                continue
            y_bar = _cotangent(y, make)
            if all(isinstance(v, cr.AbstractZero) for v in _leaves(y_bar)):
                continue
            checked += 1
            try:
                res = [cr.unthunk(v) for v in _leaves(list(pb(y_bar)))]
            except TypeError as e:  # a refusal must name the function and both libraries
                msg = str(e)
                if not (lib in msg and "numpy" in msg and ":" in msg):
                    leaks[name] = f"unnamed TypeError: {msg[:120]}"
                continue
            except Exception as e:  # noqa: BLE001 -- any other error is a defect
                leaks[name] = f"{type(e).__name__}: {str(e)[:120]}"
                continue
            foreign = [
                type(v).__module__
                for v in res
                if not isinstance(v, (np.ndarray, np.generic, cr.AbstractZero, float, complex))
            ]
            if foreign:
                leaks[name] = f"returned {foreign}"
    assert checked > 400
    new = {k: v for k, v in leaks.items() if k not in RESIDUALS}
    fixed = sorted(set(RESIDUALS) - set(leaks))
    assert not new, f"{len(new)} rules pass a {lib} cotangent through or fail unnamed: {new}"
    assert not fixed, f"declared residuals that pass now (remove them): {fixed}"


# --- the rule, case by case -----------------------------------------------------------------------
def test_a_cpu_cotangent_of_another_library_is_converted() -> None:
    x = np.linspace(0.1, 1.0, 4)
    _, pb = cr.rrule(np.linalg.vector_norm, x)
    want = pb(np.float64(2.0))[1]
    for y_bar in (jnp.asarray(2.0), torch.tensor(2.0, dtype=torch.float64)):
        got = pb(y_bar)[1]
        assert type(got) is np.ndarray
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_numpy_cotangent_is_converted_for_torch_and_jax_primals() -> None:
    xt = torch.linspace(0.1, 1.0, 4, dtype=torch.float64)
    _, pb = cr.rrule(tx.reshape, xt, (2, 2))
    got = pb(np.ones((2, 2)))[1]
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float64
    xj = jnp.linspace(0.1, 1.0, 4)
    _, pb = cr.rrule(jnp.reshape, xj, (2, 2))
    assert isinstance(pb(np.ones((2, 2), np.float32))[1], jax.Array)
    # inside jit the output is a tracer: the NumPy cotangent becomes a constant of the trace
    grad = jax.jit(lambda x: cr.rrule(jnp.sin, x)[1](np.ones(4, np.float32))[1])(xj)
    np.testing.assert_allclose(np.asarray(grad), np.cos(np.asarray(xj)), rtol=1e-6)


def test_a_foreign_array_off_the_host_is_refused_naming_everything() -> None:
    _, pb = cr.rrule(np.sin, np.ones(3))
    with pytest.raises(TypeError, match=r"sin: the cotangent is a torch array .*meta.* numpy"):
        pb(torch.empty(3, device="meta", dtype=torch.float64))


def test_a_failed_conversion_is_refused_with_its_reason() -> None:
    _, pb = cr.rrule(np.sin, np.ones(3))
    y_bar = torch.ones(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(TypeError, match=r"sin: the cotangent is a torch array .*requires grad"):
        pb(y_bar)


def test_a_non_array_cotangent_is_refused() -> None:
    _, pb = cr.rrule(np.sin, np.ones(3))
    with pytest.raises(TypeError, match=r"sin: the cotangent must be an array .*numpy.*list"):
        pb([1.0, 2.0, 3.0])


def test_another_device_of_the_same_library_is_refused() -> None:
    x = xs.ones(3, dtype=xs.float64, device=xs.Device("device1"))
    _, pb = cr.rrule(xs.sin, x)
    with pytest.raises(TypeError, match=r"sin: the cotangent is on device .*CPU_DEVICE.*device1"):
        pb(xs.ones(3, dtype=xs.float64))


def test_the_output_of_a_tuple_is_named() -> None:
    x = np.array([[2.0, 1.0], [1.0, 3.0]])
    _, pb = cr.rrule(np.linalg.eigh, x)
    with pytest.raises(TypeError, match=r"eigh: the cotangent of output 1 is a torch array"):
        pb((np.ones(2), torch.empty((2, 2), device="meta", dtype=torch.float64)))


def test_dtype_kinds_are_brought_to_the_output() -> None:
    x = np.linspace(0.1, 1.0, 3)
    _, pb = cr.rrule(np.sin, x)
    want = pb(np.ones(3))[1]
    np.testing.assert_array_equal(pb(np.ones(3, dtype=np.int64))[1], want)
    np.testing.assert_array_equal(pb(np.ones(3, dtype=bool))[1], want)
    # the imaginary part of a cotangent of a real output is not in its cotangent space
    z = np.abs(np.array([3 + 4j, 1 - 1j]))
    _, pb = cr.rrule(np.abs, np.array([3 + 4j, 1 - 1j]))
    np.testing.assert_array_equal(pb(np.ones(2) + 5j)[1], pb(np.ones(2))[1])
    assert z.dtype == np.float64
    # a real cotangent of a complex output is cast (PyTorch's matmul does not promote it)
    zt = torch.tensor([[1 + 1j, 2.0], [0.5j, 1.0]], dtype=torch.complex128)
    _, pb = cr.rrule(tx.matmul, zt, zt)
    got = pb(torch.ones((2, 2), dtype=torch.float64))
    assert cr.unthunk(got[1]).dtype == torch.complex128  # deferred: a Thunk


# --- tangents (forward mode): the same rule ----------------------------------------------------
def test_a_foreign_tangent_is_converted_or_refused() -> None:
    x = np.linspace(0.1, 1.0, 3)
    _, want = cr.frule((cr.NoTangent(), np.ones(3)), np.sin, x)
    for t in (jnp.ones(3), torch.ones(3, dtype=torch.float64)):
        _, got = cr.frule((cr.NoTangent(), t), np.sin, x)
        assert type(got) is np.ndarray
        np.testing.assert_allclose(got, want, rtol=1e-6)
    bad = torch.empty(3, device="meta", dtype=torch.float64)
    with pytest.raises(TypeError, match=r"the tangent of argument 1 is a torch array .*numpy"):
        cr.frule((cr.NoTangent(), bad), np.sin, x)
    with pytest.raises(TypeError, match=r"the tangent of argument 2 is a torch array .*numpy"):
        cr.frule((cr.NoTangent(), np.ones(3), bad), np.multiply, x, x)
    _, got = cr.frule((cr.NoTangent(), np.ones(3), jnp.ones(3)), np.multiply, x, x)
    assert type(got) is np.ndarray


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_an_accelerator_array_never_moves_silently() -> None:
    _, pb = cr.rrule(np.sin, np.ones(3))
    with pytest.raises(TypeError, match=r"sin: the cotangent is a torch array .*cuda.*numpy"):
        pb(torch.ones(3, dtype=torch.float64, device="cuda"))
    xc = torch.ones(3, dtype=torch.float64, device="cuda")
    _, pb = cr.rrule(tx.sin, xc)
    with pytest.raises(TypeError, match=r"sin: the cotangent is a numpy array .*torch"):
        pb(np.ones(3))
    with pytest.raises(TypeError, match=r"sin: the cotangent is on device cpu.*cuda"):
        pb(torch.ones(3, dtype=torch.float64))
