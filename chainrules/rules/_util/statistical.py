"""Helpers shared by the modules of :mod:`chainrules.rules.statistical`: binding a reduction's
call by the standard's signature or NumPy's (:func:`bind`), registering a rule under both
(:func:`register_both`), the binding of the common NumPy call without a binder (the NumPy methods
of ``sum`` and ``max``), NaN examples, the NaN-filled rules of ``nanprod``, ``nancumsum`` and
``nancumprod`` (:func:`register_filled`), and ``cov``'s variables (:class:`Cov`, also torch's
``cov``). Its ``__all__`` is the statistical modules' vocabulary: they begin with ``from
.._util.statistical import *`` after core's prelude."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.prelude import *
from ...core.registry import caller_module
from . import adjoint, in_dtype, normalize_axis
from .numpy_like import numpy_like_module

__all__ = [
    "Cov",
    "Rules",
    "bind",
    "bind_real_numpy",
    "consts",
    "nan_entries",
    "reduction_frule",
    "register_both",
    "register_filled",
    "signatures",
    "tangent",
]

Rules = tuple[Callable[..., Any], Callable[..., Any]]


# --- binding: the standard's signature and NumPy's ----------------------------------------------
def signatures(name: str, standard: Any, numpy: Any, unsupported: tuple[str, ...] = ()) -> Any:
    """``name``'s two signatures: the standard's, and NumPy's (``where=`` unsupported)."""
    return signature(name, standard), signature(name, numpy, ("where", *unsupported))


def bind(
    sig: Signature, numpy: bool, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any, tuple[int, ...], dict[str, Any]]:
    """A reduction's call bound by ``sig``: ``(xp, x, axes, kw)``, with ``x`` an array (a Python
    scalar converted), ``axes`` the axes it reduces, normalised, and ``kw`` the primal's keywords:
    those given (``None`` dropped, NumPy's ``ddof`` as the standard's ``correction``), ``axis``
    normalised and ``keepdims`` a bool."""
    if len(args) > 1 and not numpy:
        raise TypeError(
            f"{sig.name} takes 1 positional argument(s) in its rule, got {len(args)} (the "
            "standard's parameters after x are keyword-only)"
        )
    a = sig.bind(args, kwargs)
    x = a.pop("x")
    xp = namespace_of(x, fname=sig.name)
    if not hasattr(x, "shape"):  # a Python scalar
        x = xp.asarray(x)
    if "ddof" in a:  # NumPy's name for the standard's correction
        ddof = a.pop("ddof")
        if a["correction"] is not None and ddof:
            raise TypeError(f"{sig.name}: give ddof or correction, not both")
        if a["correction"] is None:
            a["correction"] = ddof
    axis = a["axis"]
    axes = normalize_axis(axis, x.ndim, sig.name)
    kw = {k: v for k, v in a.items() if v is not None}  # out= is None here (rejected)
    kw.pop("where", None)  # None or True
    if numpy and x.ndim == 0 and axis is not None:
        # Some of NumPy's reductions take axis 0 or -1 on a 0-d array (normalize_axis let only
        # those through) and reduce nothing: np.sum, np.nanvar; others refuse it (np.mean,
        # np.var). The primal is given the axis as it came, and decides
        axes = ()
    elif axis is not None:
        kw["axis"] = axes
    if "keepdims" in a:
        kw["keepdims"] = bool(a["keepdims"])
    return xp, x, axes, kw


def consts(args: tuple[Any, ...]) -> tuple[NoTangent, ...]:
    """``NoTangent()`` for each positional argument after the array (NumPy's axis, dtype, ...):
    never differentiated. ``(x, *consts(args))`` are the arguments as the pullback sees them."""
    return (NO,) * (len(args) - 1)


def tangent(name: str, tangents: Any, args: tuple[Any, ...], project: ProjectTo) -> Any:
    """The frule's tangents (:func:`tangents_in`), or ``None`` when the array's is zero or the
    array has no tangent space."""
    ts = tangents_in(name, tangents, args)
    if ts is None or isinstance(ts[0], AbstractZero) or not project.differentiable:
        return None
    return ts


Dot = Callable[[Any, Any, Any, Any, tuple[int, ...], dict[str, Any]], Any]


def reduction_frule(
    name: str, sig: Signature, numpy: bool, dot: Dot, own: bool = False
) -> Callable[..., Any]:
    """The frule of a reduction ``y = xp.NAME(x, **kw)`` bound by ``sig`` (:func:`bind`; with
    ``own``, ``NAME`` of ``x``'s NumPy-like module: NumPy's nan-functions): ``ZeroTangent()``
    where :func:`tangent` finds no tangent, else ``dot(xp, x, y, ts, axes, kw)``."""

    def reduction_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw = bind(sig, numpy, args, kwargs)
        y = getattr(numpy_like_module(x, xp) if own else xp, name)(x, **kw)
        ts = tangent(name, tangents, args, ProjectTo(x, xp))
        if ts is None:
            return y, ZERO
        return y, dot(xp, x, y, ts, axes, kw)

    return reduction_frule


def register_both(
    name: str,
    numpy_names: tuple[str, ...],
    rules: Callable[..., Rules],
    sigs: Any,
    examples: Any,
    numpy_examples: Any = None,
    expect: Any = (),
    chunked: bool = False,
    linear: bool = False,
) -> None:
    """Register ``rules(name, sig, numpy)`` under the standard's name and NumPy's names
    (``expect``: the known limits of the standard's registration; ``chunked`` and ``linear``:
    the registrations' ``chunked_pullback=`` and ``linear=``)."""
    std, np_ = sigs
    for sig, numpy, targets, ex in (
        (std, False, (name,), examples),
        (np_, True, tuple(f"numpy:{n}" for n in numpy_names), numpy_examples or examples),
    ):
        rrule, frule = rules(name, sig, numpy)
        limits = () if numpy else expect
        meta = {"examples": ex, "expect": limits, "linear": linear}
        register_rrule(*targets, chunked_pullback=chunked, **meta)(rrule)
        register_frule(*targets, **meta)(frule)


_ND = np.ndarray
_NO_AXIS_KW = {"keepdims": False}  # bind's keywords for a reduction over every axis: never mutated
_AXIS_KW = frozenset(("axis", "keepdims"))


def bind_real_numpy(
    sig: Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[int, ...], dict[str, Any]] | None:
    """``(axes, kw)`` as :func:`bind` gives them for the common call of a reduction -- one
    real, non-empty NumPy array, with ``axis=`` and ``keepdims=`` at most -- without binding;
    ``None`` for every other call (a 0-d array with an axis, which NumPy special-cases,
    included), which :func:`bind` then takes."""
    if len(args) != 1 or (kwargs and not _AXIS_KW.issuperset(kwargs)):
        return None
    x = args[0]
    if type(x) is not _ND or x.dtype.kind != "f" or not x.size:
        return None
    axis = kwargs.get("axis") if kwargs else None
    if axis is None:
        kw = {"keepdims": bool(kwargs.get("keepdims"))} if kwargs else _NO_AXIS_KW
        return tuple(range(x.ndim)), kw
    if not x.ndim:
        return None
    axes = normalize_axis(axis, x.ndim, sig.name)
    return axes, {"axis": axes, "keepdims": bool(kwargs.get("keepdims"))}


# --- examples -----------------------------------------------------------------------------------
def nan_entries(rng: Any, *shape: int) -> Any:
    """Distinct values with NaNs at a few places (never a whole slice)."""
    n = math.prod(shape)
    v = (rng.permutation(n) + rng.uniform(0.1, 0.4, n)).reshape(shape)
    flat = v.reshape(-1)
    flat[[1, n - 2]] = np.nan
    return v


# --- nanprod, nancumsum, nancumprod: the plain rule on x with NaNs filled -------------------------
def _filled_rules(name: str, plain: str, fill: float) -> Any:
    """``name(x, ...) = plain(where(isnan(x), fill, x), ...)``: NumPy's own definition; the
    plain function's rules on the filled array, the NaNs' cotangents and tangents zeroed."""
    from ...core import frule as _frule
    from ...core import rrule as _rrule

    def parts(args: tuple[Any, ...]) -> tuple[Any, Any, Any, Any]:
        if not args:
            raise TypeError(f"{name}() missing required argument 'a' (pos 0)")
        x = args[0]
        xp = namespace_of(x, fname=name)
        if not hasattr(x, "shape"):
            x = xp.asarray(x)
        nan = xp.isnan(x)
        return xp, x, nan, getattr(numpy_like_module(x, xp), plain)

    def filled_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, nan, f = parts(args)
        filled = xp.where(nan, xp.asarray(fill, dtype=x.dtype), x)
        y, inner = _rrule(f, filled, *args[1:], **kwargs)
        nos = (NO,) * (len(args) - 1)

        @pullback(y, (x, *nos), name=name)
        def filled_pullback(y_bar: Any) -> tuple[Any, ...]:
            g = inner(y_bar)[1]
            if isinstance(g, (AbstractZero, NoTangent)):
                return (g, *nos)
            return (xp.where(nan, xp.zeros_like(g), g), *nos)

        return y, filled_pullback

    def filled_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, nan, f = parts(args)
        filled = xp.where(nan, xp.asarray(fill, dtype=x.dtype), x)
        ts = tangents_in(name, tangents, args)
        if ts is None or isinstance(ts[0], AbstractZero):
            # through the plain rule, which checks the arguments (and names the function)
            nos = (NO,) * (len(args) + 1)
            return _frule(nos, f, filled, *args[1:], **kwargs)[0], ZERO
        t = ts[0]
        t = xp.where(nan, xp.zeros_like(t), t)
        return _frule((NO, t, *(NO,) * (len(args) - 1)), f, filled, *args[1:], **kwargs)

    return filled_rrule, filled_frule


def register_filled(name: str, plain: str, fill: float, examples: Any, **meta: Any) -> None:
    """Register ``"numpy:NAME"``'s rules: ``plain``'s on ``x`` with its NaNs set to ``fill``
    (:func:`_filled_rules`); registered as the caller's (its ``module``), as the
    ``numpy_non_differentiable`` declarations are."""
    meta.setdefault("module", caller_module())
    r, f = _filled_rules(name, plain, fill)
    register_rrule(f"numpy:{name}", examples=examples, **meta)(r)
    register_frule(f"numpy:{name}", examples=examples, **meta)(f)


# --- cov: the variables as rows ---------------------------------------------------------------
class Cov:
    """``cov``'s variables as rows: ``X`` (``m``'s rows, then ``y``'s), the weights, ``Xc``,
    the normaliser ``f`` and ``C`` as a ``(p, p)`` matrix."""

    def __init__(self, name: str, a: dict[str, Any]) -> None:
        m, yv = a["m"] if "m" in a else a["x"], a["y"]
        xp = namespace_of(m, *([yv] if yv is not None else []), fname=name)
        self.xp, self.rowvar, self.m, self.yv = xp, bool(a["rowvar"]), m, yv
        rows = [self._rows(m)] + ([self._rows(yv)] if yv is not None else [])
        self.split = rows[0].shape[0]
        X = xp.concat(rows, axis=0) if len(rows) > 1 else rows[0]
        # in double precision (float32 too: corrcoef's normalisation loses ~1e-7 otherwise),
        # complex kept complex (C = Xc W Xc^H is Hermitian)
        wide = xp.complex128 if xp.isdtype(X.dtype, "complex floating") else xp.float64
        if X.dtype != wide:
            X = xp.astype(X, wide)
        n = X.shape[1]
        fw, aw = a.get("fweights"), a.get("aweights")
        ddof = a.get("ddof")
        if ddof is None:
            ddof = 0 if a.get("bias") else 1
        w = None
        for v in (fw, aw):
            if v is not None:
                v = xp.astype(xp.asarray(v), X.dtype)
                w = v if w is None else w * v
        if w is None:
            self.avg = xp.mean(X, axis=1, keepdims=True)
            fact: Any = n - ddof
        else:
            v1 = xp.sum(w)
            self.avg = xp.sum(X * w, axis=1, keepdims=True) / v1
            if ddof == 0:
                fact = v1
            elif aw is None:
                fact = v1 - ddof
            else:
                fact = v1 - ddof * xp.sum(w * xp.astype(xp.asarray(aw), X.dtype)) / v1
        self.w, self.n, self.fact = w, n, fact
        self.Xc = X - self.avg
        self.Xcw = self.Xc * w if w is not None else self.Xc
        self.C = (self.Xcw @ adjoint(xp, self.Xc)) / fact

    def _rows(self, v: Any) -> Any:
        xp = self.xp
        if not hasattr(v, "shape"):
            v = xp.asarray(v)
        r = xp.reshape(v, (1, -1)) if v.ndim < 2 else v
        if not self.rowvar and r.shape[0] != 1:
            r = xp.matrix_transpose(r)
        return r

    def back(self, X_bar: Any) -> tuple[Any, Any]:
        """``X``'s cotangent as the cotangents of ``m`` and ``y``."""
        xp = self.xp
        parts = [(self.m, X_bar[: self.split, :])]
        if self.yv is not None:
            parts.append((self.yv, X_bar[self.split :, :]))
        out = []
        for v, g in parts:
            v_nd = getattr(v, "ndim", 0)
            if v_nd >= 2 and not self.rowvar and g.shape[0] != v.shape[0]:
                g = xp.matrix_transpose(g)
            out.append(ProjectTo(v, xp)(xp.reshape(g, tuple(getattr(v, "shape", ())))))
        return out[0], (out[1] if len(out) > 1 else NO)

    def X_dot(self, tm: Any, ty: Any, extra: int, lead: tuple[int, ...]) -> Any:
        """The tangent of ``X`` (``(*lead, p, n)``) from those of ``m`` and ``y``."""
        xp = self.xp
        rows = []
        for v, t in ((self.m, tm), (self.yv, ty)):
            if v is None:
                continue
            k = self._rows(v).shape[0]
            if isinstance(t, AbstractZero):
                rows.append(xp.zeros((*lead, k, self.n), dtype=self.Xc.dtype))
                continue
            v_nd = getattr(v, "ndim", 0)
            if v_nd < 2:
                t = xp.reshape(t, (*lead, 1, -1))
            elif not self.rowvar and k != v.shape[0]:
                t = xp.matrix_transpose(t)
            rows.append(in_dtype(xp, t, self.Xc.dtype))
        return xp.concat(rows, axis=-2) if len(rows) > 1 else rows[0]

    def C_dot(self, dX: Any) -> Any:
        xp = self.xp
        if self.w is None:
            dXc = dX - xp.mean(dX, axis=-1, keepdims=True)
        else:
            dXc = dX - xp.sum(dX * self.w, axis=-1, keepdims=True) / xp.sum(self.w)
        half = (dXc * self.w if self.w is not None else dXc) @ adjoint(xp, self.Xc)
        return (half + adjoint(xp, half)) / self.fact
