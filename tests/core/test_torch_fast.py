"""``chainrules.core.torch_fast``: the norms' pullbacks agree with NumPy's whichever path they
take, and the fast pullbacks with the generic ones."""

from __future__ import annotations

from typing import Any

import array_api_compat
import numpy as np
import pytest

import chainrules as cr
from chainrules.core import torch_fast

torch = pytest.importorskip("torch")


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


# --- the fast pullbacks agree with the generic ones ----------------------------------------------
# Each fast pullback takes a plain cotangent (torch_fast._plain_cotangent) and hands any other to
# the generic pullback. The tests pull the same cotangent back twice through one rule call: as
# given (the fast path: checked by the pullback's name and the predicate), and with the predicate
# switched off (the generic path), and compare the arrays exactly: both compute the same
# operations in the same order.


def _generic(monkeypatch: pytest.MonkeyPatch, pb: Any, y_bar: Any) -> Any:
    with monkeypatch.context() as m:
        m.setattr(torch_fast, "_plain_cotangent", lambda y_bar, y: False)
        return pb(y_bar)


def _same(fast: Any, generic: Any) -> None:
    assert type(fast) is torch.Tensor and fast.dtype == generic.dtype
    torch.testing.assert_close(fast, generic, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("name", ["exp", "sin", "tanh", "log", "sqrt", "atan", "expm1"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary_fast_pullback_agrees(monkeypatch: pytest.MonkeyPatch, name: str, dtype: str) -> None:
    g = torch.Generator().manual_seed(0)
    x = torch.rand(7, generator=g, dtype=getattr(torch, dtype)) + 0.5
    xp = array_api_compat.array_namespace(x)
    y, pb = cr.rrule(getattr(xp, name), x)
    y_bar = torch.randn(y.shape, generator=g, dtype=y.dtype)
    assert pb.__name__ == "real_tensor_pullback" and torch_fast._plain_cotangent(y_bar, y)
    fast = pb(y_bar)
    _same(fast[1], _generic(monkeypatch, pb, y_bar)[1])
    assert fast[0] == cr.NoTangent()


@pytest.mark.parametrize(
    ("x", "axis", "keepdims"),
    [
        ([3.0, -4.0, 0.0], None, False),
        ([0.0, 0.0], None, False),  # the kink: 0, never NaN
        ([1e-200, -3e-200], None, False),  # the norm underflows to 0 while x does not
        ([np.nan, 1.0], None, False),
        ([np.inf, 1.0, -np.inf], None, False),  # the limit: the generic pullback either way
        ([[3.0, -4.0], [0.0, 0.0], [1.0, np.inf]], 1, False),
        ([[3.0, -4.0], [0.0, 0.0], [1.0, 2.0]], 1, False),
        ([[3.0, -4.0], [0.0, 0.0], [1.0, 2.0]], 0, True),
        ([[3.0, -4.0], [0.0, 0.0], [1.0, 2.0]], None, True),
    ],
)
def test_norm2_fast_pullback_agrees(
    monkeypatch: pytest.MonkeyPatch, x: Any, axis: Any, keepdims: bool
) -> None:
    xt = torch.tensor(x, dtype=torch.float64)
    xp = array_api_compat.array_namespace(xt)
    y, pb = cr.rrule(xp.linalg.vector_norm, xt, axis=axis, keepdims=keepdims)
    y_bar = torch.linspace(-1.5, 2.0, max(y.numel(), 1), dtype=y.dtype).reshape(y.shape)
    assert pb.__name__ == "norm2_tensor_pullback" and torch_fast._plain_cotangent(y_bar, y)
    _same(pb(y_bar)[1], _generic(monkeypatch, pb, y_bar)[1])
    # and NumPy's generic rule gives the same gradient
    _, pn = cr.rrule(np.linalg.vector_norm, np.asarray(x), axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(pb(y_bar)[1].numpy(), pn(y_bar.numpy())[1], rtol=1e-15, atol=0)


@pytest.mark.parametrize(
    ("sa", "sb"), [((3, 4), (4,)), ((3, 4), (4, 2)), ((4,), (4, 2)), ((4,), (4,))]
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matmul_fast_pullback_agrees(
    monkeypatch: pytest.MonkeyPatch, sa: Any, sb: Any, dtype: str
) -> None:
    g = torch.Generator().manual_seed(1)
    dt = getattr(torch, dtype)
    a, b = torch.randn(sa, generator=g, dtype=dt), torch.randn(sb, generator=g, dtype=dt)
    xp = array_api_compat.array_namespace(a)
    y, pb = cr.rrule(xp.matmul, a, b)
    y_bar = torch.randn(y.shape, generator=g, dtype=dt)
    assert pb.__name__ == "matmul_tensor_pullback" and torch_fast._plain_cotangent(y_bar, y)
    fast = pb(y_bar)
    assert all(isinstance(t, cr.Thunk) for t in fast[1:])  # each forced only when asked for
    generic = _generic(monkeypatch, pb, y_bar)
    for f, gn in zip(fast[1:], generic[1:], strict=True):
        _same(cr.unthunk(f), cr.unthunk(gn))


def test_fast_paths_apply_to_plain_real_tensors_only() -> None:
    xp = array_api_compat.array_namespace(torch.ones(1))
    x = torch.ones(3, dtype=torch.float64)
    assert torch_fast.real_tensor(x)
    for other in (
        torch.nn.Parameter(x.clone()),  # a subclass
        x.to(torch.complex128),  # conjugation: the generic path
        torch.ones(3, dtype=torch.int64),
        np.ones(3),
    ):
        assert not torch_fast.real_tensor(other)
    _, pb = cr.rrule(xp.exp, x.to(torch.complex128))
    assert pb.__name__ != "real_tensor_pullback"
    assert cr.rrule(xp.matmul, x, x.to(torch.float32))[1].__name__ != "matmul_tensor_pullback"
    y, pb = cr.rrule(xp.linalg.vector_norm, x)
    # a Python number, another dtype, a chunk: not plain, the generic pullback (same values)
    assert not torch_fast._plain_cotangent(2.0, y)
    assert not torch_fast._plain_cotangent(torch.tensor(2.0, dtype=torch.float32), y)
    torch.testing.assert_close(pb(2.0)[1], pb(torch.tensor(2.0, dtype=torch.float64))[1])


def test_norm2_fast_rule_leaves_other_axes_to_the_generic_rule() -> None:
    x = torch.ones((2, 3), dtype=torch.float64)
    xp = array_api_compat.array_namespace(x)
    y, pb = cr.rrule(xp.linalg.vector_norm, x, axis=(0, 1))  # a tuple: the generic rule
    assert pb.__name__ != "norm2_tensor_pullback"
    torch.testing.assert_close(pb(torch.tensor(1.0, dtype=torch.float64))[1], x / y)
    with pytest.raises(ValueError, match="vector_norm: axis 2 is out of bounds"):
        cr.rrule(xp.linalg.vector_norm, x, axis=2)  # named by the generic rule's parser
