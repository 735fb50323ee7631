"""Rules for the standard's creation functions (``creation_functions``) and NumPy's names.

Differentiable
--------------
* ``linspace(start, stop, num)``: ``y_i = start + w_i (stop - start)`` with the host-known weights
  ``w_i = i / (num - 1)`` (``i / num`` without the endpoint), so ``start_bar = sum((1 - w) y_bar)``
  and ``stop_bar = sum(w y_bar)``; complex ``start``/``stop`` too. NumPy's array ``start``/``stop``
  and ``axis=`` are supported (``retstep=True`` is not).
* ``arange(start, stop, step)``: ``y_i = start + i step``: ``start_bar = sum(y_bar)``,
  ``step_bar = sum(i y_bar)``; ``stop`` only sets the length (zero derivative).
* ``full(shape, fill_value)`` / ``full_like(x, fill_value)``: ``fill_value`` (a Python float or
  complex, or a floating array that broadcasts to ``shape`` where the library takes one) gets
  ``sum(y_bar)`` over the axes it was broadcast along. ``x`` of ``full_like`` only lends its
  shape: zero derivative (``ZeroTangent()`` for a floating ``x``).
* ``meshgrid(*arrays, indexing='xy'|'ij')``: output ``i`` is array ``i`` broadcast along the other
  axes, so its cotangent is the sum of output ``i``'s cotangent over those axes (a tuple output:
  a ``Tangent`` with one part per output; NumPy's ``sparse=True`` too).
* ``asarray``/``from_dlpack`` (and NumPy's ``asarray``/``array``): the identity on arrays, with the
  cotangent cast back to the input's dtype; nested lists of Python numbers get a ``Tangent`` per
  element (read through size-1 slices, no element reads).
* ``tril``/``triu`` (``k`` offset, batched over leading axes): a mask, so the pullback is
  ``tril``/``triu`` of the cotangent (a function with this very rule: differentiable again).

Zero derivative (``ZeroTangent()`` for floating arguments): ``zeros_like``, ``ones_like``,
``empty_like`` -- their floating ``x`` only lends a shape. Non-differentiable (integer arguments
only): ``empty``, ``eye``, ``ones``, ``zeros``.

Which library a call belongs to
-------------------------------
A named rule sees the arguments, not which library's function was called. With an array among
the arguments, that array's library computes; otherwise a ``dtype=`` or ``device=`` of PyTorch or
array-api-strict decides; otherwise NumPy (``torch.zeros(3)`` through the rule gives a NumPy
array: a limitation of named rules for functions without array arguments, see the docs page).
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import (
    AbstractZero,
    Expect,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    device_of,
    is_array,
    namespace_of,
    non_differentiable,
    pullback,
    register_frule,
    register_rrule,
    signature,
    tangents_in,
    unthunk,
    zero_derivative,
)
from ._util import axis_int, in_dtype, sample_rank
from ._util.numpy_like import lift_tangent, numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()
_SCALARS = (float, complex, int, bool)
_Rules = tuple[Callable[..., Any], Callable[..., Any]]

# The signatures bind what a rule reads; the call itself goes to the library unchanged (``**kwargs``
# are the library's own keywords, passed on). ``out=`` is named so that it is refused with the
# rules' message.
_LINSPACE = signature(
    "linspace",
    lambda start, stop, /, num, *, dtype=None, device=None, endpoint=True, out=None, **kwargs: None,
)


def _numpy_linspace(  # the template of NumPy's signature (never called)
    start: Any,
    stop: Any,
    /,
    num: Any = 50,
    endpoint: Any = True,
    retstep: Any = False,
    dtype: Any = None,
    axis: Any = 0,
    *,
    out: Any = None,
    **kwargs: Any,
) -> None: ...


_NUMPY_LINSPACE = signature("linspace", _numpy_linspace)
_ARANGE = signature(
    "arange", lambda start, /, stop=None, step=1, *, dtype=None, out=None, **kwargs: None
)
_NUMPY_ARANGE = signature(
    "arange", lambda start, /, stop=None, step=None, dtype=None, *, out=None, **kwargs: None
)
_FULL = signature("full", lambda shape, fill_value, *, dtype=None, out=None, **kwargs: None)
_NUMPY_FULL = signature(
    "full", lambda shape, fill_value, dtype=None, order="C", *, out=None, **kwargs: None
)
_FULL_LIKE = signature(
    "full_like", lambda x, /, fill_value, *, dtype=None, out=None, **kwargs: None
)
_NUMPY_FULL_LIKE = signature(
    "full_like",
    lambda a, fill_value, dtype=None, order="K", subok=True, shape=None, *, out=None, **kwargs: (
        None
    ),
)
_MESHGRID = signature("meshgrid", lambda *arrays, indexing="xy", out=None, **kwargs: None)
_ASARRAY = signature("asarray", lambda obj, /, *, out=None, **kwargs: None)
_NUMPY_ASARRAY = signature(
    "asarray", lambda obj, /, dtype=None, order=None, *, out=None, **kwargs: None
)
_NUMPY_ARRAY = signature("array", lambda obj, /, dtype=None, *, out=None, **kwargs: None)
_FROM_DLPACK = signature("from_dlpack", lambda obj, /, *, out=None, **kwargs: None)
_TRIL = signature("tril", lambda x, /, k=0, *, out=None: None)
_TRIU = signature("triu", lambda x, /, k=0, *, out=None: None)


# --- which library computes -----------------------------------------------------------------------
def call_namespace(args: tuple[Any, ...], kwargs: dict[str, Any], fname: str) -> Any:
    """The namespace a creation call computes in: its arrays' library; else the library of a
    PyTorch or array-api-strict ``dtype=``/``device=``; else NumPy's."""
    arrays = [a for a in (*args, *kwargs.values()) if _is_array(a)]
    if arrays:
        return namespace_of(*arrays, fname=fname)
    for key in ("dtype", "device"):
        mod = type(kwargs.get(key)).__module__.split(".")[0]
        if mod in ("torch", "array_api_strict") and mod in sys.modules:
            if mod == "torch":
                import array_api_compat.torch as compat_torch

                return compat_torch
            return sys.modules["array_api_strict"]
    return namespace_of()


def _module(
    numpy: bool, xp: Any, args: tuple[Any, ...], kwargs: dict[str, Any], dispatched: bool = True
) -> Any:
    """The module holding the function called: NumPy's-signature module for ``numpy:`` names
    (``dispatched``: whether NumPy's function dispatches through ``__array_function__``)."""
    if not numpy:
        return xp
    arr = next((a for a in (*args, *kwargs.values()) if _is_array(a)), None)
    return numpy_like_module(arr, xp, dispatched)


def _is_array(a: Any) -> bool:
    """An array argument (a dtype such as ``np.float64`` -- a class -- is not one)."""
    return not isinstance(a, type) and is_array(a)


def _differentiable(v: Any, xp: Any) -> bool:
    return v is not None and ProjectTo(v, xp).differentiable


def _tangent_args(args: tuple[Any, ...], differentiable: bool = True) -> tuple[Any, ...]:
    """The positional arguments as a pullback's zero short-circuit reads them: ``None`` (no
    tangent) for a dtype given as a class (``np.float64``), and for every argument where the
    output has no tangent space."""
    return tuple(a if differentiable and not isinstance(a, type) else None for a in args)


def _tangent(t: Any, v: Any, xp: Any) -> Any:
    """A forced tangent, or None when it is zero or ``v`` has no tangent space. (The rules whose
    Python-scalar arguments take tangents that broadcast -- ``linspace``, ``arange``, ``full`` --
    check them with ``lift_tangent`` instead of ``tangents_in``.)"""
    t = unthunk(t)
    if isinstance(t, AbstractZero) or not _differentiable(v, xp):
        return None
    return t


def _register(
    target: str,
    rules: _Rules,
    examples: Callable[[Any], list[Any]],
    *expect: Expect,
    kind: str | None = None,
) -> None:
    """Register ``rules`` for ``target``; ``kind`` is what the function is for engines
    (``"creation"``, ``"like"``, ``"conversion"``, ``"sequence"``: registry.KINDS)."""
    register_rrule(target, examples=examples, expect=expect, kind=kind)(rules[0])
    register_frule(target, examples=examples, expect=expect, kind=kind)(rules[1])


# jax.numpy.arange makes its length from its bounds: under jax.jit they must be concrete
_ARANGE_JIT = Expect("jit", "jax.numpy.arange needs concrete bounds: not traceable", kind="skip")
# the standard's fill_value is a Python scalar; the examples give 0-d arrays
_STRICT_FILL = Expect(
    "array_api_strict", "the standard's fill_value is a Python scalar, not a 0-d array", kind="skip"
)


# --- linspace -------------------------------------------------------------------------------------
def _linspace_rules(numpy: bool) -> _Rules:
    sig = _NUMPY_LINSPACE if numpy else _LINSPACE

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        bound = sig.bind(args, kwargs)
        a = {**bound.pop("kwargs"), **bound}  # the library's own keywords (axis=) read too
        if a.get("retstep"):
            raise TypeError("linspace: the rule does not support retstep=True")
        start, stop = a["start"], a["stop"]
        num, endpoint = operator.index(a["num"]), bool(a["endpoint"])
        xp = call_namespace((start, stop), kwargs, "linspace")
        axis_int(a.get("axis", 0), "linspace", ndim=sample_rank(start, stop), bool_ok=True)
        y = _module(numpy, xp, args, kwargs).linspace(*args, **kwargs)
        axis = operator.index(a.get("axis", 0)) % max(y.ndim, 1)
        div = (num - 1) if endpoint else num
        real = xp.real(y).dtype if xp.isdtype(y.dtype, "complex floating") else y.dtype
        if xp.isdtype(y.dtype, "integral"):
            real = None
        w = None  # the weights of stop, along the samples' axis
        if real is not None:
            w = xp.arange(num, dtype=real, device=device_of(y)) / (div if div > 0 else 1)
            if endpoint and num > 1:  # exactly 1 at the end, as the primal's last sample is stop
                w = xp.where(xp.arange(num, device=device_of(y)) == num - 1, xp.ones_like(w), w)
            shape = [1] * y.ndim
            shape[axis] = num
            w = xp.reshape(w, tuple(shape))
        return xp, start, stop, y, w, axis

    def linspace_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, start, stop, y, w, _ = setup(args, kwargs)
        ps, pe = ProjectTo(start, xp), ProjectTo(stop, xp)
        rest = (_NO,) * (len(args) - 2)
        diff = w is not None

        @pullback(y, _tangent_args(args, diff))
        def linspace_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not diff:
                return (_NO, _NO, *rest)
            axis = _num_axis(y, w)
            s = ps(xp.sum(y_bar * (1 - w), axis=axis)) if ps.differentiable else _NO
            e = pe(xp.sum(y_bar * w, axis=axis)) if pe.differentiable else _NO
            return (s, e, *rest)

        return y, linspace_pullback

    def linspace_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, start, stop, y, w, axis = setup(args, kwargs)
        if w is None:
            return y, _NO
        rank = y.ndim - 1  # the broadcast shape of start and stop
        terms = []
        for t, v, weight in ((tangents[1], start, 1 - w), (tangents[2], stop, w)):
            t = _tangent(t, v, xp)
            if t is None:
                continue
            t, _ = lift_tangent(xp, t, v, rank, y.dtype, "linspace")
            at = t.ndim - rank + axis  # the samples' axis goes in here (counted from the right)
            if at >= 0:
                s = tuple(t.shape)
                t = xp.reshape(t, (*s[:at], 1, *s[at:]))
            terms.append(t * weight)
        if not terms:
            return y, _ZERO
        total = terms[0] if len(terms) == 1 else terms[0] + terms[1]
        lead = tuple(total.shape[: total.ndim - y.ndim])
        return y, in_dtype(xp, xp.broadcast_to(total, lead + tuple(y.shape)), y.dtype)

    return linspace_rrule, linspace_frule


def _num_axis(y: Any, w: Any) -> int:
    """The axis of ``y`` along which the samples run (where the weights are not length 1)."""
    return next((i for i, n in enumerate(w.shape) if n != 1), 0) if y.ndim else 0


_C = "creation"  # the kind of the functions that make arrays from shapes and numbers
_register("linspace", _linspace_rules(False), lambda rng: _linspace_examples(rng), kind=_C)
_register(
    "numpy:linspace", _linspace_rules(True), lambda rng: _numpy_linspace_examples(rng), kind=_C
)


# --- arange ---------------------------------------------------------------------------------------
def _arange_rules(numpy: bool) -> _Rules:
    sig = _NUMPY_ARANGE if numpy else _ARANGE

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        a = sig.bind(args, kwargs)
        xp = call_namespace(args, kwargs, "arange")
        y = _module(numpy, xp, args, kwargs, False).arange(*args, **kwargs)
        # the roles of the positional arguments: arange(stop) or arange(start, stop[, step])
        names = ("stop", "none") if a["stop"] is None else ("start", "stop")
        return xp, y, (*names, "step", "dtype")[: len(args)]

    def arange_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, y, roles = setup(args, kwargs)
        diff = xp.isdtype(y.dtype, ("real floating", "complex floating"))
        moves = ("start", "stop", "step")  # the roles with a tangent space
        projs = [ProjectTo(a, xp) if r in moves else None for r, a in zip(roles, args)]
        args_in = [a if r in moves else None for r, a in zip(roles, args)]

        @pullback(y, _tangent_args(tuple(args_in), diff))
        def arange_pullback(y_bar: Any) -> tuple[Any, ...]:
            out: list[Any] = []
            for role, p in zip(roles, projs):
                if p is None or not diff or not p.differentiable:
                    out.append(_NO)
                elif role == "stop":
                    out.append(_ZERO)  # the stop only sets the length
                elif role == "start":
                    out.append(p(xp.sum(y_bar)))
                else:
                    i = xp.arange(y.shape[0], dtype=y_bar.dtype, device=device_of(y_bar))
                    out.append(p(xp.sum(y_bar * i)))
            return tuple(out)

        return y, arange_pullback

    def arange_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, y, roles = setup(args, kwargs)
        if not xp.isdtype(y.dtype, ("real floating", "complex floating")):
            return y, _NO
        total = None
        i = xp.arange(y.shape[0], dtype=y.dtype, device=device_of(y))
        for role, t, a in zip(roles, tangents[1:], args):
            t = _tangent(t, a, xp) if role in ("start", "step") else None
            if t is None:
                continue
            t, _ = lift_tangent(xp, t, a, 0, y.dtype, "arange")
            t = xp.reshape(t, (*tuple(t.shape), 1))
            term = t if role == "start" else t * i
            total = term if total is None else total + term
        if total is None:
            return y, _ZERO
        lead = tuple(total.shape[:-1])
        return y, xp.broadcast_to(total, lead + tuple(y.shape))

    return arange_rrule, arange_frule


_register("arange", _arange_rules(False), lambda rng: _arange_examples(rng), _ARANGE_JIT, kind=_C)
_register(
    "numpy:arange", _arange_rules(True), lambda rng: _arange_examples(rng), _ARANGE_JIT, kind=_C
)


# --- full, full_like ------------------------------------------------------------------------------
def _full_rules(name: str, numpy: bool) -> _Rules:
    like = name == "full_like"
    sig = {
        ("full", False): _FULL,
        ("full", True): _NUMPY_FULL,
        ("full_like", False): _FULL_LIKE,
        ("full_like", True): _NUMPY_FULL_LIKE,
    }[name, numpy]

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        fill = sig.bind(args, kwargs)["fill_value"]
        xp = call_namespace(args, kwargs, name)
        y = getattr(_module(numpy, xp, args, kwargs, like), name)(*args, **kwargs)
        return xp, fill, y

    def full_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, fill, y = setup(args, kwargs)
        diff = ProjectTo(y, xp).differentiable
        pf = ProjectTo(fill, xp)
        # x of full_like lends its shape only: a zero derivative; the shape of full has none
        head = _ZERO if like and args and _differentiable(args[0], xp) else _NO
        rest = (_NO,) * max(len(args) - 2, 0)

        @pullback(y, _tangent_args(args, diff))
        def full_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not diff:
                return (_NO,) * len(args)
            # fill_value's cotangent: summed over the axes it was broadcast along
            fill_bar = pf(y_bar) if pf.differentiable else _NO
            return (head, fill_bar, *rest)[: len(args)]

        return y, full_pullback

    def full_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, fill, y = setup(args, kwargs)
        if not ProjectTo(y, xp).differentiable:
            return y, _NO
        t = _tangent(tangents[2], fill, xp) if len(args) > 1 else None
        if t is None:
            return y, _ZERO
        t, extra = lift_tangent(xp, t, fill, y.ndim, y.dtype, name)
        return y, xp.broadcast_to(t, tuple(t.shape[:extra]) + tuple(y.shape))

    return full_rrule, full_frule


_register(
    "full", _full_rules("full", False), lambda rng: _full_examples(rng), _STRICT_FILL, kind=_C
)
_register("numpy:full", _full_rules("full", True), lambda rng: _numpy_full_examples(rng), kind=_C)
_register(
    "full_like",
    _full_rules("full_like", False),
    lambda rng: _full_like_examples(rng),
    _STRICT_FILL,
    kind=_C,  # not "like" (a constant): its fill_value carries a derivative
)
_register(
    "numpy:full_like",
    _full_rules("full_like", True),
    lambda rng: _full_like_examples(rng),
    kind=_C,  # not "like" (a constant): its fill_value carries a derivative
)


# --- meshgrid -------------------------------------------------------------------------------------
def _meshgrid_rules(numpy: bool) -> _Rules:
    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        xy = _MESHGRID.bind(args, kwargs)["indexing"] == "xy"
        xp = call_namespace(args, kwargs, "meshgrid")
        ys = _module(numpy, xp, args, kwargs).meshgrid(*args, **kwargs)
        # the axis of the outputs along which argument i runs
        axes = list(range(len(args)))
        if xy and len(args) >= 2:
            axes[0], axes[1] = 1, 0
        return xp, ys, axes

    def meshgrid_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, ys, axes = setup(args, kwargs)
        projs = [ProjectTo(a, xp) for a in args]

        @pullback(ys, args)
        def meshgrid_pullback(y_bars: tuple[Any, ...]) -> tuple[Any, ...]:
            out: list[Any] = []
            for a, y, g, ax, p in zip(args, ys, y_bars, axes, projs):
                if not p.differentiable:
                    out.append(_NO)
                elif isinstance(g, AbstractZero):
                    out.append(_ZERO)
                else:  # summed over the axes the argument was broadcast along
                    others = tuple(i for i in range(y.ndim) if i != ax)
                    s = xp.sum(g, axis=others) if others else g
                    out.append(p(xp.reshape(s, tuple(a.shape))))
            return tuple(out)

        return ys, meshgrid_pullback

    def meshgrid_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, ys, axes = setup(args, kwargs)
        ts = tangents_in("meshgrid", tangents, args)
        extra = 0 if ts is None else ts.extra
        parts: list[Any] = []
        for i, (a, y, ax) in enumerate(zip(args, ys, axes)):
            if not ProjectTo(y, xp).differentiable:
                parts.append(_NO)
                continue
            t = None if ts is None or not _differentiable(a, xp) else ts[i]
            if t is None or isinstance(t, AbstractZero):
                parts.append(_ZERO)
                continue
            lead = tuple(t.shape[:extra])
            shape = [1] * y.ndim
            if y.ndim:
                shape[ax] = math.prod(tuple(a.shape))
            t = xp.reshape(t, lead + tuple(shape))
            parts.append(in_dtype(xp, xp.broadcast_to(t, lead + tuple(y.shape)), y.dtype))
        return ys, Tangent(*parts, primal_type=type(ys))

    return meshgrid_rrule, meshgrid_frule


_register("meshgrid", _meshgrid_rules(False), lambda rng: _meshgrid_examples(rng), kind="sequence")
_register(
    "numpy:meshgrid",
    _meshgrid_rules(True),
    lambda rng: _numpy_meshgrid_examples(rng),
    kind="sequence",
)


# --- asarray, array, from_dlpack: the identity on arrays ------------------------------------------
def _sequence_cotangent(xp: Any, g: Any, obj: Any) -> Any:
    """The cotangent of a nested list/tuple of numbers that ``asarray`` stacked into ``g``: a
    ``Tangent`` per element, each read through a size-1 slice (no element read)."""
    if isinstance(obj, (list, tuple)):
        parts = []
        for i, e in enumerate(obj):
            sub = xp.reshape(g[i : i + 1, ...], tuple(g.shape[1:]))
            parts.append(_sequence_cotangent(xp, sub, e))
        return Tangent(*parts, primal_type=type(obj))
    p = ProjectTo(obj, xp)
    if not p.differentiable:
        return _NO
    return p(g)


def _identity_rules(name: str, numpy: bool) -> _Rules:
    sig = {
        ("asarray", False): _ASARRAY,
        ("asarray", True): _NUMPY_ASARRAY,
        ("array", True): _NUMPY_ARRAY,
        ("from_dlpack", False): _FROM_DLPACK,
    }[name, numpy]

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        obj = sig.bind(args, kwargs)["obj"]
        xp = call_namespace((obj,) if _is_array(obj) else (), kwargs, name)
        y = getattr(_module(numpy, xp, args, kwargs, False), name)(*args, **kwargs)
        return xp, obj, y

    def identity_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, obj, y = setup(args, kwargs)
        seq = isinstance(obj, (list, tuple))
        p = None if seq else ProjectTo(obj, xp)
        diff = ProjectTo(y, xp).differentiable
        rest = (_NO,) * (len(args) - 1)
        back = None if seq or not is_array(obj) else namespace_of(obj)
        # a nested list as a whole gets ZeroTangent() for a zero cotangent (the output stands in)
        zeros_of = (y if seq else obj, *args[1:])
        nested = obj if seq else None  # an array obj is not kept: the pullback must not hold it

        @pullback(y, _tangent_args(zeros_of, diff))
        def identity_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not diff:
                return (_NO, *rest)
            if seq:
                return (_sequence_cotangent(xp, y_bar, nested), *rest)
            assert p is not None
            if not p.differentiable:
                return (_NO, *rest)
            g = y_bar
            if back is not None and back is not xp:  # from_dlpack across libraries
                g = back.from_dlpack(g)
            if tuple(getattr(g, "shape", ())) != p.shape and p.shape:  # NumPy's ndmin
                g = namespace_of(g).reshape(g, p.shape)
            return (p(g), *rest)

        return y, identity_pullback

    def identity_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, obj, y = setup(args, kwargs)
        if not ProjectTo(y, xp).differentiable:
            return y, _NO
        # a nested list's tangent is a Tangent (or tuple) per element: stacked below
        ts = tangents_in(name, tangents[:2], (obj,))
        if ts is None:
            return y, _ZERO
        t = ts[0]
        if isinstance(obj, (list, tuple)):
            return y, in_dtype(xp, _stack_tangent(xp, t, obj, y), y.dtype)
        if not _differentiable(obj, xp):
            return y, _ZERO
        if type(t) in _SCALARS:
            t = xp.asarray(t, dtype=y.dtype)
        extra = t.ndim - len(tuple(getattr(obj, "shape", ())))
        t = xp.reshape(t, tuple(t.shape[:extra]) + tuple(y.shape))
        return y, in_dtype(xp, t, y.dtype)

    return identity_rrule, identity_frule


def _stack_tangent(xp: Any, t: Any, obj: Any, y: Any) -> Any:
    """The tangent of ``asarray(nested list)``: the element tangents stacked (chunk axes lead)."""
    if isinstance(obj, (list, tuple)):
        elements = t.elements() if isinstance(t, Tangent) else tuple(t)
        parts = [_stack_tangent(xp, e, o, y) for e, o in zip(elements, obj)]
        extra = max(p.ndim for p in parts) - (y.ndim - 1) if parts else 0
        return xp.stack([xp.asarray(p, dtype=y.dtype) for p in parts], axis=max(extra, 0))
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return xp.zeros((), dtype=y.dtype)
    return xp.asarray(t, dtype=y.dtype) if type(t) in _SCALARS else t


_register(
    "asarray",
    _identity_rules("asarray", False),
    lambda rng: _asarray_examples(rng),
    kind="conversion",
)
_register(
    "numpy:asarray",
    _identity_rules("asarray", True),
    lambda rng: _asarray_examples(rng),
    kind="conversion",
)
_register("numpy:array", _identity_rules("array", True), lambda rng: _numpy_array_examples(rng))
_register(
    "from_dlpack",
    _identity_rules("from_dlpack", False),
    lambda rng: _from_dlpack_examples(rng),
    Expect("jit", "jax.numpy.from_dlpack cannot take a tracer (it needs __dlpack__)", kind="skip"),
    kind=_C,
)


# --- tril, triu -----------------------------------------------------------------------------------
def _triangle_rules(name: str) -> _Rules:
    sig = _TRIL if name == "tril" else _TRIU

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        x = sig.bind(args, kwargs)["x"]
        xp = namespace_of(x, fname=name)
        return x, xp, getattr(xp, name)(*args, **kwargs)

    def triangle_rrule(*args: Any, **kwargs: Any) -> Any:
        x, xp, y = setup(args, kwargs)
        project = ProjectTo(x, xp)
        rest, k = (_NO,) * (len(args) - 1), args[1:]  # k, not x: the pullback must not keep x

        @pullback(y, args)
        def triangle_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (_NO, *rest)
            # the same mask again: tril/triu of the cotangent (a function with this rule)
            return (project(getattr(xp, name)(y_bar, *k, **kwargs)), *rest)

        return y, triangle_pullback

    def triangle_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        x, xp, y = setup(args, kwargs)
        ts = tangents_in(name, tangents[:2], (x,))  # k has no tangent
        if ts is None or not ProjectTo(x, xp).differentiable:
            return y, (_ZERO if ProjectTo(x, xp).differentiable else _NO)
        # the mask acts on the last two axes: leading chunk axes are batch axes to it
        return y, in_dtype(xp, getattr(xp, name)(ts[0], *args[1:], **kwargs), y.dtype)

    return triangle_rrule, triangle_frule


_register("tril", _triangle_rules("tril"), lambda rng: _triangle_examples(rng))
_register("triu", _triangle_rules("triu"), lambda rng: _triangle_examples(rng))


# --- examples -------------------------------------------------------------------------------------
def _linspace_examples(rng: Any) -> list[Any]:
    a, b = np.asarray(rng.standard_normal()), np.asarray(rng.standard_normal())
    return [
        ((a, b, 5), {}),
        ((a, b, 4), {"endpoint": False}),
        ((a, b, 1), {}),
        ((a, b, 0), {}),
    ]


def _numpy_linspace_examples(rng: Any) -> list[Any]:
    a, b = np.asarray(rng.standard_normal()), np.asarray(rng.standard_normal())
    c = np.asarray(rng.standard_normal() + 1j * rng.standard_normal())
    return [
        *_linspace_examples(rng),
        ((c, c * 2, 3), {}),  # complex (array-api-strict's linspace drops the imaginary part)
        ((a, b), {}),  # num=50: the dot-product test
        ((a, b, 4, False), {}),
        ((rng.standard_normal(3), rng.standard_normal((2, 3)), 4), {}),  # broadcast arrays
        ((rng.standard_normal(2), b, 3), {"axis": 1}),
        ((rng.standard_normal((2, 3)), b, 4), {"axis": -1}),
    ]


def _arange_examples(rng: Any) -> list[Any]:
    return [
        ((np.asarray(0.25), np.asarray(3.0)), {}),
        ((np.asarray(-1.5), np.asarray(2.0), np.asarray(0.75)), {}),
        ((np.asarray(4.5),), {}),
    ]


def _full_examples(rng: Any) -> list[Any]:
    return [
        (((2, 3), np.asarray(rng.standard_normal())), {}),
        (((), np.asarray(rng.standard_normal())), {}),
        (((0, 3), np.asarray(rng.standard_normal())), {}),
        (((4,), np.asarray(rng.standard_normal() + 1j)), {}),
    ]


def _numpy_full_examples(rng: Any) -> list[Any]:
    return [*_full_examples(rng), (((2, 3), rng.standard_normal(3)), {})]  # a broadcast fill


def _full_like_examples(rng: Any) -> list[Any]:
    x = rng.standard_normal((2, 3))
    return [
        ((x, np.asarray(rng.standard_normal())), {}),
        ((np.arange(4), np.asarray(1.5)), {}),  # an integer x: an integer output
        ((np.zeros(0), np.asarray(rng.standard_normal())), {}),
    ]


def _meshgrid_examples(rng: Any) -> list[Any]:
    a, b, c = rng.standard_normal(2), rng.standard_normal(3), rng.standard_normal(4)
    return [
        ((a, b), {}),
        ((a, b), {"indexing": "ij"}),
        ((a, b, c), {}),
        ((a, b, c), {"indexing": "ij"}),
        ((c,), {}),
        ((a, np.zeros(0)), {}),
    ]


def _numpy_meshgrid_examples(rng: Any) -> list[Any]:
    a, b = rng.standard_normal(2), rng.standard_normal(3)
    return [*_meshgrid_examples(rng), ((a, b), {"sparse": True}), ((a, b, a), {"sparse": True})]


def _asarray_examples(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((2, 3)),), {}),
        ((rng.standard_normal(()),), {}),
        ((rng.standard_normal(3),), {"copy": True}),
        ((np.zeros((0, 2)),), {}),
        ((rng.standard_normal(3) + 1j * rng.standard_normal(3),), {}),
    ]


def _numpy_array_examples(rng: Any) -> list[Any]:
    return [*_asarray_examples(rng), ((rng.standard_normal(3),), {"ndmin": 3})]


def _from_dlpack_examples(rng: Any) -> list[Any]:
    return [((rng.standard_normal((2, 3)),), {}), ((rng.standard_normal(()),), {})]


def _triangle_examples(rng: Any) -> list[Any]:
    m = rng.standard_normal((4, 4))
    return [
        ((m,), {}),
        ((m,), {"k": 1}),
        ((m,), {"k": -2}),
        ((rng.standard_normal((3, 5)),), {"k": 1}),
        ((rng.standard_normal((2, 3, 3)),), {}),  # batched
        ((np.zeros((0, 3)),), {}),
        ((rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)),), {"k": -1}),
    ]


def _like_examples(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((2, 3)),), {}),
        ((rng.standard_normal(()),), {}),
        ((np.zeros(0),), {}),
    ]


def _empty_like_examples(rng: Any) -> list[Any]:
    # empty's values are arbitrary: only zero-size outputs can be compared with the function's
    return [((np.zeros((2, 0)),), {}), ((np.zeros(0),), {})]


def _shape_examples(rng: Any) -> list[Any]:
    return [(((2, 3),), {}), ((4,), {}), (((0,),), {})]


def _empty_examples(rng: Any) -> list[Any]:
    return [(((2, 0),), {}), ((0,), {})]


def _eye_examples(rng: Any) -> list[Any]:
    return [((3,), {}), ((2, 4), {"k": 1})]


# --- zero derivative, non-differentiable ------------------------------------------------------
# (an integer x: zero_derivative's frule says ZeroTangent() for its integer output too, so the
# examples keep to floating ones)
# (kinds: "creation" -- in traced code, arrays made from no traced array are created arrays --
# and "like" -- created likewise from an untraced array, a constant of a traced one)
zero_derivative("zeros_like", "ones_like", examples=_like_examples, kind="like")
zero_derivative("empty_like", examples=_empty_like_examples, kind="like")
non_differentiable("zeros", "ones", examples=_shape_examples, kind=_C)
non_differentiable("empty", examples=_empty_examples, kind=_C)
non_differentiable("eye", examples=_eye_examples, kind=_C)
# NumPy's signatures (a positional dtype, order=...) computed by NumPy's own functions
numpy_non_differentiable("zeros", "ones", examples=_shape_examples, kind=_C)
numpy_non_differentiable("empty", examples=_empty_examples, kind=_C)
numpy_non_differentiable("eye", examples=_eye_examples, kind=_C)
numpy_non_differentiable("zeros_like", "ones_like", zero=True, examples=_like_examples, kind="like")
numpy_non_differentiable("empty_like", zero=True, examples=_empty_like_examples, kind="like")
