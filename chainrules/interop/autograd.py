"""HIPS autograd bridge: ``wrap(f)`` is an autograd primitive whose VJP and JVP are ``f``'s rules.

``wrap(f)`` is ``autograd.extend.primitive`` of a function that calls the registered rules on raw
NumPy values, with ``defvjp_argnums`` from the **rrule** (one pullback call gives every argument's
cotangent) and ``defjvp_argnums`` from the **frule** (all tangents pushed in one call). It works
under ``grad``, ``make_vjp``, ``make_jvp``, ``jacobian`` and ``elementwise_grad``.

First derivatives only: autograd's ``ArrayBox`` has no ``__array_namespace__``, so a pullback
cannot run on boxes, and autograd cannot differentiate the rules themselves a second time. A
second derivative through the bridge raises ``NotImplementedError`` naming the function rather
than returning a wrong number.

Arguments: only positional NumPy arrays and floats are differentiated (autograd boxes those);
integer arrays, axes and keyword arguments are passed through. autograd's complex convention is
not converted (complex inputs are untested).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from autograd.extend import defjvp_argnums, defvjp_argnums, primitive
from autograd.tracer import Box

from ..core.tangents import AbstractZero, NoTangent, unthunk
from ._common import check_leaf, find_rules

__all__ = ["wrap"]


def wrap(f: Any) -> Any:
    """An autograd primitive computing ``f`` whose VJP and JVP are ``f``'s rules.

    Raises ``chainrules.NoRuleError`` naming ``f`` unless both an rrule and an frule are
    registered.

    >>> import autograd, numpy as np
    >>> from chainrules.interop import autograd as crag
    >>> norm = crag.wrap(np.linalg.norm)
    >>> autograd.grad(norm)(np.array([3.0, 4.0]))
    array([0.6, 0.8])
    """
    rules = find_rules(f, "autograd", need="both")
    rrule, frule, name = rules.rrule, rules.frule, rules.name
    assert rrule is not None and frule is not None

    def _no_boxes(args: tuple[Any, ...], what: str) -> None:
        if any(isinstance(a, Box) for a in args):
            raise NotImplementedError(
                f"chainrules.interop.autograd: a second derivative of {name} ({what} of the "
                "rule's own derivative) is not supported: autograd's ArrayBox has no array "
                "namespace, so the rule cannot run on boxes. Use the JAX or PyTorch bridge for "
                "higher orders"
            )

    @primitive
    def call(*args: Any, **kwargs: Any) -> Any:
        return rrule(*args, **kwargs)[0]

    def vjp_argnums(argnums: Any, ans: Any, args: Any, kwargs: Any) -> Any:
        _no_boxes(args, "reverse mode")
        _, pullback = rrule(*args, **kwargs)

        def vjp(g: Any) -> Any:
            _no_boxes((g,), "reverse mode")
            cts = pullback(g)
            out = []
            for i in argnums:
                c, a = unthunk(cts[i + 1]), args[i]
                if isinstance(c, AbstractZero):
                    c = np.zeros_like(a)
                else:
                    check_leaf(name, "rrule", i, c, a, _dtype_ok(c, a))
                out.append(c)
            return tuple(out)

        return vjp

    def jvp_argnums(argnums: Any, gs: Any, ans: Any, args: Any, kwargs: Any) -> Any:
        _no_boxes(args + tuple(gs), "forward mode")
        tangents: list[Any] = [NoTangent()] * len(args)
        for i, g in zip(argnums, gs, strict=True):
            tangents[i] = g
        y, y_dot = frule((NoTangent(), *tangents), *args, **kwargs)
        y_dot = unthunk(y_dot)
        if isinstance(y_dot, AbstractZero):
            return np.zeros_like(y)
        check_leaf(name, "frule", -1, y_dot, y, _dtype_ok(y_dot, y))
        return y_dot

    defvjp_argnums(call, vjp_argnums)
    defjvp_argnums(call, jvp_argnums)

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return call(*args, **kwargs)

    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    return wrapped


def _dtype_ok(got: Any, primal: Any) -> bool:
    return bool(np.result_type(got) == np.result_type(primal))
