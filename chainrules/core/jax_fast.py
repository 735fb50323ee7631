"""JAX fast paths: where ``jax.lax`` has a primitive the Python array API lacks, and the portable
formulation costs more under JAX (extra collectives over a sharded axis, extra HLO).

Each function here returns ``None`` unless its namespace is ``jax.numpy`` itself; the rule then
takes its portable path. JAX is never imported here: it is looked up in ``sys.modules`` (a JAX
array cannot exist before ``jax`` was imported), so ``import chainrules`` stays JAX-free.

* :func:`reversed_cumsum`: ``jax.lax.cumsum(v, axis, reverse=True)``, the pullback of
  ``cumulative_sum``. The portable ``flip(cumulative_sum(flip(v)))`` makes each flip of a sharded
  axis a collective-permute under JAX's SPMD partitioner: 4 collectives against the 2 of JAX's own
  transpose of ``cumsum`` (``tests/interop/test_jax_sharding.py`` counts them).

``tests/core/test_jax_fast.py`` checks that each agrees with the portable path.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["reversed_cumsum"]


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
