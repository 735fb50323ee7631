"""Rules for the standard's manipulation functions (``manipulation_functions``) and NumPy's names
for them: ``reshape``/``ravel``, ``permute_dims``/``transpose``/``swapaxes``/``moveaxis``,
``expand_dims``, ``squeeze``, ``flip``, ``roll``, ``broadcast_to``, ``broadcast_arrays``,
``concat``/``concatenate``, ``stack``, ``unstack``, ``repeat`` and ``tile``.

Maths notes
-----------
Every function here is *linear* and only moves, copies or sums elements: ``y = L x``. So

* the pushforward is the same function of the tangent, ``y_dot = L x_dot``, with the axis
  arguments shifted past a chunk's leading axes (``flip(t, axis=a + k)``);
* the pullback is the transpose ``x_bar = Lᵀ y_bar``, built from the functions of this module and
  ``sum`` -- each with rules of its own, so every pullback can be differentiated again:

  ===========================  ==========================================================
  function                     pullback
  ===========================  ==========================================================
  ``reshape``, ``squeeze``,    ``reshape`` back to ``x``'s shape
  ``expand_dims``, ``ravel``
  ``permute_dims`` & co.       ``permute_dims`` with the inverse permutation
  ``flip``                     ``flip`` on the same axes
  ``roll``                     ``roll`` by the negated shift
  ``broadcast_to(_arrays)``    ``sum`` over the broadcast axes (``keepdims``), ``reshape``
  ``concat``                   slices of ``y_bar`` (``operator.getitem``), one per array
  ``stack`` / ``unstack``      ``unstack`` / ``stack`` (each the other's transpose)
  ``repeat`` (int repeats)     ``reshape`` to ``(..., n, r, ...)`` and ``sum`` over ``r``
  ``repeat`` (array repeats)   ``scatter_add`` at the source positions (below)
  ``tile``                     ``reshape`` to ``(r0, s0, r1, s1, ...)``, ``sum`` over ``r_i``
  ===========================  ==========================================================

The matrix of every ``L`` is real, so a complex cotangent is pulled back by the same map (no
conjugation); a real input takes the real part (``ProjectTo``).

``repeat`` with an integer *array* of repeats never reads the repeats on the host: an output
position ``j`` came from the element ``src[j] = searchsorted(cumulative_sum(repeats), j,
side="right")``, computed on the device. The pullback is ``scatter_add(zeros, src, y_bar)`` (a
segment sum; repeats of 0 leave a zero), the pushforward ``take(t, src)``. A repeats array of
one element (broadcast) is a host-known ``r = y.shape[axis] // n`` and takes the int path.
Output shapes come from the primal, whose shape is host metadata.

Degenerate cases: zero-size arrays and 0-d arrays are accepted wherever the function accepts
them (a ``reshape`` of a 0-d array, ``concat(..., axis=None)`` of 0-d arrays, ``repeat`` or
``tile`` by 0); their cotangents have the input's shape (zeros where nothing was read).

The cotangent of a tuple or list argument (``concat``, ``stack``) is a ``Tangent`` that indexes
like that sequence; a tuple output (``unstack``, ``broadcast_arrays``) takes a ``Tangent`` (or a
tuple) with one entry per output, and ``ZeroTangent()`` entries count as zeros.

Every rule takes the standard's signature, and, registered under ``"numpy:NAME"``, NumPy's
(positional axes, ``axis=None`` defaults, ``order="C"`` only; ``out=``, ``subok=True``,
``dtype=`` and ``casting=`` are rejected with a ``TypeError``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import (
    AbstractZero,
    Expect,
    NoTangent,
    ProjectTo,
    Signature,
    Tangent,
    TangentsIn,
    ZeroTangent,
    device_of,
    dtype_kind,
    is_array,
    namespace_of,
    pullback,
    register_frule,
    register_rrule,
    scatter_add,
    signature,
    tangents_in,
    unthunk,
)
from ..core.toolkit import numpy_result, output
from ._util import along, in_dtype

__all__: list[str] = []  # rules only: nothing to import from here

_NO = NoTangent()
_ZERO = ZeroTangent()
_REQUIRED = object()
_Rules = tuple[Callable[..., Any], Callable[..., Any]]


# --- arguments ---------------------------------------------------------------------------------
def _one(name: str, x: Any) -> tuple[Any, Any]:
    """``(xp, x)``: the namespace of an array argument, and ``x`` as one of its arrays (a Python
    scalar or a nested list becomes one)."""
    xp = namespace_of(x, fname=name)
    return xp, _array(xp, x)


def _array(xp: Any, x: Any) -> Any:
    return x if is_array(x) else xp.asarray(x)


def _dev(x: Any) -> dict[str, Any]:
    dev = device_of(x)
    return {} if dev is None else {"device": dev}


def _zeros(xp: Any, shape: tuple[int, ...], dtype: Any, like: Any) -> Any:
    return xp.zeros(shape, dtype=dtype, **_dev(like))


def _differentiable(x: Any, xp: Any) -> bool:
    return dtype_kind(x.dtype, xp) in "fc"


def _axis(name: str, axis: Any, ndim: int, what: str = "axis") -> int:
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


def _axes(name: str, axis: Any, ndim: int, what: str = "axis", unique: bool = True) -> tuple:
    """An int or a sequence of ints as non-negative axes, in the order given."""
    seq = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = tuple(_axis(name, a, ndim, what) for a in seq)
    if unique and len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axis in {what}={axis!r}")
    return out


def _ints(name: str, v: Any, what: str) -> tuple[int, ...]:
    """An int or a sequence of ints (host values: shapes, shifts, repetitions) as a tuple."""
    seq = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    try:
        return tuple(operator.index(e) for e in seq)
    except TypeError:
        raise TypeError(f"{name}: {what} must be an int or a tuple of ints, got {v!r}") from None


def _lead(t: Any, extra: int) -> tuple[int, ...]:
    return tuple(t.shape[:extra])


def _shift_axes(axes: Sequence[int], extra: int) -> tuple[int, ...]:
    return tuple(a + extra for a in axes)


def _order_c(name: str, order: Any) -> None:
    if order not in ("C", None):
        raise ValueError(
            f"{name}: the rule supports order='C' only (the standard's row-major order), got "
            f"order={order!r}"
        )


def _no_subok(name: str, subok: Any) -> None:
    if subok:
        raise TypeError(f"{name}: the rule does not support subok=True")


def _no_dtype(name: str, a: dict[str, Any]) -> None:
    if a.get("dtype") is not None:
        raise TypeError(f"{name}: the rule does not support dtype= (cast the result instead)")
    if a.get("casting", "same_kind") != "same_kind":
        raise TypeError(f"{name}: the rule does not support casting={a['casting']!r}")


# --- the linear map of one array: its pullback and pushforward -----------------------------------
def _linear_pullback(
    name: str, x: Any, y: Any, args: Sequence[Any], xp: Any, chunked: bool = False
) -> Callable[[Callable[[Any], Any]], Callable[[Any], tuple[Any, ...]]]:
    """Decorator: the pullback of a linear ``y = L x`` (``x`` the first of the positional
    ``args``) from its transpose, ``transpose(g) = Lᵀ g``, made with :func:`pullback`: ``g`` is
    the cotangent in ``y``'s dtype, ``Lᵀ g`` is projected onto ``x``, and the other arguments
    (shapes, axes, counts) have ``NoTangent()``. ``chunked=True``: ``transpose`` keeps leading
    chunk axes of ``g`` (see :func:`chainrules.pullback`), and so does the pullback."""
    project, project_y = ProjectTo(x, xp), ProjectTo(y, xp)
    rest = (_NO,) * (len(args) - 1)
    y_rank = len(project_y.shape)

    def decorator(transpose: Callable[[Any], Any]) -> Callable[[Any], tuple[Any, ...]]:
        def linear_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (_NO, *rest)
            extra = y_bar.ndim - y_rank if chunked else 0
            if extra:
                return (project(transpose(project_y(y_bar, extra)), extra), *rest)
            return (project(transpose(project_y(y_bar))), *rest)

        # the rule's own name (reshape_pullback); cheaper than functools.wraps on every call
        linear_pullback.__name__ = linear_pullback.__qualname__ = transpose.__name__
        return pullback(y, args, name=name, chunked=chunked)(linear_pullback)

    return decorator


def _pushforward(
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
    if not _differentiable(y, xp):
        return _NO
    if not _differentiable(x, xp):
        return _ZERO
    dots = tangents_in(name, tangents, (x, *args[1:]))
    if dots is None or isinstance(dots[0], AbstractZero):
        return _ZERO
    return in_dtype(xp, push(dots[0], dots.extra), y.dtype)


def _register(
    targets: tuple[str, ...],
    rules: _Rules,
    examples: Any,
    expect: Any = (),
    chunked: bool = False,
    kind: str | None = None,
) -> None:
    """Register ``rules`` for ``targets``; ``kind`` is what the function is for engines
    (``"view"``: NumPy returns a view; ``"sequence"``: it takes a sequence of arrays)."""
    r, f = rules
    register_rrule(*targets, examples=examples, expect=expect, chunked_pullback=chunked, kind=kind)(
        r
    )
    register_frule(*targets, examples=examples, expect=expect, kind=kind)(f)


# --- examples (python -m chainrules check, and the test suite) ----------------------------------
def _ex(args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *, note: str) -> Any:
    """One example input (``Example`` keeps sequences and shapes out of complex sniffing)."""
    from ..core.examples import Example

    cplx = any(
        np.iscomplexobj(v)
        for a in args
        for v in (a if isinstance(a, (tuple, list)) else (a,))
        if isinstance(v, np.ndarray)
    )
    return Example(args, kwargs or {}, note=note, complex=cplx)


def _rng_arrays(rng: np.random.Generator) -> Callable[..., Any]:
    def r(*shape: int, c: bool = False) -> Any:
        v = rng.standard_normal(shape)
        return v + 1j * rng.standard_normal(shape) if c else v

    return r


# --- reshape, ravel, squeeze, expand_dims: a new shape, pulled back by reshaping back ------------
def _reshape_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        out = [
            _ex((r(2, 3), (3, 2)), note="matrix"),
            _ex((r(2, 3, 4), (4, -1)), note="-1"),
            _ex((r(), (1, 1)), note="0-d in"),
            _ex((r(1, 1), ()), note="0-d out"),
            _ex((r(0, 3), (3, 0)), note="zero-size"),
            _ex((r(6, c=True), (2, 3)), note="complex"),
            _ex((r(7, 8), (56,)), note="large"),
        ]
        if numpy:
            out += [
                _ex((r(2, 3), 6), note="int shape"),
                _ex((r(2, 3), (3, 2), "C"), note="order='C'"),
            ]
        return out

    return make


def _ravel_ex(rng: np.random.Generator) -> list[Any]:
    r = _rng_arrays(rng)
    return [
        _ex((r(2, 3),), note="matrix"),
        _ex((r(),), note="0-d"),
        _ex((r(2, 0),), note="zero-size"),
        _ex((r(2, 2, c=True),), note="complex"),
    ]


def _squeeze_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        out = [
            _ex((r(1, 3, 1),), {"axis": 0}, note="axis=0"),
            _ex((r(1, 3, 1),), {"axis": (0, -1)}, note="two axes"),
            _ex((r(1),), {"axis": 0}, note="to 0-d"),
            _ex((r(0, 1),), {"axis": 1}, note="zero-size"),
            _ex((r(2, 1, c=True),), {"axis": 1}, note="complex"),
        ]
        if numpy:
            out += [_ex((r(1, 3, 1, 2),), note="axis=None"), _ex((r(1, 4), 0), note="positional")]
        return out

    return make


def _expand_dims_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        out = [
            _ex((r(2, 3),), {"axis": 0}, note="axis=0"),
            _ex((r(2, 3),), {"axis": -1}, note="axis=-1"),
            _ex((r(2, 3),), {"axis": 1}, note="middle"),
            _ex((r(),), {"axis": 0}, note="0-d"),
            _ex((r(0, 2),), {"axis": 2}, note="zero-size"),
            _ex((r(3, c=True),), {"axis": 1}, note="complex"),
        ]
        if numpy:
            out += [
                _ex((r(2, 3), (0, 3)), note="tuple of axes"),
                _ex((r(2, 3), 1), note="positional"),
            ]
        return out

    return make


_RESHAPE = signature("reshape", lambda x, /, shape, *, copy=None: None)
_NUMPY_RESHAPE = signature("reshape", lambda x, /, shape, order="C", *, copy=None: None)
_RAVEL = signature("ravel", lambda x, /, order="C": None)
# the standard's squeeze has no default axis (the message names it, as NumPy's would)
_SQUEEZE = signature("squeeze", lambda x, /, axis=_REQUIRED: None)
_NUMPY_SQUEEZE = signature("squeeze", lambda x, /, axis=None: None)
_EXPAND_DIMS = signature("expand_dims", lambda x, /, axis=0: None)
_NUMPY_EXPAND_DIMS = signature("expand_dims", lambda x, /, axis: None)


def _new_shape(name: str, a: dict[str, Any], shape: tuple[int, ...]) -> tuple[int, ...]:
    """The output shape of ``reshape``, ``ravel``, ``squeeze`` or ``expand_dims`` of an array of
    ``shape``, from the bound arguments ``a``."""
    if name == "reshape":
        return _ints(name, a["shape"], "shape")
    if name == "ravel":
        return (math.prod(shape),)
    axis = a["axis"]
    if name == "squeeze":
        if axis is _REQUIRED:
            raise TypeError("squeeze: missing required argument 'axis'")
        if axis is None:  # NumPy: every axis of length 1
            axes = tuple(i for i, n in enumerate(shape) if n == 1)
        elif not shape and type(axis) is int and axis in (0, -1):  # NumPy's (and torch's)
            axes = ()  # leniency: a bare axis 0 or -1 of a 0-d array (not a tuple) is accepted
        else:
            axes = _axes(name, axis, len(shape))
            for ax in axes:
                if shape[ax] != 1:
                    raise ValueError(
                        f"squeeze: axis {ax} of an array of shape {shape} has length "
                        f"{shape[ax]}, not 1"
                    )
        return tuple(n for i, n in enumerate(shape) if i not in axes)
    # expand_dims: the new axes are positions in the output (NumPy's and the standard's meaning)
    out_nd = len(shape) + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    new = _axes(name, axis, out_nd)
    rest = iter(shape)
    return tuple(1 if i in new else next(rest) for i in range(out_nd))


def _reshape_rules(sig: Signature) -> _Rules:
    name = sig.name

    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
        a = sig.bind(args, kwargs)
        _order_c(name, a.get("order"))
        xp, x = _one(name, a["x"])
        copy = {} if a.get("copy") is None else {"copy": a["copy"]}
        return xp, x, xp.reshape(x, _new_shape(name, a, tuple(x.shape)), **copy)

    def reshape_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, y = primal(args, kwargs)

        x_shape, y_rank = tuple(x.shape), y.ndim  # shapes, not x: the pullback must not keep x

        @_linear_pullback(name, x, y, args, xp, chunked=True)
        def reshape_pullback(g: Any) -> Any:  # a chunk's leading axes kept
            return xp.reshape(g, _lead(g, g.ndim - y_rank) + x_shape)

        return y, reshape_pullback

    def reshape_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, y = primal(args, kwargs)
        shape = tuple(y.shape)

        def push(t: Any, extra: int) -> Any:
            return xp.reshape(t, _lead(t, extra) + shape)

        return y, _pushforward(name, tangents, args, x, y, xp, push)

    return reshape_rrule, reshape_frule


_register(("reshape",), _reshape_rules(_RESHAPE), _reshape_ex(False), chunked=True)
# NumPy's reshape, ravel, squeeze and expand_dims return views: kind "view"
_register(
    ("numpy:reshape",), _reshape_rules(_NUMPY_RESHAPE), _reshape_ex(True), chunked=True, kind="view"
)
_register(("numpy:ravel",), _reshape_rules(_RAVEL), _ravel_ex, chunked=True, kind="view")
_register(("squeeze",), _reshape_rules(_SQUEEZE), _squeeze_ex(False), chunked=True)
_register(
    ("numpy:squeeze",), _reshape_rules(_NUMPY_SQUEEZE), _squeeze_ex(True), chunked=True, kind="view"
)
_register(("expand_dims",), _reshape_rules(_EXPAND_DIMS), _expand_dims_ex(False), chunked=True)
_register(
    ("numpy:expand_dims",),
    _reshape_rules(_NUMPY_EXPAND_DIMS),
    _expand_dims_ex(True),
    chunked=True,
    kind="view",
)


# --- permutations: permute_dims, transpose, swapaxes, moveaxis ----------------------------------
def _permute_ex(name: str) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        if name == "swapaxes":
            return [
                _ex((r(2, 3), 0, 1), note="matrix"),
                _ex((r(2, 3, 4), -1, 0), note="3-D"),
                _ex((r(2, 2), 1, 1), note="same axis"),
                _ex((r(0, 3, 1), 0, 2), note="zero-size"),
                _ex((r(2, 3, c=True), 1, 0), note="complex"),
            ]
        if name == "moveaxis":
            return [
                _ex((r(2, 3, 4), 0, -1), note="first to last"),
                _ex((r(2, 3, 4), (0, 1), (2, 0)), note="two axes"),
                _ex((r(3), 0, 0), note="vector"),
                _ex((r(2, 0, 3), 1, 0), note="zero-size"),
                _ex((r(2, 3, c=True), 1, 0), note="complex"),
            ]
        out = [
            _ex((r(2, 3, 4), (2, 0, 1)), note="3-D"),
            _ex((r(2, 3), (1, 0)), note="matrix"),
            _ex((r(), ()), note="0-d"),
            _ex((r(0, 3), (1, 0)), note="zero-size"),
            _ex((r(2, 3, c=True), (1, 0)), note="complex"),
            _ex((r(6, 7), (1, 0)), note="large"),
        ]
        if name == "transpose":
            out += [_ex((r(2, 3, 4),), note="axes=None"), _ex((r(2, 3), [1, 0]), note="list")]
        return out

    return make


_PERMUTE_DIMS = signature("permute_dims", lambda x, /, axes: None)
# NumPy's transpose (= np.permute_dims) reverses the axes by default
_NUMPY_TRANSPOSE = signature("transpose", lambda x, /, axes=None: None)
_SWAPAXES = signature("swapaxes", lambda x, /, axis1, axis2: None)
_MOVEAXIS = signature("moveaxis", lambda x, /, source, destination: None)


def _permutation(name: str, a: dict[str, Any], nd: int) -> tuple[int, ...]:
    """The permutation of the axes of an array of rank ``nd`` that ``name`` makes."""
    if name == "swapaxes":
        i, j = _axis(name, a["axis1"], nd, "axis1"), _axis(name, a["axis2"], nd, "axis2")
        perm = list(range(nd))
        perm[i], perm[j] = perm[j], perm[i]
        return tuple(perm)
    if name == "moveaxis":
        src = _axes(name, a["source"], nd, "source")
        dst = _axes(name, a["destination"], nd, "destination")
        if len(src) != len(dst):
            raise ValueError("moveaxis: source and destination must have the same number of axes")
        order = [ax for ax in range(nd) if ax not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return tuple(order)
    axes = a["axes"]
    if axes is None:
        return tuple(reversed(range(nd)))
    if len(_ints(name, axes, "axes")) != nd:
        raise ValueError(f"{name}: axes {axes!r} do not match an array of rank {nd}")
    return _axes(name, axes, nd, "axes")


def _permute_rules(sig: Signature) -> _Rules:
    name = sig.name

    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        a = sig.bind(args, kwargs)
        xp, x = _one(name, a["x"])
        perm = _permutation(name, a, x.ndim)
        if sorted(perm) != list(range(x.ndim)):
            raise ValueError(
                f"{name}: axes {perm} are not a permutation of the axes of an array of rank "
                f"{x.ndim}"
            )
        return xp, x, perm, xp.permute_dims(x, perm)

    def permute_dims_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, perm, y = primal(args, kwargs)
        inverse = tuple(perm.index(i) for i in range(len(perm)))

        @_linear_pullback(name, x, y, args, xp)
        def permute_dims_pullback(g: Any) -> Any:
            return xp.permute_dims(g, inverse)

        return y, permute_dims_pullback

    def permute_dims_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, perm, y = primal(args, kwargs)

        def push(t: Any, extra: int) -> Any:
            return xp.permute_dims(t, tuple(range(extra)) + _shift_axes(perm, extra))

        return y, _pushforward(name, tangents, args, x, y, xp, push)

    return permute_dims_rrule, permute_dims_frule


_register(("permute_dims",), _permute_rules(_PERMUTE_DIMS), _permute_ex("permute_dims"))
# np.permute_dims is np.transpose: NumPy's rule serves both
_V = "view"  # NumPy returns views from these
_register(("numpy:transpose",), _permute_rules(_NUMPY_TRANSPOSE), _permute_ex("transpose"), kind=_V)
_register(("numpy:swapaxes",), _permute_rules(_SWAPAXES), _permute_ex("swapaxes"), kind=_V)
_register(
    ("moveaxis", "numpy:moveaxis"), _permute_rules(_MOVEAXIS), _permute_ex("moveaxis"), kind=_V
)


# --- flip ---------------------------------------------------------------------------------------
def _flip_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        out = [
            _ex((r(5),), note="vector"),
            _ex((r(2, 3),), {"axis": 1}, note="axis=1"),
            _ex((r(2, 3, 2),), {"axis": (0, -1)}, note="two axes"),
            _ex((r(2, 3),), note="all axes"),
            _ex((r(),), note="0-d"),
            _ex((r(0, 2),), {"axis": 0}, note="zero-size"),
            _ex((r(4, c=True),), note="complex"),
        ]
        if numpy:
            out += [_ex((r(2, 3), 0), note="positional axis")]
        return out

    return make


_FLIP = signature("flip", lambda x, /, *, axis=None: None)
_NUMPY_FLIP = signature("flip", lambda x, /, axis=None: None)


def _flip_rules(sig: Signature) -> _Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        a = sig.bind(args, kwargs)
        xp, x = _one("flip", a["x"])
        axes = tuple(range(x.ndim)) if a["axis"] is None else _axes("flip", a["axis"], x.ndim)
        y = xp.flip(x, axis=axes) if axes else xp.reshape(x, tuple(x.shape))
        return xp, x, axes, numpy_result(y)

    def flip_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, y = primal(args, kwargs)

        @_linear_pullback("flip", x, y, args, xp)
        def flip_pullback(g: Any) -> Any:
            return xp.flip(g, axis=axes) if axes else g

        return y, flip_pullback

    def flip_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, axes, y = primal(args, kwargs)

        def push(t: Any, extra: int) -> Any:
            return xp.flip(t, axis=_shift_axes(axes, extra)) if axes else t

        return y, _pushforward("flip", tangents, args, x, y, xp, push)

    return flip_rrule, flip_frule


_register(("flip",), _flip_rules(_FLIP), _flip_ex(False))
_register(("numpy:flip",), _flip_rules(_NUMPY_FLIP), _flip_ex(True))


# --- roll ---------------------------------------------------------------------------------------
def _roll_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        out = [
            _ex((r(5), 2), note="vector"),
            _ex((r(2, 3), 1), {"axis": 1}, note="axis=1"),
            _ex((r(2, 3), -4), {"axis": 0}, note="negative, past the length"),
            _ex((r(2, 3, 2), (1, 2)), {"axis": (0, 1)}, note="two axes"),
            _ex((r(2, 3), 4), note="flattened"),
            _ex((r(), 1), note="0-d"),
            _ex((r(0, 2), 1), {"axis": 1}, note="zero-size"),
            _ex((r(4, c=True), 1), note="complex"),
        ]
        if numpy:
            out += [_ex((r(2, 3), 1, 1), note="positional axis")]
        return out

    return make


_ROLL = signature("roll", lambda x, /, shift, *, axis=None: None)
_NUMPY_ROLL = signature("roll", lambda x, /, shift, axis=None: None)


def _roll_rules(sig: Signature) -> _Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        a = sig.bind(args, kwargs)
        xp, x = _one("roll", a["x"])
        shift, axis = a["shift"], a["axis"]
        shifts = _ints("roll", shift, "shift")
        back: Any = tuple(-s for s in shifts) if isinstance(shift, (tuple, list)) else -shifts[0]
        if axis is None:  # the flattened array, rolled, in x's shape
            n = math.prod(tuple(x.shape))
            y = xp.reshape(xp.roll(xp.reshape(x, (n,)), shift, axis=0), tuple(x.shape))
            return xp, x, shift, back, None, y
        axes: Any = (
            _axes("roll", axis, x.ndim, unique=False)
            if isinstance(axis, (tuple, list))
            else _axis("roll", axis, x.ndim)
        )
        return xp, x, shift, back, axes, xp.roll(x, shift, axis=axes)

    def roll_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, _, back, axes, y = primal(args, kwargs)
        xshape = tuple(x.shape)

        @_linear_pullback("roll", x, y, args, xp)
        def roll_pullback(g: Any) -> Any:
            if axes is None:
                return xp.reshape(
                    xp.roll(xp.reshape(g, (math.prod(xshape),)), back, axis=0), xshape
                )
            return xp.roll(g, back, axis=axes)

        return y, roll_pullback

    def roll_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, shift, _, axes, y = primal(args, kwargs)
        xshape = tuple(x.shape)

        def push(t: Any, extra: int) -> Any:
            if axes is None:
                lead = _lead(t, extra)
                flat = xp.roll(xp.reshape(t, (*lead, math.prod(xshape))), shift, axis=extra)
                return xp.reshape(flat, lead + xshape)
            ax = _shift_axes(axes, extra) if isinstance(axes, tuple) else axes + extra
            return xp.roll(t, shift, axis=ax)

        return y, _pushforward("roll", tangents, args, x, y, xp, push)

    return roll_rrule, roll_frule


_register(("roll",), _roll_rules(_ROLL), _roll_ex(False))
_register(("numpy:roll",), _roll_rules(_NUMPY_ROLL), _roll_ex(True))


# --- broadcast_to -------------------------------------------------------------------------------
def _unbroadcast(xp: Any, g: Any, xshape: tuple[int, ...]) -> Any:
    """The transpose of ``broadcast_to(x, g.shape)``: ``g`` summed over the axes ``x`` was
    broadcast along, in ``x``'s shape."""
    gshape = tuple(g.shape)
    lead = len(gshape) - len(xshape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(xshape) if n == 1 and gshape[lead + i] != 1
    )
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    return xp.reshape(g, xshape) if tuple(g.shape) != xshape else g


def _broadcast_tangent(xp: Any, t: Any, extra: int, xshape: tuple, yshape: tuple) -> Any:
    """``broadcast_to`` of a tangent with ``extra`` leading chunk axes to ``yshape``."""
    lead = _lead(t, extra)
    new = len(yshape) - len(xshape)
    if extra and new:
        t = xp.reshape(t, lead + (1,) * new + xshape)
    return xp.broadcast_to(t, lead + yshape)


def _broadcast_to_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        out = [
            _ex((r(3), (2, 3)), note="new leading axis"),
            _ex((r(2, 1), (2, 4)), note="length-1 axis"),
            _ex((r(1, 3, 1), (2, 2, 3, 4)), note="both"),
            _ex((r(), (2, 3)), note="0-d"),
            _ex((r(1, 3), (0, 3)), note="to zero-size"),
            _ex((r(3), (3,)), note="same shape"),
            _ex((r(2, 1, c=True), (2, 3)), note="complex"),
        ]
        if numpy:
            out += [_ex((r(1), 4), note="int shape")]
        return out

    return make


_BROADCAST_TO = signature("broadcast_to", lambda x, /, shape: None)
_NUMPY_BROADCAST_TO = signature("broadcast_to", lambda x, /, shape, subok=None: None)


def _broadcast_to_rules(sig: Signature) -> _Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        a = sig.bind(args, kwargs)
        _no_subok("broadcast_to", a.get("subok"))
        xp, x = _one("broadcast_to", a["x"])
        shape = _ints("broadcast_to", a["shape"], "shape")
        return xp, x, shape, xp.broadcast_to(x, shape)

    def broadcast_to_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, _, y = primal(args, kwargs)
        xshape = tuple(x.shape)  # the shape, not x: the pullback must not keep x alive

        @_linear_pullback("broadcast_to", x, y, args, xp)
        def broadcast_to_pullback(g: Any) -> Any:
            return _unbroadcast(xp, g, xshape)

        return y, broadcast_to_pullback

    def broadcast_to_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, shape, y = primal(args, kwargs)

        def push(t: Any, extra: int) -> Any:
            return _broadcast_tangent(xp, t, extra, tuple(x.shape), shape)

        return y, _pushforward("broadcast_to", tangents, args, x, y, xp, push)

    return broadcast_to_rrule, broadcast_to_frule


_register(("broadcast_to",), _broadcast_to_rules(_BROADCAST_TO), _broadcast_to_ex(False))
_register(("numpy:broadcast_to",), _broadcast_to_rules(_NUMPY_BROADCAST_TO), _broadcast_to_ex(True))


# --- repeat -------------------------------------------------------------------------------------
def _axis_key(xp: Any, shape: tuple[int, ...], ax: int, idx: Any, like: Any) -> tuple[Any, ...]:
    """The all-integer-array key ``k`` with ``x[k] == take(x, idx, axis=ax)`` for a result of
    ``shape`` (the form every Array API library accepts, array-api-strict included)."""
    nd = len(shape)
    keys = []
    for d, n in enumerate(shape):
        s = [1] * nd
        s[d] = n
        v = idx if d == ax else xp.arange(n, dtype=idx.dtype, **_dev(like))
        keys.append(xp.reshape(v, tuple(s)))
    return tuple(keys)


def _repeat_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        ia = np.array
        out = [
            _ex((r(3), 2), note="vector"),
            _ex((r(2, 3), 2), {"axis": 1}, note="int, axis=1"),
            _ex((r(2, 3), 3), note="int, flattened"),
            _ex((r(2, 3), 0), {"axis": 0}, note="zero repeats"),
            _ex((r(), 3), note="0-d"),
            _ex((r(0, 2), 2), {"axis": 0}, note="zero-size"),
            _ex((r(3), ia([2, 0, 3])), {"axis": 0}, note="array, with 0"),
            _ex((r(2, 3), ia([1, 3, 2])), {"axis": -1}, note="array, axis=-1"),
            _ex((r(2, 3), ia([1, 2])), {"axis": 0}, note="array, axis=0"),
            _ex((r(2, 2), ia([1, 0, 2, 1])), note="array, flattened"),
            _ex((r(2, 3), ia([2])), {"axis": 1}, note="one-element array"),
            _ex((r(3, c=True), 2), note="complex"),
        ]
        if numpy:
            out += [_ex((r(2, 3), 2, 0), note="positional axis")]
        return out

    return make


_REPEAT = signature("repeat", lambda x, /, repeats, *, axis=None: None)
_NUMPY_REPEAT = signature("repeat", lambda x, /, repeats, axis=None: None)


def _repeat_rules(sig: Signature) -> _Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """``(xp, x, y, ax, wshape, r, src)``: the repeat works on ``x`` in shape ``wshape``
        (flattened for ``axis=None``, as repeat itself does) along ``ax``; ``r`` is the one
        count of every element when the host knows it, else ``src`` (on the device) the source
        of each output position."""
        a = sig.bind(args, kwargs)
        xp, x = _one("repeat", a["x"])
        repeats, axis = a["repeats"], a["axis"]
        if isinstance(repeats, (list, tuple)):  # host values: an array on x's device
            repeats = xp.asarray(repeats, **_dev(x))
        ax = 0 if axis is None else _axis("repeat", axis, x.ndim)  # checked before the call
        y = xp.repeat(x, repeats, axis=axis)
        xshape = tuple(x.shape)
        wshape = (math.prod(xshape),) if axis is None else xshape
        n, total = wshape[ax], tuple(y.shape)[ax]
        if not is_array(repeats) or math.prod(tuple(repeats.shape)) == 1:
            # one count for every element: known on the host from the shapes
            r = operator.index(repeats) if not is_array(repeats) else (total // n if n else 0)
            return xp, x, y, ax, wshape, r, None
        # counts on the device: the source of output position j is the number of cumulative
        # counts <= j (no host read of the counts)
        ends = xp.cumulative_sum(xp.reshape(repeats, (n,)))
        positions = xp.arange(total, dtype=ends.dtype, **_dev(x))
        return xp, x, y, ax, wshape, 0, xp.searchsorted(ends, positions, side="right")

    def repeat_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, y, ax, wshape, r, src = primal(args, kwargs)
        xshape = tuple(x.shape)
        empty = math.prod(tuple(y.shape)) == 0  # host-known from the shapes
        like = output(x)  # x's shape, dtype and device, not x: the pullback must not keep x alive

        @_linear_pullback("repeat", x, y, args, xp)
        def repeat_pullback(g: Any) -> Any:
            if empty:  # nothing was copied: no reshape of a zero-size cotangent (dask refuses)
                return _zeros(xp, xshape, g.dtype, like)
            if src is None:  # the sum of each element's block of r copies
                blocks = xp.reshape(g, (*wshape[:ax], wshape[ax], r, *wshape[ax + 1 :]))
                return xp.reshape(xp.sum(blocks, axis=ax + 1), xshape)
            key = _axis_key(xp, tuple(g.shape), ax, src, like)
            zeros = _zeros(xp, wshape, g.dtype, like)
            return xp.reshape(scatter_add(zeros, key, g), xshape)

        return y, repeat_pullback

    def repeat_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, y, ax, wshape, r, src = primal(args, kwargs)
        flatten = wshape != tuple(x.shape)

        def push(t: Any, extra: int) -> Any:
            if flatten:
                t = xp.reshape(t, _lead(t, extra) + wshape)
            if src is None:
                return xp.repeat(t, r, axis=ax + extra)
            return xp.take(t, src, axis=ax + extra)

        return y, _pushforward("repeat", tangents, args, x, y, xp, push)

    return repeat_rrule, repeat_frule


# jax.numpy.repeat needs its repeats on the host to know its output's shape
_TRACED_REPEATS = Expect(
    "jit", "jax.numpy.repeat cannot take traced repeats under jax.jit", "skip", "array"
)
_register(("repeat",), _repeat_rules(_REPEAT), _repeat_ex(False), _TRACED_REPEATS)
_register(("numpy:repeat",), _repeat_rules(_NUMPY_REPEAT), _repeat_ex(True), _TRACED_REPEATS)


# --- tile ---------------------------------------------------------------------------------------
def _tile_ex(rng: np.random.Generator) -> list[Any]:
    r = _rng_arrays(rng)
    return [
        _ex((r(3), (2,)), note="vector"),
        _ex((r(2, 3), (2, 1)), note="matrix"),
        _ex((r(2, 3), (3,)), note="fewer repetitions"),
        _ex((r(3), (2, 2)), note="more repetitions"),
        _ex((r(), (3,)), note="0-d"),
        _ex((r(2, 3), (0, 1)), note="zero repetitions"),
        _ex((r(0, 2), (2, 2)), note="zero-size"),
        _ex((r(2, c=True), (2,)), note="complex"),
    ]


def _numpy_tile_ex(rng: np.random.Generator) -> list[Any]:
    r = _rng_arrays(rng)
    return [*_tile_ex(rng), _ex((r(2, 2), 3), note="int reps")]


_TILE = signature("tile", lambda x, /, repetitions: None)
_NUMPY_TILE = signature("tile", lambda x, /, reps: None)


def _tile_rules(sig: Signature) -> _Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any, Any]:
        """``(xp, x, y, xs, rs)``: ``x``'s shape and the repetitions, both padded with leading
        ones to one length."""
        a = sig.bind(args, kwargs)
        what = "reps" if "reps" in a else "repetitions"
        xp, x = _one("tile", a["x"])
        reps = _ints("tile", a[what], what)
        if any(r < 0 for r in reps):
            raise ValueError(f"tile: {what} must be non-negative, got {reps}")
        y = xp.tile(x, reps)
        d = max(len(reps), x.ndim)
        xs = (1,) * (d - x.ndim) + tuple(x.shape)
        rs = (1,) * (d - len(reps)) + reps
        return xp, x, y, xs, rs

    def tile_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, y, xs, rs = primal(args, kwargs)
        inter = tuple(v for pair in zip(rs, xs) for v in pair)  # (r0, s0, r1, s1, ...)
        empty = math.prod(tuple(y.shape)) == 0  # host-known from the shapes
        xshape = tuple(x.shape)  # the shape, not x: the pullback must not keep x alive
        like = output(x)

        @_linear_pullback("tile", x, y, args, xp)
        def tile_pullback(g: Any) -> Any:
            if empty:  # nothing was copied: no reshape of a zero-size cotangent (dask refuses)
                return _zeros(xp, xshape, g.dtype, like)
            summed = xp.sum(xp.reshape(g, inter), axis=tuple(range(0, len(inter), 2)))
            return xp.reshape(summed, xshape)

        return y, tile_pullback

    def tile_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, y, xs, rs = primal(args, kwargs)

        def push(t: Any, extra: int) -> Any:
            return xp.tile(xp.reshape(t, _lead(t, extra) + xs), (1,) * extra + rs)

        return y, _pushforward("tile", tangents, args, x, y, xp, push)

    return tile_rrule, tile_frule


_register(("tile",), _tile_rules(_TILE), _tile_ex)
_register(("numpy:tile",), _tile_rules(_NUMPY_TILE), _numpy_tile_ex)


# --- several arrays: concat, stack, unstack, broadcast_arrays -----------------------------------
def _elements(name: str, bar: Any, n: int) -> tuple[Any, ...]:
    """The entries of a structural tangent of ``n`` arrays (a ``Tangent`` or a tuple)."""
    if isinstance(bar, Tangent):
        parts = bar.elements()
    elif isinstance(bar, (tuple, list)):
        parts = tuple(bar)
    else:
        raise TypeError(
            f"{name}: expected a Tangent (or a tuple) with one entry per array, got "
            f"{type(bar).__name__}"
        )
    if len(parts) != n:
        raise ValueError(f"{name}: got {len(parts)} entries for {n} arrays")
    return parts


def _sequence(name: str, arrays: Any) -> tuple[Any, Any]:
    """``(xp, arrays)`` of a sequence argument, each element an array of ``xp``."""
    if is_array(arrays) or not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{name}: expected a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{name}: needs at least one array")
    xp = namespace_of(*arrays, fname=name)
    return xp, type(arrays)(_array(xp, a) for a in arrays)


def _sequence_tangents(
    name: str, xp: Any, tangents: Sequence[Any], arrays: Sequence[Any], dtype: Any
) -> tuple[list[Any], int] | None:
    """The tangents of a sequence argument (its tangent is a ``Tangent`` or a tuple, one entry
    per array: the local step before ``tangents_in``), zeros filled in, in ``dtype``, and their
    number of leading chunk axes; ``None`` when all are zero."""
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero):
        return None
    dots: TangentsIn | None = tangents_in(name, (_NO, *_elements(name, t, len(arrays))), arrays)
    if dots is None:
        return None
    lead = dots.lead()
    out = [
        _zeros(xp, lead + tuple(a.shape), dtype, a)
        if isinstance(d, AbstractZero)
        else in_dtype(xp, d, dtype)
        for d, a in zip(dots, arrays)
    ]
    return out, dots.extra


def _concat_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        out = [
            _ex(((r(2), r(3)),), note="vectors"),
            _ex(((r(2, 3), r(1, 3), r(4, 3)),), {"axis": 0}, note="rows"),
            _ex(([r(2, 1), r(2, 3)],), {"axis": -1}, note="list, columns"),
            _ex(((r(2, 2), r(3)),), {"axis": None}, note="axis=None flattens"),
            _ex(((r(), r()),), {"axis": None}, note="0-d, axis=None"),
            _ex(((r(0, 2), r(2, 2)),), note="zero-size"),
            _ex(((r(2),),), note="one array"),
            _ex(((r(2, c=True), r(1, c=True)),), note="complex"),
            _ex(((r(20, 2), r(20, 2)),), {"axis": 1}, note="large"),
        ]
        if numpy:
            out += [_ex(((r(2, 2), r(2, 1)), 1), note="positional axis")]
        return out

    return make


_CONCAT = signature("concat", lambda arrays, /, *, axis=0: None)
_NUMPY_CONCATENATE = signature(
    "concatenate",
    lambda arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind": None,
)


def _concat_rules(sig: Signature) -> _Rules:
    name = sig.name

    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        """``(xp, arrays, axis, y)``; ``axis`` None: the arrays flattened."""
        a = sig.bind(args, kwargs)
        _no_dtype(name, a)
        xp, arrays = _sequence(name, a["arrays"])
        axis = a["axis"]
        if axis is None:
            flat = [xp.reshape(v, (math.prod(v.shape),)) for v in arrays]
            return xp, arrays, None, xp.concat(flat, axis=0)
        ndims = {v.ndim for v in arrays}
        if len(ndims) != 1 or 0 in ndims:
            raise ValueError(f"{name}: the arrays must have one rank >= 1, got ranks {ndims}")
        axis = _axis(name, axis, ndims.pop())
        return xp, arrays, axis, xp.concat(list(arrays), axis=axis)

    def concat_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = primal(args, kwargs)
        projects = [ProjectTo(v, xp) for v in arrays]
        project_y = ProjectTo(y, xp)
        sizes = [math.prod(v.shape) if axis is None else v.shape[axis] for v in arrays]
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        kind, rest = type(arrays), (_NO,) * (len(args) - 1)
        shapes = [tuple(v.shape) for v in arrays]  # not the arrays: the pullback must not keep them

        @pullback(y, args, name=name)
        def concat_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project_y.differentiable:
                return (Tangent(*(_NO for _ in shapes), primal_type=kind), *rest)
            g = project_y(y_bar)
            parts = []
            for shape, p, s, n in zip(shapes, projects, starts, sizes):
                if axis is None:  # a slice of the flat cotangent, in the array's shape
                    piece = xp.reshape(g[s : s + n], shape)
                else:
                    piece = g[along(axis, slice(s, s + n))]
                parts.append(p(piece))
            return (Tangent(*parts, primal_type=kind), *rest)

        return y, concat_pullback

    def concat_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = primal(args, kwargs)
        if not _differentiable(y, xp):
            return y, _NO
        dots = _sequence_tangents(name, xp, tangents, arrays, y.dtype)
        if dots is None:
            return y, _ZERO
        ts, extra = dots
        if axis is None:
            flat = [
                xp.reshape(t, (*_lead(t, extra), math.prod(v.shape))) for t, v in zip(ts, arrays)
            ]
            return y, xp.concat(flat, axis=extra)
        return y, xp.concat(ts, axis=axis + extra)

    return concat_rrule, concat_frule


_S = "sequence"  # these take their arrays as one sequence argument
_register(("concat",), _concat_rules(_CONCAT), _concat_ex(False), kind=_S)
# np.concat is np.concatenate: NumPy's rule serves both
_register(("numpy:concatenate",), _concat_rules(_NUMPY_CONCATENATE), _concat_ex(True), kind=_S)


def _stack_ex(numpy: bool) -> Callable[[np.random.Generator], list[Any]]:
    def make(rng: np.random.Generator) -> list[Any]:
        r = _rng_arrays(rng)
        out = [
            _ex(((r(3), r(3)),), note="vectors"),
            _ex(([r(2, 3), r(2, 3), r(2, 3)],), {"axis": 1}, note="list, axis=1"),
            _ex(((r(2, 3), r(2, 3)),), {"axis": -1}, note="axis=-1"),
            _ex(((r(), r()),), note="0-d"),
            _ex(((r(0, 2), r(0, 2)),), note="zero-size"),
            _ex(((r(2),),), note="one array"),
            _ex(((r(2, c=True), r(2, c=True)),), note="complex"),
        ]
        if numpy:
            out += [_ex(((r(2), r(2)), 1), note="positional axis")]
        return out

    return make


_STACK = signature("stack", lambda arrays, /, *, axis=0: None)
_NUMPY_STACK = signature(
    "stack", lambda arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind": None
)


def _stack_rules(sig: Signature) -> _Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        a = sig.bind(args, kwargs)
        _no_dtype("stack", a)
        xp, arrays = _sequence("stack", a["arrays"])
        shapes = {tuple(v.shape) for v in arrays}
        if len(shapes) != 1:
            raise ValueError(f"stack: the arrays must have one shape, got {sorted(shapes)}")
        axis = _axis("stack", a["axis"], arrays[0].ndim + 1)
        return xp, arrays, axis, xp.stack(list(arrays), axis=axis)

    def stack_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = primal(args, kwargs)
        projects = [ProjectTo(v, xp) for v in arrays]
        project_y = ProjectTo(y, xp)
        kind, rest = type(arrays), (_NO,) * (len(args) - 1)

        @pullback(y, args)
        def stack_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project_y.differentiable:
                return (Tangent(*(_NO for _ in projects), primal_type=kind), *rest)
            parts = xp.unstack(project_y(y_bar), axis=axis)
            return (Tangent(*(p(e) for p, e in zip(projects, parts)), primal_type=kind), *rest)

        return y, stack_pullback

    def stack_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = primal(args, kwargs)
        if not _differentiable(y, xp):
            return y, _NO
        dots = _sequence_tangents("stack", xp, tangents, arrays, y.dtype)
        if dots is None:
            return y, _ZERO
        ts, extra = dots
        return y, xp.stack(ts, axis=axis + extra)

    return stack_rrule, stack_frule


_register(("stack",), _stack_rules(_STACK), _stack_ex(False), kind=_S)
_register(("numpy:stack",), _stack_rules(_NUMPY_STACK), _stack_ex(True), kind=_S)


def _unstack_ex(rng: np.random.Generator) -> list[Any]:
    r = _rng_arrays(rng)
    return [
        _ex((r(3, 2),), note="rows"),
        _ex((r(2, 3, 2),), {"axis": 1}, note="axis=1"),
        _ex((r(2, 3),), {"axis": -1}, note="axis=-1"),
        _ex((r(3),), note="to 0-d"),
        _ex((r(2, 0),), note="zero-size pieces"),
        _ex((r(2, 2, c=True),), note="complex"),
    ]


_UNSTACK = signature("unstack", lambda x, /, *, axis=0: None)


def _unstack(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, int, Any]:
    a = _UNSTACK.bind(args, kwargs)
    xp, x = _one("unstack", a["x"])
    axis = _axis("unstack", a["axis"], x.ndim)
    return xp, x, axis, xp.unstack(x, axis=axis)


def _cast_like(xp: Any, e: Any, x: Any) -> Any:
    """A cotangent piece in ``x``'s dtype (the real part for a real ``x``)."""
    if dtype_kind(x.dtype, xp) == "f" and dtype_kind(e.dtype, xp) == "c":
        e = xp.real(e)
    return in_dtype(xp, e, x.dtype)


@register_rrule("unstack", examples=_unstack_ex, kind=_S)
def unstack_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x, axis, ys = _unstack(args, kwargs)
    project = ProjectTo(x, xp)
    piece = tuple(s for i, s in enumerate(x.shape) if i != axis)
    like = output(x)  # x's shape, dtype and device, not x: the pullback must not keep x alive

    @pullback(ys, args)
    def unstack_pullback(y_bar: tuple[Any, ...]) -> Any:
        if not project.differentiable:
            return _NO
        parts = [
            _zeros(xp, piece, like.dtype, like)
            if isinstance(e, AbstractZero)
            else _cast_like(xp, e, like)
            for e in y_bar
        ]
        return project(xp.stack(parts, axis=axis))

    return ys, unstack_pullback


@register_frule("unstack", examples=_unstack_ex, kind=_S)
def unstack_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, axis, ys = _unstack(args, kwargs)
    if not _differentiable(x, xp):
        return ys, _NO
    dots = tangents_in("unstack", tangents, (x,))
    if dots is None:
        return ys, _ZERO
    return ys, Tangent(*xp.unstack(dots[0], axis=axis + dots.extra), primal_type=type(ys))


def _broadcast_arrays_ex(rng: np.random.Generator) -> list[Any]:
    r = _rng_arrays(rng)
    return [
        _ex((r(3), r(2, 1)), note="two"),
        _ex((r(2, 3), r(), r(1, 3)), note="three with 0-d"),
        _ex((r(0, 1), r(3)), note="zero-size"),
        _ex((r(2, 2),), note="one"),
        _ex((r(2, 1, c=True), r(3, c=True)), note="complex"),
    ]


_BROADCAST_ARRAYS = signature("broadcast_arrays", lambda *arrays: None)
_NUMPY_BROADCAST_ARRAYS = signature("broadcast_arrays", lambda *arrays, subok=None: None)


def _broadcast_arrays_rules(sig: Signature) -> _Rules:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
        a = sig.bind(args, kwargs)
        _no_subok("broadcast_arrays", a.get("subok"))
        if not args:
            raise TypeError("broadcast_arrays needs at least one array")
        xp = namespace_of(*args, fname="broadcast_arrays")
        arrays = tuple(_array(xp, v) for v in args)
        return xp, arrays, xp.broadcast_arrays(*arrays)

    def broadcast_arrays_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, ys = primal(args, kwargs)
        projects = [ProjectTo(v, xp) for v in arrays]
        yprojects = [ProjectTo(y, xp) for y in ys]
        shapes = [tuple(v.shape) for v in arrays]  # not the arrays: the pullback must not keep them

        @pullback(ys, args)
        def broadcast_arrays_pullback(y_bar: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(
                _NO
                if not p.differentiable
                else _ZERO
                if isinstance(e, AbstractZero)
                else p(_unbroadcast(xp, py(e), shape))
                for e, shape, p, py in zip(y_bar, shapes, projects, yprojects)
            )

        return ys, broadcast_arrays_pullback

    def broadcast_arrays_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, ys = primal(args, kwargs)
        zero = _ZERO if any(_differentiable(v, xp) for v in arrays) else _NO
        dots = tangents_in("broadcast_arrays", tangents, arrays)
        if dots is None:
            return ys, zero
        out = [
            _NO
            if not _differentiable(v, xp)
            else _ZERO
            if isinstance(t, AbstractZero)
            else _broadcast_tangent(xp, t, dots.extra, tuple(v.shape), tuple(y.shape))
            for t, v, y in zip(dots, arrays, ys)
        ]
        if all(isinstance(o, AbstractZero) for o in out):
            return ys, zero
        return ys, Tangent(*out, primal_type=type(ys))

    return broadcast_arrays_rrule, broadcast_arrays_frule


_register(
    ("broadcast_arrays",),
    _broadcast_arrays_rules(_BROADCAST_ARRAYS),
    _broadcast_arrays_ex,
    kind=_S,
)
_register(
    ("numpy:broadcast_arrays",),
    _broadcast_arrays_rules(_NUMPY_BROADCAST_ARRAYS),
    _broadcast_arrays_ex,
    kind=_S,
)
