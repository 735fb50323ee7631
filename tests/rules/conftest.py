"""Fixtures shared by the tests of several rule families."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest


@pytest.fixture
def assert_same() -> Callable[[Any, Any], None]:
    """Asserts that ``got`` equals ``want`` exactly: each array (or each of a tuple's) with the
    same shape, dtype and values, anything else by ``==``."""

    def check(got: Any, want: Any) -> None:
        got, want = (x if isinstance(x, tuple) else (x,) for x in (got, want))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            if isinstance(w, np.ndarray):
                assert g.shape == w.shape and g.dtype == w.dtype
                np.testing.assert_array_equal(g, w)
            else:
                assert g == w

    return check
