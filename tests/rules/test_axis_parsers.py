"""The axes NumPy accepts stay accepted once a rule parses them with ``_util``'s parser (issue
15.7): NumPy's integer scalars, and ``True`` as axis 1 where NumPy takes it so; and
``axis_ints``' ``ndim=`` / ``bool_ok=`` options. (The refusals are tested over the registry in
``test_axis_errors.py``.)"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util import axis_ints

_M = np.arange(1.0, 13.0).reshape(3, 4) ** 1.5  # distinct values, no zeros
_V3 = np.arange(1.0, 7.0).reshape(2, 3) ** 1.5

# (function, args, the axis keyword) for the rules routed through the parser here where NumPy
# takes True as 1 (unwrap, trapezoid, repeat, append, compress refuse it, as NumPy does)
_CALLS: list[tuple[Any, tuple[Any, ...], str]] = [
    (np.cross, (_V3, _V3[::-1]), "axisc"),
    (np.gradient, (_M,), "axis"),
    (np.split, (_M, 2), "axis"),
    (np.delete, (_M, 1), "axis"),
    (np.insert, (_M, 1, 0.5), "axis"),
    (np.trim_zeros, (_M,), "axis"),
    (np.partition, (_M, 1), "axis"),
    (np.unique, (_M,), "axis"),
]


def _same(y: Any, want: Any) -> bool:
    if isinstance(want, (list, tuple)):
        return len(y) == len(want) and all(_same(a, b) for a, b in zip(y, want))
    return bool(np.array_equal(y, want))


@pytest.mark.parametrize("axis", [np.int64(1), True], ids=["int64", "True"])
@pytest.mark.parametrize(("f", "args", "what"), _CALLS, ids=[c[0].__name__ for c in _CALLS])
def test_numpy_s_axes_stay_axes(f: Any, args: tuple[Any, ...], what: str, axis: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(*args, **{what: axis})
        y, _ = cr.rrule(f, *args, **{what: axis})
        y2, _ = cr.frule((cr.NoTangent(),) * (len(args) + 1), f, *args, **{what: axis})
    assert _same(y, want) and _same(y2, want)


def test_the_fft_axes_take_numpy_integer_scalars() -> None:
    x = _M.astype(complex)
    y, _ = cr.rrule(np.fft.fftn, x, axes=(np.int64(0),))
    assert np.allclose(y, np.fft.fftn(x, axes=(0,)))
    y, _ = cr.rrule(np.fft.fftshift, x, axes=np.int32(1))
    assert np.array_equal(y, np.fft.fftshift(x, axes=1))


def test_axis_ints_options() -> None:
    assert axis_ints((np.int64(1), 0), "f", ndim=2) == (1, 0)
    assert axis_ints(True, "f", bool_ok=True) == (1,)
    with pytest.raises(TypeError, match=r"f: axis must be an int or a tuple of ints, got \(True,"):
        axis_ints((True, 0), "f")
    with pytest.raises(ValueError, match="f: axes 2 is out of bounds for an array of rank 2"):
        axis_ints((0, 2), "f", "axes", ndim=2)


def test_rot90_and_tensorsolve_name_a_wrong_count_or_form_of_axes() -> None:
    with pytest.raises(ValueError, match=r"rot90: axes must be 2 different axes, got \(0, 0\)"):
        cr.rrule(np.rot90, _M, axes=(0, 0))
    a = np.eye(4).reshape(2, 2, 2, 2) * 3.0 + 0.1
    with pytest.raises(
        TypeError, match=r"linalg\.tensorsolve: axes must be a tuple of ints, got 1"
    ):
        cr.rrule(np.linalg.tensorsolve, a, np.ones((2, 2)), axes=1)
