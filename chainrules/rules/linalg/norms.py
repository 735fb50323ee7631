"""Rules for the norms of the ``linalg`` extension -- ``vector_norm``, ``matrix_norm`` -- and
NumPy's ``linalg.norm`` (every ``ord``/``axis``/``keepdims`` combination).

Maths notes
-----------
Every norm is written through its *gradient direction* ``G`` (the cotangent for ``y_bar = 1``):
``x_bar = y_bar * G`` and ``y_dot = sum(Re(conj(G) x_dot))`` over the reduced axes. With ``y`` the
norm, broadcast back over the reduced axes:

=================  =================================================================
``ord``            ``G``
=================  =================================================================
2, ``'fro'``       ``x / y``
1 (vector)         ``x / |x|``                       (0 where ``x = 0``)
p (any other)      ``x / |x| * (|x| / y)**(p - 1)``  (0 where ``x = 0``)
``inf``/``-inf``   ``x / |x| * mask / count``, ``mask = (|x| == y)``: ties split equally
0                  zero (``ZeroTangent()``): the count of non-zeros is piecewise constant
``'nuc'``          ``U V^H`` over the non-zero singular values
2 / -2 (matrix)    ``U diag(mask / count) V^H`` for the largest / smallest singular values
1 / -1 (matrix)    ``x / |x|`` in the columns of largest / smallest absolute sum, split equally
inf / -inf         the same for rows
=================  =================================================================

Wherever ``y = 0`` (the zero vector or matrix) ``G = 0``: the minimum-norm subgradient, never NaN
and never a warning. The ``inf`` norm -- ChainRules' GPU-broken ``argmax`` + single write -- is a
mask and a count here: no index ever reaches the host.

The 2-norm (``vector_norm``'s ``ord=2``, ``matrix_norm``'s ``'fro'``, NumPy's default) comes
first and reads whole on its own: its pullback is :func:`norm2_back`, a function with rules of its
own, so that the pullback can be differentiated again (second derivatives). The other norms share
one pullback and one pushforward, given their gradient directions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ...core.namespaces import host_readable
from ...core.prelude import *
from ...core.signature import axis_ints, normalize_axis
from .._util import (
    chunk_axes,
    count_true,
    expand_reduced,
    in_dtype,
    masked_product,
    safe,
    unit,
)
from .._util.linalg import finite_svd

_INF = math.inf


# --- the 2-norm: vector_norm's ord=2, matrix_norm's 'fro', linalg.norm's default ----------------
# y = ||x||: x_bar = y_bar G and y_dot = sum Re(conj(G) x_dot), G = x / y; G = 0 where y = 0
# (DESIGN's kinks); where y = inf, the limit sign(x) / sqrt(k) at the k infinite entries of x
# and 0 elsewhere (no inf / inf); NaN where y is NaN, and at complex infinity (no direction).
@register_rrule("linalg.vector_norm", examples=lambda rng: _vector_ex(rng))
def _vector_norm_rrule(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    if ord != 2:
        return _pnorm_rrule(x, axis, keepdims, ord)
    return _norm2_rrule("vector_norm", x, axis, keepdims, (x,), _norm_value(x, axis, keepdims, 2))


@register_frule("linalg.vector_norm", examples=lambda rng: _vector_ex(rng))
def _vector_norm_frule(
    tangents: Any, x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2
) -> Any:
    if ord != 2:
        return _pnorm_frule(tangents, x, axis, keepdims, ord)
    y = _norm_value(x, axis, keepdims, 2)
    return _norm2_frule("vector_norm", tangents, x, axis, keepdims, y)


def _norm2_rrule(name: str, x: Any, axis: Any, keepdims: bool, args: Any, y: Any) -> Any:
    """``(y, pullback)``, ``y`` the 2-norm of ``x`` over ``axis``; ``args[1:]`` are static."""
    project, rest = ProjectTo(x), (NO,) * (len(args) - 1)
    norm = None if hasattr(type(y), "__chainrules_call__") else y  # a traced y is recomputed

    @pullback(y, args, name=name)
    def norm2_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (project(_norm2_bar(x, y_bar, axis, norm)), *rest)

    return y, norm2_pullback


def _norm2_frule(name: str, tangents: Any, x: Any, axis: Any, keepdims: bool, y: Any) -> Any:
    t = tangents_in(name, tangents[:2], (x,))
    if t is None:
        return y, ZERO
    xp, axes, g, _, _ = _norm2(x, 1.0, axis, y, unit=True)
    y_dot = xp.sum(xp.real(xp.conj(g) * t[0]), axis=axes, keepdims=keepdims)  # axes < 0: chunks
    return y, y_dot if y_dot.dtype == y.dtype else xp.astype(y_dot, y.dtype)


def _norm2(x: Any, y_bar: Any, axis: Any, norm: Any, unit: bool = False) -> tuple[Any, ...]:
    """``(xp, axes, y_bar G, y, y_bar)``: the reduced axes (negative: they hold for chunks too),
    the last two with them kept; ``G`` alone if ``unit``. ``norm``: ``y``, or None."""
    xp = namespace_of(x, y_bar)
    picked = axis if isinstance(axis, (tuple, list)) else range(x.ndim) if axis is None else (axis,)
    axes = tuple(sorted({a % x.ndim - x.ndim for a in picked}))  # the primal checked them
    kept = tuple(1 if i - x.ndim in axes else n for i, n in enumerate(x.shape))
    r = xp.reshape(xp.linalg.vector_norm(x, axis=axis) if norm is None else norm, kept)
    ye = xp.reshape(y_bar, kept) if hasattr(y_bar, "shape") else y_bar + xp.zeros_like(r)
    scale = 1.0 if unit else ye
    c = scale / xp.where(r == 0, 1.0, r)
    if xp.isdtype(x.dtype, "complex floating"):
        return xp, axes, x * c, r, ye

    def limit() -> Any:  # k counted in floating point: JAX joins its all-reduce with the norm's
        big = xp.isinf(x)
        k = xp.sum(xp.astype(big, r.dtype), axis=axes, keepdims=True)
        w = xp.where(xp.isnan(r), r, xp.pow(xp.where(k == 0, 1.0, k), -0.5))
        return xp.where(big, xp.copysign(w, x) * scale, xp.where(big, 0.0, x) * c)

    return xp, axes, unless_inf(r, lambda: x * c, limit), r, ye


@traceable
def norm2_back(
    x: Any, y_bar: Any, axis: Any = None, keepdims: bool = False, *, norm: Any = None
) -> Any:
    """The 2-norm's pullback ``y_bar G``; ``norm``: the norm, a cache never differentiated. It
    has rules of its own: the pullback is differentiable again."""
    return _norm2(x, y_bar, axis, norm)[2]


@specialise
def _norm2_bar(x: Any, y_bar: Any, axis: Any, norm: Any) -> Any:
    """:func:`norm2_back`, with NumPy's and torch's ways (below)."""
    return norm2_back(x, y_bar, axis, norm=norm)


_NORM2_BACK = signature("norm2_back", norm2_back)


@register_rrule(norm2_back)
def _norm2_back_rrule(*args: Any, **kwargs: Any) -> Any:
    a = _NORM2_BACK.bind(args, kwargs)
    xp, axes, g, r, ye = _norm2(a["x"], a["y_bar"], a["axis"], a["norm"], unit=True)
    s = xp.where(r == 0, 0.0, ye / xp.where(r == 0, 1.0, r))  # y_bar / y, 0 at y = 0
    px, py, rest = ProjectTo(a["x"]), ProjectTo(a["y_bar"]), (NO,) * (len(args) - 2)

    @pullback(g * ye, args, name="norm2_back")
    def norm2_back_pullback(z_bar: Any) -> tuple[Any, ...]:
        # z = y_bar G: x_bar = (z_bar - G b) y_bar / y, y_bar_bar = b = sum Re(conj(G) z_bar);
        # through G, not x / y**3: 0 at y = inf, no overflow
        b = xp.sum(xp.real(xp.conj(g) * z_bar), axis=axes, keepdims=bool(a["keepdims"]))
        return px((z_bar - g * xp.reshape(b, r.shape)) * s), py(b), *rest

    return g * ye, norm2_back_pullback


@register_frule(norm2_back)
def _norm2_back_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    a = _NORM2_BACK.bind(args, kwargs)
    xp, axes, g, r, ye = _norm2(a["x"], a["y_bar"], a["axis"], a["norm"], unit=True)
    t = tangents_in("norm2_back", tangents[:3], (a["x"], a["y_bar"]))  # axis, keepdims: static
    if t is None:
        return g * ye, ZERO
    dz: Any = 0.0
    if not isinstance(t[0], AbstractZero):  # (dx - G d|x|) y_bar / y, d|x| = sum Re(conj(G) dx)
        dx_along = xp.sum(xp.real(xp.conj(g) * t[0]), axis=axes, keepdims=True)
        dz = (t[0] - g * dx_along) * xp.where(r == 0, 0.0, ye / xp.where(r == 0, 1.0, r))
    if not isinstance(t[1], AbstractZero):  # + G d(y_bar)
        dz = dz + g * xp.reshape(t[1], (*t[1].shape[: t.extra], *r.shape))
    z = g * ye
    return z, dz if dz.dtype == z.dtype else xp.astype(dz, z.dtype)


@specialise
def unless_inf(ye: Any, plain: Any, limit: Any) -> Any:
    """``plain()`` if no entry of the norm ``ye`` is infinite, else ``limit()``: the generic way
    takes ``limit()``, right everywhere (finding out would read ``ye`` on the host; under JAX a
    ``lax.cond`` would compile a collective of its own into its branch when sharded)."""
    return limit()


@unless_inf.method("numpy")
def _unless_inf_numpy(ye: Any, plain: Any, limit: Any) -> Any:
    """In host memory: one read skips the masks (at n = 1e6, one pass instead of five).
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.93, median of 3
    cells."""
    return limit() if np.isinf(ye).any() else plain()


@unless_inf.method("torch")
def _unless_inf_torch(ye: Any, plain: Any, limit: Any) -> Any:
    """An eager CPU tensor is read as NumPy's (the masks cost 3-7x at n = 1e6,
    ``benchmarks/torch_bridge.py``); CUDA, torch.func's
    wrappers, fake tensors and torch.compile take the masks: no host read, no graph break."""
    import torch

    if not host_readable(ye):
        return NotImplemented
    return limit() if bool(torch.isinf(ye).any()) else plain()


@_norm2_bar.method("numpy")
def _norm2_bar_numpy(x: Any, y_bar: Any, axis: Any, norm: Any) -> Any:
    """A real array normed over every axis to a finite positive NumPy scalar, a scalar cotangent
    in its dtype: ``x * (y_bar / y)``, :func:`norm2_back`'s array bit for bit without its
    bookkeeping (about half of ``rrule`` and pullback at n = 10).
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.70, median of 2
    cells (0.65 at best)."""
    if axis is not None or type(x) is not np.ndarray or x.dtype.kind != "f":
        return NotImplemented
    if not isinstance(norm, np.floating) or not 0 < norm < np.inf:
        return NotImplemented  # a zero, infinite or NaN norm: norm2_back's limits
    plain = type(y_bar) is float or (
        isinstance(y_bar, (np.floating, np.ndarray)) and y_bar.ndim == 0 and y_bar.dtype == x.dtype
    )
    return x * (y_bar / norm) if plain else NotImplemented


@_norm2_bar.method("torch")
def _norm2_bar_torch(x: Any, y_bar: Any, axis: Any, norm: Any) -> Any:
    """NumPy's method for an eager CPU tensor (:func:`host_readable`: the norm is read with no
    sync and no graph break), a 0-d cotangent in its dtype: ``x * (y_bar / y)``. Torch bridge
    (``benchmarks/torch_bridge.py``), forward + backward at n = 10: the masks and the infinity
    test cost about 20 us."""
    import torch

    if axis is not None or type(x) is not torch.Tensor or not x.dtype.is_floating_point:
        return NotImplemented
    if type(y_bar) is not torch.Tensor or y_bar.ndim or y_bar.dtype != x.dtype:
        return NotImplemented
    if type(norm) is not torch.Tensor or norm.ndim or not host_readable(norm):
        return NotImplemented
    return x * (y_bar / norm) if 0 < float(norm) < math.inf else NotImplemented


# --- every other norm: one pullback and one pushforward, given the gradient direction ----------
@specialise
def _norm_value(x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
    """``vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)``, ``axis`` checked first."""
    normalize_axis(axis, x.ndim, "vector_norm")  # an error naming the function
    xp = namespace_of(x, fname="vector_norm")
    return xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)


@_norm_value.method("numpy")
def _norm_value_numpy(x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
    """The 2-norm over every axis of a real NumPy array through BLAS: ``np.linalg.norm`` calls
    ``dot`` (0.06 ms at n = 1e6 here) where ``vector_norm`` squares and sums (0.40 ms).
    Population: not reached (its programs call ``np.linalg.norm``, b20bb44); ``vector_norm`` at n =
    1e6 0.18 of the generic time, 0.68 at n = 10."""
    if type(x) is not np.ndarray or ord != 2 or axis is not None or x.dtype.kind != "f":
        return NotImplemented
    return np.linalg.norm(x, None, None, keepdims)


def _pnorm(x: Any, axis: Any, keepdims: bool, ord: Any) -> _Norm:
    """``y = vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)`` for ``ord != 2``."""
    xp = namespace_of(x, fname="vector_norm")
    axes = normalize_axis(axis, x.ndim, "vector_norm")
    y = _norm_value(x, axis, keepdims, ord)

    def direction(scale: Any) -> Any:
        ye = expand_reduced(xp, y, axes, keepdims)
        return _vector_direction(xp, x, ye, ord, axes, scale)

    return _Norm("vector_norm", xp, x, y, axes, keepdims, direction)


def _pnorm_rrule(x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
    norm = _pnorm(x, axis, keepdims, ord)
    return norm.y, _norm_pullback(norm, (x,))


def _pnorm_frule(tangents: Any, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
    norm = _pnorm(x, axis, keepdims, ord)
    return norm.y, _norm_dot(norm, tangents, ord)


# --- gradient directions ----------------------------------------------------------------------
def _vector_direction(
    xp: Any, x: Any, ye: Any, ord: Any, axes: tuple[int, ...], scale: Any = None
) -> Any:
    """``scale * G`` of ``vector_norm`` over ``axes``, ``ord != 2`` (``ye``: the norm with the
    reduced axes kept, for broadcasting; ``scale``: the cotangent, likewise, or None for ``G``
    itself); ``None`` for a zero derivative. Reduced-size factors are folded into ``scale``
    first, so the full-size work is as small as it can be (it decides the inf-norm pullback's
    speed)."""
    if ord == 0:
        return None
    if ord in (_INF, -_INF):
        # the elements of largest (smallest) |x| share the cotangent equally: a mask and a count
        # -- no argmax, no index read on the host. For real x, x / y is sign(x) on the mask.
        def plain() -> Any:  # x / y on the mask, in one masked pass: no inf / inf to guard
            mask = xp.abs(x) == ye
            count = count_true(xp, mask, axes, dtype=ye.dtype)
            c = 1 / (safe(xp, ye) * safe(xp, count))
            return masked_product(xp, mask, x, c if scale is None else c * scale)

        def limit() -> Any:  # right everywhere (JAX's way too: one fused pass beside the count)
            mask = xp.abs(x) == ye
            count = count_true(xp, mask, axes, dtype=ye.dtype)
            # x / y is sign(x) on the mask: copysign(1 / count, x), finite also at y = inf
            # (where x * (1 / y) would be inf * 0); 0 at the zero vector (y = 0, all tied)
            c = 1 / safe(xp, count)
            g = xp.copysign(xp.where(ye == 0, xp.zeros_like(c), c), x)  # c >= 0: sign(x) / count
            return masked_product(xp, mask, g, 1.0 if scale is None else scale)

        # complex x has no direction at infinity (NaN, docs/conventions.md): the plain pass is
        # its formula
        if xp.isdtype(x.dtype, "complex floating"):
            return plain()
        return unless_inf(ye, plain, limit)
    ax = xp.abs(x)
    if ord == 1:
        g = unit(xp, x, ax)
        return g if scale is None else g * scale
    p = float(ord)

    def make(v: Any) -> Any:
        av = xp.abs(v)
        u = av / safe(xp, ye)
        g = xp.pow(safe(xp, u), p - 1.0)
        if p > 0:
            # |x| / y is 0 at a finite non-zero x only where y = inf (an infinite entry): the
            # limit of (|x| / y)**(p - 1) there is 0 for p > 1 and inf for p < 1. (For p < 0 an
            # infinite y comes only from underflow in the primal: left as it was.)
            lim = xp.zeros_like(u) if p > 1 else xp.full_like(u, _INF)
            g = xp.where(u == 0, lim, g)
        return unit(xp, v, av) * xp.where((av == 0) | (ye == 0), xp.zeros_like(g), g)

    g = _at_inf(xp, x, ye, axes, make, 1.0, p) if p > 0 else make(x)
    return g if scale is None else g * scale


def _scaled(g: Any, scale: Any) -> Any:
    return g if scale is None or g is None else g * scale


def _tie_weights(xp: Any, mask: Any, dtype: Any, axes: tuple[int, ...]) -> Any:
    """``mask / count`` in ``dtype``: each tied element's equal share of its slice over ``axes``."""
    count = xp.astype(count_true(xp, mask, axes), dtype)
    return xp.astype(mask, dtype) / safe(xp, count)


def _matrix_direction(xp: Any, x: Any, ye: Any, ord: Any) -> Any:
    """``G`` of ``matrix_norm`` over the last two axes (``ye`` has them as length-1 axes), for an
    ``ord`` other than ``'fro'`` (the 2-norm's)."""
    if ord in ("nuc", 2, -2):
        u, s, vh = finite_svd(xp, x, False)  # NaN at a non-finite x, never a hang
        if ord == "nuc":  # U V^H over the non-zero singular values (min-norm subgradient)
            w = xp.astype(s > 0, s.dtype)
        else:
            target = (
                xp.max(s, axis=-1, keepdims=True) if ord == 2 else xp.min(s, axis=-1, keepdims=True)
            )
            w = _tie_weights(xp, s == target, s.dtype, (-1,))
            w = xp.where(target == 0, xp.zeros_like(w), w)
        return xp.matmul(u * xp.astype(w, u.dtype)[..., None, :], vh)
    ax = xp.abs(x)
    direction = unit(xp, x, ax)
    if ord in (1, -1):  # columns: sums over rows (axis -2)
        sums = xp.sum(ax, axis=-2, keepdims=True)
        pick = (
            xp.max(sums, axis=-1, keepdims=True)
            if ord == 1
            else xp.min(sums, axis=-1, keepdims=True)
        )
        w = _tie_weights(xp, sums == pick, sums.dtype, (-1,))
    elif ord in (_INF, -_INF):  # rows: sums over columns (axis -1)
        sums = xp.sum(ax, axis=-1, keepdims=True)
        pick = (
            xp.max(sums, axis=-2, keepdims=True)
            if ord == _INF
            else xp.min(sums, axis=-2, keepdims=True)
        )
        w = _tie_weights(xp, sums == pick, sums.dtype, (-2,))
    else:
        raise ValueError(f"matrix_norm: invalid ord {ord!r}")
    g = direction * w
    return xp.where(ye == 0, xp.zeros_like(g), g)


def _at_inf(
    xp: Any, x: Any, ye: Any, axes: tuple[int, ...], make: Any, scale: Any, p: float
) -> Any:
    """``make(x)`` (the p-norm's gradient, ``p > 0``) with its limit at the infinite entries of
    real ``x``: ``scale * sign(x) * k**(1/p - 1)`` for ``k`` such entries in a slice -- the
    gradient at ``x + t * sign(x at the infinite entries)`` as ``t -> inf`` -- and ``make`` of
    ``x`` with those entries zeroed elsewhere (so no ``inf * 0`` is formed, and no warning).
    Slices whose norm is NaN stay NaN."""
    if xp.isdtype(x.dtype, "complex floating"):
        return make(x)  # complex infinity has no direction: NaN (docs/conventions.md)

    def limit() -> Any:
        big = xp.isinf(x)  # for p > 0 an infinite entry makes y inf (or NaN: kept below)
        # (scalar and same-shape operands only: NumPy's where is 5-10x slower with broadcast ones)
        g = make(xp.where(big, 0.0, x))
        k = count_true(xp, big, axes, dtype=ye.dtype)  # JAX: a float sum (count_true's method)
        w = xp.pow(safe(xp, k), 1.0 / p - 1.0)
        w = xp.copysign(xp.where(xp.isnan(ye), ye, w), x)  # w >= 0; the sign of x
        return xp.where(big, w if isinstance(scale, float) else w * scale, g)

    return unless_inf(ye, lambda: make(x), limit)


# --- the norms: one pullback and one pushforward, given the gradient direction --------------------
class _Norm(NamedTuple):
    """A norm ``y`` of ``x`` over ``axes`` (sorted), as the function ``name`` computed it, with
    ``direction(scale)`` giving ``scale * G`` (``None`` for a zero derivative)."""

    name: str
    xp: Any
    x: Any
    y: Any
    axes: tuple[int, ...]
    keepdims: bool
    direction: Callable[[Any], Any]


def _norm_pullback(norm: _Norm, args: tuple[Any, ...]) -> Any:
    """The pullback of the norm: ``y_bar * G``; the 2-norm's is :func:`_norm2_rrule`. The other
    positional arguments (``ord``, ``axis``, ``keepdims``) are static."""
    name, xp, x, y, axes, keepdims, direction = norm
    project = ProjectTo(x, xp)
    rest = (NO,) * (len(args) - 1)

    @pullback(y, args, name=name)
    def norm_pullback(y_bar: Any) -> tuple[Any, ...]:
        if not project.differentiable:
            return (NO, *rest)
        g = direction(expand_reduced(xp, y_bar, axes, keepdims))
        if g is None:
            return (ZERO, *rest)
        return (project(g), *rest)

    return norm_pullback


def _norm_dot(norm: _Norm, tangents: Any, ord: Any = None) -> Any:
    """The pushforward of the norm: ``sum(Re(conj(G) x_dot))`` over ``axes``."""
    name, xp, x, y, axes, keepdims, direction = norm
    t = tangents_in(name, tangents[:2], (x,))
    if t is None:
        return ZERO
    d = direction(None)
    if d is None:
        return ZERO
    if isinstance(ord, (int, float)) and 0 < ord < 1:
        # G is inf at finite entries when y = inf (the limit): a zero tangent there adds 0
        d = xp.where(t[0] == 0, xp.zeros_like(d), d)
    prod = xp.conj(d) * t[0]
    y_dot = xp.sum(xp.real(prod), axis=chunk_axes(axes, t.extra), keepdims=keepdims)
    return in_dtype(xp, y_dot, y.dtype)


# --- matrix_norm ---------------------------------------------------------------------------------
def _matrix_norm(x: Any, keepdims: bool, ord: Any) -> _Norm:
    """``matrix_norm(x, keepdims=keepdims, ord=ord)``."""
    xp = namespace_of(x, fname="matrix_norm")
    if x.ndim < 2:
        raise ValueError(f"matrix_norm needs an array of rank >= 2, got shape {tuple(x.shape)}")
    axes = (x.ndim - 2, x.ndim - 1)
    y = xp.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)

    def direction(scale: Any) -> Any:
        ye = expand_reduced(xp, y, axes, keepdims)
        return _scaled(_matrix_direction(xp, x, ye, ord), scale)

    return _Norm("matrix_norm", xp, x, y, axes, keepdims, direction)


@register_rrule("linalg.matrix_norm", examples=lambda rng: _matrix_ex(rng))
def _matrix_norm_rrule(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    norm = _matrix_norm(x, keepdims, ord)
    if ord == "fro":  # the 2-norm of the last two axes
        return _norm2_rrule("matrix_norm", x, (-2, -1), keepdims, (x,), norm.y)
    return norm.y, _norm_pullback(norm, (x,))


@register_frule("linalg.matrix_norm", examples=lambda rng: _matrix_ex(rng))
def _matrix_norm_frule(
    tangents: Any, x: Any, /, *, keepdims: bool = False, ord: Any = "fro"
) -> Any:
    norm = _matrix_norm(x, keepdims, ord)
    if ord == "fro":
        return _norm2_frule("matrix_norm", tangents, x, (-2, -1), keepdims, norm.y)
    return norm.y, _norm_dot(norm, tangents)


# --- NumPy's linalg.norm -------------------------------------------------------------------------
_NORM = signature(
    "linalg.norm", lambda x, /, ord=None, axis=None, keepdims=False, *, out=None: None
)


def _np_norm(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """``(norm, axis, two_norm)`` of ``np.linalg.norm(x, ord=None, axis=None, keepdims=False)``,
    a vector or a matrix norm; ``two_norm``: whether it is the 2-norm (a vector's 2-norm, a
    matrix's ``'fro'``: NumPy's default)."""
    if len(args) > 4:
        raise TypeError(f"linalg.norm takes at most 4 positional arguments, got {len(args)}")
    a = _NORM.bind(args, kwargs)
    x, ord, axis, keepdims = a["x"], a["ord"], a["axis"], bool(a["keepdims"])
    xp = namespace_of(x, fname="linalg.norm")
    if axis is None:
        if ord is None:  # the 2-norm of all the elements, whatever the rank
            kind, order = "vector", tuple(range(x.ndim))
        elif x.ndim == 1:
            kind, order = "vector", (0,)
        else:  # numpy raises for other ranks; so does the primal below
            kind, order = "matrix", tuple(range(x.ndim))
    elif len(axis_ints(axis, "linalg.norm")) == 1:
        kind, order = "vector", normalize_axis(axis, x.ndim, "linalg.norm")
    else:  # (row, col): in order
        kind, order = "matrix", tuple(i % x.ndim for i in axis_ints(axis, "linalg.norm"))
    axes = tuple(sorted(order))
    y = xp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)

    def direction(scale: Any) -> Any:
        ye = expand_reduced(xp, y, axes, keepdims)
        if kind == "vector":
            return _vector_direction(xp, x, ye, ord, axes, scale)
        if x.ndim == 2 and order == (0, 1):
            return _scaled(_matrix_direction(xp, x, ye, ord), scale)
        # move the (row, col) axes to the end, as matrix_norm expects, and back
        r, c = order
        perm = (*(i for i in range(x.ndim) if i not in (r, c)), r, c)
        g = _matrix_direction(xp, xp.permute_dims(x, perm), xp.permute_dims(ye, perm), ord)
        return _scaled(xp.permute_dims(g, tuple(perm.index(i) for i in range(x.ndim))), scale)

    two = ord in (None, 2) if kind == "vector" else ord in (None, "fro")
    return _Norm("linalg.norm", xp, x, y, axes, keepdims, direction), axis, two


@register_rrule("numpy:linalg.norm", examples=lambda rng: _np_norm_ex(rng))
def _np_norm_rrule(*args: Any, **kwargs: Any) -> Any:
    norm, axis, two = _np_norm(args, kwargs)
    if two:
        return _norm2_rrule("linalg.norm", norm.x, axis, norm.keepdims, args, norm.y)
    return norm.y, _norm_pullback(norm, args)


@register_frule("numpy:linalg.norm", examples=lambda rng: _np_norm_ex(rng))
def _np_norm_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    norm, axis, two = _np_norm(args, kwargs)
    if two:
        return _norm2_frule("linalg.norm", tangents, norm.x, axis, norm.keepdims, norm.y)
    return norm.y, _norm_dot(norm, tangents)


# --- examples ------------------------------------------------------------------------------------
def _away_from_zero(rng: Any, shape: Any) -> Any:
    """Values with |x| in (0.3, 2) and random signs: fractional and negative p have kinks at 0."""
    return rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)


def _vector_ex(rng: Any) -> list[Any]:
    v, m = _away_from_zero(rng, 6), _away_from_zero(rng, (3, 4))
    out: list[Any] = []
    for ord in (2, 1, _INF, -_INF, 0, 3, 0.5, -1.5):
        out.append(((v,), {"ord": ord}))
        out.append(((m,), {"ord": ord, "axis": 1}))
    out += [
        ((m,), {}),
        ((m,), {"axis": 0, "keepdims": True}),
        ((_away_from_zero(rng, (2, 3, 4)),), {"axis": (0, 2), "ord": _INF}),
        ((_away_from_zero(rng, (2, 3, 4)),), {"axis": (1, 2), "keepdims": True, "ord": 1}),
        ((rng.standard_normal(5) + 1j * rng.standard_normal(5),), {}),
        ((rng.standard_normal(5) + 1j * rng.standard_normal(5),), {"ord": _INF}),
    ]
    return out


def _matrix_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 4))
    b = rng.standard_normal((2, 3, 3))
    out: list[Any] = []
    for ord in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF):
        out.append(((m,), {"ord": ord}))
        out.append(((b,), {"ord": ord, "keepdims": True}))
    out.append(((rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)),), {"ord": "nuc"}))
    return out


def _np_norm_ex(rng: Any) -> list[Any]:
    v, m = _away_from_zero(rng, 5), rng.standard_normal((3, 4))
    t = rng.standard_normal((2, 3, 4))
    return [
        ((v,), {}),
        ((v, 1), {}),
        ((v,), {"ord": _INF}),
        ((v,), {"ord": -_INF}),
        ((v,), {"ord": 0}),
        ((v,), {"ord": 0.5}),
        ((m,), {}),
        ((m, "fro"), {}),
        ((m, "nuc"), {}),
        ((m, 2), {}),
        ((m, -2), {}),
        ((m, 1), {}),
        ((m,), {"ord": _INF}),  # a float ord by keyword: the tester would treat it as an input
        ((m,), {"ord": -1, "keepdims": True}),
        ((m,), {"axis": 1}),
        ((m,), {"axis": 0, "ord": 3, "keepdims": True}),
        ((t,), {}),
        ((t,), {"axis": (2, 0), "ord": "nuc"}),
        ((t,), {"axis": (0, 1), "ord": 1, "keepdims": True}),
        ((t,), {"axis": -1, "ord": _INF}),
    ]
