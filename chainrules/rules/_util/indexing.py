"""Index keys of the standard's ``take`` and ``take_along_axis``: the key ``k`` with ``x[k]``
equal to the call, so that their rules (and ``sort``'s, which gathers along an axis) are
``getitem``'s transpose and gather (``chainrules.rules.indexing.getitem``)."""

from __future__ import annotations

import math
import operator
from typing import Any

from ...core.prelude import *
from ...core.scatter import IndexKey, parse_key


def index_axis(axis: Any, ndim: int, name: str) -> int:
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise ValueError(f"{name}: axis {a} is out of bounds for an array of rank {ndim}")
    return a % ndim


def as_index_array(xp: Any, indices: Any, device: Any) -> Any:
    if is_array(indices):
        return indices
    return xp.asarray(indices) if device is None else xp.asarray(indices, device=device)


def apply_mode(xp: Any, idx: Any, n: int, mode: Any) -> Any:
    """NumPy's ``mode=`` of ``take`` as the in-range indices it selects."""
    if mode == "wrap":
        return idx % n
    if mode == "clip":
        return xp.clip(idx, 0, n - 1)
    return idx  # "raise" (and JAX's in-bounds modes): indexing itself wraps negative values


def take_key(xp: Any, x: Any, indices: Any, axis: Any, mode: Any, name: str) -> IndexKey:
    """The key with ``x[key] == take(x, indices, axis=axis)``: full slices and ``indices`` on
    ``axis`` for 1-D indices; else one integer array per axis of ``x``, broadcasting to the
    output's shape (``axis=None``: positions in the flattened ``x``, unravelled)."""
    dev = device_of(x)
    idx = as_index_array(xp, indices, dev)
    shape = tuple(x.shape)
    if axis is None:
        size = math.prod(shape)
        idx = apply_mode(xp, idx, size, mode)
        if len(shape) == 1:
            return parse_key(xp, (idx,), dev)
        if not shape:
            raise ValueError(f"{name}: the rule does not take a 0-d array; index it instead")
        # unravelling needs non-negative flat positions (the primal already checked the bounds)
        idx = xp.where(idx < 0, idx + size, idx)
        entries = []
        for d, n in enumerate(shape):
            e = idx // math.prod(shape[d + 1 :])
            entries.append(e % n if d else e)
        return parse_key(xp, tuple(entries), dev)
    ax = index_axis(axis, len(shape), name)
    idx = apply_mode(xp, idx, shape[ax], mode)
    if len(shape) == 1 or idx.ndim == 1:
        # x[:, ..., idx]: one integer array on the taken axis only, so the pullback's scatter is
        # an index_add along that axis (torch keeps a DTensor's shards of the other axes, dask
        # stays chunk-aligned), not an n-d scatter with an arange grid for every axis
        full = slice(None)
        return parse_key(xp, (*(full,) * ax, idx, *(full,) * (len(shape) - ax - 1)), dev)
    ishape = tuple(idx.shape)
    out_nd = len(shape) - 1 + len(ishape)
    keys: list[Any] = []
    for d, n in enumerate(shape):
        if d == ax:
            keys.append(xp.reshape(idx, (1,) * ax + ishape + (1,) * (len(shape) - ax - 1)))
            continue
        pos = d if d < ax else d + len(ishape) - 1
        s = [1] * out_nd
        s[pos] = n
        keys.append(xp.reshape(xp.arange(n, dtype=idx.dtype, device=dev), tuple(s)))
    return parse_key(xp, tuple(keys), dev)


def along_key(xp: Any, x: Any, indices: Any, axis: Any, name: str) -> IndexKey:
    """The key with ``x[key] == take_along_axis(x, indices, axis=axis)``: ``indices`` on
    ``axis`` and an ``arange`` on every other axis, broadcasting like ``take_along_axis``."""
    if axis is None:  # NumPy: the flattened array
        return take_key(xp, x, indices, None, None, name)
    dev = device_of(x)
    shape = tuple(x.shape)
    ax = index_axis(axis, len(shape), name)
    if len(shape) == 1:
        return parse_key(xp, (indices,), dev)
    keys: list[Any] = []
    for d, n in enumerate(shape):
        if d == ax:
            keys.append(indices)
            continue
        s = [1] * len(shape)
        s[d] = n
        keys.append(xp.reshape(xp.arange(n, dtype=indices.dtype, device=dev), tuple(s)))
    return parse_key(xp, tuple(keys), dev)
