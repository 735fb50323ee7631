"""abs's pullback on a real NumPy array takes ``np.sign`` (one pass) for ``unit`` (issue 14): the
same cotangent, at the special values included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import _util, elementwise

SPECIAL = [-np.inf, -2.5, -0.0, 0.0, 1e-300, 3.0, np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_abs_pullback_is_unit_times_the_cotangent(dtype: Any) -> None:
    x = np.array(SPECIAL, dtype=dtype)
    g = np.arange(1, len(SPECIAL) + 1, dtype=dtype)
    _, pb = cr.rrule(np.abs, x)
    _, xb = pb(g)
    want = g * _util.unit(np, x, np.abs(x))
    assert xb.dtype == want.dtype and xb.shape == want.shape
    np.testing.assert_array_equal(xb, want)  # NaN at NaN, 0 at ±0, ±g at ±inf


def test_abs_pullback_on_numpy_skips_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = _util.unit

    def spy(*a: Any) -> Any:
        calls.append(1)
        return real(*a)

    monkeypatch.setattr(elementwise, "unit", spy)
    _, pb = cr.rrule(np.abs, np.array([-1.0, 2.0]))
    np.testing.assert_array_equal(pb(np.ones(2))[1], [-1.0, 1.0])
    assert not calls
