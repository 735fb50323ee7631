"""The shared maths of ``rules/_util/__init__.py``: the axis parsing every reduction shares
(``normalize_axis``), and ``moveaxis`` / ``unstack`` through the standard's ``permute_dims`` and
indexing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

import chainrules as cr
from chainrules.rules._util import normalize_axis

REDUCTIONS = [np.sum, np.mean, np.max, np.min, np.prod, np.std, np.var, np.linalg.norm]


@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("axis", [1.5, (0, 1.5), "a", True, (0, None)], ids=repr)
def test_a_bad_axis_is_a_type_error_naming_the_function(f: Any, axis: Any) -> None:
    x = np.ones((2, 3))
    if f is not np.linalg.norm:  # NumPy refuses it too; its norm alone truncates 1.5 and True to 1
        with pytest.raises(TypeError):
            f(x, axis=axis)
    name = "linalg.norm" if f is np.linalg.norm else f.__name__
    want = f"{name}: axis must be an int or a tuple of ints, got {axis!r}"
    with pytest.raises(TypeError, match=want.replace("(", r"\(").replace(")", r"\)")):
        cr.rrule(f, x, axis=axis)


@pytest.mark.parametrize("axis", [np.int64(1), (np.int64(0), 1), -1])
def test_numpy_integer_axes_are_axes(axis: Any) -> None:
    x = np.arange(6.0).reshape(2, 3)
    y, _ = cr.rrule(np.sum, x, axis=axis)
    np.testing.assert_array_equal(y, np.sum(x, axis=axis))


def test_normalize_axis() -> None:
    assert normalize_axis(None, 3) == (0, 1, 2)
    assert normalize_axis((-1, 0), 3) == (0, 2)
    assert normalize_axis(np.int32(-2), 3) == (1,)
    with pytest.raises(ValueError, match="f: repeated axis"):
        normalize_axis((1, -2), 3, "f")
    with pytest.raises(ValueError, match="f: axis 3 is out of bounds for an array of rank 3"):
        normalize_axis(3, 3, "f")


@pytest.mark.parametrize(
    ("shape", "source", "destination"),
    [
        ((2, 3, 4), 0, -1),
        ((2, 3, 4), -1, 0),
        ((2, 3, 4), 1, 1),
        ((2, 3, 4, 5), (0, 1), (-1, -2)),
        ((2, 3, 4, 5), (-2, -1), (0, 2)),
        ((2, 3, 4, 5), [3, 0], [1, 2]),
        ((3,), 0, -1),
    ],
)
def test_moveaxis_is_numpys(shape, source, destination):  # type: ignore[no-untyped-def]
    """``_util.moveaxis`` (through ``permute_dims``) gives NumPy's ``moveaxis`` for ints and
    sequences of axes, negative ones included."""
    from chainrules.rules._util import moveaxis

    x = np.arange(int(np.prod(shape))).reshape(shape)
    want = np.moveaxis(x, source, destination)
    got = moveaxis(array_namespace(x), x, source, destination)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("shape", "axis"), [((2, 3), 0), ((2, 3), 1), ((2, 3), -1), ((0, 2), 1)])
def test_unstack_is_the_standards(shape, axis):  # type: ignore[no-untyped-def]
    from chainrules.rules._util import unstack

    x = np.arange(int(np.prod(shape)), dtype=float).reshape(shape)
    xp = array_namespace(x)
    want = xp.unstack(x, axis=axis)
    got = unstack(xp, x, axis)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_moveaxis_and_unstack_batch_under_torch_vmap():  # type: ignore[no-untyped-def]
    """torch.func.vmap has no batching rule for ``torch.moveaxis`` with int axes (torch 2.13);
    the helpers, through ``permute_dims`` and indexing, batch."""
    torch = pytest.importorskip("torch")
    import array_api_compat.torch as xp

    from chainrules.rules._util import moveaxis, unstack

    x = torch.arange(24.0).reshape(2, 3, 4)
    got = torch.func.vmap(lambda a: moveaxis(xp, a, 0, -1))(x)
    torch.testing.assert_close(got, x.permute(0, 2, 1))
    parts = torch.func.vmap(lambda a: torch.stack(unstack(xp, a, 1)))(x)
    torch.testing.assert_close(parts, x.permute(0, 2, 1))
