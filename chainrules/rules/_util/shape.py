"""Helpers of the manipulation rules (``chainrules.rules.manipulation``): parsing shapes and axes,
the pullback and pushforward of a linear map of one array, registering a pair of rules, and the
examples' builders. Shared by the manipulation modules and NumPy's indexing functions.

Every manipulation function is linear, ``y = L x``: the pushforward is the same function of the
tangent (:func:`pushforward`, its axes shifted past a chunk's leading axes), the pullback its
transpose (:func:`linear_pullback`, which projects and pads ``NoTangent()``)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core.prelude import *
from . import in_dtype

# what the manipulation modules use, imported whole (``from .._util.shape import *``): their
# vocabulary after core's
__all__ = [
    "Rules",
    "axis_index",
    "axis_indices",
    "device_kw",
    "differentiable",
    "ex",
    "int_tuple",
    "lead_shape",
    "linear_pullback",
    "one_array",
    "pushforward",
    "register_rules",
    "rng_arrays",
    "shifted",
    "standard_and_numpy",
    "to_array",
    "zeros_on",
]

Rules = tuple[Callable[..., Any], Callable[..., Any]]


# --- arguments ------------------------------------------------------------------------------------
def one_array(name: str, x: Any) -> tuple[Any, Any]:
    """``(xp, x)``: the namespace of an array argument, and ``x`` as one of its arrays (a Python
    scalar or a nested list becomes one)."""
    xp = namespace_of(x, fname=name)
    return xp, to_array(xp, x)


def to_array(xp: Any, x: Any) -> Any:
    return x if is_array(x) else xp.asarray(x)


def device_kw(x: Any) -> dict[str, Any]:
    dev = device_of(x)
    return {} if dev is None else {"device": dev}


def zeros_on(xp: Any, shape: tuple[int, ...], dtype: Any, like: Any) -> Any:
    return xp.zeros(shape, dtype=dtype, **device_kw(like))


def differentiable(x: Any, xp: Any) -> bool:
    return dtype_kind(x.dtype, xp) in "fc"


def axis_index(name: str, axis: Any, ndim: int, what: str = "axis") -> int:
    """One axis (an int, negative allowed) of an array of rank ``ndim``, as non-negative."""
    if isinstance(axis, bool):
        raise TypeError(f"{name}: {what} must be an int, got {axis!r}")
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name}: {what} must be an int, got {axis!r}") from None
    if not -ndim <= a < ndim:
        raise ValueError(f"{name}: {what} {a} is out of bounds for an array of rank {ndim}")
    return a % ndim


def axis_indices(name: str, axis: Any, ndim: int, what: str = "axis", unique: bool = True) -> tuple:
    """An int or a sequence of ints as non-negative axes, in the order given."""
    seq = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = tuple(axis_index(name, a, ndim, what) for a in seq)
    if unique and len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axis in {what}={axis!r}")
    return out


def int_tuple(name: str, v: Any, what: str) -> tuple[int, ...]:
    """An int or a sequence of ints (host values: shapes, shifts, repetitions) as a tuple."""
    seq = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    try:
        return tuple(operator.index(e) for e in seq)
    except TypeError:
        raise TypeError(f"{name}: {what} must be an int or a tuple of ints, got {v!r}") from None


def lead_shape(t: Any, extra: int) -> tuple[int, ...]:
    return tuple(t.shape[:extra])


def shifted(axes: Sequence[int], extra: int) -> tuple[int, ...]:
    return tuple(a + extra for a in axes)


# --- the linear map of one array: its pullback and pushforward ------------------------------------
def linear_pullback(
    name: str, x: Any, y: Any, args: Sequence[Any], xp: Any, chunked: bool = False
) -> Callable[[Callable[[Any], Any]], Callable[[Any], tuple[Any, ...]]]:
    """Decorator: the pullback of a linear ``y = L x`` (``x`` the first of the positional
    ``args``) from its transpose, ``transpose(g) = Lᵀ g``, made with :func:`pullback`: ``g`` is
    the cotangent in ``y``'s dtype, ``Lᵀ g`` is projected onto ``x``, and the other arguments
    (shapes, axes, counts) have ``NoTangent()``. ``chunked=True``: ``transpose`` keeps leading
    chunk axes of ``g`` (see :func:`chainrules.pullback`), and so does the pullback."""
    project, project_y = ProjectTo(x, xp), ProjectTo(y, xp)
    rest = (NO,) * (len(args) - 1)
    y_rank = len(project_y.shape)

    def decorator(transpose: Callable[[Any], Any]) -> Callable[[Any], tuple[Any, ...]]:
        def linear_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (NO, *rest)
            extra = y_bar.ndim - y_rank if chunked else 0
            if extra:
                return (project(transpose(project_y(y_bar, extra)), extra), *rest)
            return (project(transpose(project_y(y_bar))), *rest)

        # the rule's own name (reshape_pullback); cheaper than functools.wraps on every call
        linear_pullback.__name__ = linear_pullback.__qualname__ = transpose.__name__
        return pullback(y, args, name=name, chunked=chunked)(linear_pullback)

    return decorator


def pushforward(
    name: str,
    tangents: Sequence[Any],
    args: Sequence[Any],
    x: Any,
    y: Any,
    xp: Any,
    push: Callable[[Any, int], Any],
) -> Any:
    """The pushforward ``L x_dot`` of a linear ``y = L x``, ``push(x_dot, extra)`` for a tangent
    with ``extra`` leading chunk axes, in ``y``'s dtype (``tangents_in`` forces and checks it)."""
    if not differentiable(y, xp):
        return NO
    if not differentiable(x, xp):
        return ZERO
    dots = tangents_in(name, tangents, (x, *args[1:]))
    if dots is None or isinstance(dots[0], AbstractZero):
        return ZERO
    return in_dtype(xp, push(dots[0], dots.extra), y.dtype)


def register_rules(
    targets: tuple[str, ...],
    rules: Rules,
    examples: Any,
    expect: Any = (),
    chunked: bool = False,
    kind: str | None = None,
    linear: bool = False,
) -> None:
    """Register ``rules`` for ``targets``; ``kind`` is what the function is for engines
    (``"view"``: NumPy returns a view; ``"sequence"``: it takes a sequence of arrays), ``linear``
    the registrations' ``linear=`` (a linear map of one array: :func:`linear_pullback`'s)."""
    r, f = rules
    meta = {"examples": examples, "expect": expect, "kind": kind, "linear": linear}
    register_rrule(*targets, chunked_pullback=chunked, **meta)(r)
    register_frule(*targets, **meta)(f)


def standard_and_numpy(
    name: str,
    standard: Callable[..., None],
    numpy: Callable[..., None],
    examples: Callable[[np.random.Generator, bool], list[Any]],
    *,
    numpy_name: str | None = None,
    expect: Any = (),
    chunked: bool = False,
    kind: str | None = None,
    numpy_kind: str | None = None,
    linear: bool = False,
) -> Callable[[Callable[[Signature], Rules]], Callable[[Signature], Rules]]:
    """Decorator of a factory ``rules(sig) -> (rrule, frule)``: register the standard's ``name``
    and NumPy's ``"numpy:NAME"`` (``numpy_name`` where NumPy's name differs), each with
    ``rules(sig)`` made for its own signature (``standard`` and ``numpy`` are the templates
    :func:`signature` takes: NumPy's axis is often positional, and it has extra options), and
    ``examples(rng, numpy)``; ``numpy_kind`` is NumPy's kind where it differs from ``kind``
    (``"view"``: NumPy returns a view); ``linear``: both registrations' ``linear=``."""

    def register(rules: Callable[[Signature], Rules]) -> Callable[[Signature], Rules]:
        std_rules, std_ex = rules(signature(name, standard)), lambda rng: examples(rng, False)
        register_rules((name,), std_rules, std_ex, expect, chunked, kind, linear)
        npname = numpy_name or name
        np_rules, np_ex = rules(signature(npname, numpy)), lambda rng: examples(rng, True)
        np_kind = numpy_kind or kind
        register_rules((f"numpy:{npname}",), np_rules, np_ex, expect, chunked, np_kind, linear)
        return rules

    return register


# --- examples (python -m chainrules check, and the test suite) ------------------------------------
def ex(args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *, note: str) -> Any:
    """One example input (``Example`` keeps sequences and shapes out of complex sniffing)."""
    from ...core.examples import Example

    cplx = any(
        np.iscomplexobj(v)
        for a in args
        for v in (a if isinstance(a, (tuple, list)) else (a,))
        if isinstance(v, np.ndarray)
    )
    return Example(args, kwargs or {}, note=note, complex=cplx)


def rng_arrays(rng: np.random.Generator) -> Callable[..., Any]:
    def r(*shape: int, c: bool = False) -> Any:
        v = rng.standard_normal(shape)
        return v + 1j * rng.standard_normal(shape) if c else v

    return r
