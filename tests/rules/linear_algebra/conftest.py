"""Fixtures shared by the tests of :mod:`chainrules.rules.linear_algebra`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrules as cr


@pytest.fixture
def forced_rrule() -> Callable[..., Any]:
    """``cr.rrule`` with the pullback's deferred cotangents (``Thunk``) forced, as a caller that
    needs every cotangent does (the rules here defer each operand's cotangent)."""

    def rrule(f, *args, **kw):  # type: ignore[no-untyped-def]
        y, pb = cr.rrule(f, *args, **kw)
        return y, lambda y_bar: tuple(cr.unthunk(c) for c in pb(y_bar))

    return rrule


@pytest.fixture
def pull(forced_rrule: Callable[..., Any]) -> Callable[..., Any]:
    """The forced cotangents of ``f(*args, **kw)`` for ``y_bar`` (ones of ``y``'s shape and dtype
    when not given)."""

    def pull(f, *args, y_bar=None, **kw):  # type: ignore[no-untyped-def]
        y, pb = forced_rrule(f, *args, **kw)
        if y_bar is None:
            y_bar = np.ones(np.shape(y), dtype=np.result_type(y))
        return pb(y_bar)

    return pull
