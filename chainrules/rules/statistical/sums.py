"""Sums and means: the standard's ``sum`` and ``mean`` (and NumPy's names for them), and NumPy's
``nansum``, ``nanmean`` and ``average``.

Maths notes
-----------
* ``sum``: the pullback broadcasts ``y_bar`` back over the reduced axes (``unsum``, a function
  with rules of its own, so the pullback is differentiable again); ``mean`` divides by the count.
  NumPy arrays take a NumPy method (``np.add.reduce``, and a broadcast view as the cotangent).
* ``nansum``, ``nanmean``: NaN entries get a zero cotangent (a mask, no host reads);
  ``nanmean`` divides by the count of the others.
* ``average``'s weights are differentiated when positional (``np.average(a, axis, weights)``),
  never as a keyword.

Registration under both names (the standard's and ``"numpy:NAME"``): see the package docstring.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from ...core.toolkit import Output
from .._util import (
    chunk_axes,
    count_true,
    expand_reduced,
    in_dtype,
    normalize_axis,
    reduced_size,
    safe,
    unsum,
)
from .._util.numpy_like import numpy_like_module
from .._util.statistical import *

__all__: list[str] = []  # rules only


# fmt: off
_SUM = signatures(
    "sum",
    lambda x, /, *, axis=None, dtype=None, keepdims=False: None,
    lambda x, /, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None: None,
)
_MEAN = signatures(
    "mean",
    lambda x, /, *, axis=None, keepdims=False: None,
    lambda x, /, axis=None, dtype=None, out=None, keepdims=False, *, where=None: None,
)
_NANSUM = signature(
    "nansum",
    lambda x, /, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None: None,
    ("where",),
)
_NANMEAN = signature(
    "nanmean",
    lambda x, /, axis=None, dtype=None, out=None, keepdims=False, *, where=None: None,
    ("where",),
)
_AVERAGE = signature(
    "average", lambda a, /, axis=None, weights=None, returned=False, *, keepdims=False: None
)
# fmt: on


def _unsum_view(y_bar: Any, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> Any:
    """``broadcast_to(y_bar with the reduced axes restored, shape)`` for a C-contiguous,
    non-empty floating NumPy ``y_bar``: a read-only view with zero strides along the broadcast
    axes, built in one constructor call (``np.broadcast_to`` costs 3-4x as much at n=10: its
    ``nditer``). ``None`` in every other case (the generic pullback takes it)."""
    if not y_bar.flags.c_contiguous or y_bar.dtype.kind not in "fc":
        return None
    rank = len(shape) if keepdims else len(shape) - len(axes)
    if not y_bar.size or 0 in shape or y_bar.ndim != rank:
        return None
    it = iter(zip(y_bar.shape, y_bar.strides))
    strides = []
    for a, m in enumerate(shape):
        n, st = (1, 0) if not keepdims and a in axes else next(it)
        if n != m and n != 1:
            return None  # not broadcastable: the generic path raises
        strides.append(st if n == m else 0)
    out = np.ndarray(shape, y_bar.dtype, y_bar, 0, tuple(strides))
    out.flags.writeable = False  # as broadcast_to's view: never written through
    return out


# --- sum, mean ---------------------------------------------------------------------------------
def _reduce_ex(rng: Any) -> list[Any]:
    x2 = rng.standard_normal((3, 4))
    x3 = rng.standard_normal((2, 3, 4))
    return [
        ((rng.standard_normal(5),), {}),
        ((x2,), {"axis": 0}),
        ((x2,), {"axis": -1, "keepdims": True}),
        ((x3,), {"axis": (0, 2)}),
        ((x3,), {}),
        ((rng.standard_normal(()),), {}),
        ((rng.standard_normal((6, 7)),), {"axis": 1}),
    ]


def _sum_rules(name: str, sig: Signature, numpy: bool) -> Rules:
    """``sum`` (and ``mean``, which divides by the count)."""
    mean = name == "mean"

    def sum_pullback_of(
        xp: Any, x: Any, y: Any, axes: tuple[int, ...], keepdims: bool, nos: tuple[Any, ...]
    ) -> Any:
        """The rule's pullback (``x``, ``y``: the arrays or their :class:`Output` records)."""
        project = ProjectTo(x, xp)
        shape = tuple(x.shape)
        n = max(reduced_size(shape, axes), 1) if mean else 1
        y_rank = len(shape) if keepdims else len(shape) - len(axes)

        @pullback(y, (x, *nos), name=name, chunked=True)
        def sum_pullback(y_bar: Any) -> tuple[Any, ...]:
            if mean:
                y_bar = y_bar / n
            extra = y_bar.ndim - y_rank  # a chunk's leading axes: the reduced axes move past them
            if extra:
                lead = tuple(y_bar.shape[:extra])
                g = unsum(y_bar, (*lead, *shape), chunk_axes(axes, extra), keepdims)
                return (project(g, extra), *nos)
            return (project(unsum(y_bar, shape, axes, keepdims)), *nos)

        return sum_pullback

    @specialise
    def sum_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw = bind(sig, numpy, args, kwargs)
        y = getattr(xp, name)(x, **kw)
        return y, sum_pullback_of(xp, x, y, axes, kw["keepdims"], consts(args))

    # NumPy's signature only: NumPy's own function is what its arrays meet (np.sum is the
    # "numpy:" registration's; the standard's reaches NumPy arrays through compat wrappers)
    def _sum_rrule_numpy(*args: Any, **kwargs: Any) -> Any:
        """A real, non-empty NumPy array with ``axis=``/``keepdims=`` at most: the reduction is
        ``np.add.reduce`` (what ``np.sum`` calls, without ``_wrapreduction``'s frames), and a
        NumPy cotangent of the output's shape and ``x``'s dtype is pulled back as a broadcast
        view (:func:`_unsum_view`); any other goes to the generic pullback, built then. At n=10
        the generic binding, ``pullback`` bookkeeping and ``broadcast_to`` cost 4-6 us around a
        1 us reduction, and nearly every program of the population sums.
        Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.91, median of
        344 cells (0.55 at best)."""
        fast = bind_real_numpy(sig, args, kwargs)
        if fast is None or (mean and args[0].itemsize <= 2):  # float16 means accumulate wider
            return NotImplemented
        x, axes, keepdims = args[0], fast[0], fast[1]["keepdims"]
        n = max(reduced_size(x.shape, axes), 1) if mean else 1
        y: Any = np.add.reduce(x, axis=axes, keepdims=keepdims)
        if n != 1:
            y = y / n
        shape, dtype, y_shape = x.shape, x.dtype, y.shape
        xp = namespace_of(x, fname=name)  # one array: a dict lookup by its type
        y_kept = y if type(y) is not np.ndarray else None  # a NumPy scalar owns its value

        def sum_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
            if isinstance(y_bar, np.generic):  # the cotangent of a full reduction
                y_bar = np.asarray(y_bar)
            plain = not chunk and type(y_bar) is np.ndarray
            if plain and y_bar.shape == y_shape and y_bar.dtype == dtype:
                g = _unsum_view(y_bar / n if n != 1 else y_bar, shape, axes, keepdims)
                if g is not None:
                    return (NO, g)
            # the generic pullback, from the records of x and y (this one keeps neither array)
            x_rec = Output(shape, dtype, np.ndarray, xp, "numpy", None, True)
            y_rec = y_kept
            if y_rec is None:
                y_rec = Output(y_shape, dtype, np.ndarray, xp, "numpy", None, True)
            return sum_pullback_of(xp, x_rec, y_rec, axes, keepdims, ())(y_bar, chunk=chunk)

        return y, sum_pullback

    if numpy:
        sum_rrule.method("numpy")(_sum_rrule_numpy)

    def sum_dot(xp: Any, x: Any, y: Any, ts: Any, axes: Any, kw: dict[str, Any]) -> Any:
        y_dot = getattr(xp, name)(ts[0], axis=chunk_axes(axes, ts.extra), keepdims=kw["keepdims"])
        return in_dtype(xp, y_dot, y.dtype)

    return sum_rrule, reduction_frule(name, sig, numpy, sum_dot)


register_both("sum", ("sum",), _sum_rules, _SUM, _reduce_ex, chunked=True, linear=True)
register_both("mean", ("mean",), _sum_rules, _MEAN, _reduce_ex, chunked=True, linear=True)


# --- NumPy's nansum, nanmean: NaN entries get a zero cotangent -----------------------------------
def _nan_ex(rng: Any) -> list[Any]:
    import numpy as np

    m = rng.standard_normal((3, 4))
    m[0, 1] = m[2, 2] = np.nan
    v = rng.standard_normal(5)
    v[3] = np.nan
    return [
        ((v,), {}),
        ((m,), {"axis": 1}),
        ((m,), {"axis": 0, "keepdims": True}),
        ((m, (0, 1)), {}),
        ((rng.standard_normal((2, 3, 4)),), {"axis": (0, 2)}),
        ((rng.standard_normal(()),), {}),
    ]


def _nan_parts(name: str, sig: Signature, args: Any, kwargs: Any) -> tuple[Any, ...]:
    """``(xp, x, axes, kw, y, nan, count)``: the call bound, the primal, the NaN mask and (for
    ``nanmean``; ``None`` for ``nansum``) the count of the other elements per slice, the reduced
    axes kept as length 1, in y's real dtype."""
    xp, x, axes, kw = bind(sig, True, args, kwargs)
    y = getattr(xp, name)(x, **kw)
    nan = xp.isnan(x)
    count = None
    if name == "nanmean":
        real = xp.real(y).dtype if xp.isdtype(y.dtype, "complex floating") else y.dtype
        count = xp.astype(count_true(xp, ~nan, axes, True), real)
    return xp, x, axes, kw, y, nan, count


def _nan_rules(name: str, sig: Signature) -> Rules:
    def nan_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw, y, nan, count = _nan_parts(name, sig, args, kwargs)
        project = ProjectTo(x, xp)
        nos = consts(args)

        @pullback(y, (x, *nos), name=name)
        def nan_pullback(y_bar: Any) -> tuple[Any, ...]:
            g = unsum(y_bar, tuple(x.shape), axes, kw["keepdims"])
            if count is not None:
                g = g / safe(xp, count)
            return (project(xp.where(nan, xp.zeros_like(g), g)), *nos)

        return y, nan_pullback

    def nan_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw, y, nan, count = _nan_parts(name, sig, args, kwargs)
        ts = tangent(name, tangents, args, ProjectTo(x, xp))
        if ts is None:
            return y, ZERO
        t, extra = ts[0], ts.extra
        y_dot = xp.sum(
            xp.where(nan, xp.zeros_like(t), t), axis=chunk_axes(axes, extra), keepdims=True
        )
        if count is not None:
            y_dot = y_dot / safe(xp, count)
        if not kw["keepdims"]:
            y_dot = xp.reshape(y_dot, (*tuple(t.shape[:extra]), *tuple(y.shape)))
        return y, in_dtype(xp, y_dot, y.dtype)

    return nan_rrule, nan_frule


for _name, _sig in (("nansum", _NANSUM), ("nanmean", _NANMEAN)):
    _r, _f = _nan_rules(_name, _sig)
    register_rrule(f"numpy:{_name}", examples=_nan_ex)(_r)
    register_frule(f"numpy:{_name}", examples=_nan_ex)(_f)


# --- NumPy's average: weights differentiated when positional ------------------------------------
def _average_parts(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """``(xp, a, w, wb, axes, keepdims, total, y)``: the call bound, the weights (``None``
    without), broadcast against ``a`` (1-D weights along the one axis), the axes, the total
    weight per slice (the reduced axes kept as length 1) and the primal."""
    p = _AVERAGE.bind(args, kwargs)
    if p["returned"]:
        raise TypeError("average: the rule does not support returned=True")
    a, w = p["a"], p["weights"]
    xp = namespace_of(a, w, fname="average")
    axes = normalize_axis(p["axis"], a.ndim, "average")

    y = numpy_like_module(a, xp).average(*args, **kwargs)
    wb = w
    if w is not None and w.ndim != a.ndim:  # 1-D weights along the one axis
        shape = [1] * a.ndim
        shape[axes[0]] = w.shape[0]
        wb = xp.reshape(w, tuple(shape))
    if wb is None:
        total = reduced_size(a.shape, axes)
    else:
        total = xp.sum(xp.broadcast_to(wb, tuple(a.shape)), axis=axes, keepdims=True)
    return xp, a, w, wb, axes, bool(p["keepdims"]), total, y


def _average_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 4))
    w = rng.uniform(0.5, 1.5, (3, 4))
    return [
        ((m,), {}),
        ((m, 1), {}),
        ((m, None, w), {}),  # positional weights: differentiated
        ((m, 1, w), {}),
        ((m, 0, rng.uniform(0.5, 1.5, 3)), {}),  # 1-D weights along the axis
        ((m, (0, 1), w), {"keepdims": True}),
        ((rng.standard_normal(5) + 1j * rng.standard_normal(5), 0, rng.uniform(0.5, 1.5, 5)), {}),
    ]


@register_rrule("numpy:average", examples=_average_ex)
def average_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, a, w, wb, axes, keepdims, total, y = _average_parts(args, kwargs)
    pa = ProjectTo(a, xp)
    w_positional = len(args) > 2
    # the arguments as the pullback sees them: a, and the weights when positional
    pb_args = tuple(v if i == 0 or (i == 2 and w_positional) else NO for i, v in enumerate(args))

    @pullback(y, pb_args)
    def average_pullback(y_bar: Any) -> tuple[Any, ...]:
        out: list[Any] = [NO] * len(args)
        g = expand_reduced(xp, y_bar, axes, keepdims)
        # an empty a (a total of 0 elements, a host number) has an empty cotangent
        scale = (wb / total) if wb is not None else (1 / total if total else 0.0)
        if pa.kind == "c" and wb is not None:
            scale = xp.conj(scale)
        out[0] = pa(xp.broadcast_to(g * scale, tuple(a.shape)))
        if w_positional and w is not None:
            d = (a - expand_reduced(xp, y, axes, keepdims)) / total
            gw = g * (xp.conj(d) if xp.isdtype(d.dtype, "complex floating") else d)
            if w.ndim != a.ndim:  # back to 1-D weights
                others = tuple(i for i in range(a.ndim) if i != axes[0])
                gw = xp.reshape(xp.sum(gw, axis=others), tuple(w.shape)) if others else gw
            out[2] = ProjectTo(w, xp)(gw)
        return tuple(out)

    return y, average_pullback


@register_frule("numpy:average", examples=_average_ex)
def average_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, w, wb, axes, keepdims, total, y = _average_parts(args, kwargs)
    ts = tangents_in("average", tangents, args)
    if ts is None:
        return y, ZERO
    extra, lead = ts.extra, ts.lead()
    y_dot: Any = None
    ta = ts[0]
    if not isinstance(ta, AbstractZero) and ProjectTo(a, xp).differentiable:
        term = ta * wb if wb is not None else ta
        y_dot = xp.sum(term, axis=chunk_axes(axes, extra), keepdims=True) / total
    tw = ts[2] if len(args) > 2 else ZERO
    if not isinstance(tw, AbstractZero) and ProjectTo(w, xp).differentiable:
        if w.ndim != a.ndim:
            tw = xp.reshape(tw, lead + tuple(wb.shape))
        d = a - expand_reduced(xp, y, axes, keepdims)
        term = xp.sum(tw * d, axis=chunk_axes(axes, extra), keepdims=True) / total
        y_dot = term if y_dot is None else y_dot + term
    if y_dot is None:
        return y, ZERO
    return y, in_dtype(xp, xp.reshape(y_dot, lead + tuple(y.shape)), y.dtype)
