"""``chainrules.core.torch_fast``: the host check applies to plain eager CPU tensors only, and the
norms' pullbacks agree with NumPy's whichever path they take."""

from __future__ import annotations

from typing import Any

import array_api_compat
import numpy as np
import pytest

import chainrules as cr
from chainrules.core import torch_fast

torch = pytest.importorskip("torch")


def test_no_inf_applies_to_plain_cpu_tensors_only() -> None:
    assert torch_fast.no_inf(torch.ones(3, dtype=torch.float64))
    assert not torch_fast.no_inf(torch.tensor([1.0, float("inf")]))
    assert not torch_fast.no_inf(np.ones(3))  # NumPy's own check is numpy_fast.no_inf
    seen = []

    def f(x: Any) -> Any:
        seen.append(torch_fast.no_inf(x))  # a torch.func wrapper: no host read
        return (x * x).sum()

    torch.func.grad(f)(torch.ones(3, dtype=torch.float64))
    torch.func.vmap(lambda x: seen.append(torch_fast.no_inf(x)) or x)(torch.ones(2, 3))
    assert seen == [False, False]


@pytest.mark.parametrize(
    "x", [[3.0, -4.0, 0.0], [np.inf, 1.0, -np.inf], [np.inf, np.nan], [0.0, 0.0], [2.0, -2.0, 1.0]]
)
@pytest.mark.parametrize("ord", [2, np.inf, 1.5])
def test_norm_pullbacks_agree_with_numpy(x: Any, ord: Any) -> None:
    xn = np.asarray(x)
    xt = torch.tensor(x, dtype=torch.float64)
    _, pn = cr.rrule(np.linalg.vector_norm, xn, ord=ord)
    xp = array_api_compat.array_namespace(xt)
    _, pt = cr.rrule(xp.linalg.vector_norm, xt, ord=ord)
    gn = pn(np.asarray(2.0))[1]
    gt = pt(torch.tensor(2.0, dtype=torch.float64))[1]
    np.testing.assert_allclose(gt.numpy(), gn, rtol=1e-15, atol=0)


def test_norm_pullback_under_torch_func_grad() -> None:
    """Inside torch.func the masked formula runs (no host read): same gradient as eagerly."""
    x = torch.tensor([np.inf, 1.0, -np.inf], dtype=torch.float64)

    xp = array_api_compat.array_namespace(x)

    def g(x: Any) -> Any:
        _, pb = cr.rrule(xp.linalg.vector_norm, x)
        return pb(torch.tensor(1.0, dtype=torch.float64))[1]

    eager = g(x)
    batched = torch.func.vmap(g)(torch.stack([x, torch.tensor([3.0, 4.0, 0.0])]))
    np.testing.assert_allclose(batched[0].numpy(), eager.numpy(), rtol=0, atol=0)
    np.testing.assert_allclose(batched[1].numpy(), [0.6, 0.8, 0.0], rtol=1e-15)
