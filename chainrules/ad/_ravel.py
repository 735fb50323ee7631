"""``ravel_pytree(tree)``: every leaf of a pytree in one vector, and the function that rebuilds the
tree from such a vector (autograd's ``misc.flatten``, JAX's ``flatten_util.ravel_pytree``).

Both directions are whole-array operations of the leaves' namespace (``reshape``, ``concat``,
slices of the vector), so they run on traced values (a gradient through ``ravel_pytree`` is the
gradient of each leaf, put in place), on device arrays and under ``jax.jit``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.namespaces import namespace_of
from ..core.pytree import flatten, unflatten
from ._tracer import Tracer, primal

__all__ = ["ravel_pytree"]

_NUMBERS = (bool, int, float, complex)


def _namespace(arrays: list[Any]) -> Any:
    """The traced namespace when a leaf is traced (the vector is then traced too), else the
    leaves' library's (NumPy for a tree of Python numbers)."""
    for a in arrays:
        if isinstance(a, Tracer):
            return a.__array_namespace__()
    return namespace_of(primal(arrays[0])) if arrays else namespace_of(np.zeros(0))


def ravel_pytree(tree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """``(vector, unravel)``: the leaves of ``tree`` (tuples, lists, named tuples and dicts of
    arrays and Python numbers) raveled and concatenated into one 1-D array, and the function
    that maps such a vector back to ``tree``'s structure.

    Leaves are taken depth first, a dict's keys in insertion order (``chainrules.core.pytree``).
    The vector's dtype is the leaves' common one (Python numbers as 0-d arrays of the default
    dtypes); ``unravel`` gives each array leaf its own shape and dtype back, and each Python
    number as a 0-d array. An empty tree gives an empty float64 vector.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> v, unravel = ad.ravel_pytree({"w": np.ones((2, 2)), "b": 0.5})
    >>> v
    array([1. , 1. , 1. , 1. , 0.5])
    >>> unravel(2 * v)["w"]
    array([[2., 2.],
           [2., 2.]])
    """
    leaves, treedef = flatten(tree)
    arrays = [e for e in leaves if not isinstance(e, _NUMBERS)]
    xp = _namespace(arrays)
    if not leaves:
        return xp.zeros((0,), dtype=xp.float64), lambda vector: unflatten(treedef, [])
    parts = [xp.asarray(e) if isinstance(e, _NUMBERS) else e for e in leaves]
    shapes = [tuple(p.shape) for p in parts]
    dtypes = [None if isinstance(e, _NUMBERS) else e.dtype for e in leaves]
    vector = xp.concat([xp.reshape(p, (-1,)) for p in parts])

    def unravel(vector: Any) -> Any:
        vx = _namespace([vector])
        out, start = [], 0
        for shape, dtype in zip(shapes, dtypes):
            size = math.prod(shape)
            part = vx.reshape(vector[start : start + size], shape)
            if dtype is not None and part.dtype != dtype:
                if vx.isdtype(part.dtype, "complex floating") and not vx.isdtype(
                    dtype, "complex floating"
                ):
                    part = vx.real(part)  # a real leaf of a complex vector: its real part
                part = vx.astype(part, dtype)
            out.append(part)
            start += size
        return unflatten(treedef, out)

    return vector, unravel
