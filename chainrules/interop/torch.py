"""PyTorch bridge: ``wrap(f)`` is a function of tensors whose derivatives come from ``f``'s rules.

Built on ``torch.autograd.Function`` with a context-free ``forward`` and a ``setup_context``
(what ``torch.func`` and ``torch.compile`` need):

* ``backward`` calls the registered **rrule** on the saved inputs (``save_for_backward``) and
  applies its pullback to the incoming gradient. The rule runs on tensors through
  ``array_api_compat.torch``, so when PyTorch records the backward (``create_graph=True``,
  ``gradgradcheck``, ``torch.func.grad`` of a gradient) the pullback is differentiated again by
  PyTorch itself. The pullback of the forward call is not kept (it would hold tensors outside
  PyTorch's saved-tensor machinery, which ``torch.func`` transforms cannot see): the rrule is
  recomputed in the backward pass.
* ``jvp`` (forward-mode AD: ``torch.autograd.forward_ad``, ``gradcheck(check_forward_ad=True)``)
  calls the registered **frule**. TorchDynamo refuses an ``autograd.Function`` that defines
  ``jvp``, so the bridge uses a second Function *without* ``jvp`` unless an input carries a
  forward-mode tangent: ``torch.compile(fullgraph=True)`` then traces it without a graph break.
* ``generate_vmap_rule = True``: ``torch.func.vmap`` runs the rules on batched tensors (they are
  written against the Array API, with no data-dependent Python control flow).

Arguments: tensors anywhere in the (nested tuple / list / dict) arguments are passed to the
Function; NumPy arrays are converted with ``torch.as_tensor`` at the boundary; every other leaf
(Python numbers, axes, orders, slices) is static. Integer and boolean tensors and all keyword
arguments get ``None`` gradients. PyTorch's complex gradient convention is chainrules' own, so no
conversion is needed.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import torch
from torch.autograd import forward_ad

from ..core.tangents import NoTangent
from ._common import (
    Rules,
    Split,
    check_leaf,
    find_rules,
    output_leaves,
    split,
    tangent_output_leaves,
)

__all__ = ["wrap"]


def _is_dynamic(x: Any) -> bool:
    return isinstance(x, (torch.Tensor, np.ndarray))


def _inexact(x: Any) -> bool:
    return bool(x.is_floating_point() or x.is_complex())


def wrap(f: Any) -> Any:
    """A function of tensors computing ``f`` whose derivatives come from ``f``'s rules.

    Reverse mode comes from the rrule, forward mode from the frule (both are needed; a
    ``NoRuleError`` naming ``f`` is raised otherwise).

    >>> import torch, numpy as np
    >>> from chainrules.interop import torch as crtorch
    >>> norm = crtorch.wrap(np.linalg.norm)
    >>> x = torch.tensor([3.0, 4.0], requires_grad=True)
    >>> norm(x).backward()
    >>> x.grad
    tensor([0.6000, 0.8000])
    """
    rules = find_rules(f, "torch", need="both")
    plain, with_jvp = _functions(rules)

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        sp = split(args, kwargs, _is_dynamic)
        dyn = [
            torch.as_tensor(sp.leaves[i]) if isinstance(sp.leaves[i], np.ndarray) else sp.leaves[i]
            for i in sp.dynamic
        ]
        fn = with_jvp if _has_forward_tangent(dyn) else plain
        out = fn.apply(sp, *dyn)
        return out

    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    return wrapped


def _has_forward_tangent(dyn: list[Any]) -> bool:
    if torch.compiler.is_compiling():
        return False
    return any(forward_ad.unpack_dual(t).tangent is not None for t in dyn)


def _fresh(y: Any, dyn: tuple[Any, ...]) -> Any:
    return y.view_as(y) if any(y is d for d in dyn) else y


def _functions(rules: Rules) -> tuple[Any, Any]:
    rrule, frule, name = rules.rrule, rules.frule, rules.name
    assert rrule is not None and frule is not None

    def forward(sp: Split, *dyn: Any) -> Any:
        args, kwargs = sp.rebuild(dyn)
        y = rrule(*args, **kwargs)[0]
        # an input returned as it is cannot be saved for backward with setup_context: return a
        # view of it (getitem of a tuple, a no-op reshape)
        if isinstance(y, tuple):
            return (
                type(y)(*(_fresh(v, dyn) for v in y))
                if hasattr(y, "_fields")
                else tuple(_fresh(v, dyn) for v in y)
            )
        return _fresh(y, dyn)

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        sp, *dyn = inputs
        ctx.sp = sp
        ctx.save_for_backward(*dyn)
        ctx.save_for_forward(*dyn)

    def backward(ctx: Any, *grads: Any) -> Any:
        sp: Split = ctx.sp
        dyn = ctx.saved_tensors
        args, kwargs = sp.rebuild(dyn)
        y, pullback = rrule(*args, **kwargs)
        ys, rebuild = output_leaves(y)
        bars = [torch.zeros_like(yi) if g is None else g for g, yi in zip(grads, ys, strict=True)]
        cts = sp.cotangents(pullback(rebuild(bars)), args)
        out: list[Any] = [None]
        for pos, p in zip(sp.dynamic, dyn, strict=True):
            c = cts[pos]
            if c is None or not _inexact(p) or not ctx.needs_input_grad[len(out)]:
                out.append(None)
                continue
            check_leaf(name, "rrule", sp.arg_of[pos], c, p, c.dtype == p.dtype)
            out.append(c)
        return tuple(out)

    def jvp(ctx: Any, *tangents: Any) -> Any:
        sp: Split = ctx.sp
        dyn = ctx.saved_tensors
        args, kwargs = sp.rebuild(dyn)
        leaf_t = {
            pos: t
            for pos, p, t in zip(sp.dynamic, dyn, tangents[1:], strict=True)
            if t is not None and sp.arg_of[pos] >= 0 and _inexact(p)
        }
        targs = sp.tangents(leaf_t, NoTangent())
        y, y_dot = frule((NoTangent(), *targs), *args, **kwargs)
        ys, _ = output_leaves(y)
        dots = tangent_output_leaves(y_dot, len(ys))
        out = []
        for yi, di in zip(ys, dots, strict=True):
            if di is None:
                out.append(torch.zeros_like(yi))
                continue
            check_leaf(name, "frule", -1, di, yi, di.dtype == yi.dtype)
            out.append(di)
        return out[0] if len(out) == 1 and not isinstance(y, tuple) else tuple(out)

    body = {
        "forward": staticmethod(forward),
        "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward),
        "generate_vmap_rule": True,
    }
    short = name.rsplit(".", 1)[-1]
    plain = type(f"{short}_rule", (torch.autograd.Function,), dict(body))
    with_jvp = type(
        f"{short}_rule_fwd", (torch.autograd.Function,), {**body, "jvp": staticmethod(jvp)}
    )
    return plain, with_jvp
