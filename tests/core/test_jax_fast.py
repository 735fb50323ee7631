"""``chainrules.core.jax_fast``: the JAX fast paths agree with the portable formulations they
replace, apply to ``jax.numpy`` only, and leave ``import chainrules`` free of JAX."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import jax_fast

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)


def _portable(xp: Any, v: Any, axis: int) -> Any:  # the generic path of cumulative_sum's pullback
    return xp.flip(xp.cumulative_sum(xp.flip(v, axis=axis), axis=axis), axis=axis)


@pytest.mark.parametrize(
    ("shape", "axis"), [((7,), 0), ((7,), -1), ((3, 5), 0), ((3, 5), 1), ((2, 3, 4), -2)]
)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_reversed_cumsum_agrees_with_the_flips(
    shape: tuple[int, ...], axis: int, dtype: str
) -> None:
    rng = np.random.default_rng(0)
    v = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        v = v + 1j * rng.standard_normal(shape)
    v = jnp.asarray(v.astype(dtype))
    got = jax_fast.reversed_cumsum(jnp, v, axis)
    want = _portable(jnp, v, axis)
    assert got is not None and got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-12 if dtype in ("float64", "complex128") else 1e-5
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def test_reversed_cumsum_keeps_infinities() -> None:
    v = jnp.asarray([1.0, np.inf, 2.0, -3.0])
    np.testing.assert_array_equal(
        np.asarray(jax_fast.reversed_cumsum(jnp, v, 0)), np.asarray(_portable(jnp, v, 0))
    )


def test_other_namespaces_take_the_portable_path() -> None:
    assert jax_fast.reversed_cumsum(np, np.ones(3), 0) is None
    strict = pytest.importorskip("array_api_strict")
    assert jax_fast.reversed_cumsum(strict, strict.ones(3), 0) is None


@pytest.mark.parametrize("kw", [{"axis": 0}, {"axis": 1}, {"axis": 1, "include_initial": True}])
def test_cumulative_sum_pullback_on_jax_matches_numpy(kw: dict[str, Any]) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4))
    _y, pb = cr.rrule(jnp.cumulative_sum, jnp.asarray(x), **kw)
    ny, npb = cr.rrule(np.cumulative_sum, x, **kw)
    bar = rng.standard_normal(ny.shape)
    got, want = pb(jnp.asarray(bar))[1], npb(bar)[1]
    np.testing.assert_allclose(np.asarray(cr.unthunk(got)), cr.unthunk(want), rtol=1e-12)
    # and under jit, where the arrays are tracers of jax.numpy too
    jitted = jax.jit(
        lambda b: cr.unthunk(cr.rrule(jnp.cumulative_sum, jnp.asarray(x), **kw)[1](b)[1])
    )
    np.testing.assert_allclose(np.asarray(jitted(jnp.asarray(bar))), cr.unthunk(want), rtol=1e-12)


def test_import_chainrules_does_not_import_jax() -> None:
    code = "import sys, chainrules, chainrules.core.jax_fast; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("axis", [None, 1])
def test_two_norm_limit_at_infinite_entries_on_jax(axis: int | None) -> None:
    # the count of infinite entries goes through count_as on JAX: the same limit as NumPy
    x = np.array([[1.0, np.inf, -2.0, -np.inf], [3.0, 4.0, np.inf, 0.0]])
    _, pb = cr.rrule(jnp.linalg.vector_norm, jnp.asarray(x), axis=axis)
    _, npb = cr.rrule(np.linalg.vector_norm, x, axis=axis)
    bar = np.ones(()) if axis is None else np.ones(2)
    got = np.asarray(cr.unthunk(pb(jnp.asarray(bar))[1]))
    np.testing.assert_array_equal(got, cr.unthunk(npb(bar)[1]))
    # sign(x) / sqrt(k) at the k infinite entries of a slice: 3 in all, 2 and 1 in the rows
    want = (3**-0.5, 3**-0.5) if axis is None else (2**-0.5, 1.0)
    np.testing.assert_allclose((got[0, 1], -got[0, 3], got[1, 2]), (want[0], want[0], want[1]))


@pytest.mark.parametrize(
    "x",
    [
        [3.0, -4.0, 0.0],
        [np.inf, 1.0, -np.inf],  # the limit: sign(x) / sqrt(2) at the infinite entries
        [np.inf, np.nan],
        [0.0, 0.0],
        [[1.0, np.inf], [2.0, -2.0]],  # one slice infinite, one finite (axis=1)
    ],
)
@pytest.mark.parametrize("ord", [2, np.inf], ids=["2-norm", "inf-norm"])
def test_the_norm_limit_branch_agrees_with_the_masks(x: Any, ord: Any) -> None:
    """Under jit the 2-norm's and the inf-norm's pullbacks branch on the device
    (``unless_any_inf``); eagerly they take the masked formula. Both give the same cotangent,
    with and without infinite entries (the inf-norm's plain branch is NumPy's formula,
    ``x / (y * count)`` on the mask, where the masked one is ``sign(x) / count``: equal here)."""
    x = jnp.asarray(x)
    kw = {"axis": 1, "ord": ord} if x.ndim == 2 else {"ord": ord}

    def pull(x: Any) -> Any:
        y, pb = cr.rrule(jnp.linalg.vector_norm, x, **kw)
        return pb(2.0 * jnp.ones_like(y))[1]

    eager = pull(x)
    jitted = jax.jit(pull)(x)
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(eager))
    assert "cond" in str(jax.make_jaxpr(pull)(x))  # the branch is taken under a trace
    assert jax_fast.unless_any_inf(jnp, jnp.ones(2), lambda: 0, lambda: 1) is None  # eager: None
    assert jax_fast.unless_any_inf(np, np.ones(2), lambda: 0, lambda: 1) is None  # not JAX
