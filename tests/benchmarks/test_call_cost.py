"""benchmarks/call_cost.py times programs against hand-written gradients: those must be right."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from chainrules import ad


@pytest.fixture(scope="module")
def cost(benchmark_script: Any) -> Any:
    return benchmark_script("call_cost")


@pytest.mark.parametrize("k", [1, 3])
def test_hand_written_gradients_are_the_engines(cost: Any, k: int) -> None:
    x = np.linspace(0.2, 0.9, 10)
    table = [(n, f, df, False) for n, (f, df) in cost.ELEMENTWISE.items()]
    table += [(n, f, df, True) for n, (f, df) in cost.REDUCTIONS.items()]
    for name, f, df, reduction in table:
        prog, hand = cost._programs(f, df, k, reduction)
        value, grad = ad.value_and_grad(prog)(x)
        want_value, want_grad = hand(x)
        np.testing.assert_allclose(value, want_value, rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(grad, want_grad, rtol=1e-10, atol=1e-12, err_msg=name)
