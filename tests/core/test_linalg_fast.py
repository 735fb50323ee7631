"""The backends' triangular solves (``chainrules.core.linalg_fast``) agree with the general
solve, and the ``cholesky`` pullback takes them where the library has one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import linalg_fast


def _factor(rng: np.random.Generator, shape: tuple[int, ...], complex_: bool) -> Any:
    b = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if complex_ else 0)
    a = b @ np.conj(np.swapaxes(b, -1, -2)) + shape[-1] * np.eye(shape[-1])
    return np.linalg.cholesky(a)


def _want(low: Any, b: Any) -> Any:
    return np.linalg.solve(np.conj(np.swapaxes(low, -1, -2)), b)


# (factor shape, right-hand side shape): one matrix, a stack, a chunk of right-hand sides
SHAPES = [((4, 4), (4, 3)), ((2, 4, 4), (2, 4, 4)), ((4, 4), (3, 4, 2)), ((2, 4, 4), (5, 2, 4, 4))]


def _cases() -> list[tuple[Any, ...]]:
    return [(s, c) for s in SHAPES for c in (False, True)]


@pytest.mark.parametrize(("shapes", "complex_"), _cases())
def test_numpy_solve_agrees_with_the_general_solve(shapes: Any, complex_: bool) -> None:
    pytest.importorskip("scipy")
    rng = np.random.default_rng(0)
    low = _factor(rng, shapes[0], complex_)
    b = rng.standard_normal(shapes[1]) * (1 + 1j if complex_ else 1)
    got = linalg_fast.solve_lower_h(low, b)
    assert got is not None
    assert got.dtype == low.dtype
    np.testing.assert_allclose(got, _want(low, b), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("shapes", "complex_"), _cases())
def test_torch_solve_agrees_with_the_general_solve(shapes: Any, complex_: bool) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    low = _factor(rng, shapes[0], complex_)
    b = rng.standard_normal(shapes[1]) * (1 + 1j if complex_ else 1)
    got = linalg_fast.solve_lower_h(torch.asarray(low), torch.asarray(b))
    assert isinstance(got, torch.Tensor)
    np.testing.assert_allclose(got.numpy(), _want(low, b), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("shapes", "complex_"), _cases())
def test_jax_solve_agrees_with_the_general_solve(shapes: Any, complex_: bool, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    import jax

    jnp = jax_numpy
    rng = np.random.default_rng(2)
    low = _factor(rng, shapes[0], complex_)
    b = rng.standard_normal(shapes[1]) * (1 + 1j if complex_ else 1)
    got = linalg_fast.solve_lower_h(jnp.asarray(low), jnp.asarray(b))
    assert got is not None
    np.testing.assert_allclose(np.asarray(got), _want(low, b), rtol=1e-12, atol=1e-14)
    # under jit (JAX's tracers take the same path)
    jitted = jax.jit(linalg_fast.solve_lower_h)(jnp.asarray(low), jnp.asarray(b))
    np.testing.assert_allclose(np.asarray(jitted), _want(low, b), rtol=1e-12, atol=1e-14)


def test_no_fast_path_where_the_library_has_none() -> None:
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(3)
    low = _factor(rng, (3, 3), False)
    b = rng.standard_normal((3, 3))
    assert linalg_fast.solve_lower_h(xps.asarray(low), xps.asarray(b)) is None
    assert linalg_fast.solve_lower_h(low, b.astype(np.float32)) is None  # mixed dtypes
    assert linalg_fast.solve_lower_h(low.astype(np.int64), b.astype(np.int64)) is None


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("complex_", [False, True])
def test_cholesky_pullback_takes_the_fast_path_and_agrees(
    lib: str, upper: bool, complex_: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chainrules.testing.backends import BACKENDS

    if lib != "numpy":
        pytest.importorskip(lib)
    else:
        pytest.importorskip("scipy")
    xp = BACKENDS[lib].namespace()
    rng = np.random.default_rng(4)
    b = rng.standard_normal((2, 5, 5)) + (1j * rng.standard_normal((2, 5, 5)) if complex_ else 0)
    a = xp.asarray(b @ np.conj(np.swapaxes(b, -1, -2)) + 5 * np.eye(5))
    y_bar = xp.asarray(rng.standard_normal((2, 5, 5)) * (1 + 1j if complex_ else 1))
    (reg,) = [r for r in cr.registrations() if r.name == "linalg.cholesky"]
    _, pb = cr.rrule(BACKENDS[lib].function(reg), a, upper=upper)

    fast = []
    solve = linalg_fast.solve_lower_h

    def counted(low: Any, rhs: Any) -> Any:
        out = solve(low, rhs)
        fast.append(out is not None)
        return out

    monkeypatch.setattr(linalg_fast, "solve_lower_h", counted)
    got = np.asarray(pb(y_bar)[1])
    assert fast == [True, True]  # both solves by L^H were triangular
    monkeypatch.setattr(linalg_fast, "solve_lower_h", lambda low, rhs: None)
    generic = np.asarray(pb(y_bar)[1])
    np.testing.assert_allclose(got, generic, rtol=1e-12, atol=1e-14)
