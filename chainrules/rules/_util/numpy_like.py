"""Helpers for NumPy-signature functions on every library: the module that holds them for an
array (NumPy, ``jax.numpy``, CuPy), declaring them non-differentiable, and lifting a tangent to
an output's rank. Shared by the rule modules of every family."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import array_api_compat
import numpy as np

from ...core.prelude import *
from ...core.registry import caller_module
from ...core.scalar_rule import is_floating
from . import in_dtype

_SCALARS = (float, complex, int, bool)


def _plain_numpy(a: Any) -> bool:
    """``a`` is a NumPy array that array-api-compat's tests call NumPy's (JAX's zero-gradient
    arrays are NumPy arrays of a void dtype, which they call JAX's): decided here without them,
    0.9 us a call."""
    return type(a) is np.ndarray and a.dtype.kind != "V"


def numpy_module(a: Any) -> Any:
    """The module holding NumPy-signature functions for ``a``'s library (NumPy, JAX, CuPy)."""
    if _plain_numpy(a):
        return np
    if array_api_compat.is_jax_array(a):
        return importlib.import_module("jax.numpy")
    if array_api_compat.is_cupy_array(a):
        return importlib.import_module("cupy")
    return np


def numpy_like_module(arr: Any, xp: Any, dispatched: bool = True) -> Any:
    """The module of NumPy-signature functions for ``arr``: NumPy, ``jax.numpy`` or CuPy for their
    arrays. Another array type (a wrapper such as a guarded device array) gets NumPy when it
    implements ``__array_function__`` and the function is ``dispatched`` through it, else its own
    namespace ``xp`` (``np.asarray``, ``np.full`` and ``np.arange`` do not dispatch)."""
    if arr is None or _plain_numpy(arr):
        return np
    if (
        array_api_compat.is_numpy_array(arr)
        or array_api_compat.is_jax_array(arr)
        or array_api_compat.is_cupy_array(arr)
    ):
        return numpy_module(arr)
    if dispatched and hasattr(type(arr), "__array_function__"):
        return np
    return xp


def numpy_primal(
    name: str,
    sig: Signature,
    key: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    alone: bool = False,
) -> tuple[Any, Any, Any]:
    """The primal of a NumPy-signature function ``name`` of one array, as its rrule and frule
    both begin: the call bound by ``sig`` (its errors), the array (the argument ``key``), its
    namespace and the output of the array's NumPy-like module's ``name``, called with the user's
    arguments or, ``alone``, with the array only. Returns ``(array, xp, output)``."""
    x = sig.bind(args, kwargs)[key]
    xp = namespace_of(x, fname=name)
    f = getattr(numpy_like_module(x, xp), name)
    return x, xp, (f(x) if alone else f(*args, **kwargs))


def numpy_primal2(
    name: str, sig: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any, Any, Any]:
    """:func:`numpy_primal` of a function of two operands ``x1``, ``x2`` (either may be a Python
    scalar): ``(x1, x2, xp, output)``."""
    s = sig.bind(args, kwargs)
    x1, x2 = s["x1"], s["x2"]
    xp = namespace_of(x1, x2, fname=name)
    f = getattr(numpy_like_module(x1 if hasattr(x1, "shape") else x2, xp), name)
    return x1, x2, xp, f(x1, x2)


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


def numpy_non_differentiable(*names: str, zero: bool = False, **meta: Any) -> None:
    """Declare NumPy-signature functions (``"numpy:NAME"``) non-differentiable, computing the
    primal with the function of the arguments' own NumPy-like module (NumPy, ``jax.numpy`` or
    CuPy), so that NumPy's positional parameters (``np.argsort(a, axis, kind)``) keep working
    where array-api-compat's wrapper is keyword-only. NumPy when no argument is an array.

    With ``zero=True`` the derivative is zero instead (like ``zero_derivative``): floating
    arguments get ``ZeroTangent()`` and the frule returns ``ZeroTangent()`` (``np.zeros_like``).
    """
    meta.setdefault("module", caller_module())
    for name in names:
        _register_numpy_nondiff(name, zero, meta)


def _register_numpy_nondiff(name: str, zero: bool, meta: dict[str, Any]) -> None:
    sig = signature(name, lambda *args, out=None, **options: None)  # refuses out=

    def primal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        arr = next((a for a in (*args, *kwargs.values()) if is_array(a)), None)
        module = numpy_like_module(arr, namespace_of(arr) if arr is not None else np)
        return getattr(module, name)(*args, **kwargs)

    def bind(obj: Any, kind: str) -> Any:
        # each library's function gets rules that call exactly it where no argument is an array
        # (jnp.zeros(3) has no array argument to tell the library); with an array argument, the
        # arrays' library decides, as for every NumPy rule (np.zeros_like of a JAX array through
        # the JAX bridge is jax.numpy's: NumPy's would convert a traced array on the host)
        def call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            if any(is_array(a) for a in (*args, *kwargs.values())):
                return primal(args, kwargs)
            return obj(*args, **kwargs)

        r, f = _numpy_nondiff_rules(sig, zero, call)
        return r if kind == "r" else f

    r, f = _numpy_nondiff_rules(sig, zero, primal)
    register_rrule(f"numpy:{name}", non_differentiable=not zero, bind=bind, **meta)(r)
    register_frule(f"numpy:{name}", non_differentiable=not zero, bind=bind, **meta)(f)


def _numpy_nondiff_rules(
    sig: Signature, zero: bool, primal: Callable[[tuple[Any, ...], dict[str, Any]], Any]
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def nondiff_rrule(*args: Any, **kwargs: Any) -> Any:
        sig.bind(args, kwargs)
        out = primal(args, kwargs)
        tans = tuple(ZERO if zero and is_floating(a, None) else NO for a in args)
        # the arguments' tangent spaces as @pullback reads them: 0.0 where the derivative is
        # zero (ZeroTangent()), None where there is none (NoTangent())
        spaces = tuple(None if t is NO else 0.0 for t in tans)

        @pullback(out, spaces, name=sig.name)
        def nondiff_pullback(y_bar: Any) -> Any:
            return tans[0] if len(tans) == 1 else tans

        return out, nondiff_pullback

    def nondiff_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        sig.bind(args, kwargs)
        out = primal(args, kwargs)
        return out, (ZERO if zero and is_floating(out, None) else NO)

    return nondiff_rrule, nondiff_frule
