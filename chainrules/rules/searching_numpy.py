"""NumPy-only searching and sorting functions (``"numpy:NAME"``): ``partition`` (differentiable, a
permutation of its input like ``sort``) and, declared non-differentiable, ``argpartition``,
``argwhere``, ``flatnonzero``, ``lexsort``, ``nanargmax`` and ``nanargmin``.

``partition``'s output is a permutation of ``x`` whose order away from the ``kth`` positions is
the library's. The rule reads that permutation back from the output itself, on the device: with
``px``/``py`` the stable sorting permutations of ``x`` and ``y``, the element of ``x`` of rank
``r`` sits at ``py[r]`` in ``y``, so ``x_bar[px[r]] = y_bar[py[r]]`` (gathers by ``argsort``
permutations, no host reads). Ties are routed as ``sort`` routes them: the ``k``-th of equal
elements in ``y`` (in output order) takes the ``k``-th of them in ``x`` (in input order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import (
    Expect,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    namespace_of,
    pullback,
    register_frule,
    register_rrule,
    signature,
    tangents_in,
)
from ._util import axis_opt, in_dtype
from ._util.numpy_like import numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()

_PARTITION = signature(
    "partition", lambda a, kth, axis=-1, kind="introselect", order=None: None, ("order",)
)


def _partition_parts(args: Any, kwargs: Any) -> tuple[Any, ...]:
    a = _PARTITION.bind(args, kwargs)
    x = a["a"]
    xp = namespace_of(x, fname="partition")
    axis = axis_opt(a["axis"], "partition", ndim=x.ndim, bool_ok=True)  # NumPy takes True as 1
    y = numpy_like_module(x, xp).partition(*args, **kwargs)
    if axis is None:  # NumPy flattens
        work_x, ax = xp.reshape(x, (-1,)), 0
    else:
        work_x, ax = x, axis % x.ndim
    return xp, x, y, work_x, ax


def _ranks(xp: Any, work_x: Any, y: Any, ax: int) -> tuple[Any, Any]:
    """(px, py): the stable sorting permutations of the input and the output."""
    px = xp.argsort(work_x, axis=ax, stable=True)
    py = xp.argsort(y, axis=ax, stable=True)
    return px, py


def _partition_ex(rng: Any) -> list[Any]:
    m = (rng.permutation(12) + rng.uniform(0.1, 0.4, 12)).reshape(3, 4)
    v = rng.permutation(7) + rng.uniform(0.1, 0.4, 7)
    return [((v, 3), {}), ((m, 1), {}), ((m, 2), {"axis": 0}), ((m, 5), {"axis": None})]


_JAX_ORDER = "jax.numpy.partition places the elements away from kth unlike NumPy (both valid)"
_PARTITION_JIT = (
    *(Expect("jit", _JAX_ORDER, example=e) for e in ("#0", "#1")),
    *(
        Expect(col, "jax.numpy.partition has no axis=None", kind="skip", example="#3")
        for col in ("jax", "jit")
    ),
)


@register_rrule("numpy:partition", examples=_partition_ex, expect=_PARTITION_JIT)
def partition_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x, y, work_x, ax = _partition_parts(args, kwargs)
    project = ProjectTo(x, xp)
    nos = (_NO,) * (len(args) - 1)

    @pullback(y, (x, *nos))
    def partition_pullback(y_bar: Any) -> tuple[Any, ...]:
        if not project.differentiable:
            return (_NO, *nos)
        px, py = _ranks(xp, work_x, y, ax)
        by_rank = xp.take_along_axis(y_bar, py, axis=ax)
        x_bar = xp.take_along_axis(by_rank, xp.argsort(px, axis=ax), axis=ax)
        return (project(xp.reshape(x_bar, tuple(x.shape))), *nos)

    return y, partition_pullback


@register_frule("numpy:partition", examples=_partition_ex, expect=_PARTITION_JIT)
def partition_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, y, work_x, ax = _partition_parts(args, kwargs)
    if not ProjectTo(x, xp).differentiable:
        return y, _NO
    ts = tangents_in("partition", tangents[:2], (x,))
    if ts is None:
        return y, _ZERO
    t, extra, lead = ts[0], ts.extra, ts.lead()
    if work_x is not x:
        t = xp.reshape(t, (*lead, -1))
    px, py = _ranks(xp, work_x, y, ax)
    if extra:
        px = xp.broadcast_to(px, lead + tuple(px.shape))
        py = xp.broadcast_to(py, lead + tuple(py.shape))
    by_rank = xp.take_along_axis(t, px, axis=ax + extra)
    y_dot = xp.take_along_axis(by_rank, xp.argsort(py, axis=ax + extra), axis=ax + extra)
    return y, in_dtype(xp, y_dot, y.dtype)


# --- non-differentiable -------------------------------------------------------------------------
def _argpartition_ex(rng: Any) -> list[Any]:
    m = (rng.permutation(12) + 0.5).reshape(3, 4)
    return [((m, 1), {}), ((m, 2), {"axis": 0})]


def _argwhere_ex(rng: Any) -> list[Any]:
    return [((rng.standard_normal((3, 4)) > 0,), {}), ((rng.integers(0, 2, 5) * 1.0,), {})]


def _lexsort_ex(rng: Any) -> list[Any]:
    return [((np.round(rng.standard_normal((2, 6))),), {})]


def _nanarg_ex(rng: Any) -> list[Any]:
    m = (rng.permutation(12) + 0.5).reshape(3, 4)
    m[0, 1] = m[2, 2] = np.nan
    return [((m,), {}), ((m,), {"axis": 1}), ((m, 0), {"keepdims": True})]


_SHAPE_JIT = Expect(
    "jit", "its output shape is its data's: jax.jit refuses it (as for nonzero)", kind="skip"
)
numpy_non_differentiable(
    "argpartition", examples=_argpartition_ex, expect=Expect("jit", _JAX_ORDER, example="#0")
)
numpy_non_differentiable("argwhere", "flatnonzero", examples=_argwhere_ex, expect=_SHAPE_JIT)
numpy_non_differentiable("lexsort", examples=_lexsort_ex)
numpy_non_differentiable("nanargmax", "nanargmin", examples=_nanarg_ex)
