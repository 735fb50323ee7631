"""The axis parsing every reduction shares (``normalize_axis`` in ``rules/_util/__init__.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

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
