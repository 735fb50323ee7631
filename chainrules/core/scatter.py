"""``scatter_add``: the differentiable scatter primitive (ChainRules' ``∇getindex``).

Maths note
----------
Indexing ``y = x[key]`` is a linear map ``G`` that copies selected elements of ``x``; an integer
array that repeats an index copies that element more than once. Its adjoint is

    ``Gᵀ v = scatter_add(zeros_like(x), key, v)``:  every ``v`` lands where its element came from,

and *repeated indices accumulate*, because a row of ``G`` read the element once per repeat. The
primitive here is the affine map ``scatter_add(d, key, v) = d + Gᵀ v``. It is linear in ``(d, v)``
so its own rules are short, and they only use ``x[key]`` and ``scatter_add`` again, which is what
makes every pullback built on it differentiable once more (second derivatives):

* pullback: ``d_bar = y_bar`` and ``v_bar = unbroadcast(y_bar[key])`` (``G y_bar``, summed over
  the axes ``v`` was broadcast along; host ints in the key are read through size-1 slices and a
  ``reshape``, so a device array never sees an element read); the key has no tangent;
* pushforward: ``y_dot = scatter_add(d_dot, key, v_dot)``, with leading chunk axes carried along.

Keys
----
Every form ``__getitem__`` accepts: Python ints, slices, ``None``, ``Ellipsis``, tuples of them,
integer arrays of any shape (broadcast together, negative indices counted from the end), boolean
masks, and lists (treated as arrays). A key without an integer array of rank >= 1 (*unique*: ints,
slices, masks) never selects an element twice, so a functional copy-and-add is correct and the
fastest; any other key goes to an accumulating scatter of the array's library:

==========  ===================================================================================
library     accumulating scatter
==========  ===================================================================================
NumPy       ``np.add.at`` on 1-D flat positions. Measured here (numpy 2.4, 1e6 values into
            1e4): 1.02x ``np.bincount(idx, weights=...)`` for float64, 0.69x for float32
            and 0.49x for complex128 (``bincount`` computes in float64 and takes real
            weights only). Flattening a multi-axis key first is 2-4x faster than
            ``np.add.at`` with the key itself.
CuPy        ``cupy.add.at`` on a copy (atomic adds: the order of a float sum, and so its last
            bits, is nondeterministic; out-of-range indices wrap instead of raising)
JAX         ``dest.at[key].add(values)`` (out-of-range indices are dropped, JAX's scatter default)
PyTorch     ``index_put_(..., accumulate=True)`` on a clone
other       :func:`scatter_add_generic`: only functions of the Array API standard
==========  ===================================================================================

``x[idx] += v`` and ``array_api_extra.at(x, idx).add(v)`` are *not* used for integer-array keys:
on NumPy and PyTorch they keep one of the repeated writes and drop the others, silently.

Index keys are parsed in ``core.index_keys``, the backends are ``core.scatter_backends`` and
``core.scatter_dask``; this module holds ``scatter_add``, ``gather`` and their rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat
import numpy as np

from .examples import Expect
from .index_keys import IndexKey, _basic_shapes, _lead_mask, parse_key
from .namespaces import (
    device_of,
    dtype_kind,
    is_array,
    namespace_of,
    torch_compiling,
)
from .projection import ProjectTo
from .registry import register_frule, register_rrule, traceable
from .scalar_rule import check_cotangent
from .scatter_backends import (
    _SCALARS,
    _as_values,
    _Impl,
    _scatter_cupy,
    _scatter_generic,
    _scatter_jax,
    _scatter_numpy,
    _scatter_torch,
    scatter_add_generic,
)
from .scatter_dask import _dask_gather, _mask_slots, _scatter_dask
from .tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

__all__ = [
    "MASK_KEY_UNDER_JIT",
    "IndexKey",
    "gather",
    "parse_key",
    "scatter_add",
    "scatter_add_generic",
]

_NO = NoTangent()
_ZERO = ZeroTangent()


def _gather_dask_mask(xp: Any, src: Any, mask: Any, values: Any) -> Any:
    """``src[mask]`` shaped as the values of ``dest[mask] += values`` (``(n, *rest)``; summed
    over the selection for broadcast values), lazily on dask: the transpose of
    :func:`_scatter_dask_mask`, a chunk-aligned scatter of ``src`` into the slots (an extra slot
    ``n`` takes the elements not selected)."""
    shape = tuple(int(d) for d in src.shape)
    wide, slot, n = _mask_slots(xp, shape, mask, values)
    k, rest = mask.ndim, shape[mask.ndim :]
    picked = xp.where(wide, src, xp.zeros_like(src))
    if n == 1:
        return xp.sum(picked, axis=tuple(range(k)), keepdims=False)[None, ...]
    slots = xp.where(mask, slot, xp.full_like(slot, n))
    import dask.array as da

    # the slots chunked as the values are along the selection (one more slot in the last
    # chunk) and as src along the trailing axes: no task larger than an input chunk
    vchunks = getattr(values, "chunks", None)
    first = (*vchunks[0][:-1], vchunks[0][-1] + 1) if vchunks and values.shape[0] == n else n + 1
    chunks = (first, *src.chunks[k:])
    out = scatter_add(da.zeros((n + 1, *rest), dtype=src.dtype, chunks=chunks), slots, picked)
    return out[:n]


# A library test -> its native scatter. Anything else speaking the standard takes the generic one.
_NATIVE: dict[Callable[[Any], bool], _Impl] = {
    array_api_compat.is_numpy_array: _scatter_numpy,
    array_api_compat.is_cupy_array: _scatter_cupy,
    array_api_compat.is_jax_array: _scatter_jax,
    array_api_compat.is_torch_array: _scatter_torch,
    array_api_compat.is_dask_array: _scatter_dask,
}
_IMPL_BY_TYPE: dict[type, _Impl] = {}


def _implementation(dest: Any) -> _Impl:
    t = type(dest)
    impl = _IMPL_BY_TYPE.get(t)
    if impl is None:
        impl = next((f for test, f in _NATIVE.items() if test(dest)), _scatter_generic)
        if not torch_compiling():  # torch.compile refuses a write to a global dict
            _IMPL_BY_TYPE[t] = impl
    return impl


def _scatter(xp: Any, dest: Any, key: IndexKey, values: Any) -> Any:
    return _implementation(dest)(xp, dest, key, _as_values(xp, dest, values))


@traceable
def scatter_add(dest: Any, index: Any, values: Any, /) -> Any:
    """A new array equal to ``dest`` with ``values`` added at ``dest[index]``.

    Repeated indices accumulate (``dest[[0, 0]]`` receives both values); ``dest`` is never
    modified, also when it is writeable. The transpose of indexing: the pullback of ``x[index]``
    is ``scatter_add(zeros_like(x), index, y_bar)``. It has its own rrule (a gather) and frule,
    so pullbacks built on it are differentiable again.

    Parameters
    ----------
    dest
        An array of any Array API library.
    index
        Any key ``dest.__getitem__`` accepts: ints, slices, ``None``, ``Ellipsis``, integer arrays
        of any shape (broadcast together; negative values count from the end), boolean masks,
        lists, and tuples of these. Arrays must belong to ``dest``'s library.
    values
        An array of ``dest``'s library, or a Python scalar, broadcastable to the shape of
        ``dest[index]``. It is cast to ``dest``'s dtype (a complex value into a real array is a
        ``TypeError``).

    Returns
    -------
    array
        ``dest``'s library, dtype, shape and device.

    Notes
    -----
    Out-of-range integer-array indices raise ``IndexError`` on NumPy, PyTorch and
    array-api-strict, are dropped by JAX and wrap on CuPy (each library's own scatter). See the
    module notes for the implementation each library gets.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.zeros(4)
    >>> scatter_add(x, np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0]))
    array([3., 0., 3., 0.])
    >>> x  # unchanged
    array([0., 0., 0., 0.])
    >>> scatter_add(np.zeros((2, 3)), (slice(None), [2, 2]), 1.0)
    array([[0., 0., 2.],
           [0., 0., 2.]])
    """
    if not is_array(dest):
        raise TypeError(f"scatter_add: dest must be an array, got {type(dest).__name__}")
    xp = namespace_of(dest, values, fname="scatter_add")
    return _scatter(xp, dest, parse_key(xp, index, device_of(dest)), values)


# --- indexing with chunk axes ------------------------------------------------------------------
def _chunk_front_key(
    xp: Any, key: IndexKey, chunk: tuple[int, ...], device: Any
) -> tuple[Any, ...]:
    """An all-array key with one ``arange`` per chunk axis in front: it keeps the standard's
    integer-array form (array-api-strict accepts nothing else) and puts the chunk axes first."""
    nc = len(chunk)
    bnd = max(a.ndim for a in key.arrays)
    dtype = key.arrays[0].dtype
    lead = []
    for j, c in enumerate(chunk):
        shape = [1] * (nc + bnd)
        shape[j] = c
        lead.append(xp.reshape(xp.arange(c, dtype=dtype, device=device), tuple(shape)))
    return (*lead, *key.entries)


def _chunk_end_key(key: IndexKey, ndim: int) -> tuple[Any, ...]:
    """The key for an array whose chunk axes were moved to the end: an ``Ellipsis`` is spelled
    out as full slices for the primal's axes, and a trailing one covers the chunk axes."""
    if key.sole_mask:
        return key.entries  # a sole mask leaves the trailing axes to implicit slices
    rest = ndim - key.consumed
    out: list[Any] = []
    for e in key.entries:
        if e is Ellipsis:
            out.extend([slice(None)] * rest)
        else:
            out.append(e)
    out.append(Ellipsis)
    return tuple(out)


def _indexed_ndim(key: IndexKey, ndim: int) -> int:
    """The rank of ``x[key]`` for an all-array key on an array of rank ``ndim``."""
    return max(a.ndim for a in key.arrays) + ndim - len(key.entries)


def _to_end(xp: Any, t: Any, nc: int) -> Any:
    nd = t.ndim
    return xp.permute_dims(t, (*range(nc, nd), *range(nc)))


def _to_front(xp: Any, t: Any, nc: int) -> Any:
    nd = t.ndim
    return xp.permute_dims(t, (*range(nd - nc, nd), *range(nd - nc)))


def gather(xp: Any, t: Any, key: IndexKey, ndim: int) -> Any:
    """``t[key]`` for a tangent ``t`` of a primal of rank ``ndim``, with any extra *leading*
    (chunk) axes of ``t`` kept in front of the result: the frule of indexing.

    >>> import numpy as np, array_api_compat
    >>> xp = array_api_compat.array_namespace(np.empty(0))
    >>> t = np.arange(12.0).reshape(2, 6)  # a chunk of 2 tangents of a vector of 6
    >>> gather(xp, t, parse_key(xp, np.array([5, 0, 5])), 1)
    array([[ 5.,  0.,  5.],
           [11.,  6., 11.]])
    """
    nc = t.ndim - ndim
    if nc <= 0:
        e = key.entries
        if len(e) == ndim and ndim and all(type(i) is int for i in e):
            # one element selected by host ints: read it through size-1 slices (a guarded
            # device array refuses x[i, j] as a scalar read; a GPU library keeps it on device);
            # the lengths are host values, so the bounds are checked here, as x[i] does
            for i, n in zip(e, t.shape):
                if type(n) is int and not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for an axis of size {n}")
            return xp.reshape(t[tuple(slice(i, i + 1 or None) for i in e)], ())
        return _dask_gather(xp, t, key, e)
    chunk = tuple(t.shape[:nc])
    if key.arrays and array_api_compat.is_dask_array(t):
        # dask: the chunk axes to the end (no arange grids: an n-d key), a chunk-aligned gather
        # where dask has no such indexing
        ends = parse_key(xp, _chunk_end_key(key, ndim))
        return _to_front(xp, _dask_gather(xp, _to_end(xp, t, nc), ends, ends.entries), nc)
    if key.all_arrays:
        return t[_chunk_front_key(xp, key, chunk, device_of(t))]
    return _to_front(xp, _to_end(xp, t, nc)[_chunk_end_key(key, ndim)], nc)


# --- rules -------------------------------------------------------------------------------------
def _examples(rng: np.random.Generator) -> list[Any]:
    from .examples import Example

    def r(*shape: int) -> Any:
        return rng.standard_normal(shape)

    ia = np.array
    return [
        Example((r(6), ia([0, 0, 3, 5, 3]), r(5)), note="1-D, repeated indices"),
        Example((r(6), ia([-1, 0, -1]), r(1)), note="negative indices, broadcast values"),
        Example((r(6), ia([[1, 1], [4, 1]]), r(2, 2)), note="2-D index array"),
        Example((r(6), ia([2, 2]), 0.7), note="Python-float values"),
        Example((r(6), -2, r()), note="int"),
        Example((r(6), slice(None, None, 2), r(3)), note="slice with step"),
        Example((r(6), ia([True, False, True, True, False, False]), r(3)), note="mask"),
        Example((r(3, 4), (1, slice(None)), r(4)), note="(int, slice)"),
        Example((r(3, 4), (slice(None, None, 2), slice(1, 3)), r(2)), note="slices, broadcast"),
        Example((r(3, 4), (ia([0, 0, 2]), ia([1, 1, 3])), r(3)), note="two index arrays"),
        Example((r(3, 4), (1, ia([0, 0, 3])), r(3)), note="(int, index array)"),
        Example(
            (r(3, 4), (ia([[0, 2], [2, 2]]), ia([[1, 1], [3, 0]])), r(2, 2)),
            note="2-D index arrays",
        ),
        Example((r(3, 4), r(3, 4) > 0, r(1)), note="2-D mask, broadcast values"),
        Example((r(3, 4), (slice(None), ia([3, 0, 3])), r(3, 3)), note="(slice, index array)"),
        Example((r(3, 4), (Ellipsis, None, ia([2, 2])), r(3, 1, 2)), note="(..., None, array)"),
        Example(
            (r(2, 3, 4), (ia([0, 1, 1]), slice(None), ia([3, 3, 0])), r(3, 3)),
            note="separated index arrays",
        ),
    ]


# the standard leaves integer arrays mixed with slices, and separated index arrays, unspecified:
# array-api-strict refuses those keys (scatter_add takes (slice, index array), the form of take,
# as an arange grid on the slice's axis)
_STRICT_KEYS = tuple(
    Expect("array_api_strict", "the standard leaves this key unspecified", "skip", note)
    for note in ("(..., None, array)", "separated")
)
# the libraries' own limit: a mask key's output shape is its data's (also getitem's)
MASK_KEY_UNDER_JIT = Expect(
    "jit", "jax.jit refuses a boolean mask key (a data-dependent shape)", "skip", "mask"
)
_KEY_LIMITS = (*_STRICT_KEYS, MASK_KEY_UNDER_JIT)


@register_rrule(scatter_add, examples=_examples, generic=True, expect=_KEY_LIMITS)
def _scatter_add_rrule(dest: Any, index: Any, values: Any, /) -> tuple[Any, Any]:
    xp = namespace_of(dest, values, fname="scatter_add")
    key = parse_key(xp, index, device_of(dest))
    # the public (traceable) function: an engine tracing this rule records it as one operation
    y = scatter_add(dest, index, values)
    proj_dest = ProjectTo(dest, xp)
    proj_values = ProjectTo(values, xp)
    gather_key, gather_shape = key.entries, None
    if key.basic and any(type(e) is int for e in key.entries):
        # host ints are read through size-1 slices (and reshaped): x[1, 2] of a device array is
        # an element read, x[1:2, 2:3] a whole-array operation
        gather_key, gather_shape, _ = _basic_shapes(tuple(dest.shape), key.entries)

    dask_mask = _lead_mask(key) if array_api_compat.is_dask_array(dest) else None

    def scatter_add_pullback(y_bar: Any) -> tuple[Any, Any, Any, Any]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero):
            return (
                _NO,
                _ZERO if proj_dest.differentiable else _NO,
                _NO,
                _ZERO if proj_values.differentiable else _NO,
            )
        y_bar = check_cotangent("scatter_add", y_bar, y)  # converted or refused, never passed
        # the gather y_bar[key] is getitem (and reshape), which have rules of their own: this
        # pullback is differentiable again
        if key.axis is not None:  # take along the axis: the standard's form, also on dask
            gathered = xp.take(y_bar, key.arrays[0], axis=key.axis)
        elif dask_mask is not None:  # dask: a selection of unknown size, gathered into slots
            gathered = _gather_dask_mask(xp, y_bar, dask_mask, values)
        else:  # dask lacks n-d gathers: a chunk-aligned one there, the transpose of its scatter
            gathered = _dask_gather(xp, y_bar, key, gather_key)
        if gather_shape is not None:
            gathered = xp.reshape(gathered, gather_shape)
        return _NO, proj_dest(y_bar), _NO, proj_values(gathered)

    return y, scatter_add_pullback


@register_frule(scatter_add, examples=_examples, generic=True)
def _scatter_add_frule(tangents: tuple[Any, ...], dest: Any, index: Any, values: Any, /) -> Any:
    xp = namespace_of(dest, values, fname="scatter_add")
    dev = device_of(dest)
    key = parse_key(xp, index, dev)
    y = scatter_add(dest, index, values)  # traceable: engines see one operation
    if dtype_kind(dest.dtype, xp) not in "fc":
        return y, _NO
    d_dot, v_dot = unthunk(tangents[1]), unthunk(tangents[3])
    d_zero, v_zero = isinstance(d_dot, AbstractZero), isinstance(v_dot, AbstractZero)
    if d_zero and v_zero:
        return y, _ZERO
    if type(v_dot) in _SCALARS:  # the tangent of a Python-scalar value
        v_dot = _as_values(xp, dest, v_dot)
    shape, vshape = tuple(dest.shape), tuple(getattr(values, "shape", ()))
    chunk_d = () if d_zero else tuple(d_dot.shape[: d_dot.ndim - len(shape)])
    chunk_v = () if v_zero else tuple(v_dot.shape[: v_dot.ndim - len(vshape)])
    chunk = chunk_d or chunk_v
    if chunk_d and chunk_v and chunk_d != chunk_v:
        raise ValueError(
            f"scatter_add: the tangents of dest and values carry different chunk axes "
            f"{chunk_d} and {chunk_v}"
        )
    if d_zero:
        d_dot = xp.zeros((*chunk, *shape), dtype=dest.dtype, device=dev)
    elif chunk and not chunk_d:
        d_dot = xp.broadcast_to(d_dot, (*chunk, *shape))
    if d_dot.dtype != dest.dtype:
        d_dot = xp.astype(d_dot, dest.dtype)
    if v_zero:
        return y, d_dot
    if chunk and not chunk_v:
        v_dot = xp.broadcast_to(v_dot, (*chunk, *vshape))
    nc = len(chunk)
    if nc == 0:
        return y, scatter_add(d_dot, index, v_dot)
    if key.axis is not None:  # the chunk axes are more full slices in front: still an axis key
        v_dot = xp.reshape(v_dot, (*chunk, *(1,) * (len(shape) - len(vshape)), *vshape))
        return y, scatter_add(d_dot, (*(slice(None),) * nc, *key.entries), v_dot)
    if key.all_arrays:
        # chunk aranges in front of the key; values get unit axes up to the rank of dest[key]
        pad = _indexed_ndim(key, len(shape)) - len(vshape)
        v_dot = xp.reshape(v_dot, (*chunk, *(1,) * pad, *vshape))
        return y, scatter_add(d_dot, _chunk_front_key(xp, key, chunk, dev), v_dot)
    end = _chunk_end_key(key, len(shape))
    y_t = scatter_add(_to_end(xp, d_dot, nc), end, _to_end(xp, v_dot, nc))
    return y, _to_front(xp, y_t, nc)
