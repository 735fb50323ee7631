"""Index keys (``chainrules/core/index_keys.py``): ``parse_key`` and the shapes of basic keys."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import index_keys
from chainrules.core.scatter import parse_key


def test_parse_key_reads_structure_only() -> None:
    xp = cr.namespace_of(np.zeros(1))
    k = parse_key(xp, (np.int64(1), [0, 0], slice(None), None))
    assert k.entries[0] == 1 and type(k.entries[0]) is int
    assert isinstance(k.entries[1], np.ndarray) and not k.unique and not k.basic
    assert not k.front and not k.all_arrays and k.consumed == 3
    assert parse_key(xp, (np.array([1]), 0, Ellipsis)).front
    assert parse_key(xp, (1, np.array([1]))).all_arrays
    m = parse_key(xp, np.ones((2, 2), dtype=bool))
    assert m.sole_mask and m.unique and m.consumed == 2
    assert parse_key(xp, (0, slice(1, 2))).basic


def test_basic_keys_write_through_size_one_slices() -> None:
    """Host-known ints become size-1 slices in the generic path: a guarded device array then
    sees a slice write, never an element write."""
    skey, out_shape, kept = index_keys._basic_shapes((3, 4, 5), (1, Ellipsis, -1))
    assert skey == (slice(1, 2), slice(None), slice(-1, None))
    assert out_shape == (4,) and kept == (1, 4, 1)
    skey, out_shape, kept = index_keys._basic_shapes((3, 4), (None, 2, Ellipsis, None))
    assert skey == (slice(2, 3), slice(None)) and out_shape == (1, 4, 1) and kept == (1, 4)
    with pytest.raises(IndexError, match="too many indices"):
        index_keys._basic_shapes((3,), (0, 0))
