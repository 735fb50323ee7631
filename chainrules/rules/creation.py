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
from typing import Any

import numpy as np

from ..core.namespaces import device_of, is_array, namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import _reject_out, check_cotangent, non_differentiable, zero_derivative
from ..core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, unthunk
from ._util import cotangent, in_dtype, tangent_extra
from .searching import lift_tangent, numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()
_SCALARS = (float, complex, int, bool)


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


def _tangent(t: Any, v: Any, xp: Any) -> Any:
    """A forced tangent, or None when it is zero or ``v`` has no tangent space."""
    t = unthunk(t)
    if isinstance(t, AbstractZero) or not _differentiable(v, xp):
        return None
    return t


def _dtype_of(y: Any) -> Any:
    return y.dtype


# --- linspace -------------------------------------------------------------------------------------
_LINSPACE_NP = ("num", "endpoint", "retstep", "dtype", "axis")


def _linspace_rules(numpy: bool) -> tuple[Any, Any]:
    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        _reject_out("linspace", kwargs)
        if len(args) < 2:
            raise TypeError("linspace needs start and stop")
        start, stop, *pos = args
        if len(pos) > (len(_LINSPACE_NP) if numpy else 1):
            raise TypeError(f"linspace: too many positional arguments ({len(args)})")
        params = dict(zip(_LINSPACE_NP, pos))
        params.update(kwargs)
        if params.get("retstep"):
            raise TypeError("linspace: the rule does not support retstep=True")
        if not numpy and "num" not in params:
            raise TypeError("linspace needs num")
        num = operator.index(params.get("num", 50))
        endpoint = bool(params.get("endpoint", True))
        xp = call_namespace((start, stop), kwargs, "linspace")
        y = _module(numpy, xp, args, kwargs).linspace(*args, **kwargs)
        axis = operator.index(params.get("axis", 0)) % max(y.ndim, 1)
        div = (num - 1) if endpoint else num
        real = xp.real(y).dtype if xp.isdtype(y.dtype, "complex floating") else y.dtype
        if xp.isdtype(y.dtype, "integral"):
            real = None
        w = None
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

        def linspace_pullback(y_bar: Any) -> tuple[Any, ...]:
            zeros = tuple(_ZERO if diff and p.differentiable else _NO for p in (ps, pe))
            if isinstance(y_bar, AbstractZero):
                return (_NO, *zeros, *rest)
            g = cotangent("linspace", y_bar, y)
            if not diff:
                return (_NO, _NO, _NO, *rest)
            axis = _num_axis(y, w)
            s = ps(xp.sum(g * (1 - w), axis=axis)) if ps.differentiable else _NO
            e = pe(xp.sum(g * w, axis=axis)) if pe.differentiable else _NO
            return (_NO, s, e, *rest)

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


# --- arange ---------------------------------------------------------------------------------------
def _arange_rules(numpy: bool) -> tuple[Any, Any]:
    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        _reject_out("arange", kwargs)
        if not args or len(args) > (4 if numpy else 3):
            raise TypeError(f"arange takes 1 to 3 positional arguments, got {len(args)}")
        xp = call_namespace(args, kwargs, "arange")
        y = _module(numpy, xp, args, kwargs, False).arange(*args, **kwargs)
        # roles of the positional arguments: arange(stop) or arange(start, stop[, step])
        roles = ("stop",) if len(args) == 1 else ("start", "stop", "step", "dtype")[: len(args)]
        if "start" not in roles and "start" in kwargs:
            raise TypeError("arange: give start positionally")
        return xp, y, roles

    def arange_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, y, roles = setup(args, kwargs)
        diff = xp.isdtype(y.dtype, ("real floating", "complex floating"))
        projs = [ProjectTo(a, xp) for a in args]

        def arange_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            out: list[Any] = [_NO]
            zero = isinstance(y_bar, AbstractZero)
            g = None if zero or not diff else cotangent("arange", y_bar, y)
            if not zero and not diff:
                check_cotangent("arange", y_bar, y)
            for role, p in zip(roles, projs):
                if role == "dtype" or not diff or not p.differentiable:
                    out.append(_NO)
                elif role == "stop" or g is None:
                    out.append(_ZERO)  # the stop only sets the length
                elif role == "start":
                    out.append(p(xp.sum(g)))
                else:
                    i = xp.arange(y.shape[0], dtype=g.dtype, device=device_of(g))
                    out.append(p(xp.sum(g * i)))
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


# --- full, full_like ------------------------------------------------------------------------------
def _full_rules(name: str, numpy: bool) -> tuple[Any, Any]:
    like = name == "full_like"

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        _reject_out(name, kwargs)
        if len(args) < 2 and "fill_value" not in kwargs:
            raise TypeError(f"{name} needs a shape (or array) and a fill_value")
        fill = args[1] if len(args) > 1 else kwargs["fill_value"]
        xp = call_namespace(args, kwargs, name)
        y = getattr(_module(numpy, xp, args, kwargs, like), name)(*args, **kwargs)
        return xp, fill, y

    def full_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, fill, y = setup(args, kwargs)
        py = ProjectTo(y, xp)
        pf = ProjectTo(fill, xp)
        pos_fill = len(args) > 1
        pos_x = args[0] if like else None
        rest = (_NO,) * max(len(args) - 2, 0)

        def full_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            x_t = _ZERO if like and py.differentiable and _differentiable(pos_x, xp) else _NO
            if not isinstance(y_bar, AbstractZero):
                check_cotangent(name, y_bar, y)
            if not py.differentiable or not pf.differentiable:
                f_t: Any = _NO
            elif isinstance(y_bar, AbstractZero):
                f_t = _ZERO
            else:
                f_t = pf(y_bar)  # summed over the axes fill_value was broadcast along
            if not py.differentiable:
                x_t = _NO
            head = (x_t,) if like else (_NO,)  # the shape of full: no tangent
            return (_NO, *head, *((f_t,) if pos_fill else ()), *rest)

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


# --- meshgrid -------------------------------------------------------------------------------------
def _meshgrid_rules(numpy: bool) -> tuple[Any, Any]:
    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        _reject_out("meshgrid", kwargs)
        xp = call_namespace(args, kwargs, "meshgrid")
        ys = _module(numpy, xp, args, kwargs).meshgrid(*args, **kwargs)
        n = len(args)
        xy = kwargs.get("indexing", "xy") == "xy"
        # the axis of the outputs along which argument i runs
        axes = [i for i in range(n)]
        if xy and n >= 2:
            axes[0], axes[1] = 1, 0
        return xp, ys, axes

    def meshgrid_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, ys, axes = setup(args, kwargs)
        projs = [ProjectTo(a, xp) for a in args]

        def meshgrid_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return (_NO, *(_ZERO if p.differentiable else _NO for p in projs))
            parts = y_bar.elements() if isinstance(y_bar, Tangent) else tuple(y_bar)
            if len(parts) != len(ys):
                raise ValueError(
                    f"meshgrid: cotangent has {len(parts)} parts for {len(ys)} outputs"
                )
            out: list[Any] = [_NO]
            for a, y, g, ax, p in zip(args, ys, parts, axes, projs):
                g = unthunk(g)
                if not p.differentiable:
                    out.append(_NO)
                    continue
                if isinstance(g, AbstractZero):
                    out.append(_ZERO)
                    continue
                check_cotangent("meshgrid", g, y)
                others = tuple(i for i in range(y.ndim) if i != ax)
                s = xp.sum(g, axis=others) if others else g
                out.append(p(xp.reshape(s, tuple(a.shape))))
            return tuple(out)

        return ys, meshgrid_pullback

    def meshgrid_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, ys, axes = setup(args, kwargs)
        parts: list[Any] = []
        for t, a, y, ax in zip(tangents[1:], args, ys, axes):
            t = _tangent(t, a, xp)
            if not ProjectTo(y, xp).differentiable:
                parts.append(_NO)
                continue
            if t is None:
                parts.append(_ZERO)
                continue
            extra = tangent_extra("meshgrid", t, a)
            lead = tuple(t.shape[:extra])
            shape = [1] * y.ndim
            if y.ndim:
                shape[ax] = math.prod(tuple(a.shape))
            t = xp.reshape(t, lead + tuple(shape))
            parts.append(in_dtype(xp, xp.broadcast_to(t, lead + tuple(y.shape)), y.dtype))
        return ys, Tangent(*parts, primal_type=type(ys))

    return meshgrid_rrule, meshgrid_frule


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


def _identity_rules(name: str, numpy: bool) -> tuple[Any, Any]:
    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        _reject_out(name, kwargs)
        if not args:
            raise TypeError(f"{name} needs an argument")
        obj = args[0]
        xp = call_namespace((obj,) if _is_array(obj) else (), kwargs, name)
        y = getattr(_module(numpy, xp, args, kwargs, False), name)(*args, **kwargs)
        return xp, obj, y

    def identity_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, obj, y = setup(args, kwargs)
        seq = isinstance(obj, (list, tuple))
        p = None if seq else ProjectTo(obj, xp)
        py = ProjectTo(y, xp)
        rest = (_NO,) * (len(args) - 1)
        back = None if seq or not is_array(obj) else namespace_of(obj)

        def identity_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if not isinstance(y_bar, AbstractZero):
                check_cotangent(name, y_bar, y)
            if not py.differentiable:
                return (_NO, _NO, *rest)
            if isinstance(y_bar, AbstractZero):
                if seq:
                    return (_NO, _ZERO, *rest)
                return (_NO, _ZERO if p is not None and p.differentiable else _NO, *rest)
            if seq:
                return (_NO, _sequence_cotangent(xp, y_bar, obj), *rest)
            assert p is not None
            if not p.differentiable:
                return (_NO, _NO, *rest)
            g = y_bar
            if back is not None and back is not xp:  # from_dlpack across libraries
                g = back.from_dlpack(g)
            if tuple(getattr(g, "shape", ())) != p.shape and p.shape:  # NumPy's ndmin
                g = namespace_of(g).reshape(g, p.shape)
            return (_NO, p(g), *rest)

        return y, identity_pullback

    def identity_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, obj, y = setup(args, kwargs)
        if not ProjectTo(y, xp).differentiable:
            return y, _NO
        if isinstance(obj, (list, tuple)):
            t = unthunk(tangents[1])
            if isinstance(t, AbstractZero):
                return y, _ZERO
            return y, in_dtype(xp, _stack_tangent(xp, t, obj, y), y.dtype)
        t = _tangent(tangents[1], obj, xp)
        if t is None:
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


# --- tril, triu -----------------------------------------------------------------------------------
def _triangle_rules(name: str) -> tuple[Any, Any]:
    def triangle_rrule(*args: Any, **kwargs: Any) -> Any:
        _reject_out(name, kwargs)
        x = args[0]
        xp = namespace_of(x, fname=name)
        y = getattr(xp, name)(*args, **kwargs)
        project = ProjectTo(x, xp)
        rest = (_NO,) * (len(args) - 1)

        def triangle_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return (_NO, _ZERO if project.differentiable else _NO, *rest)
            g = cotangent(name, y_bar, y)
            if not project.differentiable:
                return (_NO, _NO, *rest)
            # the same mask again: tril/triu of the cotangent (a function with this rule)
            return (_NO, project(getattr(xp, name)(g, *args[1:], **kwargs)), *rest)

        return y, triangle_pullback

    def triangle_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        _reject_out(name, kwargs)
        x = args[0]
        xp = namespace_of(x, fname=name)
        y = getattr(xp, name)(*args, **kwargs)
        t = _tangent(tangents[1], x, xp)
        if t is None:
            return y, (_ZERO if ProjectTo(x, xp).differentiable else _NO)
        tangent_extra(name, t, x)
        # the mask acts on the last two axes: leading chunk axes are batch axes to it
        return y, in_dtype(xp, getattr(xp, name)(t, *args[1:], **kwargs), y.dtype)

    return triangle_rrule, triangle_frule


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


# --- registrations --------------------------------------------------------------------------------
def _register(targets: tuple[str, ...], rules: tuple[Any, Any], examples: Any) -> None:
    r, f = rules
    register_rrule(*targets, examples=examples)(r)
    register_frule(*targets, examples=examples)(f)


_register(("linspace",), _linspace_rules(False), _linspace_examples)
_register(("numpy:linspace",), _linspace_rules(True), _numpy_linspace_examples)
_register(("arange",), _arange_rules(False), _arange_examples)
_register(("numpy:arange",), _arange_rules(True), _arange_examples)
_register(("full",), _full_rules("full", False), _full_examples)
_register(("numpy:full",), _full_rules("full", True), _numpy_full_examples)
_register(("full_like",), _full_rules("full_like", False), _full_like_examples)
_register(("numpy:full_like",), _full_rules("full_like", True), _full_like_examples)
_register(("meshgrid",), _meshgrid_rules(False), _meshgrid_examples)
_register(("numpy:meshgrid",), _meshgrid_rules(True), _numpy_meshgrid_examples)
_register(("asarray",), _identity_rules("asarray", False), _asarray_examples)
_register(("numpy:asarray",), _identity_rules("asarray", True), _asarray_examples)
_register(("numpy:array",), _identity_rules("array", True), _numpy_array_examples)
_register(("from_dlpack",), _identity_rules("from_dlpack", False), _from_dlpack_examples)
_register(("tril",), _triangle_rules("tril"), _triangle_examples)
_register(("triu",), _triangle_rules("triu"), _triangle_examples)

# (an integer x: zero_derivative's frule says ZeroTangent() for its integer output too, so the
# examples keep to floating ones)
zero_derivative("zeros_like", "ones_like", examples=_like_examples)
zero_derivative("empty_like", examples=_empty_like_examples)
non_differentiable("zeros", "ones", examples=_shape_examples)
non_differentiable("empty", examples=_empty_examples)
non_differentiable("eye", examples=_eye_examples)
# NumPy's signatures (a positional dtype, order=...) computed by NumPy's own functions
numpy_non_differentiable("zeros", "ones", examples=_shape_examples)
numpy_non_differentiable("empty", examples=_empty_examples)
numpy_non_differentiable("eye", examples=_eye_examples)
numpy_non_differentiable("zeros_like", "ones_like", zero=True, examples=_like_examples)
numpy_non_differentiable("empty_like", zero=True, examples=_empty_like_examples)
