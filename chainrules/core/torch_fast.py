"""PyTorch fast paths: where a plain tensor lets a rule skip work that the portable,
device-safe formula must do.

Each function returns ``False`` (or ``None``) when it does not apply, and the caller takes the
generic path. torch is found in ``sys.modules``, never imported here (a tensor cannot exist
before ``torch`` was imported), so ``import chainrules`` imports no torch.

* The pullbacks of ``exp`` and the other one-argument formula rules (:func:`unary_pullback`), of
  the 2-norm (:func:`norm2_pullback`) and the rule of ``matmul`` of matrices and vectors
  (:func:`matmul_rrule`), for plain real tensors (:func:`real_tensor`). At n = 10 a torch
  operation called from Python costs about 1-2 us, and the generic pullbacks spent 5-50x that
  around their few operations: ``check_cotangent``, ``ProjectTo`` built per argument,
  ``array_api_compat``'s device and namespace look-ups, ``traceable`` dispatch, reshapes that a
  rank-0 norm or a matrix-vector product does not need. These pullbacks run the generic
  formula's operations, in its order, on a cotangent that needs none of those checks (a plain
  tensor of the output's shape, dtype and device: :func:`_plain_cotangent`), and hand anything
  else to the generic pullback.

``tests/core/test_torch_fast.py`` checks when each applies and that the fast and the generic path
give the same arrays (exactly).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

from .tangents import NoTangent, Thunk

__all__ = [
    "compiling",
    "host_readable",
    "matmul_rrule",
    "norm2_pullback",
    "norm2_rrule",
    "real_tensor",
    "unary_pullback",
]

_NO = NoTangent()


def compiling() -> bool:
    """``torch.compile`` is tracing the caller: a global cache must not be written (Dynamo
    refuses a write to a global dict inside an ``autograd.Function``, which the torch bridge is,
    so a rule that filled a cache on its first call broke the graph when that call was traced)."""
    torch = sys.modules.get("torch")
    return torch is not None and bool(torch.compiler.is_compiling())


def host_readable(a: Any) -> bool:
    """``a`` is a plain eager CPU tensor: reading its values costs no device synchronisation and
    no graph break (see the module)."""
    torch = sys.modules.get("torch")
    if torch is None or type(a) is not torch.Tensor or torch.compiler.is_compiling():
        return False  # first: Dynamo cannot trace the functorch check below
    if not a.is_cpu or torch._C._functorch.is_functorch_wrapped_tensor(a):
        return False
    # (torch.jit.is_tracing() is this after a check of is_scripting, False in eager Python)
    return not (torch._C._is_tracing() or torch.jit.is_scripting())


def real_tensor(a: Any) -> bool:
    """``a`` is a plain ``torch.Tensor`` (not a subclass: a DTensor, a ``Parameter`` takes the
    generic path) of a real floating dtype: what the fast pullbacks below take."""
    torch = sys.modules.get("torch")
    return torch is not None and type(a) is torch.Tensor and a.dtype.is_floating_point


def _plain_cotangent(y_bar: Any, y: Any) -> bool:
    """``y_bar`` needs nothing of ``check_cotangent``: a plain tensor of ``y``'s shape, dtype and
    device (no Thunk, no zero marker, no other library, no cast, no chunk)."""
    return (
        type(y_bar) is type(y)
        and y_bar.shape == y.shape
        and y_bar.dtype == y.dtype
        and y_bar.device == y.device
    )


def unary_pullback(
    name: str,
    partial: tuple[Any, bool, bool],
    generic: Callable[..., Any],
    arg_kind: Callable[[Any, Any], tuple[str, Any]],
    x: Any,
    xp: Any,
    out: Any,
    strong: bool = False,
) -> Callable[..., tuple[Any, Any]]:
    """The pullback of a one-argument formula rule (``scalar_rule``) at a real tensor ``x``
    (:func:`real_tensor`) whose partial is a function: ``y_bar * p(xp, out, x)`` when the
    cotangent is plain (:func:`_plain_cotangent`) and the product has ``x``'s dtype -- exactly
    what the generic pullback ``generic(name, partial, x, xp, out, kind, proj, y_bar, chunk)``
    computes there, without its checks and without building ``x``'s projector (``strong``:
    a zero of ``y_bar`` gives 0 also where the partial is infinite, as the generic pullback's
    strong product). Any other cotangent goes to ``generic``."""
    p = partial[0]

    def real_tensor_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, Any]:
        if not chunk and _plain_cotangent(y_bar, out):
            v = y_bar * p(xp, out, x)
            if strong:
                v = v.masked_fill(y_bar == 0, 0)
            if v.dtype == x.dtype and v.shape == x.shape:
                return _NO, v
        kind, proj = arg_kind(x, xp)
        return generic(name, partial, x, xp, out, kind, proj, y_bar, chunk)

    return real_tensor_pullback


def norm2_rrule(x: Any, axis: Any, keepdims: bool, generic: Callable[[Any], Any]) -> Any:
    """``(y, pullback)`` of the 2-norm of a real tensor ``x`` (:func:`real_tensor`) over every
    axis or one (``axis`` ``None`` or an int in range), or ``None`` (the generic rule then runs,
    and parses any other ``axis``). ``y`` is ``torch.linalg.vector_norm``, what
    ``array_api_compat``'s ``vector_norm`` calls for such an ``axis``; the pullback is
    :func:`norm2_pullback`, whose fallback is ``generic(y)``, the generic rule's pullback."""
    if not real_tensor(x) or not (axis is None or type(axis) is int):
        return None
    nd = x.ndim
    if axis is None:
        axes = tuple(range(nd))
    elif -nd <= axis < nd:
        axes = (axis % nd,)
    else:
        return None
    norm = sys.modules["torch"].linalg.vector_norm
    # the defaults (ord 2, every axis) when they are what is asked: an ord passed from Python
    # costs a conversion to a Scalar, a sixth of the call at n = 10
    y = norm(x) if axis is None and not keepdims else norm(x, 2, axis, keepdims)
    return y, norm2_pullback(x, y, axes, keepdims, lambda: generic(y))


def norm2_pullback(
    x: Any, y: Any, axes: tuple[int, ...], keepdims: bool, generic: Callable[[], Any]
) -> Callable[..., tuple[Any, ...]]:
    """The pullback of the 2-norm ``y`` of a real tensor ``x`` (:func:`real_tensor`) over
    ``axes`` (sorted, non-negative): ``x * (y_bar / y)``, with ``y`` taken as 1 where it is 0,
    when the cotangent is plain (:func:`_plain_cotangent`) and ``y`` is a CPU tensor with no
    infinite entry, read on the host. That is what the generic pullback (``norm2_back``)
    computes there, with the same operations, without its checks, its projector and its
    ``traceable`` dispatch; a rank-0 norm (every axis) is read once and branched on on the host,
    with no ``isinf`` and no ``where`` kernel. Anything else -- an infinite norm (its limit), a
    device or a traced tensor (no host read), a chunk, another cotangent -- goes to the pullback
    ``generic()`` builds (built then, not before: it costs more than the fast pullback). The
    operations are recorded by PyTorch when it differentiates the backward pass
    (``create_graph``), with no NaN at ``y = 0`` (the denominator is 1 there, not 0)."""
    torch = sys.modules["torch"]

    def norm2_tensor_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
        if not chunk and _plain_cotangent(y_bar, y) and host_readable(y):
            if y.ndim == 0:  # the norm of every entry: branch on its value, read once
                v = y.item()
                if not math.isinf(v):
                    return _NO, x * (y_bar if v == 0 else y_bar / y)
            elif not bool(torch.isinf(y).any()):
                # y with its reduced axes kept: built here, not per rrule call (a rank-0 norm,
                # the common one, never needs it)
                shape = list(y.shape)
                if not keepdims:
                    for a in axes:  # ascending: each lands at its final place (expand_reduced)
                        shape.insert(a, 1)
                r = torch.reshape(y, shape)
                s = torch.reshape(y_bar, shape) / torch.where(r == 0, torch.ones_like(r), r)
                return _NO, x * s
        return generic()(y_bar, chunk)

    return norm2_tensor_pullback


def matmul_rrule(a: Any, b: Any, generic: Callable[[Any], Any]) -> Any:
    """``(a @ b, pullback)`` for two real tensors (:func:`real_tensor`) of one dtype and device
    and rank 1 or 2, or ``None`` (the generic rule then runs). The pullback returns each
    operand's cotangent as a ``Thunk`` (forced only for an operand an engine traces, as the
    generic rule's): ``y_bar @ b^T`` and ``a^T @ y_bar``, with the vector cases written as
    ``outer``, matrix-vector and scalar products. A cotangent that is not plain
    (:func:`_plain_cotangent`) or a chunk goes to the generic rule's pullback, ``generic(y)``."""
    if not (real_tensor(a) and real_tensor(b)) or a.dtype != b.dtype or a.device != b.device:
        return None
    ra, rb = a.ndim, b.ndim
    if not (0 < ra <= 2 and 0 < rb <= 2):
        return None
    torch = sys.modules["torch"]
    y = torch.matmul(a, b)

    def matmul_tensor_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
        if chunk or not _plain_cotangent(y_bar, y):
            return generic(y)(y_bar, chunk=chunk)

        def a_bar() -> Any:
            if rb == 1:
                return torch.outer(y_bar, b) if ra == 2 else y_bar * b
            return torch.matmul(y_bar, b.mT)

        def b_bar() -> Any:
            if ra == 1:
                return torch.outer(a, y_bar) if rb == 2 else y_bar * a
            return torch.matmul(a.mT, y_bar)

        return _NO, Thunk(a_bar), Thunk(b_bar)

    return y, matmul_tensor_pullback
