"""JAX fast paths: where the generic Array API code compiles to slower XLA than JAX's own.

Each function returns ``None`` when it does not apply (not a JAX array, or a case it does not
cover), and the caller takes the generic path. JAX is found in ``sys.modules``, never imported
here: ``import chainrules`` imports no JAX.

* :func:`count_as` -- the tie count of the ``max`` / inf-norm rules. ``count_nonzero`` sums in
  ``int64`` (with x64 on) and the rule then converts the count to the float dtype; JAX's own
  inf-norm gradient sums the mask in the float dtype. On the CPU the integer reduction does not
  vectorise as well: ``jit(grad)`` of the inf-norm through the bridge took 1.38-1.54x native at
  n = 1e6. Summing the mask in the float dtype is exact while the count stays below
  ``2**(mantissa bits + 1)`` elements per slice (``2**24`` for float32, ``2**53`` for float64);
  bigger slices take the integer count.
"""

from __future__ import annotations

import math
import sys
from typing import Any

__all__ = ["count_as"]


def count_as(mask: Any, axes: tuple[int, ...], keepdims: bool, dtype: Any) -> Any:
    """The number of true elements of the JAX boolean ``mask`` over ``axes``, in the floating
    ``dtype`` (summed in it: exact below its integer limit); ``None`` where that does not apply."""
    jax = sys.modules.get("jax")
    if jax is None or not isinstance(mask, jax.Array):
        return None
    import jax.numpy as jnp

    if not jnp.issubdtype(dtype, jnp.floating):
        return None
    size = math.prod(mask.shape[a] for a in axes)
    if size >= 2 ** (jnp.finfo(dtype).nmant + 1):  # the float sum would round
        return None
    return jnp.sum(mask, axis=axes, keepdims=keepdims, dtype=dtype)
