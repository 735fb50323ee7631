"""Helpers of the product rules (``matmul``, ``tensordot``, ``einsum``, ``outer``, ``cross``,
...): binding a pair of operands, their arrays, tangents and the sum of the tangent terms,
broadcast shapes, and reshapes of a chunk of tangents."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...core.prelude import *
from . import in_dtype

# what the product modules (linear_algebra/, linalg/products.py) use, imported whole
# (``from .._util.products import *``): their vocabulary after core's
__all__ = [
    "arrays",
    "bind_kwonly",
    "bind_pair",
    "bound_pair",
    "broadcast_shapes",
    "pad_chunk",
    "pair_pushforward",
    "reshape_to",
    "sum_to",
    "tangent",
    "total",
]

_SCALARS = (bool, int, float, complex)
_FLOATING = ("real floating", "complex floating")


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of ``shapes`` (host metadata); a ValueError when they do not broadcast."""
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s, start=n - len(s)):
            if d != 1:
                if out[i] not in (1, d):
                    raise ValueError(f"shapes {[tuple(s) for s in shapes]} do not broadcast")
                out[i] = d
    return tuple(out)


def sum_to(xp: Any, g: Any, shape: Sequence[int]) -> Any:
    """``g`` summed down to ``shape``, the shape it was broadcast from (leading axes, and axes
    where ``shape`` has length 1)."""
    shape = tuple(shape)
    lead = g.ndim - len(shape)
    if lead:
        g = xp.sum(g, axis=tuple(range(lead)))
    axes = tuple(i for i, (t, s) in enumerate(zip(shape, g.shape)) if t == 1 and s != 1)
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    return g


def reshape_to(xp: Any, x: Any, shape: Sequence[int]) -> Any:
    """``reshape(x, shape)``, skipped when ``x`` already has that shape."""
    shape = tuple(shape)
    return x if tuple(x.shape) == shape else xp.reshape(x, shape)


def pad_chunk(xp: Any, t: Any, extra: int, rank: int) -> Any:
    """A tangent with ``extra`` leading chunk axes, with length-1 axes inserted after them so
    that its primal part has rank ``rank``: it then broadcasts against the other operands with
    the chunk axes in front."""
    nd = t.ndim - extra
    if nd >= rank:
        return t
    return xp.reshape(t, (*tuple(t.shape[:extra]), *(1,) * (rank - nd), *tuple(t.shape[extra:])))


def arrays(xp: Any, xs: Sequence[Any]) -> tuple[Any, ...]:
    """The operands as arrays: Python scalars become 0-d arrays of ``xp`` (the projections are
    built from the operands as given, so a scalar's cotangent stays a scalar's)."""
    return tuple(xp.asarray(o) if type(o) in _SCALARS else o for o in xs)


def bind_kwonly(sig: Signature, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """``sig.bind`` for the standard's signatures, whose parameters after the arrays are
    keyword-only: a parameter given by position says so."""
    try:
        return sig.bind(args, kwargs)
    except TypeError as e:
        if "too many positional arguments" not in str(e):
            raise
        raise TypeError(f"{e} (the parameters after the arrays are keyword-only)") from None


def bind_pair(sig: Signature, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The operands of a call of ``sig`` (``signature(name, lambda x1, x2, /, *, out=None:
    None)``): the plain call ``f(x1, x2)`` -- what engines make, on the hot path -- skips the
    binder, which would return them unchanged; any other call goes through it."""
    if len(args) == 2 and not kwargs:
        return args[0], args[1]
    p = sig.bind(args, kwargs)
    return p["x1"], p["x2"]


def bound_pair(
    sig: Signature, args: Sequence[Any], kwargs: dict[str, Any]
) -> tuple[Any, Any, Any, Any, Any]:
    """``(xp, x1, x2, a, b)`` of a call of ``sig`` (the form :func:`bind_pair` takes): the
    operands' namespace (errors name ``sig``'s function), the operands, and the operands as
    arrays (:func:`arrays`)."""
    x1, x2 = bind_pair(sig, args, kwargs)
    xp = namespace_of(x1, x2, fname=sig.name)
    a, b = arrays(xp, (x1, x2))
    return xp, x1, x2, a, b


def tangent(xp: Any, t: Any, x: Any) -> Any:
    """The tangent ``t`` of operand ``x`` (from :func:`tangents_in`) as an array, or ``None``
    where it is zero or ``x`` has no tangent space (integers, booleans)."""
    if isinstance(t, AbstractZero) or not xp.isdtype(x.dtype, _FLOATING):
        return None
    return xp.asarray(t) if type(t) in _SCALARS else t


def total(xp: Any, y: Any, terms: Sequence[Any]) -> Any:
    """The pushforward: the sum of the operands' terms (``None`` for a zero term) in ``y``'s
    dtype, ``ZeroTangent()`` when every term is zero."""
    acc: Any = None
    for term in terms:
        if term is not None:
            acc = term if acc is None else acc + term
    return ZERO if acc is None else in_dtype(xp, acc, y.dtype)


def pair_pushforward(
    name: str,
    tangents: Any,
    xp: Any,
    xs: tuple[Any, Any],
    y: Any,
    push: tuple[Callable[[Any, int], Any], Callable[[Any, int], Any]],
) -> tuple[Any, Any]:
    """``(y, y_dot)`` of ``y = name(*xs)``, linear in each of its two operands ``xs`` (the
    products): ``push[i](t, extra)`` is the term of operand ``i``'s tangent ``t`` (as an array,
    with ``extra`` leading chunk axes). The terms of zero tangents, and of operands with no
    tangent space, are left out; the rest are summed in ``y``'s dtype (:func:`total`)."""
    dots = tangents_in(name, tangents[:3], xs)
    if dots is None:
        return y, ZERO
    terms = []
    for i, x in enumerate(arrays(xp, xs)):
        t = tangent(xp, dots[i], x)
        terms.append(None if t is None else push[i](t, dots.extra))
    return y, total(xp, y, terms)
