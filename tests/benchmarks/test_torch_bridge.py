"""benchmarks/torch_bridge.py times the bridge against hand-written Functions: those must compute
what the library's rules compute (the floor the formula, the second floor the conventions too)."""

from __future__ import annotations

import math
from typing import Any

import pytest

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def bridge(benchmark_script: Any) -> Any:
    return benchmark_script("torch_bridge")


def _grads(f: Any, args: tuple[Any, ...], g: Any) -> tuple[Any, ...]:
    wrt = tuple(a for a in args if a.requires_grad)
    return torch.autograd.grad(f(*args), wrt, g)


def test_the_hand_written_functions_are_the_rules(bridge: Any) -> None:
    floor, conventions = bridge._hand_written(), bridge._hand_written_with_conventions()
    floor["matmul (data @ w)"] = floor.pop("matmul")
    for name, (_, wrapped, _, _, args) in bridge._cases(10).items():
        g = torch.ones_like(wrapped(*args))
        want = _grads(wrapped, args, g)
        for hand in (floor[name], conventions[name]):
            for got, w in zip(_grads(hand, args, g), want, strict=True):
                torch.testing.assert_close(got, w, rtol=1e-12, atol=1e-12)


def test_the_conventions_function_keeps_the_rules_limits(bridge: Any) -> None:
    # where the formula-only floor gives NaN, the second floor gives the library's values
    import array_api_compat.torch as ctorch

    from chainrules.interop import torch as crtorch

    conv = bridge._hand_written_with_conventions()
    cases = {
        "vector_norm": (ctorch.linalg.vector_norm, [[0.0, 0.0, 0.0], [math.inf, -2.0, -math.inf]]),
        "exp": (ctorch.exp, [[800.0, 1.0, 0.0]]),  # exp(800) = inf, with a zero cotangent
    }
    for name, (f, points) in cases.items():
        for p in points:
            x = torch.tensor(p, dtype=torch.float64, requires_grad=True)
            y = f(x)
            g = torch.zeros_like(y) if name == "exp" else torch.ones_like(y)
            if name == "exp":
                g[1] = 1.0  # zero where the partial is inf
            (want,) = torch.autograd.grad(crtorch.wrap(f)(x), x, g)
            (got,) = torch.autograd.grad(conv[name](x), x, g)
            assert not torch.isnan(want).any()
            torch.testing.assert_close(got, want, rtol=1e-12, atol=0)
