"""Fixtures shared by the tests of several rule families."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrules as cr


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


@pytest.fixture
def forced_rrule() -> Callable[..., Any]:
    """``cr.rrule`` with the pullback's deferred cotangents (``Thunk``) forced, as a caller that
    needs every cotangent does (products and solvers defer each operand's cotangent)."""

    def rrule(f, *args, **kw):  # type: ignore[no-untyped-def]
        y, pb = cr.rrule(f, *args, **kw)
        return y, lambda y_bar: tuple(cr.unthunk(c) for c in pb(y_bar))

    return rrule


@pytest.fixture
def forced_cotangents(forced_rrule: Callable[..., Any]) -> Callable[..., Any]:
    """The forced cotangents of ``f(*args, **kw)`` for ``y_bar`` (ones of ``y``'s shape and dtype
    when not given)."""

    def pull(f, *args, y_bar=None, **kw):  # type: ignore[no-untyped-def]
        y, pb = forced_rrule(f, *args, **kw)
        if y_bar is None:
            y_bar = np.ones(np.shape(y), dtype=np.result_type(y))
        return pb(y_bar)

    return pull
