"""The engine's hot paths (issue 10's speed point): the shortcuts taken per call and per operation
behave as the general code does."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad._config import AD_CONFIG
from chainrules.core.config import rule_config


def test_rule_config_current_inside_and_restored_after() -> None:
    """``call_user`` makes AD_CONFIG current while ``f`` runs and restores the previous one,
    also when ``f`` raises."""
    before = rule_config()
    seen = []

    def f(x: np.ndarray) -> np.ndarray:
        seen.append(rule_config())
        return np.sum(x * x)

    ad.grad(f)(np.ones(3))
    assert seen == [AD_CONFIG]
    assert rule_config() is before

    def bad(x: np.ndarray) -> np.ndarray:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        ad.grad(bad)(np.ones(3))
    assert rule_config() is before


@pytest.mark.parametrize(
    "op",
    [
        lambda x: np.multiply(x, x),
        lambda x: np.multiply(x, 2.0),
        lambda x: np.multiply(3, x),
        lambda x: np.subtract(x, np.full(3, 0.5)),
        lambda x: np.divide(np.full(3, 2.0), x),
    ],
)
def test_two_argument_ufuncs(op: object) -> None:
    """NumPy's two-argument ufuncs on tracers (a shortcut when both are of one trace or one is a
    Python number) against central differences."""
    x = np.array([0.3, 0.7, 1.1])

    def loss(v: np.ndarray) -> np.ndarray:
        return np.sum(np.sin(op(v)))  # type: ignore[operator]

    g = ad.grad(loss)(x)
    eps = 1e-6
    want = np.array([(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(g, want, rtol=1e-7, atol=1e-9)


def test_two_argument_ufunc_of_two_levels() -> None:
    """``np.multiply(inner, outer)`` with tracers of two nested traces goes to the inner trace:
    d/dy d/dx (x * y)^2 summed = 4 x y per element."""
    x = np.array([0.5, 2.0])
    y = np.array([1.5, -1.0])

    def inner(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.sum(np.square(np.multiply(b, a)))  # b of the outer trace first

    def outer(b: np.ndarray) -> np.ndarray:
        return np.sum(ad.grad(inner)(x, b))

    np.testing.assert_allclose(ad.grad(outer)(y), 4 * x * y, rtol=1e-12)


def test_data_arguments_are_constants() -> None:
    """Floating arrays passed beside the differentiated argument (top level, in a list, in a
    dict) mix with the tracers and get no gradient."""
    x = np.array([0.2, 0.4])
    w = np.array([2.0, 3.0])

    def f(v: np.ndarray, a: np.ndarray, seq: list[np.ndarray], d: dict[str, np.ndarray]) -> object:
        return np.sum(v * a + seq[0] * v + d["k"] * v * v)

    g = ad.grad(f)(x, w, [w], {"k": w})
    np.testing.assert_allclose(g, w + w + 2 * w * x, rtol=1e-12)
