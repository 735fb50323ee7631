"""A 0-d array with ``axis=0`` or ``axis=-1``, over the registry: some of NumPy's reductions take it
and reduce nothing (``np.sum``, ``np.nanvar``, ``np.ptp``), others refuse it (``np.mean``,
``np.var``). A rule does what NumPy does, decided by NumPy's call and by no list of names: where
NumPy accepts, the rule gives NumPy's value and the derivative of finite differences; where NumPy
refuses, so does the rule."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import examples_for
from chainrules.testing.backends import get_backend


def _cases() -> list[Any]:
    backend = get_backend("numpy")
    out = []
    for reg in cr.registrations():
        f = backend.function(reg)
        exs = examples_for(reg) if f is not None else []
        if not exs or len(exs[0].args) != 1 or reg.rrule is None:
            continue
        try:
            params = inspect.signature(f).parameters
        except (TypeError, ValueError):  # a ufunc or builtin without a signature
            continue
        x = exs[0].args[0]
        if "axis" in params and isinstance(x, np.ndarray) and x.dtype.kind == "f":
            out += [pytest.param(reg, f, axis, id=f"{reg.name}-axis={axis}") for axis in (0, -1)]
    return out


def _call(f: Any, x: Any, axis: int) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(x, axis=axis)


@pytest.mark.parametrize(("reg", "f", "axis"), _cases())
def test_a_zero_d_array_with_an_axis_is_what_numpy_makes_it(reg: Any, f: Any, axis: int) -> None:
    x = np.array(0.7)
    try:
        want = _call(f, x, axis)
    except (ValueError, IndexError, TypeError):  # NumPy refuses (AxisError: the first two)
        with pytest.raises((ValueError, IndexError, TypeError)):
            cr.rrule(f, x, axis=axis)
        return
    y, pb = cr.rrule(f, x, axis=axis)
    if np.asarray(want).dtype.kind != "f":  # an index or a count: its value only
        np.testing.assert_array_equal(y, want)
        return
    np.testing.assert_allclose(y, want, rtol=1e-15)
    assert np.shape(y) == np.shape(want)
    h = 1e-6
    fd = (np.asarray(_call(f, x + h, axis)) - np.asarray(_call(f, x - h, axis))) / (2 * h)
    ones = np.ones_like(np.asarray(want))
    (_, x_bar) = pb(ones if np.ndim(want) else np.float64(1.0))
    np.testing.assert_allclose(x_bar, np.sum(fd), rtol=1e-6, atol=1e-8)
