"""Fixtures shared by the tests of :mod:`chainrules.rules.scipy.linalg`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import chainrules as cr


@pytest.fixture
def pull() -> Callable[..., Any]:
    """``f(*args, **kw)`` and its cotangents for ``y_bar``, deferred ones (``Thunk``) forced."""

    def pull(f, *args, y_bar, **kw):  # type: ignore[no-untyped-def]
        y, pb = cr.rrule(f, *args, **kw)
        return y, tuple(cr.unthunk(c) for c in pb(y_bar))  # products and solvers defer (Thunks)

    return pull
