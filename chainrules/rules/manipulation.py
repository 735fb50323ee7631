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

from ..core.namespaces import device_of, dtype_kind, is_array, namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import _reject_out, check_cotangent
from ..core.scatter import scatter_add
from ..core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, unthunk
from ._util import along, cotangent, in_dtype, tangent_extra

__all__: list[str] = []  # rules only: nothing to import from here

_NO = NoTangent()
_ZERO = ZeroTangent()
_REQUIRED = object()


# --- arguments ---------------------------------------------------------------------------------
def _bind(
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    positional: tuple[str, ...],
    keyword: tuple[str, ...] = (),
    defaults: dict[str, Any] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """``(x, params)`` of a call ``f(x, *args, **kwargs)``: ``positional`` names the parameters
    that may follow ``x`` positionally (or by keyword), ``keyword`` the keyword-only ones;
    ``defaults`` gives defaults (``_REQUIRED`` for a parameter that must be given)."""
    if not args:
        raise TypeError(f"{name} needs an array argument")
    x, *pos = args
    if len(pos) > len(positional):
        raise TypeError(
            f"{name} takes {1 + len(positional)} positional argument(s) in its rule, got "
            f"{len(args)}"
        )
    params = dict(zip(positional, pos))
    for k, v in kwargs.items():
        if k in params:
            raise TypeError(f"{name} got multiple values for argument {k!r}")
        if k not in positional and k not in keyword:
            raise TypeError(f"{name}: the rule does not support the keyword {k}=")
        params[k] = v
    for k, d in (defaults or {}).items():
        if k not in params:
            if d is _REQUIRED:
                raise TypeError(f"{name}: missing required argument {k!r}")
            params[k] = d
    return x, params


def _array(xp: Any, x: Any) -> Any:
    """``x`` as an array of ``xp`` (a Python scalar or a nested list becomes one)."""
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


def _no_dtype(name: str, params: dict[str, Any]) -> None:
    _reject_out(name, params)
    if params.get("dtype") is not None:
        raise TypeError(f"{name}: the rule does not support dtype= (cast the result instead)")
    if params.get("casting", "same_kind") != "same_kind":
        raise TypeError(f"{name}: the rule does not support casting={params['casting']!r}")


# --- one array in, one array out ----------------------------------------------------------------
class _Op:
    """A linear function of one array, normalised: the primal ``y``, its pushforward
    ``push(t, extra)`` (a tangent with ``extra`` leading chunk axes) and its transpose
    ``pull(g)`` (a cotangent of ``y`` in ``y``'s dtype kind)."""

    __slots__ = ("nargs", "pull", "push", "x", "xp", "y")

    def __init__(
        self,
        xp: Any,
        x: Any,
        y: Any,
        nargs: int,
        push: Callable[[Any, int], Any],
        pull: Callable[[Any], Any],
    ) -> None:
        self.xp, self.x, self.y, self.nargs, self.push, self.pull = xp, x, y, nargs, push, pull


def _linear(name: str, parse: Callable[..., _Op]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The rrule and frule of a one-array linear function, from its parser."""

    def rrule(*args: Any, **kwargs: Any) -> Any:
        op = parse(*args, **kwargs)
        xp, y = op.xp, op.y
        project, project_y = ProjectTo(op.x, xp), ProjectTo(y, xp)
        diff = project.differentiable
        rest = (_NO,) * (op.nargs - 1)

        def pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (_NO, _ZERO if diff else _NO, *rest)
            y_bar = cotangent(name, y_bar, y)
            if not diff:
                return (_NO, _NO, *rest)
            return (_NO, project(op.pull(project_y(y_bar))), *rest)

        pullback.__name__ = pullback.__qualname__ = f"{name}_pullback"
        return y, pullback

    def frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        op = parse(*args, **kwargs)
        xp, x, y = op.xp, op.x, op.y
        if not _differentiable(y, xp):
            return y, _NO
        t = unthunk(tangents[1])
        if isinstance(t, AbstractZero) or not _differentiable(x, xp):
            return y, _ZERO
        return y, in_dtype(xp, op.push(t, tangent_extra(name, t, x)), y.dtype)

    rrule.__name__ = rrule.__qualname__ = f"{name}_rrule"
    frule.__name__ = frule.__qualname__ = f"{name}_frule"
    return rrule, frule


def _register(targets: tuple[str, ...], rules: tuple[Any, Any], examples: Any) -> None:
    r, f = rules
    register_rrule(*targets, examples=examples)(r)
    register_frule(*targets, examples=examples)(f)


# --- reshape, ravel, squeeze, expand_dims: a new shape ------------------------------------------
def _reshaped(name: str, xp: Any, x: Any, y: Any, nargs: int) -> _Op:
    xshape, yshape = tuple(x.shape), tuple(y.shape)

    def push(t: Any, extra: int) -> Any:
        return xp.reshape(t, _lead(t, extra) + yshape)

    def pull(g: Any) -> Any:
        return xp.reshape(g, xshape)

    return _Op(xp, x, y, nargs, push, pull)


def _reshape_op(name: str, numpy: bool) -> Callable[..., _Op]:
    positional = ("shape", "order") if numpy else ("shape",)

    def parse(*args: Any, **kwargs: Any) -> _Op:
        x, p = _bind(name, args, kwargs, positional, ("copy",), {"shape": _REQUIRED})
        _order_c(name, p.get("order"))
        xp = namespace_of(x, fname=name)
        x = _array(xp, x)
        shape = _ints(name, p["shape"], "shape")
        kw = {} if p.get("copy") is None else {"copy": p["copy"]}
        y = xp.reshape(x, shape, **kw)
        return _reshaped(name, xp, x, y, len(args))

    return parse


def _ravel_parse(*args: Any, **kwargs: Any) -> _Op:
    x, p = _bind("ravel", args, kwargs, ("order",))
    _order_c("ravel", p.get("order"))
    xp = namespace_of(x, fname="ravel")
    x = _array(xp, x)
    return _reshaped("ravel", xp, x, xp.reshape(x, (math.prod(x.shape),)), len(args))


def _squeeze_op(numpy: bool) -> Callable[..., _Op]:
    def parse(*args: Any, **kwargs: Any) -> _Op:
        defaults = {"axis": None if numpy else _REQUIRED}
        x, p = _bind("squeeze", args, kwargs, ("axis",), (), defaults)
        xp = namespace_of(x, fname="squeeze")
        x = _array(xp, x)
        shape = tuple(x.shape)
        if p["axis"] is None:  # NumPy: every axis of length 1
            axes = tuple(i for i, n in enumerate(shape) if n == 1)
        else:
            axes = _axes("squeeze", p["axis"], x.ndim)
            for a in axes:
                if shape[a] != 1:
                    raise ValueError(
                        f"squeeze: axis {a} of an array of shape {shape} has length {shape[a]}, "
                        "not 1"
                    )
        y = xp.reshape(x, tuple(n for i, n in enumerate(shape) if i not in axes))
        return _reshaped("squeeze", xp, x, y, len(args))

    return parse


def _expand_dims_op(numpy: bool) -> Callable[..., _Op]:
    def parse(*args: Any, **kwargs: Any) -> _Op:
        defaults = {"axis": _REQUIRED if numpy else 0}
        x, p = _bind("expand_dims", args, kwargs, ("axis",), (), defaults)
        xp = namespace_of(x, fname="expand_dims")
        x = _array(xp, x)
        axis = p["axis"]
        nnew = len(axis) if isinstance(axis, (tuple, list)) else 1
        out_nd = x.ndim + nnew
        # the new axes are positions in the output (NumPy's and the standard's meaning)
        new = _axes("expand_dims", axis, out_nd)
        rest = iter(x.shape)
        y_shape = tuple(1 if i in new else next(rest) for i in range(out_nd))
        return _reshaped("expand_dims", xp, x, xp.reshape(x, y_shape), len(args))

    return parse


# --- permutations: permute_dims, transpose, swapaxes, moveaxis ----------------------------------
def _permuted(name: str, xp: Any, x: Any, perm: tuple[int, ...], nargs: int) -> _Op:
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(
            f"{name}: axes {perm} are not a permutation of the axes of an array of rank {x.ndim}"
        )
    y = xp.permute_dims(x, perm)
    inverse = tuple(perm.index(i) for i in range(len(perm)))

    def push(t: Any, extra: int) -> Any:
        return xp.permute_dims(t, tuple(range(extra)) + _shift_axes(perm, extra))

    def pull(g: Any) -> Any:
        return xp.permute_dims(g, inverse)

    return _Op(xp, x, y, nargs, push, pull)


def _permute_dims_op(name: str, numpy: bool) -> Callable[..., _Op]:
    def parse(*args: Any, **kwargs: Any) -> _Op:
        # NumPy's transpose (= np.permute_dims) reverses the axes by default
        defaults = {"axes": None if numpy else _REQUIRED}
        x, p = _bind(name, args, kwargs, ("axes",), (), defaults)
        xp = namespace_of(x, fname=name)
        x = _array(xp, x)
        nd = x.ndim
        axes = p["axes"]
        if axes is None:
            perm = tuple(reversed(range(nd)))
        else:
            if len(_ints(name, axes, "axes")) != nd:
                raise ValueError(f"{name}: axes {axes!r} do not match an array of rank {nd}")
            perm = _axes(name, axes, nd, "axes")
        return _permuted(name, xp, x, perm, len(args))

    return parse


def _swapaxes_parse(*args: Any, **kwargs: Any) -> _Op:
    defaults = {"axis1": _REQUIRED, "axis2": _REQUIRED}
    x, p = _bind("swapaxes", args, kwargs, ("axis1", "axis2"), (), defaults)
    xp = namespace_of(x, fname="swapaxes")
    x = _array(xp, x)
    a = _axis("swapaxes", p["axis1"], x.ndim, "axis1")
    b = _axis("swapaxes", p["axis2"], x.ndim, "axis2")
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return _permuted("swapaxes", xp, x, tuple(perm), len(args))


def _moveaxis_parse(*args: Any, **kwargs: Any) -> _Op:
    defaults = {"source": _REQUIRED, "destination": _REQUIRED}
    x, p = _bind("moveaxis", args, kwargs, ("source", "destination"), (), defaults)
    xp = namespace_of(x, fname="moveaxis")
    x = _array(xp, x)
    nd = x.ndim
    src = _axes("moveaxis", p["source"], nd, "source")
    dst = _axes("moveaxis", p["destination"], nd, "destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    order = [a for a in range(nd) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _permuted("moveaxis", xp, x, tuple(order), len(args))


# --- flip, roll ---------------------------------------------------------------------------------
def _flip_op(numpy: bool) -> Callable[..., _Op]:
    positional = ("axis",) if numpy else ()
    keyword = () if numpy else ("axis",)

    def parse(*args: Any, **kwargs: Any) -> _Op:
        x, p = _bind("flip", args, kwargs, positional, keyword, {"axis": None})
        xp = namespace_of(x, fname="flip")
        x = _array(xp, x)
        axes = tuple(range(x.ndim)) if p["axis"] is None else _axes("flip", p["axis"], x.ndim)
        y = xp.flip(x, axis=axes) if axes else xp.reshape(x, tuple(x.shape))

        def push(t: Any, extra: int) -> Any:
            return xp.flip(t, axis=_shift_axes(axes, extra)) if axes else t

        def pull(g: Any) -> Any:
            return xp.flip(g, axis=axes) if axes else g

        return _Op(xp, x, y, len(args), push, pull)

    return parse


def _roll_op(numpy: bool) -> Callable[..., _Op]:
    positional = ("shift", "axis") if numpy else ("shift",)
    keyword = () if numpy else ("axis",)

    def parse(*args: Any, **kwargs: Any) -> _Op:
        defaults = {"shift": _REQUIRED, "axis": None}
        x, p = _bind("roll", args, kwargs, positional, keyword, defaults)
        xp = namespace_of(x, fname="roll")
        x = _array(xp, x)
        shift = p["shift"]
        shifts = _ints("roll", shift, "shift")
        back: Any = tuple(-s for s in shifts) if isinstance(shift, (tuple, list)) else -shifts[0]
        xshape = tuple(x.shape)
        if p["axis"] is None:  # the flattened array, rolled, in x's shape
            n = math.prod(xshape)
            y = xp.reshape(xp.roll(xp.reshape(x, (n,)), shift, axis=0), xshape)

            def push(t: Any, extra: int) -> Any:
                lead = _lead(t, extra)
                flat = xp.roll(xp.reshape(t, (*lead, n)), shift, axis=extra)
                return xp.reshape(flat, lead + xshape)

            def pull(g: Any) -> Any:
                return xp.reshape(xp.roll(xp.reshape(g, (n,)), back, axis=0), xshape)

            return _Op(xp, x, y, len(args), push, pull)
        axis = p["axis"]
        axes: Any = (
            _axes("roll", axis, x.ndim, unique=False)
            if isinstance(axis, (tuple, list))
            else _axis("roll", axis, x.ndim)
        )
        y = xp.roll(x, shift, axis=axes)

        def push_axes(t: Any, extra: int) -> Any:
            ax = _shift_axes(axes, extra) if isinstance(axes, tuple) else axes + extra
            return xp.roll(t, shift, axis=ax)

        def pull_axes(g: Any) -> Any:
            return xp.roll(g, back, axis=axes)

        return _Op(xp, x, y, len(args), push_axes, pull_axes)

    return parse


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


def _broadcast_to_op(numpy: bool) -> Callable[..., _Op]:
    positional = ("shape", "subok") if numpy else ("shape",)

    def parse(*args: Any, **kwargs: Any) -> _Op:
        x, p = _bind("broadcast_to", args, kwargs, positional, (), {"shape": _REQUIRED})
        _no_subok("broadcast_to", p.get("subok"))
        xp = namespace_of(x, fname="broadcast_to")
        x = _array(xp, x)
        shape = _ints("broadcast_to", p["shape"], "shape")
        y = xp.broadcast_to(x, shape)
        xshape = tuple(x.shape)

        def push(t: Any, extra: int) -> Any:
            return _broadcast_tangent(xp, t, extra, xshape, shape)

        def pull(g: Any) -> Any:
            return _unbroadcast(xp, g, xshape)

        return _Op(xp, x, y, len(args), push, pull)

    return parse


# --- repeat -------------------------------------------------------------------------------------
def _repeat_op(numpy: bool) -> Callable[..., _Op]:
    positional = ("repeats", "axis") if numpy else ("repeats",)
    keyword = () if numpy else ("axis",)

    def parse(*args: Any, **kwargs: Any) -> _Op:
        defaults = {"repeats": _REQUIRED, "axis": None}
        x, p = _bind("repeat", args, kwargs, positional, keyword, defaults)
        xp = namespace_of(x, fname="repeat")
        x = _array(xp, x)
        repeats, axis = p["repeats"], p["axis"]
        if isinstance(repeats, (list, tuple)):  # host values: an array on x's device
            repeats = xp.asarray(repeats, **_dev(x))
        y = xp.repeat(x, repeats, axis=axis)
        xshape = tuple(x.shape)
        # work on the flattened array for axis=None, as repeat itself does
        ax = 0 if axis is None else _axis("repeat", axis, x.ndim)
        wshape = (math.prod(xshape),) if axis is None else xshape
        n, total = wshape[ax], tuple(y.shape)[ax]
        before, after = wshape[:ax], wshape[ax + 1 :]

        def flat(t: Any, extra: int) -> Any:
            return xp.reshape(t, _lead(t, extra) + wshape) if axis is None else t

        if not is_array(repeats) or math.prod(tuple(repeats.shape)) == 1:
            # one count for every element: known on the host from the shapes
            r = operator.index(repeats) if not is_array(repeats) else (total // n if n else 0)

            def push(t: Any, extra: int) -> Any:
                return xp.repeat(flat(t, extra), r, axis=ax + extra)

            def pull(g: Any) -> Any:
                blocks = xp.reshape(g, (*before, n, r, *after))
                return xp.reshape(xp.sum(blocks, axis=ax + 1), xshape)

            return _Op(xp, x, y, len(args), push, pull)

        # counts on the device: the source of output position j is the number of cumulative
        # counts <= j (no host read of the counts)
        counts = xp.reshape(repeats, (n,))
        ends = xp.cumulative_sum(counts)
        positions = xp.arange(total, dtype=ends.dtype, **_dev(x))
        src = xp.searchsorted(ends, positions, side="right")

        def push_src(t: Any, extra: int) -> Any:
            return xp.take(flat(t, extra), src, axis=ax + extra)

        def pull_src(g: Any) -> Any:
            key = _axis_key(xp, tuple(g.shape), ax, src, x)
            zeros = _zeros(xp, wshape, g.dtype, x)
            return xp.reshape(scatter_add(zeros, key, g), xshape)

        return _Op(xp, x, y, len(args), push_src, pull_src)

    return parse


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


# --- tile ---------------------------------------------------------------------------------------
def _tile_op(numpy: bool) -> Callable[..., _Op]:
    reps_name = "reps" if numpy else "repetitions"

    def parse(*args: Any, **kwargs: Any) -> _Op:
        x, p = _bind("tile", args, kwargs, (reps_name,), (), {reps_name: _REQUIRED})
        xp = namespace_of(x, fname="tile")
        x = _array(xp, x)
        reps = _ints("tile", p[reps_name], reps_name)
        if any(r < 0 for r in reps):
            raise ValueError(f"tile: {reps_name} must be non-negative, got {reps}")
        y = xp.tile(x, reps)
        xshape = tuple(x.shape)
        d = max(len(reps), x.ndim)
        xs = (1,) * (d - x.ndim) + xshape
        rs = (1,) * (d - len(reps)) + reps

        def push(t: Any, extra: int) -> Any:
            lead = _lead(t, extra)
            return xp.tile(xp.reshape(t, lead + xs), (1,) * extra + rs)

        def pull(g: Any) -> Any:
            inter = tuple(v for pair in zip(rs, xs) for v in pair)
            summed = xp.sum(xp.reshape(g, inter), axis=tuple(range(0, 2 * d, 2)))
            return xp.reshape(summed, xshape)

        return _Op(xp, x, y, len(args), push, pull)

    return parse


# --- several arrays: concat, stack, unstack, broadcast_arrays -----------------------------------
def _elements(name: str, bar: Any, n: int) -> tuple[Any, ...]:
    """The entries of a structural (co)tangent of ``n`` arrays, forced."""
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
    return tuple(unthunk(e) for e in parts)


def _sequence(name: str, arrays: Any) -> tuple[Any, Any]:
    """``(xp, arrays)`` of a sequence argument, each element an array of ``xp``."""
    if is_array(arrays) or not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{name}: expected a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{name}: needs at least one array")
    xp = namespace_of(*arrays, fname=name)
    return xp, type(arrays)(_array(xp, a) for a in arrays)


def _chunk_tangents(
    name: str, xp: Any, tangents: Sequence[Any], arrays: Sequence[Any], dtype: Any
) -> tuple[list[Any] | None, int]:
    """The tangents of a sequence of arrays with zeros filled in (``None`` when all are zero),
    and their number of leading chunk axes."""
    ts = [None if isinstance(t, AbstractZero) else t for t in tangents]
    given = [(t, a) for t, a in zip(ts, arrays) if t is not None]
    if not given:
        return None, 0
    extras = {tangent_extra(name, t, a) for t, a in given}
    if len(extras) != 1:
        raise ValueError(f"{name}: the tangents carry different numbers of chunk axes")
    extra = extras.pop()
    lead = _lead(given[0][0], extra)
    out = [
        _zeros(xp, lead + tuple(a.shape), dtype, a) if t is None else in_dtype(xp, t, dtype)
        for t, a in zip(ts, arrays)
    ]
    return out, extra


def _seq_tangent(tangents: Any, n: int, name: str) -> tuple[Any, ...] | None:
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero):
        return None
    return _elements(name, t, n)


def _concat_call(numpy: bool, *args: Any, **kwargs: Any) -> tuple[Any, Any, int | None, int]:
    """``(xp, arrays, axis, nargs)`` of a concat call (``axis`` None: flattened)."""
    name = "concatenate" if numpy else "concat"
    positional = ("axis", "out") if numpy else ()
    keyword = ("dtype", "casting") if numpy else ("axis",)
    arrays, p = _bind(name, args, kwargs, positional, keyword, {"axis": 0})
    if numpy:
        _no_dtype(name, p)
    xp, arrays = _sequence(name, arrays)
    axis = p["axis"]
    if axis is not None:
        ndims = {a.ndim for a in arrays}
        if len(ndims) != 1 or 0 in ndims:
            raise ValueError(f"{name}: the arrays must have one rank >= 1, got ranks {ndims}")
        axis = _axis(name, axis, ndims.pop())
    return xp, arrays, axis, len(args)


def _concat_rules(numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    name = "concatenate" if numpy else "concat"

    def primal(xp: Any, arrays: Any, axis: int | None) -> Any:
        if axis is None:
            return xp.concat([xp.reshape(a, (math.prod(a.shape),)) for a in arrays], axis=0)
        return xp.concat(list(arrays), axis=axis)

    def rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, nargs = _concat_call(numpy, *args, **kwargs)
        y = primal(xp, arrays, axis)
        projects = [ProjectTo(a, xp) for a in arrays]
        project_y = ProjectTo(y, xp)
        diff = project_y.differentiable
        rest = (_NO,) * (nargs - 1)
        sizes = [math.prod(a.shape) if axis is None else a.shape[axis] for a in arrays]
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        kind = type(arrays)

        def concat_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero) or not diff:
                if not isinstance(y_bar, AbstractZero):
                    check_cotangent(name, y_bar, y)
                zero = _ZERO if diff else _NO
                return (_NO, Tangent(*(zero for _ in arrays), primal_type=kind), *rest)
            g = project_y(cotangent(name, y_bar, y))
            parts = []
            for a, p, s, n in zip(arrays, projects, starts, sizes):
                if axis is None:  # a slice of the flat cotangent, in the array's shape
                    piece = xp.reshape(g[s : s + n], tuple(a.shape))
                else:
                    piece = g[along(axis, slice(s, s + n))]
                parts.append(p(piece))
            return (_NO, Tangent(*parts, primal_type=kind), *rest)

        return y, concat_pullback

    def frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, _ = _concat_call(numpy, *args, **kwargs)
        y = primal(xp, arrays, axis)
        if not _differentiable(y, xp):
            return y, _NO
        given = _seq_tangent(tangents, len(arrays), name)
        if given is None:
            return y, _ZERO
        ts, extra = _chunk_tangents(name, xp, given, arrays, y.dtype)
        if ts is None:
            return y, _ZERO
        if axis is None:
            flat = [
                xp.reshape(t, (*_lead(t, extra), math.prod(a.shape))) for t, a in zip(ts, arrays)
            ]
            return y, xp.concat(flat, axis=extra)
        return y, xp.concat(ts, axis=axis + extra)

    rrule.__name__ = f"{name}_rrule"
    frule.__name__ = f"{name}_frule"
    return rrule, frule


def _stack_rules(numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    positional = ("axis", "out") if numpy else ()
    keyword = ("dtype", "casting") if numpy else ("axis",)

    def call(*args: Any, **kwargs: Any) -> tuple[Any, Any, int, Any]:
        arrays, p = _bind("stack", args, kwargs, positional, keyword, {"axis": 0})
        if numpy:
            _no_dtype("stack", p)
        xp, arrays = _sequence("stack", arrays)
        shapes = {tuple(a.shape) for a in arrays}
        if len(shapes) != 1:
            raise ValueError(f"stack: the arrays must have one shape, got {sorted(shapes)}")
        axis = _axis("stack", p["axis"], arrays[0].ndim + 1)
        return xp, arrays, axis, xp.stack(list(arrays), axis=axis)

    def rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = call(*args, **kwargs)
        projects = [ProjectTo(a, xp) for a in arrays]
        project_y = ProjectTo(y, xp)
        diff = project_y.differentiable
        rest = (_NO,) * (len(args) - 1)
        kind = type(arrays)

        def stack_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero) or not diff:
                if not isinstance(y_bar, AbstractZero):
                    check_cotangent("stack", y_bar, y)
                zero = _ZERO if diff else _NO
                return (_NO, Tangent(*(zero for _ in arrays), primal_type=kind), *rest)
            g = project_y(cotangent("stack", y_bar, y))
            parts = xp.unstack(g, axis=axis)
            return (_NO, Tangent(*(p(e) for p, e in zip(projects, parts)), primal_type=kind), *rest)

        return y, stack_pullback

    def frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, axis, y = call(*args, **kwargs)
        if not _differentiable(y, xp):
            return y, _NO
        given = _seq_tangent(tangents, len(arrays), "stack")
        ts, extra = (
            (None, 0) if given is None else _chunk_tangents("stack", xp, given, arrays, y.dtype)
        )
        if ts is None:
            return y, _ZERO
        return y, xp.stack(ts, axis=axis + extra)

    return rrule, frule


def _unstack_call(*args: Any, **kwargs: Any) -> tuple[Any, Any, int, Any]:
    x, p = _bind("unstack", args, kwargs, (), ("axis",), {"axis": 0})
    xp = namespace_of(x, fname="unstack")
    x = _array(xp, x)
    axis = _axis("unstack", p["axis"], x.ndim)
    return xp, x, axis, xp.unstack(x, axis=axis)


def _unstack_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x, axis, ys = _unstack_call(*args, **kwargs)
    project = ProjectTo(x, xp)
    diff = project.differentiable
    piece = tuple(s for i, s in enumerate(x.shape) if i != axis)

    def unstack_pullback(y_bar: Any) -> tuple[Any, ...]:
        y_bar = unthunk(y_bar)
        if isinstance(y_bar, AbstractZero) or not diff:
            return (_NO, _ZERO if diff else _NO)
        parts = []
        for e, yi in zip(_elements("unstack", y_bar, len(ys)), ys):
            if isinstance(e, AbstractZero):
                parts.append(_zeros(xp, piece, x.dtype, x))
            else:
                check_cotangent("unstack", e, yi)
                parts.append(_cast_like(xp, e, x))
        if not parts:  # an axis of length 0: nothing was read
            return (_NO, _zeros(xp, tuple(x.shape), x.dtype, x))
        return (_NO, project(xp.stack(parts, axis=axis)))

    return ys, unstack_pullback


def _cast_like(xp: Any, e: Any, x: Any) -> Any:
    """A cotangent piece in ``x``'s dtype (the real part for a real ``x``)."""
    if dtype_kind(x.dtype, xp) == "f" and dtype_kind(e.dtype, xp) == "c":
        e = xp.real(e)
    return in_dtype(xp, e, x.dtype)


def _unstack_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, axis, ys = _unstack_call(*args, **kwargs)
    if not _differentiable(x, xp):
        return ys, _NO
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero):
        return ys, _ZERO
    extra = tangent_extra("unstack", t, x)
    return ys, Tangent(*xp.unstack(t, axis=axis + extra), primal_type=type(ys))


def _broadcast_arrays_call(numpy: bool, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any]:
    if numpy:
        extra = set(kwargs) - {"subok"}
        if extra:
            raise TypeError(f"broadcast_arrays: the rule does not support {sorted(extra)}")
        _no_subok("broadcast_arrays", kwargs.get("subok"))
    elif kwargs:
        raise TypeError(f"broadcast_arrays takes no keyword arguments, got {sorted(kwargs)}")
    if not args:
        raise TypeError("broadcast_arrays needs at least one array")
    xp = namespace_of(*args, fname="broadcast_arrays")
    arrays = tuple(_array(xp, a) for a in args)
    return xp, arrays, xp.broadcast_arrays(*arrays)


def _broadcast_arrays_rules(numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def rrule(*args: Any, **kwargs: Any) -> Any:
        xp, arrays, ys = _broadcast_arrays_call(numpy, *args, **kwargs)
        projects = [ProjectTo(a, xp) for a in arrays]
        yprojects = [ProjectTo(y, xp) for y in ys]

        def broadcast_arrays_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (_NO, *(_ZERO if p.differentiable else _NO for p in projects))
            out: list[Any] = []
            for e, y, a, p, py in zip(
                _elements("broadcast_arrays", y_bar, len(ys)), ys, arrays, projects, yprojects
            ):
                if not p.differentiable:
                    out.append(_NO)
                elif isinstance(e, AbstractZero):
                    out.append(_ZERO)
                else:
                    e = py(cotangent("broadcast_arrays", e, y))
                    out.append(p(_unbroadcast(xp, e, tuple(a.shape))))
            return (_NO, *out)

        return ys, broadcast_arrays_pullback

    def frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, ys = _broadcast_arrays_call(numpy, *args, **kwargs)
        out: list[Any] = []
        for t, a, y in zip(tangents[1:], arrays, ys):
            t = unthunk(t)
            if not _differentiable(a, xp):
                out.append(_NO)
            elif isinstance(t, AbstractZero):
                out.append(_ZERO)
            else:
                extra = tangent_extra("broadcast_arrays", t, a)
                out.append(_broadcast_tangent(xp, t, extra, tuple(a.shape), tuple(y.shape)))
        if all(isinstance(o, AbstractZero) for o in out):
            return ys, _ZERO if any(_differentiable(a, xp) for a in arrays) else _NO
        return ys, Tangent(*out, primal_type=type(ys))

    return rrule, frule


# --- examples (python -m chainrules check, and the test suite) ----------------------------------
def _ex(args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *, note: str) -> Any:
    """One example input (``Example`` keeps sequences and shapes out of complex sniffing)."""
    from ..testing.examples import Example  # the testing package is not imported by the rules

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


def _broadcast_arrays_ex(rng: np.random.Generator) -> list[Any]:
    r = _rng_arrays(rng)
    return [
        _ex((r(3), r(2, 1)), note="two"),
        _ex((r(2, 3), r(), r(1, 3)), note="three with 0-d"),
        _ex((r(0, 1), r(3)), note="zero-size"),
        _ex((r(2, 2),), note="one"),
        _ex((r(2, 1, c=True), r(3, c=True)), note="complex"),
    ]


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


# --- registrations ------------------------------------------------------------------------------
_register(("reshape",), _linear("reshape", _reshape_op("reshape", False)), _reshape_ex(False))
_register(("numpy:reshape",), _linear("reshape", _reshape_op("reshape", True)), _reshape_ex(True))
_register(("numpy:ravel",), _linear("ravel", _ravel_parse), _ravel_ex)
_register(("squeeze",), _linear("squeeze", _squeeze_op(False)), _squeeze_ex(False))
_register(("numpy:squeeze",), _linear("squeeze", _squeeze_op(True)), _squeeze_ex(True))
_register(("expand_dims",), _linear("expand_dims", _expand_dims_op(False)), _expand_dims_ex(False))
_register(
    ("numpy:expand_dims",), _linear("expand_dims", _expand_dims_op(True)), _expand_dims_ex(True)
)
_register(
    ("permute_dims",),
    _linear("permute_dims", _permute_dims_op("permute_dims", False)),
    _permute_ex("permute_dims"),
)
# np.permute_dims is np.transpose: NumPy's rule serves both
_register(
    ("numpy:transpose",),
    _linear("transpose", _permute_dims_op("transpose", True)),
    _permute_ex("transpose"),
)
_register(("numpy:swapaxes",), _linear("swapaxes", _swapaxes_parse), _permute_ex("swapaxes"))
_register(
    ("moveaxis", "numpy:moveaxis"), _linear("moveaxis", _moveaxis_parse), _permute_ex("moveaxis")
)
_register(("flip",), _linear("flip", _flip_op(False)), _flip_ex(False))
_register(("numpy:flip",), _linear("flip", _flip_op(True)), _flip_ex(True))
_register(("roll",), _linear("roll", _roll_op(False)), _roll_ex(False))
_register(("numpy:roll",), _linear("roll", _roll_op(True)), _roll_ex(True))
_register(
    ("broadcast_to",), _linear("broadcast_to", _broadcast_to_op(False)), _broadcast_to_ex(False)
)
_register(
    ("numpy:broadcast_to",), _linear("broadcast_to", _broadcast_to_op(True)), _broadcast_to_ex(True)
)
_register(("repeat",), _linear("repeat", _repeat_op(False)), _repeat_ex(False))
_register(("numpy:repeat",), _linear("repeat", _repeat_op(True)), _repeat_ex(True))
_register(("tile",), _linear("tile", _tile_op(False)), _tile_ex)
_register(("numpy:tile",), _linear("tile", _tile_op(True)), _numpy_tile_ex)
_register(("broadcast_arrays",), _broadcast_arrays_rules(False), _broadcast_arrays_ex)
_register(("numpy:broadcast_arrays",), _broadcast_arrays_rules(True), _broadcast_arrays_ex)
_register(("concat",), _concat_rules(False), _concat_ex(False))
# np.concat is np.concatenate: NumPy's rule serves both
_register(("numpy:concatenate",), _concat_rules(True), _concat_ex(True))
_register(("stack",), _stack_rules(False), _stack_ex(False))
_register(("numpy:stack",), _stack_rules(True), _stack_ex(True))
_register(("unstack",), (_unstack_rrule, _unstack_frule), _unstack_ex)
