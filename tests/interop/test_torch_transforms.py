"""The torch bridge under ``torch.export`` and ``torch.compile`` of ``torch.func`` transforms
(issue 28, the matrix's torch cells that raised torch's own errors)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import array_api_compat.torch as ctorch  # noqa: E402

from chainrules.interop import torch as crtorch  # noqa: E402

tf = torch.func
X0 = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64)


def _transforms(f: Any) -> dict[str, Any]:
    """Each ``torch.func`` transform of the bridged elementwise ``f``, as a function of ``v``;
    ``vmap`` alone too."""

    def loss(v: Any) -> Any:
        return torch.sum(f(v) ** 2)

    ones = torch.ones(3, dtype=torch.float64)
    return {
        "grad": tf.grad(loss),
        "vjp": lambda v: tf.vjp(f, v)[1](ones)[0],
        "jvp": lambda v: tf.jvp(f, (v,), (ones,))[1],
        "jacrev": tf.jacrev(f),
        "jacfwd": tf.jacfwd(f),
        "hessian": tf.hessian(loss),
        "vmap(grad)": lambda v: tf.vmap(tf.grad(loss))(torch.stack([v, 2 * v])),
        "vmap": lambda v: tf.vmap(f)(torch.stack([v, 2 * v])),
    }


#: the torch.func levels each transform opens, outermost first, as the error names them
STACKS = {
    "grad": "grad",
    "vjp": "grad",
    "jvp": "jvp",
    "jacrev": "grad",  # (its vjp is vmapped, after the forward)
    "jacfwd": "vmap of jvp",
    "hessian": "vmap of jvp of grad",
    "vmap(grad)": "vmap of grad",
    "vmap": "vmap",
}


def _export(fn: Any, v: Any) -> Any:
    class Program(torch.nn.Module):
        def forward(self, v: Any) -> Any:
            return fn(v)

    return torch.export.export(Program(), (v,))


def _dual_level_open() -> bool:
    try:
        level = torch._C._enter_dual_level()
    except RuntimeError:  # "Nested forward mode AD is not supported"
        return True
    torch._C._exit_dual_level(level=level)
    return False


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("which", list(STACKS))
def test_export_of_a_func_transform_raises_naming_it(which: str) -> None:
    """``torch.export`` of ``torch.func.grad`` / ``vjp`` / ``jacrev`` / ``hessian`` /
    ``vmap(grad)`` raised torch's "must override the setup_context staticmethod" (the custom
    op's autograd under torch.func); of ``jvp`` / ``jacfwd`` it exported a program that failed an
    internal assert when run and left a functorch level on the stack. Torch 2.13 cannot export
    these transforms around either of the bridge's routes (and records tensors made inside them
    as constants, its own functions' too): the bridge raises its own error naming the
    transforms and the function, and torch's transform state is left as it was -- the same
    function then works eagerly, compiled-free, and exported without a transform."""
    f = crtorch.wrap(np.sin)
    depth = torch._C._functorch.get_dynamic_layer_stack_depth()
    with pytest.raises(crtorch.RuleNotUsedError) as info:
        _export(_transforms(f)[which], X0.clone())
    msg = str(info.value)
    assert f"torch.export of torch.func's {STACKS[which]} around numpy.sin" in msg
    assert "Export the function itself" in msg
    # nothing left behind: no functorch level, no forward-mode level
    assert torch._C._functorch.get_dynamic_layer_stack_depth() == depth
    assert not torch._C._are_functorch_transforms_active()
    assert not _dual_level_open()
    # later transformations in the process still work, with the rules' values
    torch.testing.assert_close(tf.grad(lambda v: f(v).sum())(X0), torch.cos(X0))
    torch.testing.assert_close(tf.jvp(f, (X0,), (torch.ones_like(X0),))[1], torch.cos(X0))
    torch.testing.assert_close(tf.hessian(lambda v: f(v).sum())(X0), torch.diag(-torch.sin(X0)))
    ep = _export(f, X0.clone())
    x = X0.clone().requires_grad_()
    ep.module()(x).sum().backward()
    torch.testing.assert_close(x.grad, torch.cos(X0))


# --- torch.compile of reverse-mode transforms over an accumulating scatter ----------------------

IDX = torch.tensor([0, 2, 2, 1, 2])  # repeated: take's pullback accumulates


def _take_program() -> tuple[Any, Any]:
    take = crtorch.wrap(ctorch.take)

    def F(v: Any) -> Any:
        return take(v * v, IDX)

    def L(v: Any) -> Any:
        return torch.sum(torch.sin(F(v)))

    return F, L


def _counts() -> Any:
    return torch.bincount(IDX, minlength=3).to(torch.float64)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")  # inductor's own, in jacrev's basis
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_reverse_transforms_of_take_with_a_repeated_index(backend: str) -> None:
    """``torch.compile(torch.func.jacrev / hessian / vmap(grad))`` of ``take`` with a repeated
    index raised "RuntimeError when making fake tensor call": under compile the pullback's
    accumulating scatter writes in place (``index_put_``, which inductor compiles right) into a
    copy of its zero destination, which was not batched under ``vmap`` while the cotangent was.
    The copy is now batched wherever the values are; each value equals the closed form."""
    F, L = _take_program()
    x = X0
    J = torch.zeros(len(IDX), 3, dtype=torch.float64)
    J[torch.arange(len(IDX)), IDX] = 2 * x[IDX]
    y = x[IDX] ** 2
    # L = sum_k sin(x[i_k]^2): grad_j = sum_{k: i_k = j} 2 x_j cos(x_j^2), Hessian diagonal
    c = _counts()
    grad = c * 2 * x * torch.cos(x * x)
    hess = torch.diag(c * (2 * torch.cos(x * x) - 4 * x * x * torch.sin(x * x)))
    xs = torch.stack([x, 2 * x])
    grads = torch.stack([c * 2 * u * torch.cos(u * u) for u in xs])
    torch.testing.assert_close(F(x), y)
    for fn, want, arg in (
        (tf.jacrev(F), J, x),
        (tf.hessian(L), hess, x),
        (tf.vmap(tf.grad(L)), grads, xs),
        (tf.grad(L), grad, x),
    ):
        torch._dynamo.reset()  # a cold cache
        compiled = torch.compile(fn, backend=backend, fullgraph=True)
        torch.testing.assert_close(compiled(arg), want, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(fn(arg), want, rtol=1e-12, atol=1e-12)  # eager agrees


#: a bridged selection whose pullback scatters with a repeated index, and how it is called
SELECTIONS = {
    # a full slice but one axis: index_add when eager
    "take-axis-1": (ctorch.take, lambda f, x: f(x, IDX, axis=1)),
    # an index array on the leading axis: index_put of that array when eager
    "rows": (operator.getitem, lambda f, x: f(x, IDX[:3])),
    # an index array and a slice: index_put at flat positions when eager
    "rows-and-slice": (operator.getitem, lambda f, x: f(x, (IDX[:3], slice(1, None)))),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("which", list(SELECTIONS))
def test_compiled_scatter_of_two_dimensional_keys_agrees_with_eager(
    which: str, backend: str
) -> None:
    """Under ``torch.compile`` every accumulating key of a 2-D destination is a flat
    ``scatter_add``; eagerly each key keeps its own form (``index_add`` along an axis,
    ``index_put`` of leading index arrays, ``index_put`` at flat positions). The two agree under
    ``grad``, ``hessian`` and ``vmap(grad)``, and eager ``grad`` is the closed form."""
    fn, call = SELECTIONS[which]
    f = crtorch.wrap(fn)
    x = torch.linspace(-1.0, 1.2, 12, dtype=torch.float64).reshape(3, 4)
    shape = call(f, x).shape
    w = torch.arange(1.0, 1.0 + shape.numel(), dtype=torch.float64).reshape(shape)

    def L(x: Any) -> Any:
        return torch.sum(torch.sin(call(f, x * x)) * w)

    # closed form: torch's own indexing, differentiated by torch
    own = {"take-axis-1": lambda x: x[:, IDX], "rows": lambda x: x[IDX[:3]]}.get(
        which, lambda x: x[IDX[:3], 1:]
    )
    x_ = x.clone().requires_grad_()
    torch.sum(torch.sin(own(x_ * x_)) * w).backward()
    torch.testing.assert_close(tf.grad(L)(x), x_.grad, rtol=1e-12, atol=1e-12)
    for t, arg in (
        (tf.grad(L), x),
        (tf.hessian(L), x),
        (tf.vmap(tf.grad(L)), torch.stack([x, -x])),
    ):
        torch._dynamo.reset()
        want = t(arg)
        got = torch.compile(t, backend=backend, fullgraph=True)(arg)
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
