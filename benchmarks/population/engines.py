"""The engines: each takes a program's function (loaded for it) to its gradient, Hessian or
Jacobian in ``x = args[0]``, and converts the program's NumPy arguments to its own arrays.

``chainrules`` (``chainrules.ad``) traces NumPy's own functions; ``autograd`` (the baseline)
runs the same source with ``autograd.numpy``; ``torch`` (``torch.func``, optional) runs it with
``array_api_compat.torch`` on float64 tensors; ``numpy`` is the bare forward call (the spelling
report's denominator).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

TRANSFORMS = ("grad", "hessian", "jacobian")


@dataclass(frozen=True)
class Engine:
    name: str
    load: str  # the import table of _load.IMPORTS the program's source runs under
    transform: Callable[[str, Callable[..., Any]], Callable[..., Any]]
    convert: Callable[[Any], Any]
    to_numpy: Callable[[Any], Any]
    # f -> a function returning (value, gradient in the first argument)
    value_and_grad: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None


def _ident(v: Any) -> Any:
    return v


def _tree_numpy(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return type(v)(_tree_numpy(e) for e in v)
    if isinstance(v, dict):
        return {k: _tree_numpy(e) for k, e in v.items()}
    return np.asarray(v)


def chainrules_engine(jit: bool = False) -> Engine:
    """``chainrules.ad``; with ``jit``, each transformation under ``chainrules.ad.jit``
    (recorded at its first call, replayed at the timed ones)."""
    from chainrules import ad

    table = {"grad": ad.grad, "hessian": ad.hessian, "jacobian": ad.jacobian}
    if jit:
        return Engine(
            "chainrules",
            "numpy",
            lambda t, f: ad.jit(table[t](f)),
            _ident,
            _tree_numpy,
            lambda f: ad.jit(ad.value_and_grad(f)),
        )
    return Engine(
        "chainrules", "numpy", lambda t, f: table[t](f), _ident, _tree_numpy, ad.value_and_grad
    )


def autograd_engine() -> Engine:
    import autograd

    table = {"grad": autograd.grad, "hessian": autograd.hessian, "jacobian": autograd.jacobian}
    return Engine(
        "autograd",
        "autograd",
        lambda t, f: table[t](f),
        _ident,
        _tree_numpy,
        autograd.value_and_grad,
    )


def torch_engine() -> Engine:
    import torch
    import torch.func as tf

    torch.set_num_threads(1)
    table = {"grad": tf.grad, "hessian": tf.hessian, "jacobian": tf.jacrev}

    def convert(v: Any) -> Any:
        if isinstance(v, np.ndarray):
            return torch.asarray(v)
        if isinstance(v, (list, tuple)):
            return type(v)(convert(e) for e in v)
        return v

    def to_numpy(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return v.detach().cpu().numpy()
        return _tree_numpy(v)

    def value_and_grad(f: Callable[..., Any]) -> Callable[..., Any]:
        g = tf.grad_and_value(f)

        def vg(*args: Any) -> Any:
            grad, value = g(*args)
            return value, grad

        return vg

    return Engine("torch", "torch", lambda t, f: table[t](f), convert, to_numpy, value_and_grad)


def numpy_engine() -> Engine:
    """The bare forward call (``transform`` ignores the transformation)."""
    return Engine("numpy", "numpy", lambda t, f: f, _ident, _tree_numpy)


ENGINES: dict[str, Callable[[], Engine]] = {
    "chainrules": chainrules_engine,
    "autograd": autograd_engine,
    "torch": torch_engine,
    "numpy": numpy_engine,
}
