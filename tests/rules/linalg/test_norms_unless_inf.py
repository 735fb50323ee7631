"""The norms' choice between the plain gradient and its limit at infinite entries
(``unless_inf``): the generic way takes the limit's masks (right everywhere, no host read), and
so does JAX, traced or not (no ``lax.cond``: its branch would hold a collective of its own under
sharding); NumPy's and eager CPU torch's methods read the reduced norm on the host. Every way
gives the same cotangent."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.specialise import generic_only, record_methods
from chainrules.rules.linalg.norms import unless_inf


@pytest.mark.parametrize(
    ("ye", "want"),
    [(np.ones(3), "plain"), (np.array([1.0, np.inf]), "limit"), (np.array([np.nan]), "plain")],
)
def test_numpy_reads_the_norm_on_the_host(ye: Any, want: str) -> None:
    """NaN stays NaN through the plain formula; only an infinite entry takes the limit."""
    with record_methods() as used:
        got = unless_inf(ye, lambda: "plain", lambda: "limit")
    assert got == want and used == {unless_inf}
    with generic_only():
        assert unless_inf(ye, lambda: "plain", lambda: "limit") == "limit"


def test_other_libraries_take_the_masks() -> None:
    xps = pytest.importorskip("array_api_strict")
    with record_methods() as used:
        assert unless_inf(xps.ones(3), lambda: "plain", lambda: "limit") == "limit"
    assert not used
    x = np.random.default_rng(4).standard_normal(7)
    _, pb = cr.rrule(np.linalg.norm, x)
    _, pbs = cr.rrule(xps.linalg.vector_norm, xps.asarray(x))
    np.testing.assert_allclose(pb(1.5)[1], np.asarray(pbs(xps.asarray(1.5))[1]), rtol=1e-14)


def test_torch_reads_plain_cpu_tensors_only() -> None:
    torch = pytest.importorskip("torch")
    pick = (lambda: "plain", lambda: "limit")
    assert unless_inf(torch.ones(3, dtype=torch.float64), *pick) == "plain"
    assert unless_inf(torch.tensor([1.0, float("inf")]), *pick) == "limit"
    seen = []

    def f(x: Any) -> Any:
        with record_methods() as used:
            seen.append((unless_inf(x, *pick), bool(used)))  # a torch.func wrapper: no host read
        return (x * x).sum()

    torch.func.grad(f)(torch.ones(3, dtype=torch.float64))
    torch.func.vmap(lambda x: f(x) * 0 + x)(torch.ones(2, 3))
    assert seen == [("limit", False), ("limit", False)]


def _jax() -> Any:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


@pytest.mark.parametrize("axis", [None, 1])
def test_two_norm_limit_at_infinite_entries_on_jax(axis: int | None) -> None:
    jnp = _jax().numpy
    # the count of infinite entries is a floating sum on every library: the same limit as NumPy
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
def test_the_norm_limit_on_jax_is_the_masks_eager_and_jitted(x: Any, ord: Any) -> None:
    """On JAX the 2-norm's and the inf-norm's pullbacks take the masked formula, eagerly and
    under ``jit`` alike, with no ``cond`` in the program (a branch would compile the count's
    all-reduce apart from the norm's under sharding), and give NumPy's cotangent, with and without
    infinite entries (the inf-norm's NumPy formula is ``x / (y * count)`` on the mask, where the
    masked one is ``sign(x) / count``: equal here)."""
    jax = _jax()
    jnp = jax.numpy
    xn = np.asarray(x)
    xj = jnp.asarray(x)
    kw = {"axis": 1, "ord": ord} if xj.ndim == 2 else {"ord": ord}

    def pull(x: Any) -> Any:
        y, pb = cr.rrule(jnp.linalg.vector_norm, x, **kw)
        return pb(2.0 * jnp.ones_like(y))[1]

    eager = np.asarray(pull(xj))
    jitted = np.asarray(jax.jit(pull)(xj))
    np.testing.assert_array_equal(jitted, eager)
    assert "cond" not in str(jax.make_jaxpr(pull)(xj))
    y, npb = cr.rrule(np.linalg.vector_norm, xn, **kw)
    np.testing.assert_array_equal(eager, cr.unthunk(npb(2.0 * np.ones_like(y))[1]))
    with record_methods() as used:
        assert unless_inf(jnp.ones(2), lambda: 0, lambda: 1) == 1
        assert jax.jit(lambda y: unless_inf(y, lambda: y * 0, lambda: y + 1))(jnp.ones(2))[0] == 2
    assert not used
