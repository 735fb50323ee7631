"""Rules for the functions that give an array a new shape: the standard's ``reshape``,
``squeeze``, ``expand_dims``; NumPy's names and signatures for them and ``ravel``; NumPy's
``atleast_1d``, ``atleast_2d``, ``atleast_3d``, and ``copy`` (the identity).

Maths note
----------
Each is linear and keeps every element in its place in row-major order, ``y = L x``: the
pushforward is the same function of the tangent (its new shape behind a chunk's leading axes),
the pullback ``reshape`` back to ``x``'s shape (a chunk of cotangents keeps its leading axes).
NumPy's ``atleast_nd`` are gathers (:mod:`chainrules.rules._util.gather`); ``copy`` has its own
identity rule. NumPy's ``reshape`` takes ``order="C"`` only (the standard's row-major order).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import in_dtype
from .._util.gather import (
    Gather,
    Plan,
    Source,
    function,
    index_arrays,
    is_floating_value,
    namespace,
    register_gather,
)
from .._util.shape import *

__all__: list[str] = []  # rules only: nothing to import from here

_REQUIRED = object()
_M = __name__


def _order_c(name: str, order: Any) -> None:
    if order not in ("C", None):
        raise ValueError(
            f"{name}: the rule supports order='C' only (the standard's row-major order), got "
            f"order={order!r}"
        )


# --- reshape, ravel, squeeze, expand_dims: a new shape, pulled back by reshaping back -------------
def _reshape_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex((r(2, 3), (3, 2)), note="matrix"),
        ex((r(2, 3, 4), (4, -1)), note="-1"),
        ex((r(), (1, 1)), note="0-d in"),
        ex((r(1, 1), ()), note="0-d out"),
        ex((r(0, 3), (3, 0)), note="zero-size"),
        ex((r(6, c=True), (2, 3)), note="complex"),
        ex((r(7, 8), (56,)), note="large"),
    ]
    if numpy:
        out += [
            ex((r(2, 3), 6), note="int shape"),
            ex((r(2, 3), (3, 2), "C"), note="order='C'"),
        ]
    return out


def _ravel_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(2, 3),), note="matrix"),
        ex((r(),), note="0-d"),
        ex((r(2, 0),), note="zero-size"),
        ex((r(2, 2, c=True),), note="complex"),
    ]


def _squeeze_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex((r(1, 3, 1),), {"axis": 0}, note="axis=0"),
        ex((r(1, 3, 1),), {"axis": (0, -1)}, note="two axes"),
        ex((r(1),), {"axis": 0}, note="to 0-d"),
        ex((r(0, 1),), {"axis": 1}, note="zero-size"),
        ex((r(2, 1, c=True),), {"axis": 1}, note="complex"),
    ]
    if numpy:
        out += [ex((r(1, 3, 1, 2),), note="axis=None"), ex((r(1, 4), 0), note="positional")]
    return out


def _expand_dims_ex(rng: np.random.Generator, numpy: bool) -> list[Any]:
    r = rng_arrays(rng)
    out = [
        ex((r(2, 3),), {"axis": 0}, note="axis=0"),
        ex((r(2, 3),), {"axis": -1}, note="axis=-1"),
        ex((r(2, 3),), {"axis": 1}, note="middle"),
        ex((r(),), {"axis": 0}, note="0-d"),
        ex((r(0, 2),), {"axis": 2}, note="zero-size"),
        ex((r(3, c=True),), {"axis": 1}, note="complex"),
    ]
    if numpy:
        out += [
            ex((r(2, 3), (0, 3)), note="tuple of axes"),
            ex((r(2, 3), 1), note="positional"),
        ]
    return out


def _reshape_rules(sig: Signature, new_shape: Callable[..., tuple[int, ...]]) -> Rules:
    """The rules of ``y = reshape(x, new_shape(name, a, x.shape))`` (``a``: the arguments bound
    by ``sig``) for the function ``sig.name``."""
    name = sig.name

    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
        a = sig.bind(args, kwargs)
        _order_c(name, a.get("order"))
        xp, x = one_array(name, a["x"])
        copy = {} if a.get("copy") is None else {"copy": a["copy"]}
        return xp, x, xp.reshape(x, new_shape(name, a, tuple(x.shape)), **copy)

    def reshape_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, y = primal(args, kwargs)
        x_shape, y_rank = tuple(x.shape), y.ndim  # shapes, not x: the pullback must not keep x

        @linear_pullback(name, x, y, args, xp, chunked=True)
        def reshape_pullback(g: Any) -> Any:  # a chunk's leading axes kept
            return xp.reshape(g, lead_shape(g, g.ndim - y_rank) + x_shape)

        return y, reshape_pullback

    def reshape_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, y = primal(args, kwargs)
        shape = tuple(y.shape)

        def push(t: Any, extra: int) -> Any:
            return xp.reshape(t, lead_shape(t, extra) + shape)

        return y, pushforward(name, tangents, args, x, y, xp, push)

    return reshape_rrule, reshape_frule


def _reshape_like(
    name: str, standard: Callable[..., None] | None, numpy: Callable[..., None], examples: Any
) -> Callable[[Callable[..., tuple[int, ...]]], Any]:
    """Decorator of ``new_shape(name, a, shape)``: register :func:`_reshape_rules` of it for the
    standard's ``name`` (signature template ``standard``; ``None``: NumPy's function only) and
    for NumPy's (template ``numpy``), whose functions return views (kind ``"view"``)."""

    def register(new_shape: Callable[..., tuple[int, ...]]) -> Any:
        def rules(sig: Signature) -> Rules:
            return _reshape_rules(sig, new_shape)

        if standard is None:
            register_rules(
                (f"numpy:{name}",),
                rules(signature(name, numpy)),
                examples,
                (),
                True,
                "view",
                linear=True,
            )
        else:
            standard_and_numpy(
                name, standard, numpy, examples, chunked=True, numpy_kind="view", linear=True
            )(rules)
        return new_shape

    return register


@_reshape_like(
    "reshape",
    lambda x, /, shape, *, copy=None: None,
    lambda x, /, shape, order="C", *, copy=None: None,
    _reshape_ex,
)
def _reshape_shape(name: str, a: dict[str, Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    return int_tuple(name, a["shape"], "shape")


@_reshape_like("ravel", None, lambda x, /, order="C": None, _ravel_ex)
def _ravel_shape(name: str, a: dict[str, Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    return (math.prod(shape),)


# the standard's squeeze has no default axis (the message names it, as NumPy's would)
@_reshape_like(
    "squeeze", lambda x, /, axis=_REQUIRED: None, lambda x, /, axis=None: None, _squeeze_ex
)
def _squeeze_shape(name: str, a: dict[str, Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    axis = a["axis"]
    if axis is _REQUIRED:
        raise TypeError("squeeze: missing required argument 'axis'")
    if axis is None:  # NumPy: every axis of length 1
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    elif not shape and type(axis) is int and axis in (0, -1):  # NumPy's (and torch's)
        axes = ()  # leniency: a bare axis 0 or -1 of a 0-d array (not a tuple) is accepted
    else:
        axes = axis_indices(name, axis, len(shape))
        for ax in axes:
            if shape[ax] != 1:
                raise ValueError(
                    f"squeeze: axis {ax} of an array of shape {shape} has length {shape[ax]}, not 1"
                )
    return tuple(n for i, n in enumerate(shape) if i not in axes)


@_reshape_like("expand_dims", lambda x, /, axis=0: None, lambda x, /, axis: None, _expand_dims_ex)
def _expand_dims_shape(name: str, a: dict[str, Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    # the new axes are positions in the output (NumPy's and the standard's meaning)
    axis = a["axis"]
    out_nd = len(shape) + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    new = axis_indices(name, axis, out_nd)
    rest = iter(shape)
    return tuple(1 if i in new else next(rest) for i in range(out_nd))


# --- atleast_1d, atleast_2d, atleast_3d: gathers --------------------------------------------------
def _atleast_plan(name: str) -> Plan:
    def plan(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Gather:
        if kwargs:
            raise TypeError(f"{name}: unexpected keyword arguments {sorted(kwargs)}")
        if not args:
            raise TypeError(f"{name}: needs at least one array")
        sources = tuple(Source(v, i) for i, v in enumerate(args))
        xp, like = namespace(name, args)
        f = function(fn, name, like, xp)
        return Gather(xp, f(*args), f(*index_arrays(xp, args, like)), sources)

    return plan


def _atleast_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(),), note="0-d"),
        ex((r(3),), note="vector"),
        ex((r(2, 2),), note="matrix"),
        ex((r(), r(2)), note="two arrays"),
        ex((r(2, c=True),), note="complex"),
    ]


for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    register_gather(_name, _atleast_plan(_name), _atleast_ex, _M, kind="view")


# --- copy: the identity ---------------------------------------------------------------------------
_COPY = signature("copy", lambda a, order="K", subok=False: None)


def _copy_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [ex((r(2, 3),), note="matrix"), ex((r(),), note="0-d"), ex((r(2, c=True),), note="c")]


def _copy_rules(fn: Any, kind: str) -> Callable[..., Any]:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
        a = _COPY.bind(args, kwargs)
        if a["subok"]:
            raise TypeError("copy: the rule does not support subok=True")
        xp, like = namespace("copy", [a["a"]])
        return xp, a["a"], function(fn, "copy", like, xp)(*args, **kwargs)

    def copy_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, y = primal(args, kwargs)
        project, rest = ProjectTo(x, xp), (NO,) * (len(args) - 1)

        @pullback(y, args)
        def copy_pullback(y_bar: Any) -> Any:
            return (project(y_bar), *rest)

        return y, copy_pullback

    def copy_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, y = primal(args, kwargs)
        if not is_floating_value(xp, x):
            return y, NO
        dots = tangents_in("copy", tangents[:2], (x,))
        return y, ZERO if dots is None else in_dtype(xp, dots[0], y.dtype)

    return copy_rrule if kind == "r" else copy_frule


register_rrule("numpy:copy", examples=_copy_ex, bind=_copy_rules)(_copy_rules(None, "r"))
register_frule("numpy:copy", examples=_copy_ex, bind=_copy_rules)(_copy_rules(None, "f"))
