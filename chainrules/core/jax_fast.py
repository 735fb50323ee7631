"""JAX fast paths: where ``jax.lax`` has a primitive the Python array API lacks, and the portable
formulation costs more under JAX (extra collectives over a sharded axis, extra HLO).

Each function here returns ``None`` unless its namespace is ``jax.numpy`` itself; the rule then
takes its portable path. JAX is never imported here: it is looked up in ``sys.modules`` (a JAX
array cannot exist before ``jax`` was imported), so ``import chainrules`` stays JAX-free.

* :func:`reversed_cumsum`: ``jax.lax.cumsum(v, axis, reverse=True)``, the pullback of
  ``cumulative_sum``. The portable ``flip(cumulative_sum(flip(v)))`` makes each flip of a sharded
  axis a collective-permute under JAX's SPMD partitioner: 4 collectives against the 2 of JAX's own
  transpose of ``cumsum`` (``tests/interop/test_jax_sharding.py`` counts them).

* :func:`float_count`: the count of a mask's true entries as a float sum in the result's dtype.
  XLA combines it with another floating all-reduce of the same program into one; an integer
  ``count_nonzero`` over a sharded axis stays an all-reduce of its own (the 2-norm's count of
  infinite entries made 2 all-reduces against native's 1). Exact up to ``2**24`` true entries
  per slice in float32 (``2**53`` in float64), beyond which the cast of an integer count would
  round too.

``tests/core/test_jax_fast.py`` checks that each agrees with the portable path.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["float_count", "reversed_cumsum"]


def _jax_lax(xp: Any) -> Any:
    """``jax.lax`` when ``xp`` is the ``jax.numpy`` module already imported, else ``None``."""
    jnp = sys.modules.get("jax.numpy")
    if jnp is None or xp is not jnp:
        return None
    return sys.modules["jax"].lax


def reversed_cumsum(xp: Any, v: Any, axis: int) -> Any:
    """``v``'s cumulative sum along ``axis`` from the end (``y_i = sum_{k>=i} v_k``), or ``None``
    when ``xp`` is not ``jax.numpy``."""
    lax = _jax_lax(xp)
    if lax is None:
        return None
    return lax.cumsum(v, axis=axis % v.ndim, reverse=True)


def float_count(xp: Any, mask: Any, axes: tuple[int, ...], dtype: Any) -> Any:
    """The number of true entries of ``mask`` over ``axes`` (kept, as length-1 axes) in the
    floating ``dtype``, summed as floats; ``None`` when ``xp`` is not ``jax.numpy``."""
    if _jax_lax(xp) is None:
        return None
    return xp.sum(xp.astype(mask, dtype), axis=axes, keepdims=True)
