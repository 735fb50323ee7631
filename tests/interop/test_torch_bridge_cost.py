"""What the PyTorch bridge computes (issue 14 point 6): the backward pass reuses the forward's
pullback (no second rrule call), and cotangents of inputs that need no gradient are never forced
(``ctx.needs_input_grad``). Counted, not timed: the ratios are in benchmarks/torch_bridge.py."""

from __future__ import annotations

from typing import Any

import pytest

import chainrules as cr

torch = pytest.importorskip("torch")
from chainrules.interop import torch as crtorch  # noqa: E402

CALLS = {"rrule": 0, "x_bar": 0, "a_bar": 0}


def scaled_product(x: Any, a: Any) -> Any:
    return x * a


@cr.register_rrule(scaled_product)
def _scaled_product_rrule(x: Any, a: Any) -> Any:
    CALLS["rrule"] += 1

    def scaled_product_pullback(y_bar: Any) -> Any:
        def x_bar() -> Any:
            CALLS["x_bar"] += 1
            return y_bar * a

        def a_bar() -> Any:
            CALLS["a_bar"] += 1
            return y_bar * x

        return cr.NoTangent(), cr.Thunk(x_bar), cr.Thunk(a_bar)

    return x * a, scaled_product_pullback


@cr.register_frule(scaled_product)
def _scaled_product_frule(tangents: Any, x: Any, a: Any) -> Any:
    _, dx, da = (cr.unthunk(t) for t in tangents)
    zero = isinstance(dx, cr.AbstractZero), isinstance(da, cr.AbstractZero)
    dot = (0 if zero[0] else dx * a) + (0 if zero[1] else x * da)
    return x * a, dot


@pytest.fixture(autouse=True)
def _reset() -> None:
    for k in CALLS:
        CALLS[k] = 0


def test_backward_reuses_the_forward_pullback_and_forces_only_needed_cotangents() -> None:
    f = crtorch.wrap(scaled_product)
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    a = torch.tensor([3.0, 4.0], dtype=torch.float64)  # data: no gradient
    (g,) = torch.autograd.grad(f(x, a), x, torch.ones(2, dtype=torch.float64))
    torch.testing.assert_close(g, a)
    assert CALLS == {"rrule": 1, "x_bar": 1, "a_bar": 0}


def test_create_graph_recomputes_so_second_derivatives_flow() -> None:
    f = crtorch.wrap(scaled_product)
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    a = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    (gx,) = torch.autograd.grad(f(x, a).sum(), x, create_graph=True)
    (gxa,) = torch.autograd.grad(gx.sum(), a)  # d/da of d/dx sum(x * a) = 1
    torch.testing.assert_close(gxa, torch.ones(2, dtype=torch.float64))
    assert CALLS["rrule"] == 2  # the forward, and the recorded backward's recomputation


def test_a_call_of_positional_tensors_binds_no_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    # Function.apply binds its arguments with inspect.signature on every call (about half of
    # the bridge's fixed cost at n = 10); the bridge calls the C apply directly instead
    import inspect

    f = crtorch.wrap(scaled_product)
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    a = torch.tensor([3.0, 4.0], dtype=torch.float64)
    f(x, a)  # build, warm
    seen: list[Any] = []
    real = inspect.signature

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counting)
    (g,) = torch.autograd.grad(f(x, a), x, torch.ones(2, dtype=torch.float64))
    torch.testing.assert_close(g, a)
    assert seen == []


def test_the_fast_path_agrees_with_the_general_one() -> None:
    # positional tensors only take the fast path; a NumPy argument, a keyword, a tuple do not
    import numpy as np

    f = crtorch.wrap(scaled_product)
    x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    a = np.array([3.0, 5.0])
    ones = torch.ones(2, dtype=torch.float64)
    fast = torch.autograd.grad(f(x, torch.as_tensor(a)), x, ones)
    general = torch.autograd.grad(f(x, a), x, ones)
    keyword = torch.autograd.grad(f(x, a=torch.as_tensor(a)), x, ones)
    for g in (fast, general, keyword):
        torch.testing.assert_close(g[0], torch.as_tensor(a))
    # both arguments wanted: both thunks forced, once each
    xa = torch.tensor(a, requires_grad=True)
    gx, ga = torch.autograd.grad(f(x, xa), (x, xa), ones)
    torch.testing.assert_close(gx, xa.detach())
    torch.testing.assert_close(ga, x.detach())
    assert CALLS["x_bar"] == 3 + 1 and CALLS["a_bar"] == 1


def test_transforms_still_go_through_function_apply() -> None:
    # under torch.func the C apply would skip functorch's custom_function_call: the gradient
    # would be wrong or raise; it must match the eager one
    f = crtorch.wrap(scaled_product)
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    a = torch.tensor([3.0, 4.0], dtype=torch.float64)
    g = torch.func.grad(lambda x: f(x, a).sum())(x)
    torch.testing.assert_close(g, a)
    gv = torch.func.vmap(torch.func.grad(lambda x: f(x, a).sum()))(torch.stack([x, 2 * x]))
    torch.testing.assert_close(gv, torch.stack([a, a]))


def test_outputs_and_residuals_are_freed_without_the_cyclic_collector() -> None:
    # the kept pullback holds the rule's output; the tensor PyTorch hands out (whose grad_fn
    # holds the pullback) must not be that object, or each call leaves a reference cycle
    import gc
    import weakref

    import array_api_compat.torch as ctorch

    f = crtorch.wrap(ctorch.exp)
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    was = gc.isenabled()
    gc.disable()
    try:
        y = f(x)
        ref = weakref.ref(y)
        (g,) = torch.autograd.grad(y, x, torch.ones(2, dtype=torch.float64))
        torch.testing.assert_close(g, torch.exp(x.detach()))
        del y
        assert ref() is None  # after a backward pass
        y = f(x)
        ref = weakref.ref(y)
        del y
        assert ref() is None  # with no backward pass
    finally:
        if was:
            gc.enable()


def test_an_output_modified_in_place_is_refused_as_torch_refuses_it() -> None:
    # the kept pullback would read the modified values (exp's pullback reads its output)
    import array_api_compat.torch as ctorch

    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    for f in (torch.exp, crtorch.wrap(ctorch.exp)):
        y = f(x)
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            torch.autograd.grad(y.sum(), x)


def test_an_input_or_any_output_modified_in_place_is_refused() -> None:
    # the kept pullback reads its inputs and outputs: the bridge checks their version counters
    # (not save_for_backward) and names the function and the tensor; a view of an output shares
    # its version counter; untouched tensors pass
    import array_api_compat.torch as ctorch

    mul, split = crtorch.wrap(ctorch.multiply), crtorch.wrap(ctorch.linalg.eigh)
    x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    a = torch.tensor([2.0, 3.0], dtype=torch.float64)
    y = mul(x, a)
    a.add_(1.0)  # data the pullback reads (x's cotangent is y_bar * a)
    with pytest.raises(
        RuntimeError, match=r"wrap\(.*multiply\): .*modified by an inplace operation: input 1 "
    ):
        torch.autograd.grad(y.sum(), x)
    m = torch.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=torch.float64, requires_grad=True)
    w, v = split(m)
    v[:, 0].mul_(-1.0)  # a view of output 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation: output 1 "):
        torch.autograd.grad(w.sum() + v.sum(), m)
    w, v = split(m)
    (g,) = torch.autograd.grad(w.sum(), m)  # nothing modified: the trace's derivative, identity
    torch.testing.assert_close(g, torch.eye(2, dtype=torch.float64))


def scaled_sin(x: Any) -> Any:
    return torch.sin(x)


_OUTPUTS: list[Any] = []  # weak references to scaled_sin's rule outputs


@cr.register_rrule(scaled_sin)
def _scaled_sin_rrule(x: Any) -> Any:
    import weakref

    y = torch.sin(x)
    _OUTPUTS.append(weakref.ref(y))
    c = torch.cos(x)
    return y, lambda g: (cr.NoTangent(), g * c)  # the pullback does not hold y


def test_the_version_check_keeps_no_output_alive() -> None:
    # the backward pass checks the outputs the pullback may read; an output nobody holds (not
    # the pullback, not the user) is not kept alive by the check while the graph lives
    f = crtorch.wrap(scaled_sin)
    x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    loss = f(x).sum()  # the graph lives as long as loss; the returned alias is dropped
    (g,) = torch.autograd.grad(loss, x, retain_graph=True)
    torch.testing.assert_close(g, torch.cos(x.detach()))
    assert _OUTPUTS[-1]() is None and loss.grad_fn is not None
    (g2,) = torch.autograd.grad(loss, x)  # the retained graph pulls back again
    torch.testing.assert_close(g2, g)


def test_the_projectors_fast_path_keeps_the_device_check() -> None:
    # a cotangent of the primal's type, shape and dtype on the primal's device is returned as
    # it is (no array-api-compat device() chain); one on another device is not, and the
    # cotangent check refuses it naming both devices
    from chainrules.core.toolkit import check_cotangent

    x = torch.ones(3, dtype=torch.float64)
    g = torch.full((3,), 2.0, dtype=torch.float64)
    p = cr.ProjectTo(x)
    assert p(g) is g
    meta = torch.ones(3, dtype=torch.float64, device="meta")
    try:
        out = p(meta)
    except NotImplementedError:  # moving a meta tensor to the CPU: it has no data
        out = None
    assert out is not meta
    with pytest.raises(TypeError, match="device meta"):
        check_cotangent("f", meta, x)


def test_a_call_with_static_arguments_is_split_once_per_structure() -> None:
    # sum(x, axis=0), x * 2.0: the split is made on the first call of a structure and reused
    # (SimpleSplit); each call still gets its own static values, and the cache holds no tensor
    import weakref

    import array_api_compat.torch as ctorch

    from chainrules.core.calls import SimpleSplit

    s, mul = crtorch.wrap(ctorch.sum), crtorch.wrap(ctorch.multiply)
    x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=torch.float64, requires_grad=True)
    for axis in (0, 1, 0, (0, 1), None):
        y = s(x, axis=axis)
        torch.testing.assert_close(y, torch.sum(x.detach(), dim=axis))
        (g,) = torch.autograd.grad(y, x, torch.ones_like(y))
        torch.testing.assert_close(g, torch.ones_like(x))
    v = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    for c in (2.0, 3.0, -0.0, 0.0, 2, True):
        (g,) = torch.autograd.grad(mul(v, c), v, torch.ones(2, dtype=torch.float64))
        want = torch.full((2,), float(c), dtype=torch.float64)
        torch.testing.assert_close(g, want)
        assert torch.equal(torch.signbit(g), torch.signbit(want))  # -0.0 is not 0.0's split
    w = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    (gw,) = torch.autograd.grad(mul(2.0, w), w, torch.ones(2, dtype=torch.float64))
    torch.testing.assert_close(gw, torch.full((2,), 2.0, dtype=torch.float64))
    ref = weakref.ref(x)
    cached = s.__chainrules_splits__
    assert len(cached) == 4 and all(type(v) is SimpleSplit for v in cached.values())
    del x, y, g
    assert ref() is None  # no split in the cache holds the tensor


def test_the_simple_split_agrees_with_the_general_one() -> None:
    # the same call through the cached split and through the general walk (a NumPy argument
    # takes the walk): values and gradients agree, also for an integer positional tensor
    import array_api_compat.torch as ctorch
    import numpy as np

    take = crtorch.wrap(ctorch.take)
    x = torch.tensor([1.0, -2.0, 3.0, 5.0], dtype=torch.float64, requires_grad=True)
    idx = torch.tensor([3, 0, 0])
    for _ in range(2):  # the second call: from the cache
        y1 = take(x, idx, axis=0)
        y2 = take(x, np.asarray([3, 0, 0]), axis=0)
        torch.testing.assert_close(y1, y2)
        g1 = torch.autograd.grad(y1, x, torch.ones(3, dtype=torch.float64))[0]
        g2 = torch.autograd.grad(y2, x, torch.ones(3, dtype=torch.float64))[0]
        torch.testing.assert_close(g1, g2)
        torch.testing.assert_close(g1, torch.tensor([2.0, 0.0, 0.0, 1.0], dtype=torch.float64))
