"""``checkpoint(f)``: a function whose reverse-mode derivative recomputes ``f`` instead of keeping
its intermediates.

The checkpointed function is a :func:`chainrules.traceable` wrapper of ``f`` with rules of its
own. Called on traced arrays, it is recorded as one operation: its rrule runs ``f`` on the values
(no tape) and keeps only the arguments; its pullback records ``f`` again (``vjp_of``) and runs
that recording backwards, so the intermediates of ``f`` live during that pullback only. This is
autograd's ``checkpoint`` (``primitive(f)`` with a VJP that calls ``make_vjp(f)``), and what
``jax.checkpoint`` does for reverse mode: memory ``O(inputs)`` between the passes for one more
forward pass of ``f``. Forward mode keeps nothing anyway: the frule is ``f``'s JVP.

Nested transformations work as for any rule: the rules run on the tracers of the outer traces,
so a Hessian of code with a checkpointed part differentiates the recomputation again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..core.namespaces import dtype_kind, is_array
from ..core.pytree import flatten
from ..core.registry import register_frule, register_rrule, traceable
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._api import vjp_of
from ._operators import _jvp_at, as_tree
from ._tracer import Tracer

__all__ = ["checkpoint"]

_NO = NoTangent()
_ZERO = ZeroTangent()


def _floating(x: Any) -> bool:
    """A differentiable leaf: a traced value, a floating or complex array, a Python float."""
    if isinstance(x, Tracer) or type(x) is float or type(x) is complex:
        return True
    return is_array(x) and dtype_kind(x.dtype) in "fc"


def _differentiable(args: tuple[Any, ...]) -> tuple[int, ...]:
    """The positions of the arguments whose every leaf is differentiable (arrays, and pytrees of
    them); the others (ints, strings, index arrays) get ``NoTangent()``."""
    out = []
    for i, a in enumerate(args):
        leaves = flatten(a)[0]
        if leaves and all(_floating(e) for e in leaves):
            out.append(i)
    return tuple(out)


def checkpoint(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` recomputed in the backward pass instead of stored: reverse-mode memory for time.

    The result computes what ``f`` computes. Inside a reverse-mode transformation (``grad``,
    ``vjp``, ``jacobian(mode="rev")``) the engine keeps only its arguments between the forward
    and the backward pass, and runs ``f`` a second time, recording it, when the backward pass
    reaches it. Use it around a block whose intermediates are large: for five blocks of ten
    elementwise layers on 100 000 elements, the gradient's peak memory is about a quarter of the
    plain gradient's (``tests/ad/test_autograd_api.py`` asserts under half). Forward mode is
    ``f``'s own JVP. Arguments that are not floating (ints, strings, index arrays) are passed
    through and get no derivative.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> layer = ad.checkpoint(lambda x: np.sin(x**2 + 1))
    >>> ad.grad(lambda x: np.sum(layer(layer(x))))(np.array([0.5]))
    array([-0.1938036])
    """

    @functools.wraps(f, updated=())  # f's name and docs, not its attributes (its rules' marks)
    def checkpointed(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    op = traceable(checkpointed)

    @register_rrule(op)
    def checkpoint_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        y = f(*args, **kwargs)
        nums = _differentiable(args)
        n = len(args)
        # the structure of a tuple or dict output, to fill the entries that get no cotangent;
        # a single array output is not kept (the pullback holds the arguments only)
        tree = y if isinstance(y, tuple | list | dict) else None

        def checkpoint_pullback(ct: Any) -> tuple[Any, ...]:
            ct = unthunk(ct)
            if isinstance(ct, AbstractZero) or not nums:
                return (_NO, *(_ZERO if i in nums else _NO for i in range(n)))
            _, pullback = vjp_of(f, args, kwargs, nums, nums)  # f again, recorded
            cts = pullback(ct if tree is None else as_tree(ct, tree, zeros=True))
            out: list[Any] = [_NO] * (n + 1)
            for i, c in zip(nums, cts):
                out[i + 1] = c
            return tuple(out)

        return y, checkpoint_pullback

    @register_frule(op)
    def checkpoint_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        nums = tuple(
            i
            for i in _differentiable(args)
            if not isinstance(unthunk(tangents[i + 1]), AbstractZero)
        )
        if not nums:
            return f(*args, **kwargs), _ZERO
        ts = tuple(as_tree(tangents[i + 1], args[i]) for i in nums)
        return _jvp_at(f, args, kwargs, nums, ts)

    return op
