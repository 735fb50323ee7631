"""The libraries' triangular solves (``solve_lower``'s methods, beside the ``cholesky`` rules)
agree with the general solve, and the ``cholesky`` pullback and pushforward take them where the
library has one. (``tests/core/test_specialise.py`` also checks every method against the generic
path on the registrations' examples.)"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.specialise import generic_only, record_methods
from chainrules.rules._util.linalg import solve_lower
from chainrules.testing.backends import BACKENDS


def _factor(rng: np.random.Generator, shape: tuple[int, ...], complex_: bool) -> Any:
    b = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if complex_ else 0)
    a = b @ np.conj(np.swapaxes(b, -1, -2)) + shape[-1] * np.eye(shape[-1])
    return np.linalg.cholesky(a)


def _want(low: Any, b: Any, adjoint: bool = True) -> Any:
    """The general solve: ``L^-H b`` (``adjoint``) or ``L^-1 b``."""
    return np.linalg.solve(np.conj(np.swapaxes(low, -1, -2)) if adjoint else low, b)


# L^-H b (the cholesky pullback's) and L^-1 b (its pushforward's)
FUNCS = [("solve_lower_h", True), ("solve_lower", False)]


def _method(low: Any, b: Any, adjoint: bool) -> Any:
    """``solve_lower`` through the library's method: asserts that the method gave the value."""
    with record_methods() as used:
        got = solve_lower(low, b, adjoint=adjoint)
    assert used == {solve_lower}
    return got


# (factor shape, right-hand side shape): one matrix, a stack, a chunk of right-hand sides
SHAPES = [((4, 4), (4, 3)), ((2, 4, 4), (2, 4, 4)), ((4, 4), (3, 4, 2)), ((2, 4, 4), (5, 2, 4, 4))]


def _cases() -> list[tuple[Any, ...]]:
    return [(s, c, f) for s in SHAPES for c in (False, True) for f in FUNCS]


@pytest.mark.parametrize(("shapes", "complex_", "func"), _cases())
def test_numpy_solve_agrees_with_the_general_solve(shapes: Any, complex_: bool, func: Any) -> None:
    pytest.importorskip("scipy")
    rng = np.random.default_rng(0)
    low = _factor(rng, shapes[0], complex_)
    b = rng.standard_normal(shapes[1]) * (1 + 1j if complex_ else 1)
    got = _method(low, b, func[1])
    assert got.dtype == low.dtype
    np.testing.assert_allclose(got, _want(low, b, func[1]), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("shapes", "complex_", "func"), _cases())
def test_torch_solve_agrees_with_the_general_solve(shapes: Any, complex_: bool, func: Any) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    low = _factor(rng, shapes[0], complex_)
    b = rng.standard_normal(shapes[1]) * (1 + 1j if complex_ else 1)
    got = _method(torch.asarray(low), torch.asarray(b), func[1])
    assert isinstance(got, torch.Tensor)
    np.testing.assert_allclose(got.numpy(), _want(low, b, func[1]), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("shapes", "complex_", "func"), _cases())
def test_jax_solve_agrees_with_the_general_solve(  # type: ignore[no-untyped-def]
    shapes: Any, complex_: bool, func: Any, jax_numpy
) -> None:
    import jax

    jnp = jax_numpy
    rng = np.random.default_rng(2)
    low = _factor(rng, shapes[0], complex_)
    b = rng.standard_normal(shapes[1]) * (1 + 1j if complex_ else 1)
    got = _method(jnp.asarray(low), jnp.asarray(b), func[1])
    np.testing.assert_allclose(np.asarray(got), _want(low, b, func[1]), rtol=1e-12, atol=1e-14)
    # under jit (JAX's tracers take the same path)
    jitted = jax.jit(lambda a, r: _method(a, r, func[1]))(jnp.asarray(low), jnp.asarray(b))
    np.testing.assert_allclose(np.asarray(jitted), _want(low, b, func[1]), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("func", FUNCS)
def test_the_general_solve_where_the_library_has_no_method(func: Any) -> None:
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(3)
    low = _factor(rng, (3, 3), False)
    b = rng.standard_normal((3, 3))
    for args in (
        (xps.asarray(low), xps.asarray(b)),
        (low, b.astype(np.float32)),  # mixed dtypes: the method declines
    ):
        with record_methods() as used:
            got = solve_lower(*args, adjoint=func[1])
        assert not used
        want = _want(np.asarray(args[0]), np.asarray(args[1]), func[1])
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def _cholesky(lib: str) -> tuple[Any, Any]:
    """The testers' namespace of ``lib`` and its ``linalg.cholesky``, skipping where ``lib`` (or
    SciPy, NumPy's method) is missing."""
    pytest.importorskip(lib if lib != "numpy" else "scipy")
    (reg,) = [r for r in cr.registrations() if r.name == "linalg.cholesky"]
    return BACKENDS[lib].namespace(), BACKENDS[lib].function(reg)


def _spy(monkeypatch: pytest.MonkeyPatch, lib: str) -> list[tuple[bool, tuple[int, ...], bool]]:
    """Record each call of ``solve_lower``'s ``lib`` method: (adjoint, the right-hand side's
    shape, whether the method gave the value)."""
    calls = []
    method = solve_lower.library_methods[lib]

    def counted(low: Any, rhs: Any, adjoint: bool = False) -> Any:
        out = method(low, rhs, adjoint)
        calls.append((adjoint, tuple(rhs.shape), out is not NotImplemented))
        return out

    monkeypatch.setitem(solve_lower.library_methods, lib, counted)
    return calls


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("complex_", [False, True])
def test_cholesky_pullback_takes_the_fast_path_and_agrees(
    lib: str, upper: bool, complex_: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    xp, f = _cholesky(lib)
    rng = np.random.default_rng(4)
    b = rng.standard_normal((2, 5, 5)) + (1j * rng.standard_normal((2, 5, 5)) if complex_ else 0)
    a = xp.asarray(b @ np.conj(np.swapaxes(b, -1, -2)) + 5 * np.eye(5))
    y_bar = xp.asarray(rng.standard_normal((2, 5, 5)) * (1 + 1j if complex_ else 1))
    _, pb = cr.rrule(f, a, upper=upper)

    calls = _spy(monkeypatch, lib)
    got = np.asarray(pb(y_bar)[1])
    # both solves by L^H were triangular
    assert [(adj, ok) for adj, _, ok in calls] == [(True, True), (True, True)]
    with generic_only():
        generic = np.asarray(pb(y_bar)[1])
    np.testing.assert_allclose(got, generic, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("lib", ["numpy", "torch", "jax"])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("complex_", [False, True])
def test_cholesky_pushforward_takes_one_fast_solve_per_step_and_agrees(
    lib: str, upper: bool, complex_: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk of 3 tangents against one matrix: each ``L^-1`` is one triangular solve of a
    2-D right-hand side with all the chunk's columns (3 * 5), and the result equals the generic
    path's (general solves, one tangent at a time)."""
    xp, f = _cholesky(lib)
    rng = np.random.default_rng(5)
    b = rng.standard_normal((5, 5)) + (1j * rng.standard_normal((5, 5)) if complex_ else 0)
    a = xp.asarray(b @ np.conj(b.T) + 5 * np.eye(5))
    dots = rng.standard_normal((3, 5, 5)) * (1 + 1j if complex_ else 1)

    calls = _spy(monkeypatch, lib)
    got = np.asarray(cr.frule((cr.NoTangent(), xp.asarray(dots)), f, a, upper=upper)[1])
    assert [(shape, ok) for _, shape, ok in calls] == [((5, 15), True), ((5, 15), True)]
    for i in range(3):
        with generic_only():
            one = cr.frule((cr.NoTangent(), xp.asarray(dots[i])), f, a, upper=upper)[1]
        np.testing.assert_allclose(got[i], np.asarray(one), rtol=1e-12, atol=1e-13)
