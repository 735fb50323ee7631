"""``scatter_add`` and ``gather`` on dask arrays: chunk-aligned, lazy, with no task bigger than the
inputs' chunks -- a scatter sums per-chunk contributions (``_scatter_dask``), a gather takes per
block (``_gather_dask``), boolean-mask keys through the mask's slots."""

from __future__ import annotations

from typing import Any

import array_api_compat
import numpy as np

from .index_keys import (
    IndexKey,
    _axis_first,
    _indexed_first,
    _inverse,
    _is_full_slice,
    _lead_mask,
    _none_as_axes,
    _none_key,
    parse_key,
)
from .scatter_backends import _scatter_generic


def _c_order_count(xp: Any, m: Any) -> Any:
    """The number of ones of the integer array ``m`` at or before each position, in C order
    (cumulative sums along the last axis plus the totals of the rows before): the rank of each
    selected element of a mask, with every chunk of ``m`` kept."""
    c = xp.cumulative_sum(m, axis=-1)
    if m.ndim == 1 or m.shape[-1] == 0:
        return c
    tot = c[..., -1]
    return c + xp.expand_dims(_c_order_count(xp, tot) - tot, axis=-1)


def _mask_slots(xp: Any, shape: tuple[int, ...], mask: Any, values: Any) -> tuple[Any, Any, int]:
    """For ``dest[mask] += values`` on dask: the mask shaped to broadcast against ``dest``, the
    slot of each selected element in ``values`` (its rank among the selected ones; 0 where not
    selected) and the length ``n`` of ``values`` along the selection axis (1: broadcast)."""
    k = mask.ndim
    if tuple(mask.shape) != shape[:k]:
        raise IndexError(
            f"scatter_add: a boolean index of shape {tuple(mask.shape)} does not match the "
            f"leading axes of dest, of shape {shape}"
        )
    rest = shape[k:]
    vshape = tuple(getattr(values, "shape", ()))
    n = vshape[0] if len(vshape) == len(rest) + 1 else 1
    rank = _c_order_count(xp, xp.astype(mask, xp.int64)) - 1
    slot = xp.where(mask, rank, xp.zeros_like(rank))
    return xp.reshape(mask, (*mask.shape, *(1,) * len(rest))), slot, n


def _count_is(total: Any, n: int) -> Any:
    """0 (a 0-d NumPy array) when a mask selects ``n`` elements; else the error NumPy raises
    (runs inside a dask task, when the result is computed)."""
    if int(total) != n:
        raise ValueError(
            f"scatter_add: a boolean index selects {int(total)} elements, but {n} values were given"
        )
    return np.zeros((), dtype=np.int8)


def _scatter_dask_mask(xp: Any, dest: Any, mask: Any, values: Any) -> Any:
    """``dest[mask] += values`` on dask, lazily and chunk by chunk: dask cannot broadcast the
    values to a selection of unknown size, so each selected element takes the value at its rank
    among the selected ones (a gather by a lazy integer array), and ``where`` adds it. The count
    of selected elements is checked when the result is computed (a 0-d task)."""
    import dask.array as da

    shape = tuple(int(d) for d in dest.shape)
    wide, slot, n = _mask_slots(xp, shape, mask, values)
    rest = shape[mask.ndim :]
    if n == 1:  # one value (per trailing position) for every selected element
        spread = values
    else:
        vals = xp.reshape(values, (n, *(1,) * (len(rest) + 1 - values.ndim), *values.shape[1:]))
        spread = _dask_gather(xp, vals, parse_key(xp, (slot,)), (slot,))
        total = xp.sum(xp.astype(mask, xp.int64))
        check = da.map_blocks(_count_is, total, n, dtype=np.int8, meta=np.zeros((), np.int8))
        spread = spread + xp.astype(check, spread.dtype)
    zero = xp.zeros_like(dest)
    return dest + xp.where(wide, xp.broadcast_to(spread, shape), zero)


def _summed_block(todo: list[Any], total: Any, shape: tuple[int, ...], like: Any) -> Any:
    """One block of shape ``shape`` from the delayed parts ``todo``, summed by ``total`` in a
    binary tree (no task sums more than two parts); zeros when no part falls in the block.
    ``like``: the dask array whose dtype and meta the block takes (the scatter's and the gather's
    routing share this)."""
    import dask.array as da

    while len(todo) > 1:
        todo = [
            total(*todo[i : i + 2]) if i + 1 < len(todo) else todo[i]
            for i in range(0, len(todo), 2)
        ]
    if not todo:
        return da.zeros(shape, dtype=like.dtype, chunks=shape)
    return da.from_delayed(todo[0], shape, dtype=like.dtype, meta=like._meta)


def _scatter_dask(xp: Any, dest: Any, key: IndexKey, values: Any) -> Any:
    """Chunk-aligned scatter on dask: every selected element is routed to the block of ``dest``
    that holds it, and each block sums its share, one values chunk at a time.

    For each (values chunk, ``dest`` block) pair one task adds the values of that chunk that fall
    in that block into a zero block (``np.add.at`` on the block's arrays); the partial blocks of a
    ``dest`` block are summed in a binary tree. No task holds more than one values chunk (with its
    coordinates) and two ``dest`` blocks, whatever the chunking, and nothing is computed while the
    graph is built. Cost: ``n_values_chunks * n_dest_blocks`` small tasks. Keys of integer arrays
    and ints first, then full slices (``take``, ``take_along_axis``, ``x[i]``, ``x[i, j]``) take
    this path; a mask over the leading axes :func:`_scatter_dask_mask`; others (slices, arrays
    after a slice) the generic one. Indices are taken
    modulo the axis length: negative ones count from the end and out-of-range ones wrap (dask
    has no bounds check that stays lazy).
    """
    mask = _lead_mask(key)
    if mask is not None:  # a mask over the leading axes: where, and a gather of the values
        return _scatter_dask_mask(xp, dest, mask, values)
    if key.axis:  # x[:, idx]: the axis to the front, chunk-aligned there
        return _axis_first(_scatter_dask, xp, dest, key, values)
    if key.arrays and any(e is None for e in key.entries):  # a new axis: a length-1 axis
        wide, key = _none_as_axes(xp, dest, key)
        return xp.reshape(_scatter_dask(xp, wide, key, values), tuple(dest.shape))
    if not key.front or any(e is Ellipsis for e in key.entries):
        moved = _indexed_first(key, dest.ndim)
        if moved is None:
            return _scatter_generic(xp, dest, key, values)
        # the indexed axes to the front (arrays after a slice, separated arrays, an Ellipsis)
        perm, front, vperm = moved
        sel = tuple(int(n) for n in _gather_dask_shape(dest.shape, perm, front, vperm))
        vals = xp.permute_dims(xp.broadcast_to(values, sel), vperm)
        out = _scatter_dask(xp, xp.permute_dims(dest, perm), parse_key(xp, front), vals)
        return xp.permute_dims(out, _inverse(perm))
    if key.basic or not key.arrays:
        return _scatter_generic(xp, dest, key, values)
    import dask
    import dask.array as da

    shape = tuple(int(n) for n in dest.shape)
    lead = [e for e in key.entries if not _is_full_slice(e)]
    k = len(lead)
    bshape = tuple(np.broadcast_shapes(*(tuple(getattr(e, "shape", ())) for e in lead)))
    rest = shape[k:]
    sel = bshape + rest  # the shape of dest[key]
    coords = []
    for d, e in enumerate(lead):  # non-negative coordinates, broadcast to the selection
        c = da.asarray(e) % shape[d]
        coords.append(da.reshape(c, tuple(c.shape) + (1,) * len(rest)))
    for d, n in enumerate(rest):
        r = da.reshape(da.arange(n), (1,) * (len(bshape) + d) + (n,) + (1,) * (len(rest) - d - 1))
        coords.append(r)
    vals = da.broadcast_to(values, sel)
    # the coordinates in the values' chunks: no task holds more than one values chunk
    parts = [vals, *(_in_chunks(da, c, sel, vals.chunks) for c in coords)]
    blocks = [a.to_delayed().ravel() for a in parts]
    add = dask.delayed(_block_add, pure=True)
    total = dask.delayed(np.add, pure=True)
    offsets = [np.concatenate(([0], np.cumsum(c))) for c in dest.chunks]
    grid = np.empty(dest.numblocks, dtype=object)
    for b in np.ndindex(*dest.numblocks):
        lo = tuple(int(offsets[d][i]) for d, i in enumerate(b))
        bs = tuple(int(dest.chunks[d][i]) for d, i in enumerate(b))
        todo = [add(lo, bs, dest.dtype, blk[0], *blk[1:]) for blk in zip(*blocks)]
        grid[b] = _summed_block(todo, total, bs, dest)
    return dest + da.block(grid.tolist()) if grid.ndim else dest + grid[()]


def _in_chunks(da: Any, c: Any, shape: tuple[int, ...], chunks: Any) -> Any:
    """``broadcast_to(c, shape)`` in ``chunks``, ``c``'s own axes rechunked to match first."""
    off = len(shape) - c.ndim
    c = c.rechunk(
        tuple(chunks[off + d] if n == shape[off + d] else n for d, n in enumerate(c.shape))
    )
    return da.broadcast_to(c, shape, chunks=chunks)


def _block_add(lo: Any, shape: Any, dtype: Any, vals: Any, *coords: Any) -> Any:
    """One ``dest`` block's share of one values chunk (NumPy arrays: runs inside a dask task)."""
    out = np.zeros(shape, dtype=dtype)
    inside = np.ones(vals.shape, dtype=bool)
    for c, a, n in zip(coords, lo, shape):
        inside &= (c >= a) & (c < a + n)
    np.add.at(out, tuple(c[inside] - a for c, a in zip(coords, lo)), vals[inside])
    return out


def _gather_dask_shape(
    shape: tuple[int, ...], perm: tuple[int, ...], front: tuple[Any, ...], vperm: tuple[int, ...]
) -> tuple[int, ...]:
    """The shape of ``x[key]`` from :func:`_indexed_first`'s answer for ``x`` of ``shape``."""
    bshape = np.broadcast_shapes(*(tuple(getattr(e, "shape", ())) for e in front))
    moved = (*bshape, *(int(shape[d]) for d in perm[len(front) :]))
    inv = _inverse(vperm)
    return tuple(moved[inv[d]] for d in range(len(moved)))


def _dask_gather_key(src: Any, key: IndexKey) -> bool:
    """Whether ``src[key]`` is a dask array indexed by a key dask lacks (n-d fancy indexing) and
    :func:`_gather_dask` takes: ints, integer arrays (two, or one of rank >= 2), full slices and
    ``Ellipsis``. One 1-D array among ints and slices is dask's own indexing."""
    if not array_api_compat.is_dask_array(src) or not key.arrays or key.axis is not None:
        return False
    ndim = src.ndim
    moved = _none_key(key, tuple(src.shape))
    if moved is not None:
        key, ndim = parse_key(None, moved[1]), len(moved[0])
    elif len(key.arrays) == 1 and key.arrays[0].ndim <= 1:
        return False
    return _indexed_first(key, ndim) is not None


def _gather_any_dask(xp: Any, src: Any, key: IndexKey) -> Any:
    """:func:`_gather_dask` for any key :func:`_indexed_first` takes: the indexed axes moved to
    the front first, the result's axes put in NumPy's order after."""
    src, key = _none_as_axes(xp, src, key)
    moved = _indexed_first(key, src.ndim)
    assert moved is not None
    perm, front, vperm = moved
    out = _gather_dask(xp.permute_dims(src, perm), parse_key(xp, front))
    return xp.permute_dims(out, _inverse(vperm)) if vperm != tuple(range(len(vperm))) else out


def _gather_dask(src: Any, key: IndexKey) -> Any:
    """``src[key]`` on dask, chunk-aligned: the transpose of :func:`_scatter_dask`, for the keys it
    routes (integer arrays and ints first, then full slices).

    The result is chunked like the index arrays broadcast together (on their axes) and like
    ``src`` (on the trailing, sliced axes). For each result block and each block of ``src`` along
    the indexed axes (the sliced axes are aligned, so one block there) one task picks the
    elements of that ``src`` block the block's coordinates select, zeros elsewhere; the parts of
    a result block are summed in a binary tree (each element comes from exactly one part). No
    task holds more than one result block (with its coordinates) and one block of ``src``, and
    nothing is computed while the graph is built. Cost: ``n_result_blocks * n_indexed_blocks``
    small tasks, ``n_indexed_blocks`` the number of ``src`` blocks along the indexed axes.
    Indices are taken modulo the axis length, as the scatter takes them (negative ones count
    from the end; dask has no bounds check that stays lazy).
    """
    import dask
    import dask.array as da

    shape = tuple(int(n) for n in src.shape)
    lead = [e for e in key.entries if not _is_full_slice(e)]
    k = len(lead)
    bshape = tuple(np.broadcast_shapes(*(tuple(getattr(e, "shape", ())) for e in lead)))
    nb = len(bshape)
    coords = da.broadcast_arrays(*(da.asarray(e) % shape[d] for d, e in enumerate(lead)))
    cblocks = [c.to_delayed() for c in coords]
    sblocks = src.to_delayed()
    pick = dask.delayed(_block_take, pure=True)
    total = dask.delayed(np.add, pure=True)
    offsets = [np.concatenate(([0], np.cumsum(c))) for c in src.chunks[:k]]
    bchunks = coords[0].chunks if coords else ()
    rest_chunks = src.chunks[k:]
    out_chunks = (*bchunks, *rest_chunks)
    grid = np.empty(tuple(len(c) for c in out_chunks), dtype=object)
    for ob in np.ndindex(*grid.shape):
        bi, ri = ob[:nb], ob[nb:]
        bs = tuple(int(out_chunks[d][i]) for d, i in enumerate(ob))
        todo = [
            pick(
                tuple(int(offsets[d][i]) for d, i in enumerate(si)),
                sblocks[(*si, *ri)],
                *(cb[bi] for cb in cblocks),
            )
            for si in np.ndindex(*src.numblocks[:k])
        ]
        grid[ob] = _summed_block(todo, total, bs, src)
    return da.block(grid.tolist()) if grid.ndim else grid[()]


def _block_take(lo: Any, block: Any, *coords: Any) -> Any:
    """The elements of one ``src`` block (offsets ``lo`` along the indexed axes) selected by one
    result block's coordinates, zeros elsewhere (NumPy arrays: runs inside a dask task)."""
    bshape = np.broadcast_shapes(*(c.shape for c in coords))
    out = np.zeros(bshape + block.shape[len(lo) :], dtype=block.dtype)
    inside = np.ones(bshape, dtype=bool)
    for c, a, n in zip(coords, lo, block.shape):
        inside &= (c >= a) & (c < a + n)
    out[inside] = block[tuple(c[inside] - a for c, a in zip(coords, lo))]
    return out


def _dask_gather(xp: Any, src: Any, key: IndexKey, entries: tuple[Any, ...]) -> Any:
    """``src[entries]`` (``entries`` spelling ``key``), chunk-aligned on dask where dask has no
    such indexing; the array's own indexing otherwise."""
    if _dask_gather_key(src, key):
        return _gather_any_dask(xp, src, key)
    return src[entries]
