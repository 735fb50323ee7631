"""Fixtures shared by the tests of :mod:`chainrules.rules.statistical`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrules as cr


@pytest.fixture
def grad() -> Callable[..., Any]:
    """The cotangent of ``f(x, *rest, **kw)``'s first argument ``x`` for a cotangent of ones."""

    def grad(f, *args, **kw):  # type: ignore[no-untyped-def]
        y, pb = cr.rrule(f, *args, **kw)
        return pb(np.ones(np.shape(y)))[1]

    return grad
