"""NumPy-only fast paths for primals, in one place.

A rule computes with the standard's functions; where NumPy has a much faster function for the same
value, the rule asks this module first. Each fast path returns ``None`` when it does not apply,
is measured in ``benchmarks/`` and is tested to agree with the generic path
(``tests/rules/test_numpy_fast.py``).

* ``np.linalg.vector_norm(x)`` squares and sums (0.40 ms at n = 1e6 here); ``np.linalg.norm(x)``
  calls BLAS ``dot`` (0.06 ms): 6.5x faster for the 2-norm over every axis of a real array.
* ``where(mask, a * b, 0)`` -- the pullbacks of ``max`` and of the inf-norm, where the mask
  selects a handful of elements -- allocates and touches two full-size temporaries; NumPy can
  write only the selected elements into a lazily zeroed (``calloc``) array instead. Fresh 8 MB
  buffers cost 0.4-1.5 ms each here in page faults, so this decides those pullbacks' speed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["masked_product", "vector_norm"]


def vector_norm(x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
    """The 2-norm over every axis of a real NumPy array through BLAS, else ``None``."""
    if type(x) is not np.ndarray or ord != 2 or axis is not None or x.dtype.kind != "f":
        return None
    return np.linalg.norm(x, None, None, keepdims)


def masked_product(mask: Any, a: Any, b: Any) -> Any:
    """``where(mask, a * b, 0)`` for NumPy operands, writing only where ``mask`` is set; else
    ``None``."""
    if type(mask) is not np.ndarray or not all(
        type(v) is np.ndarray or isinstance(v, (np.generic, float)) for v in (a, b)
    ):
        return None
    shape = np.broadcast_shapes(mask.shape, np.shape(a), np.shape(b))
    out = np.zeros(shape, dtype=np.result_type(a, b))
    np.multiply(a, b, out=out, where=mask)
    return out
