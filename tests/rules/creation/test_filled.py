"""Filled arrays: full and full_like (a fill's cotangent summed over its broadcast axes); the
zero-derivative *_like functions; zeros, ones, empty, eye without array arguments."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.creation import filled
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == filled.__name__]
# no array argument: the rules are bound to each library's own function (register_rrule's
# bind=), so zeros(3) of jax.numpy, torch or array-api-strict is that library's array
NO_ARRAY = {
    "zeros",
    "ones",
    "empty",
    "eye",
    "numpy:zeros",
    "numpy:ones",
    "numpy:empty",
    "numpy:eye",
}


def test_registered() -> None:
    names = {r.name for r in REGS}
    assert names >= {"full", "full_like", "numpy:full"}
    assert names >= {"zeros_like", "ones_like", "empty_like"} | NO_ARRAY
    assert all(r.non_differentiable for r in REGS if r.name in NO_ARRAY)


@pytest.mark.parametrize(
    "reg", [pytest.param(r, id=r.name) for r in REGS if not r.non_differentiable]
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    # floating outputs only (full_like of an integer array has no tangent space)
    examples = [
        ex
        for ex in examples_for(reg)
        if not (reg.name.endswith("full_like") and ex.args[0].dtype.kind == "i")
    ]
    assert_agrees_with_jax(reg, examples)


# ---- conventions ---------------------------------------------------------------------------
def test_full_and_full_like() -> None:
    _y, pb = cr.rrule(np.full, (2, 3), 1.5)
    assert float(pb(np.ones((2, 3)))[2]) == 6.0 and pb(np.ones((2, 3)))[1] is cr.NoTangent()
    x = np.ones((2, 2))
    _, pb = cr.rrule(np.full_like, x, 0.5)
    assert pb(np.ones((2, 2)))[1] is cr.ZeroTangent() and float(pb(np.ones((2, 2)))[2]) == 4.0
    _, pb = cr.rrule(np.full, (2, 3), np.array([1.0, 2.0, 3.0]))  # NumPy: a broadcast fill
    assert pb(np.ones((2, 3)))[2].tolist() == [2.0, 2.0, 2.0]
    _, pb = cr.rrule(np.full, (2,), 1.5, np.int64)  # an integer output: no tangent space
    assert pb(cr.NoTangent())[2] is cr.NoTangent()


def test_zero_derivative_likes() -> None:
    for f in (np.zeros_like, np.ones_like, np.empty_like):
        _, pb = cr.rrule(f, np.ones(3))
        assert pb(np.ones(3))[1] is cr.ZeroTangent()


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.creation.filled")


# ---- regression: an array fill_value on a library whose full takes a number only -----------
@pytest.mark.parametrize(
    "reg",
    [pytest.param(r, id=r.name) for r in REGS if r.name in ("full", "full_like")],
)
def test_array_fill_value_on_torch_under_func_grad(reg: cr.Registration) -> None:
    """Campaign seeds 391 and 3288: the rule called torch.full with a tensor fill_value, which
    PyTorch refuses ('must be Number, not Tensor') in eager, func.grad, vmap and compile. The
    rule now builds the array from the library's zeros and the broadcast fill, on every library;
    the gradient of sum(sin(full(...))) by the fill equals finite differences."""
    torch = pytest.importorskip("torch")
    from chainrules.interop import torch as crtorch
    from chainrules.testing.backends import BACKENDS

    f = crtorch.wrap(BACKENDS["torch"].function(reg))
    lead = (2, 3) if reg.name == "full" else torch.zeros((2, 3), dtype=torch.float64)

    def loss(fill):  # type: ignore[no-untyped-def]
        return torch.sum(torch.sin(f(lead, fill)))

    fill = torch.asarray(0.3, dtype=torch.float64)
    y = f(lead, fill)
    assert tuple(y.shape) == (2, 3) and y.dtype == torch.float64
    assert torch.equal(y, torch.full((2, 3), 0.3, dtype=torch.float64))
    g = torch.func.grad(loss)(fill)
    h = 1e-6
    fd = (float(loss(fill + h)) - float(loss(fill - h))) / (2 * h)
    assert abs(float(g) - fd) < 1e-8
    assert abs(float(g) - 6 * np.cos(0.3)) < 1e-12
    # NumPy keeps its behaviour: a broadcast fill, a given dtype, full_like's dtype of x
    assert (
        np.full((2, 3), np.arange(3.0)).tolist()
        == cr.rrule(np.full, (2, 3), np.arange(3.0))[0].tolist()
    )
    assert cr.rrule(np.full, (2,), np.asarray(1.5), np.float32)[0].dtype == np.float32
    y32, _ = cr.rrule(np.full_like, np.zeros(2, np.float32), np.asarray(1.5))
    assert y32.dtype == np.float32 and y32.tolist() == [1.5, 1.5]
