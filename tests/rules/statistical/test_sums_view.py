"""The NumPy method of ``sum``/``mean`` pulls back through a broadcast view
(``statistical.sums._unsum_view``) that agrees with broadcasting, and the reductions' argument
parsing agrees with the generic path (issue 14: per-operation overhead at n=10)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util import expand_reduced, normalize_axis
from chainrules.rules.statistical.sums import _unsum_view

CASES = [  # (y_bar's shape, x's shape, reduced axes, keepdims)
    ((), (10,), (0,), False),
    ((), (2, 3), (0, 1), False),
    ((3,), (2, 3), (0,), False),
    ((2,), (2, 3), (1,), False),
    ((2, 1), (2, 3), (1,), True),
    ((1, 1), (4, 5), (0, 1), True),
    ((), (), (), False),
    ((3,), (2, 3, 4), (0, 2), False),
    ((2, 1, 4), (2, 3, 4), (1,), True),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize(("ys", "shape", "axes", "keepdims"), CASES)
def test_unsum_view_agrees(ys, shape, axes, keepdims, dtype) -> None:  # type: ignore[no-untyped-def]
    y = np.asarray(np.random.default_rng(0).standard_normal(ys)).astype(dtype)
    got = _unsum_view(y, shape, axes, keepdims)
    want = np.broadcast_to(expand_reduced(np, y, axes, keepdims), shape)
    assert got is not None
    assert got.shape == want.shape and got.dtype == want.dtype
    assert not got.flags.writeable  # a view, as broadcast_to's: nobody may write through it
    np.testing.assert_array_equal(got, want)


def test_unsum_view_declines() -> None:
    y = np.ones((3, 4))
    assert _unsum_view(y[:, ::2], (5, 3, 2), (0,), False) is None  # not contiguous
    assert _unsum_view(np.ones(3, dtype=int), (2, 3), (0,), False) is None  # integer
    assert _unsum_view(np.ones(0), (2, 0), (0,), False) is None  # empty
    assert _unsum_view(np.ones(3), (2, 4), (0,), False) is None  # not broadcastable
    assert _unsum_view(np.ones(3), (2, 3), (0, 1), False) is None  # wrong rank


@pytest.mark.parametrize("fn", [np.sum, np.mean])
@pytest.mark.parametrize(
    "kwargs", [{}, {"axis": 1}, {"axis": -1, "keepdims": True}, {"axis": (0, 2)}, {"axis": 0}]
)
def test_reduction_pullbacks_match_broadcasting(fn, kwargs) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    y, pb = cr.rrule(fn, x, **kwargs)
    np.testing.assert_allclose(y, fn(x, **kwargs))
    y_bar = np.random.default_rng(2).standard_normal(np.shape(y))
    (_, x_bar) = pb(y_bar)
    axes = normalize_axis(kwargs.get("axis"), 3)
    want = np.broadcast_to(expand_reduced(np, y_bar, axes, kwargs.get("keepdims", False)), x.shape)
    if fn is np.mean:
        want = want / np.prod([x.shape[a] for a in axes])
    np.testing.assert_allclose(x_bar, want, rtol=1e-15)
    assert x_bar.shape == x.shape and x_bar.dtype == x.dtype


def test_normalize_axis_int_fast_path() -> None:
    assert normalize_axis(1, 3) == (1,)
    assert normalize_axis(-1, 3) == (2,)
    assert normalize_axis(np.int64(-3), 3) == (0,)
    assert normalize_axis(0, 0) == (0,) and normalize_axis(-1, 0) == (0,)
    with pytest.raises(ValueError, match="f: axis 3 is out of bounds for an array of rank 3"):
        normalize_axis(3, 3, "f")
    with pytest.raises(TypeError, match="f: axis must be an int"):
        normalize_axis(True, 3, "f")
