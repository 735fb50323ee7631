"""Point 2 of issue 13: the scatter behind the pullbacks of getitem, take and scatter_add on dask
is chunk-aligned: no task of the pullback's graph returns more than the largest input chunk."""

from __future__ import annotations

import itertools
import math
import operator
import warnings

import numpy as np
import pytest

import chainrules as cr

da = pytest.importorskip("dask.array")
xp = pytest.importorskip("array_api_compat.dask.array")


def _largest_task_output(arr) -> int:  # type: ignore[no-untyped-def]
    """The most elements any task of ``arr``'s graph returns (every task is run once; the final
    gather of ``compute`` into one array is not a task of the graph)."""
    import dask

    sizes: list[int] = []

    def post(key, result, dsk, state, id):  # type: ignore[no-untyped-def]
        if not str(key[0] if isinstance(key, tuple) else key).startswith("finalize"):
            sizes.append(int(np.size(result)) if isinstance(result, np.ndarray) else 0)

    from dask.callbacks import Callback

    with Callback(posttask=post), dask.config.set(scheduler="sync"):
        arr.compute()
    return max(sizes)


def _cases():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    x = da.from_array(rng.standard_normal((40, 30)), chunks=(10, 10))
    idx = da.from_array(rng.integers(0, 30, 24), chunks=6)
    rows = da.from_array(rng.integers(0, 40, 24), chunks=6)
    yield "take axis=1", x, lambda: cr.rrule(xp.take, x, idx, axis=1)
    yield "getitem rows", x, lambda: cr.rrule(operator.getitem, x, rows)
    yield "scatter_add", x, lambda: cr.rrule(cr.scatter_add, x, rows, da.ones((24, 30), chunks=6))


@pytest.mark.parametrize(
    ("name", "x", "run"), list(_cases()), ids=lambda c: c if isinstance(c, str) else ""
)
def test_pullback_tasks_are_no_larger_than_an_input_chunk(name, x, run) -> None:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, pb = run()
        y_bar = da.ones(y.shape, chunks=y.chunks)
        x_bar = pb(y_bar)[1]
    # the largest chunk of the pullback's inputs: x's (10 x 10) or the cotangent's
    chunk = max(100, *(math.prod(c) for c in itertools.product(*y_bar.chunks)))
    assert x_bar.chunks == x.chunks
    assert _largest_task_output(x_bar) <= chunk, f"{name}: a task larger than the input chunk"


def _nd_gather_cases():  # type: ignore[no-untyped-def]
    """Keys dask has no indexing for (n-d fancy keys), as scatter_add's pullback gathers them."""
    rng = np.random.default_rng(1)
    x = da.from_array(rng.standard_normal((40, 30)), chunks=(10, 10))
    rows2d = da.from_array(rng.integers(-40, 40, (8, 6)), chunks=(4, 3))
    rows = da.from_array(rng.integers(0, 40, 24), chunks=6)
    cols = da.from_array(rng.integers(0, 30, 24), chunks=6)
    yield "2-D index array", x, rows2d, da.ones((8, 6, 30), chunks=(4, 3, 10))
    yield "two index arrays", x, (rows, cols), da.ones(24, chunks=6)
    yield "(int, 2-D index array)", x, (3, rows2d % 30), da.ones((8, 6), chunks=(4, 3))
    yield "(slice, 2-D index array)", x, (slice(None), rows2d % 30), da.ones((40, 8, 6), chunks=4)
    none = (Ellipsis, None, rows2d % 30)  # a new axis: a length-1 axis with a full slice
    yield "(..., None, 2-D index array)", x, none, da.ones((40, 1, 8, 6), chunks=4)
    x3 = da.from_array(rng.standard_normal((12, 5, 9)), chunks=(4, 5, 3))
    sep = (rows2d % 12, slice(None), cols[:6] % 9)  # separated: broadcast axes first
    yield "separated index arrays", x3, sep, da.ones((8, 6, 5), chunks=(4, 3, 5))
    mask = rng.uniform(size=40) < 0.5  # a boolean key over the rows: its gather by slots
    n = int(mask.sum())
    yield "boolean mask of rows", x, da.from_array(mask, chunks=10), da.ones((n, 30), chunks=6)


@pytest.mark.parametrize(
    ("name", "x", "key", "v"),
    list(_nd_gather_cases()),
    ids=lambda c: c if isinstance(c, str) else "",
)
def test_scatter_add_pullback_gathers_n_d_keys_chunk_aligned(name, x, key, v) -> None:  # type: ignore[no-untyped-def]
    """The values cotangent of scatter_add is y_bar[key], a gather dask has no indexing for: it is
    built lazily, equals NumPy's, and no task returns more than the largest input chunk or its
    own output chunk."""
    from chainrules.testing.runner import _GraphRuns

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, pb = cr.rrule(cr.scatter_add, x, key, v)
        y_bar = da.from_array(np.random.default_rng(2).standard_normal(y.shape), chunks=y.chunks)
        with _GraphRuns() as runs:
            v_bar = pb(y_bar)[3]
        assert runs.count == 0, f"{name}: the pullback computes"
        nkey = tuple(
            np.asarray(k) if isinstance(k, da.Array) else k
            for k in (key if isinstance(key, tuple) else (key,))
        )
        want = np.asarray(y_bar)[nkey]
        np.testing.assert_array_equal(np.asarray(v_bar), want)
        # the largest chunk of the inputs (x, the cotangent, the values) or of v_bar itself (a
        # block of the index arrays times a block of the sliced axes)
        chunk = max(
            math.prod(c) for a in (x, y_bar, v, v_bar) for c in itertools.product(*a.chunks)
        )
        assert _largest_task_output(v_bar) <= chunk, f"{name}: a task larger than a chunk"
        if name == "boolean mask of rows":  # chunked as the values along the selection
            assert v_bar.chunks[0] == v.chunks[0], (v_bar.chunks, v.chunks)
