"""The JAX tie count (``count_true``'s JAX method, a float sum): the same count as the generic
``count_nonzero``, in the float dtype, and no integer reduction left in the inf-norm's gradient
through the JAX bridge."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules.core.specialise import generic_only, record_methods
from chainrules.rules._util import count_true


@pytest.mark.parametrize("axes", [(0, 1, 2), (1,), (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_count_as_agrees_with_count_nonzero(axes, keepdims, dtype, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    jnp = jax_numpy
    mask = np.random.default_rng(0).random((3, 4, 5)) < 0.4
    want = np.count_nonzero(mask, axis=axes, keepdims=keepdims).astype(dtype)
    with record_methods() as used:
        got = count_true(jnp, jnp.asarray(mask), axes, keepdims, dtype=getattr(jnp, dtype))
    assert used == {count_true}
    with generic_only():
        generic = count_true(jnp, jnp.asarray(mask), axes, keepdims, dtype=getattr(jnp, dtype))
    np.testing.assert_array_equal(np.asarray(generic), want)
    assert got.dtype == getattr(jnp, dtype)
    np.testing.assert_array_equal(np.asarray(got), want)
    # the generic path (NumPy) gives the same, converted to the dtype
    got_np = count_true(np, mask, axes, keepdims, dtype=np.dtype(dtype))
    assert got_np.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(got_np), want)


def test_count_as_applies_only_where_the_float_sum_is_exact(jax_numpy) -> None:  # type: ignore[no-untyped-def]
    jnp = jax_numpy
    method = count_true.library_methods["jax"]
    assert method(jnp, jnp.ones(3, bool), (0,), False, jnp.int64) is NotImplemented  # not a float
    assert method(jnp, jnp.ones(3, bool), (0,), False) is NotImplemented  # no dtype
    big = jnp.zeros((2**24,), dtype=bool)  # float32 rounds from 2**24 on: the integer count
    assert method(jnp, big, (0,), False, jnp.float32) is NotImplemented
    assert method(jnp, big, (0,), False, jnp.float64) is not NotImplemented
    import array_api_compat.numpy as anp

    with record_methods() as used:  # not JAX: no method
        count_true(anp, np.ones(3, bool), (0,), False, np.float64)
    assert not used


@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_inf_norm_gradient_through_the_bridge_sums_no_integers(mode, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    import jax

    from chainrules.interop import jax as crjax

    jnp = jax_numpy
    g = crjax.wrap(jnp.linalg.vector_norm, mode=mode)
    x = jnp.asarray([1.0, -3.0, 3.0, 2.0])
    jaxpr = str(jax.make_jaxpr(jax.grad(lambda x: g(x, ord=np.inf)))(x))
    assert "count_nonzero" not in jaxpr
    assert "i64[] = reduce_sum" not in jaxpr and "i32[] = reduce_sum" not in jaxpr
    np.testing.assert_allclose(
        np.asarray(jax.jit(jax.grad(lambda x: g(x, ord=np.inf)))(x)), [0.0, -0.5, 0.5, 0.0]
    )
