"""``cumulative_sum``'s pullback, the reversed cumulative sum (``_revcumsum``): its JAX method,
one ``jax.lax.cumsum(reverse=True)``, agrees with the generic flips, applies to ``jax.numpy``
arrays only, and leaves ``import chainrules`` free of JAX."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.specialise import generic_only, record_methods
from chainrules.rules.statistical.cumulative import _revcumsum

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
    with record_methods() as used:
        got = _revcumsum(jnp, v, axis)
    assert used == {_revcumsum}
    with generic_only():
        generic = np.asarray(_revcumsum(jnp, v, axis))
    np.testing.assert_array_equal(generic, np.asarray(_portable(jnp, v, axis)))
    want = _portable(jnp, v, axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-12 if dtype in ("float64", "complex128") else 1e-5
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def test_reversed_cumsum_keeps_infinities() -> None:
    v = jnp.asarray([1.0, np.inf, 2.0, -3.0])
    np.testing.assert_array_equal(
        np.asarray(_revcumsum(jnp, v, 0)), np.asarray(_portable(jnp, v, 0))
    )


def test_other_namespaces_take_the_portable_path() -> None:
    strict = pytest.importorskip("array_api_strict")
    import array_api_compat.numpy as anp

    for xp in (anp, strict):
        with record_methods() as used:
            got = _revcumsum(xp, xp.asarray([1.0, 2.0, 3.0]), 0)
        assert not used
        np.testing.assert_array_equal(np.asarray(got), [6.0, 5.0, 3.0])


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
    code = "import sys, chainrules.rules.statistical.cumulative; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
