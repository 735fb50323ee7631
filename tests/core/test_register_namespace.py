"""``register_namespace``: a second call for the same module and family is honoured (issue 10).

Before, a second call for a module and family already registered was silently ignored, so
``register_namespace("torch", "numpy", names=...)`` from two places covered only the first
place's names."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import registry


def _fake(name: str) -> types.ModuleType:
    """A namespace whose ``sin``/``cos``/``exp`` are functions of their own (not NumPy's)."""
    mod = types.ModuleType(name)
    mod.sin = lambda x: np.sin(x)  # type: ignore[attr-defined]
    mod.cos = lambda x: np.cos(x)  # type: ignore[attr-defined]
    mod.exp = lambda x: np.exp(x)  # type: ignore[attr-defined]
    return mod


@pytest.fixture
def fake(clean_registry: object) -> Iterator[types.ModuleType]:
    name = "chainrules_test_fake_namespace"
    mod = _fake(name)
    sys.modules[name] = mod
    try:
        yield mod
    finally:
        del sys.modules[name]


def test_second_call_adds_its_names(fake: types.ModuleType) -> None:
    registry.register_namespace(fake.__name__, names=frozenset({"sin"}))
    assert cr.find_rrule(fake.sin) is not None
    assert cr.find_rrule(fake.cos) is None
    registry.register_namespace(fake.__name__, names=frozenset({"cos"}))
    assert cr.find_rrule(fake.cos) is not None  # ignored before: the first call's names only
    assert cr.find_rrule(fake.sin) is not None  # the first call's names stay
    assert cr.find_rrule(fake.exp) is None
    _, pb = cr.rrule(fake.cos, np.array([0.5]))
    np.testing.assert_allclose(pb(np.array([1.0]))[1], -np.sin([0.5]))


def test_second_call_before_import_resolves_on_import(clean_registry: object) -> None:
    name = "chainrules_test_fake_namespace_late"
    registry.register_namespace(name, names=frozenset({"sin"}))
    registry.register_namespace(name, names=frozenset({"exp"}))
    mod = _fake(name)
    sys.modules[name] = mod
    try:
        assert cr.find_rrule(mod.exp) is not None
        assert cr.find_rrule(mod.sin) is not None
        assert cr.find_rrule(mod.cos) is None
    finally:
        del sys.modules[name]


def test_repeated_identical_call_changes_nothing(fake: types.ModuleType) -> None:
    registry.register_namespace(fake.__name__, names=frozenset({"sin"}))
    n = len(registry._PROVIDERS)
    registry.register_namespace(fake.__name__, names=frozenset({"sin"}))
    registry.register_namespace(fake.__name__, names={"sin"})  # type: ignore[arg-type]
    assert len(registry._PROVIDERS) == n


def test_bad_family_names_the_module() -> None:
    with pytest.raises(ValueError, match=r"register_namespace\('somewhere'\).*family"):
        registry.register_namespace("somewhere", "sympy")
