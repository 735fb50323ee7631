"""Index keys of ``scatter_add`` and ``gather``: a key parsed once into an :class:`IndexKey`
(``parse_key``), the shapes of basic (slice, integer, ``None``, ``Ellipsis``) keys, and the
moves of a key's indexed axes that the backends need (``chainrules.core.scatter``)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .namespaces import (
    dtype_kind,
    is_array,
)


# --- keys --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IndexKey:
    """A normalised ``__getitem__`` key and what the scatter needs to know about it.

    Everything here is decided from the key's *structure* (types, ranks, dtypes), never from
    index values, so parsing a key never reads device memory.
    """

    entries: tuple[Any, ...]  # lists turned into arrays, NumPy integer scalars into ints
    unique: bool  # no integer array of rank >= 1: no element can be selected twice
    basic: bool  # only Python ints, slices, None and Ellipsis (a view in NumPy)
    all_arrays: bool  # only ints and integer arrays, at least one array (the standard's form)
    sole_mask: bool  # a single boolean array
    front: bool  # ints / integer arrays first, then only full slices or Ellipsis
    arrays: tuple[Any, ...]  # the integer arrays, in order
    consumed: int  # axes of the indexed array consumed by the entries other than Ellipsis
    # full slices and one 1-D integer array, at this axis (take's key, x[:, idx]); else None
    axis: int | None = None


def _is_full_slice(e: Any) -> bool:
    return isinstance(e, slice) and e == slice(None)


def parse_key(xp: Any, key: Any, device: Any = None) -> IndexKey:
    """Normalise ``key`` (any form ``__getitem__`` accepts) for an array of namespace ``xp``.

    Python lists become arrays of ``xp`` on ``device``; NumPy integer and boolean scalars become
    Python ones (they are host values already). Raises ``TypeError`` for anything that is not an
    index.

    >>> import numpy as np, array_api_compat
    >>> k = parse_key(array_api_compat.array_namespace(np.empty(0)), (slice(None), [0, 0]))
    >>> k.unique, k.basic, k.entries[1]
    (False, False, array([0, 0]))
    """
    entries = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    arrays: list[Any] = []
    unique = basic = True
    has_mask = False
    consumed = 0
    for e in entries:
        if e is None or e is Ellipsis:
            out.append(e)
            continue
        if isinstance(e, slice):
            out.append(e)
            consumed += 1
            continue
        if isinstance(e, (bool, np.bool_)):
            out.append(bool(e))  # a 0-d mask: adds an axis of length 1 (True) or 0 (False)
            basic = False
            continue
        if isinstance(e, (int, np.integer)):
            out.append(operator.index(e))
            consumed += 1
            continue
        if isinstance(e, list):
            e = xp.asarray(e) if device is None else xp.asarray(e, device=device)
        if not is_array(e):
            raise TypeError(
                "an index must be an int, slice, None, Ellipsis, an integer or boolean array, "
                f"or a tuple of them; got {type(e).__module__}.{type(e).__name__}"
            )
        kind = dtype_kind(e.dtype, xp)
        if kind == "b":
            has_mask = True
            consumed += e.ndim
        elif kind == "i":
            arrays.append(e)
            unique = unique and e.ndim == 0
            consumed += 1
        else:
            raise TypeError(f"index arrays must have an integer or boolean dtype, not {e.dtype}")
        basic = False
        out.append(e)
    tup = tuple(out)
    advanced = [type(e) is int or is_array(e) for e in tup]
    all_arrays = bool(arrays) and not has_mask and all(advanced)
    front = False
    if arrays and not has_mask:
        n_adv = advanced.index(False) if False in advanced else len(tup)
        front = all(_is_full_slice(e) or e is Ellipsis for e in tup[n_adv:])
    sole = len(tup) == 1 and has_mask
    axis = None
    if len(arrays) == 1 and arrays[0].ndim == 1 and not has_mask:
        at = next(i for i, e in enumerate(tup) if is_array(e))
        if all(_is_full_slice(e) for i, e in enumerate(tup) if i != at):
            axis = at
    return IndexKey(tup, unique, basic, all_arrays, sole, front, tuple(arrays), consumed, axis)


def _basic_shapes(
    shape: tuple[int, ...], entries: tuple[Any, ...]
) -> tuple[tuple[Any, ...], tuple[int, ...], tuple[int, ...]]:
    """For a basic key: the same key with every int turned into a size-1 slice and every
    ``None`` dropped, the shape of ``x[key]`` and the shape of ``x[slice_key]`` (the int axes kept
    with length 1, the ``None`` axes gone).

    Ints are host values given by the caller, so checking their range here reads nothing from a
    device; a size-1 slice write is then an ordinary slice write, never a scalar one.
    """
    if entries.count(Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for e in entries if e is not None and e is not Ellipsis)
    if consumed > len(shape):
        raise IndexError(
            f"too many indices: an array of shape {shape} is indexed by {consumed} entries"
        )
    fill: list[Any] = [slice(None)] * (len(shape) - consumed)
    expanded: list[Any] = []
    for e in entries:
        if e is Ellipsis:
            expanded.extend(fill)
            fill = []
        else:
            expanded.append(e)
    expanded.extend(fill)
    keys: list[Any] = []
    out_shape: list[int] = []
    kept_shape: list[int] = []
    axis = 0
    for e in expanded:
        if e is None:  # a new axis of length 1: dropped from the write (setitem takes no None)
            out_shape.append(1)
            continue
        n = shape[axis]
        axis += 1
        if isinstance(e, slice):
            keys.append(e)
            length = len(range(*e.indices(n)))
            out_shape.append(length)
            kept_shape.append(length)
            continue
        if not -n <= e < n:
            raise IndexError(f"index {e} is out of bounds for an axis of size {n}")
        keys.append(slice(e, e + 1) if e != -1 else slice(-1, None))
        kept_shape.append(1)
    return tuple(keys), tuple(out_shape), tuple(kept_shape)


def _axis_first(impl: Callable[..., Any], xp: Any, dest: Any, key: IndexKey, values: Any) -> Any:
    """The scatter through an axis key ``(:, ..., idx)`` (``key.axis > 0``) as the scatter
    through ``(idx, :, ...)`` of ``dest`` with that axis moved to the front (the dask scatter's
    chunk-aligned form), moved back after."""
    ax, nd = key.axis, dest.ndim
    assert ax is not None
    perm = (ax, *(d for d in range(nd) if d != ax))
    inverse = tuple(perm.index(d) for d in range(nd))
    sel = (*dest.shape[:ax], key.arrays[0].shape[0], *dest.shape[ax + 1 :])
    vals = xp.permute_dims(xp.broadcast_to(values, sel), perm)
    front = parse_key(xp, (key.arrays[0], *(slice(None),) * (nd - 1)))
    return xp.permute_dims(impl(xp, xp.permute_dims(dest, perm), front, vals), inverse)


def _indexed_first(
    key: IndexKey, ndim: int
) -> tuple[tuple[int, ...], tuple[Any, ...], tuple[int, ...]] | None:
    """For a key of ints, integer arrays, full slices and ``Ellipsis`` (at least one array; no
    ``None``, mask or partial slice) on an array of rank ``ndim``: the permutation ``perm`` of the
    array's axes putting the indexed ones first, the key on the permuted array (a front key) and
    the permutation ``vperm`` of the axes of ``x[key]`` that gives ``permute(x, perm)[front]``.

    NumPy's rule: indexed axes side by side put the broadcast axes in their place, separated ones
    put them first. ``None`` when the key has another form."""
    if not key.arrays or key.basic or key.sole_mask:
        return None
    expanded: list[Any] = []
    for e in key.entries:
        if e is Ellipsis:
            expanded.extend([slice(None)] * (ndim - key.consumed))
        elif e is None or isinstance(e, bool) or (isinstance(e, slice) and not _is_full_slice(e)):
            return None
        elif is_array(e) and not any(e is a for a in key.arrays):
            return None  # a mask
        else:
            expanded.append(e)
    expanded.extend([slice(None)] * (ndim - len(expanded)))
    at = [i for i, e in enumerate(expanded) if not isinstance(e, slice)]
    sliced = [i for i, e in enumerate(expanded) if isinstance(e, slice)]
    nb = max(getattr(e, "ndim", 0) for e in key.arrays)
    perm = (*at, *sliced)
    front = tuple(expanded[i] for i in at)
    p = at[0] if at == list(range(at[0], at[0] + len(at))) else 0
    # x[key]'s axes: p sliced ones, the nb broadcast ones, the other sliced ones
    vperm = (*range(p, p + nb), *range(p), *range(p + nb, nb + len(sliced)))
    return perm, front, vperm


def _none_key(
    key: IndexKey, shape: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[Any, ...]] | None:
    """For a key with a ``None`` (and no mask) on an array of ``shape``: the shape with a
    length-1 axis where the key has a ``None``, and the key with a full slice there (NumPy's
    rule: ``None`` is a new axis indexed by a full slice, so ``a[key]`` is the reshaped array at
    the new key). ``None`` for any other key."""
    if not any(e is None for e in key.entries) or key.sole_mask:
        return None
    new_shape: list[int] = []
    entries: list[Any] = []
    it = iter(int(n) for n in shape)
    for e in key.entries:
        if e is None:
            new_shape.append(1)
            entries.append(slice(None))
            continue
        if e is Ellipsis:
            new_shape.extend(next(it) for _ in range(len(shape) - key.consumed))
        elif isinstance(e, bool) or (is_array(e) and not any(e is a for a in key.arrays)):
            return None  # a mask
        else:
            new_shape.append(next(it))
        entries.append(e)
    new_shape.extend(it)
    return tuple(new_shape), tuple(entries)


def _none_as_axes(xp: Any, a: Any, key: IndexKey) -> tuple[Any, IndexKey]:
    """``a`` and ``key`` with every ``None`` of the key a length-1 axis of ``a`` (see
    :func:`_none_key`); the same ones for any other key."""
    moved = _none_key(key, tuple(a.shape))
    if moved is None:
        return a, key
    return xp.reshape(a, moved[0]), parse_key(xp, moved[1])


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(perm.index(d) for d in range(len(perm)))


def _lead_mask(key: IndexKey) -> Any:
    """The boolean array of a key made of one mask over the leading axes, then only full slices
    or ``Ellipsis`` (``x[mask]``, ``x[mask, :]``); ``None`` for any other key."""
    first, *rest = key.entries
    if not is_array(first) or key.arrays or first.ndim == 0:
        return None
    if all(_is_full_slice(e) or e is Ellipsis for e in rest):
        return first
    return None
