"""Rules for Python's operators on arrays: ``operator.add`` (``x + y``), ``operator.matmul``
(``x @ y``), ``operator.neg`` (``-x``), ... and their reflected forms (``2.0 - x``).

An operator is the standard function of the same meaning (``+`` is ``add``, ``**`` is ``pow``,
``%`` is ``remainder``), so its rules *are* that function's rules: each operator delegates to the
rule registered for the function in the arrays' namespace, with one general mechanism and no
second copy of any derivative. A Python scalar may stand on either side (``x * 2.0`` and
``2.0 * x`` are ``operator.mul`` with the scalar second or first: the reflected forms).
Comparisons, bitwise operators and ``//`` delegate to functions declared non-differentiable (or
of zero derivative), so their pullbacks give ``NoTangent()`` (``ZeroTangent()`` for ``//``).

``operator.getitem`` (``x[key]``) has its own rule in :mod:`chainrules.rules.indexing`.

>>> import operator, numpy as np, chainrules as cr
>>> y, pullback = cr.rrule(operator.truediv, 1.0, np.array([2.0, 4.0]))
>>> pullback(np.ones(2))[2]
array([-0.25  , -0.0625])
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.prelude import *
from ..core.registry import frule, rrule

__all__ = ["OPERATORS"]

# operator -> the standard function it means
OPERATORS: dict[Callable[..., Any], str] = {
    operator.add: "add",
    operator.sub: "subtract",
    operator.mul: "multiply",
    operator.truediv: "divide",
    operator.pow: "pow",
    operator.matmul: "matmul",
    operator.neg: "negative",
    operator.pos: "positive",
    operator.abs: "abs",
    operator.floordiv: "floor_divide",
    operator.mod: "remainder",
    operator.lt: "less",
    operator.le: "less_equal",
    operator.eq: "equal",
    operator.ne: "not_equal",
    operator.gt: "greater",
    operator.ge: "greater_equal",
    operator.and_: "bitwise_and",
    operator.or_: "bitwise_or",
    operator.xor: "bitwise_xor",
    operator.invert: "bitwise_invert",
    operator.lshift: "bitwise_left_shift",
    operator.rshift: "bitwise_right_shift",
}

_UNARY = frozenset((operator.neg, operator.pos, operator.abs, operator.invert))
_NON_DIFFERENTIABLE = frozenset(
    (
        operator.lt,
        operator.le,
        operator.eq,
        operator.ne,
        operator.gt,
        operator.ge,
        operator.and_,
        operator.or_,
        operator.xor,
        operator.invert,
        operator.lshift,
        operator.rshift,
    )
)


def _function(op: Callable[..., Any], name: str, args: tuple[Any, ...]) -> Callable[..., Any]:
    """The standard function ``op`` means, in the namespace of its array arguments (NumPy's own
    function for NumPy arrays: the one ``ndarray``'s operators call)."""
    arrays = [a for a in args if is_array(a)]
    if not arrays:
        raise TypeError(
            f"{op.__name__}: no array among the operands "
            f"({', '.join(type(a).__name__ for a in args)}); the operator rules differentiate "
            "array operations"
        )
    if isinstance(arrays[0], (np.ndarray, np.generic)):
        return getattr(np, name)
    return getattr(namespace_of(*arrays, fname=op.__name__), name)


def _register(op: Callable[..., Any], name: str) -> None:
    meta = {"generic": True, "examples": _examples(op), "standard_name": name}
    if op in _NON_DIFFERENTIABLE:
        meta["non_differentiable"] = True

    def operator_rrule(*args: Any) -> tuple[Any, Callable[[Any], Any]]:
        return rrule(_function(op, name, args), *args)

    def operator_frule(tangents: tuple[Any, ...], *args: Any) -> tuple[Any, Any]:
        return frule(tangents, _function(op, name, args), *args)

    operator_rrule.__qualname__ = f"{op.__name__}_rrule"
    operator_frule.__qualname__ = f"{op.__name__}_frule"
    register_rrule(op, **meta)(operator_rrule)
    register_frule(op, **meta)(operator_frule)


def _examples(op: Callable[..., Any]) -> Callable[[np.random.Generator], list[Any]]:
    """``(args, kwargs)`` examples: broadcasting, a Python scalar on either side (the reflected
    form), 0-d arrays and complex operands."""

    def make(rng: np.random.Generator) -> list[Any]:
        def u(*shape: int, lo: float = -2.0, hi: float = 2.0) -> Any:
            return rng.uniform(lo, hi, shape)

        def c(*shape: int) -> Any:
            return u(*shape) + 1j * u(*shape)

        def ints(*shape: int, hi: int = 8) -> Any:
            return rng.integers(0, hi, shape)

        cases: list[tuple[Any, ...]]
        if op in (operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift):
            cases = [(ints(2, 3), ints(3, hi=3)), (ints(4), 2)]
        elif op is operator.invert:
            cases = [(ints(4),)]
        elif op in _NON_DIFFERENTIABLE:  # comparisons
            cases = [(u(2, 3), u(3)), (0.5, u(4))]
        elif op is operator.matmul:
            cases = [(u(2, 3), u(3, 4)), (u(2, 2, 3), u(3)), (c(2, 3), c(3, 2))]
        elif op in _UNARY:
            away = u(2, 3, lo=0.2, hi=2.0) * rng.choice([-1.0, 1.0], (2, 3))  # |x| off its kink
            cases = [(away,), (np.asarray(0.7),), (c(3),)]
        elif op is operator.pow:
            pos = u(2, 3, lo=0.5, hi=2.0)
            cases = [(pos, u(3)), (pos, 3.0), (2.0, u(4)), (c(3), c(3))]
        elif op in (operator.floordiv, operator.mod):
            cases = [(u(2, 3, lo=0.1, hi=3.0), 0.7), (2.5, u(4, lo=0.3, hi=2.0))]
        else:
            lo = 0.5 if op is operator.truediv else -2.0  # keep divisors away from zero
            cases = [
                (u(2, 3), u(3, lo=lo)),
                (u(4), 1.5),
                (-1.5, u(4, lo=lo)),
                (np.asarray(0.3), u(2, lo=lo)),
                (c(3), c(3) + 3.0),
            ]
        return [(args, {}) for args in cases]

    return make


for _op, _name in OPERATORS.items():
    _register(_op, _name)
