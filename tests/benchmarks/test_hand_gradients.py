"""benchmarks/hand_gradients.py times models against their hand-written gradients: those must be
right, and so must the engine's, with and without ad.jit (checked at every model's calls)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="module")
def hand(benchmark_script: Any) -> Any:
    return benchmark_script("hand_gradients")


def test_every_model_has_one_to_ten_parameters(hand: Any) -> None:
    assert len(hand.MODELS) >= 8
    assert all(1 <= x.size <= 10 for _, x in hand.MODELS.values())


# the models written here (SciPy's rosen differentiates only in SciPy's array-API mode, which
# the benchmark sets before SciPy loads)
@pytest.mark.parametrize(
    "name",
    [
        "normal log-likelihood",
        "logistic posterior",
        "poisson glm",
        "student-t log-likelihood",
        "diagonal normal (n=10)",
        "gamma prior on log scales",
    ],
)
def test_hand_written_gradients_are_the_engines(hand: Any, name: str) -> None:
    calls = hand.calls(name)  # asserts value and gradient of ad and ad.jit against the hand's
    assert set(calls) == {"hand", "ad", "ad.jit"}
