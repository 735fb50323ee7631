"""Rules for the standard's searching functions (``searching_functions``): ``where`` and, declared
non-differentiable, ``argmax``, ``argmin``, ``nonzero``, ``searchsorted`` and ``count_nonzero``;
with NumPy's ``where`` (``"numpy:where"``: the three-argument form differentiable, the
one-argument form -- ``nonzero`` -- not).

Conventions
-----------
* ``where(condition, x1, x2)`` selects: ``x1_bar = where(condition, y_bar, 0)`` and
  ``x2_bar = where(condition, 0, y_bar)``, each summed over the axes its argument was broadcast
  along (``ProjectTo``). ``condition`` is boolean: ``NoTangent()``. ``x1``/``x2`` may be Python
  scalars (standard 2024.12): their cotangent is a 0-d array of the sum. The pullback is built
  from ``where``, ``zeros_like`` and ``sum`` only (each with rules): it is differentiable again.
* Index finders (``argmax``, ``argmin``, ``nonzero``, ``searchsorted``) and ``count_nonzero``
  return integers: no tangent space, ``NoTangent()`` for every argument. Their derivative with
  respect to the values searched is zero almost everywhere and undefined at ties; an engine stops
  differentiating there instead of raising ``NoRuleError``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import array_api_compat
import numpy as np

from ..core.namespaces import is_array, namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import _reject_out, check_cotangent, is_floating, non_differentiable
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._util import cotangent, in_dtype
from .indexing import _numpy_module

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()
_SCALARS = (float, complex, int, bool)


def lift_tangent(xp: Any, t: Any, x: Any, out_ndim: int, dtype: Any, name: str) -> tuple[Any, int]:
    """A tangent of ``x`` (an array or a Python scalar, a chunk of tangents allowed) as an array
    of ``dtype`` whose primal axes are right-aligned with an output of rank ``out_ndim``:
    ``(*chunk, 1, ..., 1, *x.shape)``. Returns it and its number of chunk axes."""
    x_shape = tuple(getattr(x, "shape", ()))
    if type(t) in _SCALARS:
        t = xp.asarray(t, dtype=dtype)
    extra = t.ndim - len(x_shape)
    if extra < 0 or tuple(t.shape[extra:]) != x_shape:
        raise ValueError(
            f"{name}: tangent of shape {tuple(t.shape)} does not fit a primal of shape {x_shape} "
            "(expected the primal's shape after leading chunk axes)"
        )
    pad = out_ndim - len(x_shape)
    if extra and pad:
        t = xp.reshape(t, tuple(t.shape[:extra]) + (1,) * pad + x_shape)
    if xp.isdtype(t.dtype, "complex floating") and not xp.isdtype(dtype, "complex floating"):
        t = xp.real(t)  # a complex input of a real output: its real part moves the output
    return in_dtype(xp, t, dtype), extra


# --- where ---------------------------------------------------------------------------------------
def _where_args(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    _reject_out(name, kwargs)
    if kwargs:
        raise TypeError(f"{name}: unexpected keyword arguments {sorted(kwargs)}")
    if len(args) != 3:
        raise TypeError(f"{name} takes 3 positional arguments (condition, x1, x2), got {len(args)}")
    return args


def numpy_like_module(arr: Any, xp: Any, dispatched: bool = True) -> Any:
    """The module of NumPy-signature functions for ``arr``: NumPy, ``jax.numpy`` or CuPy for their
    arrays. Another array type (a wrapper such as a guarded device array) gets NumPy when it
    implements ``__array_function__`` and the function is ``dispatched`` through it, else its own
    namespace ``xp`` (``np.asarray``, ``np.full`` and ``np.arange`` do not dispatch)."""
    if arr is None:
        return np
    if (
        array_api_compat.is_numpy_array(arr)
        or array_api_compat.is_jax_array(arr)
        or array_api_compat.is_cupy_array(arr)
    ):
        return _numpy_module(arr)
    if dispatched and hasattr(type(arr), "__array_function__"):
        return np
    return xp


def _where_primal(numpy: bool, xp: Any, cond: Any, x1: Any, x2: Any) -> Any:
    if numpy:
        arr = next((a for a in (cond, x1, x2) if is_array(a)), cond)
        return numpy_like_module(arr, xp).where(cond, x1, x2)
    return xp.where(cond, x1, x2)


def _where_rules(name: str, numpy: bool) -> tuple[Any, Any]:
    def where_rrule(*args: Any, **kwargs: Any) -> Any:
        if numpy and len(args) == 1 and not kwargs:  # np.where(condition): nonzero
            return _nonzero_form(args[0])
        cond, x1, x2 = _where_args(name, args, kwargs)
        xp = namespace_of(cond, x1, x2, fname=name)
        y = _where_primal(numpy, xp, cond, x1, x2)
        p1, p2 = ProjectTo(x1, xp), ProjectTo(x2, xp)

        def where_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return (_NO, _NO, *(_ZERO if p.differentiable else _NO for p in (p1, p2)))
            g = cotangent(name, y_bar, y)
            zero = xp.zeros_like(g)
            b1 = p1(xp.where(cond, g, zero)) if p1.differentiable else _NO
            b2 = p2(xp.where(cond, zero, g)) if p2.differentiable else _NO
            return _NO, _NO, b1, b2

        return y, where_pullback

    def where_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        if numpy and len(args) == 1 and not kwargs:
            return _nonzero_form(args[0])[0], _NO
        cond, x1, x2 = _where_args(name, args, kwargs)
        xp = namespace_of(cond, x1, x2, fname=name)
        y = _where_primal(numpy, xp, cond, x1, x2)
        if not ProjectTo(y, xp).differentiable:
            return y, _NO
        parts: list[Any] = []
        extra = 0
        for t, x in zip(tangents[2:4], (x1, x2)):
            t = unthunk(t)
            if isinstance(t, AbstractZero) or not ProjectTo(x, xp).differentiable:
                parts.append(None)
                continue
            lifted, e = lift_tangent(xp, t, x, y.ndim, y.dtype, name)
            parts.append(lifted)
            extra = max(extra, e)
        if parts[0] is None and parts[1] is None:
            return y, _ZERO
        a, b = (p if p is not None else xp.zeros((), dtype=y.dtype) for p in parts)
        lead = next(tuple(p.shape[:extra]) for p in parts if p is not None) if extra else ()
        y_dot = xp.where(cond, a, b)
        return y, xp.broadcast_to(y_dot, lead + tuple(y.shape))

    return where_rrule, where_frule


def _nonzero_form(cond: Any) -> tuple[Any, Any]:
    """``np.where(condition)``: ``nonzero``, no tangent space."""
    out = numpy_like_module(cond, namespace_of(cond)).where(cond)

    def where_pullback(y_bar: Any) -> tuple[Any, ...]:
        return _NO, _NO

    return out, where_pullback


def _where_examples(rng: Any) -> list[Any]:
    def r(*s: int) -> Any:
        return rng.standard_normal(s)

    c2 = rng.random((2, 3)) > 0.5
    return [
        ((c2, r(2, 3), r(2, 3)), {}),
        ((c2, r(3), r(2, 1)), {}),  # broadcasting all three
        ((rng.random(3) > 0.5, r(2, 3), r()), {}),  # a 0-d x2
        ((c2, 0.5, r(2, 3)), {}),  # a Python scalar x1
        ((c2, r(2, 3), -1.5), {}),  # a Python scalar x2
        ((np.asarray(True), r(), r()), {}),  # 0-d
        ((np.zeros((0, 3), dtype=bool), r(0, 3), r(3)), {}),  # zero-size
        ((c2, r(2, 3) + 1j * r(2, 3), r(2, 3) + 1j * r(2, 3)), {}),  # complex
        ((rng.random((2, 3, 4)) > 0.5, r(2, 3, 4), r(4)), {}),  # batched
    ]


for _target, _numpy in (("where", False), ("numpy:where", True)):
    _r, _f = _where_rules("where", _numpy)
    register_rrule(_target, examples=_where_examples)(_r)
    register_frule(_target, examples=_where_examples)(_f)


# --- non-differentiable ------------------------------------------------------------------------
def _argmax_examples(rng: Any) -> list[Any]:
    m = rng.permutation(12).reshape(3, 4) * 1.0
    return [((m,), {}), ((m,), {"axis": 1}), ((m,), {"axis": 0, "keepdims": True})]


def _nonzero_examples(rng: Any) -> list[Any]:
    return [((rng.standard_normal((3, 4)) > 0,), {}), ((rng.integers(0, 2, 5) * 1.0,), {})]


def _searchsorted_examples(rng: Any) -> list[Any]:
    s = rng.standard_normal(6)
    s.sort()
    return [
        ((s, rng.standard_normal(4)), {}),
        ((s, rng.standard_normal((2, 3))), {"side": "right"}),
    ]


def _count_nonzero_examples(rng: Any) -> list[Any]:
    m = rng.integers(0, 2, (3, 4)) * rng.standard_normal((3, 4))
    return [((m,), {}), ((m,), {"axis": 1}), ((m,), {"axis": (0, 1), "keepdims": True})]


non_differentiable("argmax", "argmin", examples=_argmax_examples)
non_differentiable("nonzero", examples=_nonzero_examples)
non_differentiable("searchsorted", examples=_searchsorted_examples)
non_differentiable("count_nonzero", examples=_count_nonzero_examples)


def numpy_non_differentiable(*names: str, zero: bool = False, **meta: Any) -> None:
    """Declare NumPy-signature functions (``"numpy:NAME"``) non-differentiable, computing the
    primal with the function of the arguments' own NumPy-like module (NumPy, ``jax.numpy`` or
    CuPy), so that NumPy's positional parameters (``np.argsort(a, axis, kind)``) keep working
    where array-api-compat's wrapper is keyword-only. NumPy when no argument is an array.

    With ``zero=True`` the derivative is zero instead (like ``zero_derivative``): floating
    arguments get ``ZeroTangent()`` and the frule returns ``ZeroTangent()`` (``np.zeros_like``).
    """
    meta.setdefault("module", sys._getframe(1).f_globals.get("__name__"))
    for name in names:
        _register_numpy_nondiff(name, zero, meta)


def _register_numpy_nondiff(name: str, zero: bool, meta: dict[str, Any]) -> None:
    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        _reject_out(name, kwargs)
        arr = next((a for a in (*args, *kwargs.values()) if is_array(a)), None)
        module = numpy_like_module(arr, namespace_of(arr) if arr is not None else np)
        return getattr(module, name)(*args, **kwargs)

    def bind(obj: Any, kind: str) -> Any:
        # each library's function gets rules that call exactly it (jnp.zeros(3) has no array
        # argument to tell the library)
        def call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            _reject_out(name, kwargs)
            return obj(*args, **kwargs)

        r, f = _numpy_nondiff_rules(name, zero, call)
        return r if kind == "r" else f

    r, f = _numpy_nondiff_rules(name, zero, primal)
    register_rrule(f"numpy:{name}", non_differentiable=not zero, bind=bind, **meta)(r)
    register_frule(f"numpy:{name}", non_differentiable=not zero, bind=bind, **meta)(f)


def _numpy_nondiff_rules(
    name: str, zero: bool, primal: Callable[[tuple[Any, ...], dict[str, Any]], Any]
) -> tuple[Callable[..., Any], Callable[..., Any]]:

    def nondiff_rrule(*args: Any, **kwargs: Any) -> Any:
        out = primal(args, kwargs)
        tans = tuple(_ZERO if zero and is_floating(a, None) else _NO for a in args)

        def nondiff_pullback(y_bar: Any) -> tuple[Any, ...]:
            y_bar = unthunk(y_bar)
            if is_array(out) and not isinstance(y_bar, AbstractZero):
                check_cotangent(name, y_bar, out)
            return (_NO, *tans)

        nondiff_pullback.__qualname__ = f"{name}_pullback"
        return out, nondiff_pullback

    def nondiff_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        out = primal(args, kwargs)
        return out, (_ZERO if zero and is_floating(out, None) else _NO)

    return nondiff_rrule, nondiff_frule
