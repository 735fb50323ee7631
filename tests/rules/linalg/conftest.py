"""Fixtures shared by the tests of :mod:`chainrules.rules.linalg`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest


@pytest.fixture
def fd_grad() -> Callable[..., np.ndarray]:
    """The central-difference gradient of the real ``loss`` at ``a`` (for a complex ``a``, the
    library's convention ``dL/dRe a + i dL/dIm a``)."""

    def fd_grad(loss: Callable[[np.ndarray], Any], a: np.ndarray, h: float = 1e-6) -> np.ndarray:
        g = np.zeros(a.shape, dtype=a.dtype)
        for i in np.ndindex(a.shape):
            e = np.zeros_like(a)
            e[i] = h
            g[i] = (loss(a + e) - loss(a - e)) / (2 * h)
            if np.iscomplexobj(a):
                e[i] = 1j * h
                g[i] += 1j * (loss(a + e) - loss(a - e)) / (2 * h)
        return g

    return fd_grad


@pytest.fixture
def pull(forced_rrule: Callable[..., Any]) -> Callable[..., Any]:
    """``f(*args, **kw)`` and its forced cotangents for ``y_bar`` (ones of ``y``'s shape when not
    given)."""

    def pull(f, *args, y_bar=None, **kw):  # type: ignore[no-untyped-def]
        y, pb = forced_rrule(f, *args, **kw)
        if y_bar is None:
            y_bar = np.ones(np.shape(y))
        return y, pb(y_bar)

    return pull
