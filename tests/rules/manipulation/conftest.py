"""Fixtures shared by the tests of :mod:`chainrules.rules.manipulation`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import examples_for


@pytest.fixture
def pull() -> Callable[..., Any]:
    """The cotangents of ``f(*args, **kw)`` for ``y_bar`` (ones of ``y``'s shape when not given)."""

    def pull(f, *args, y_bar=None, **kw):  # type: ignore[no-untyped-def]
        y, pb = cr.rrule(f, *args, **kw)
        if y_bar is None:
            y_bar = np.ones(np.shape(y))
        return pb(y_bar)

    return pull


@pytest.fixture
def assert_registered() -> Callable[[list[cr.Registration], set[str]], None]:
    """Asserts that ``regs`` registers exactly ``names``, each with an rrule, an frule and
    examples."""

    def check(regs: list[cr.Registration], names: set[str]) -> None:
        assert {r.name for r in regs} == names
        for reg in regs:
            assert reg.rrule is not None and reg.frule is not None, reg.name
            assert examples_for(reg), reg.name

    return check
