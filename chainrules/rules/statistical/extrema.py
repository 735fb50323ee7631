"""Extrema: the standard's ``max`` and ``min`` (and NumPy's ``max``/``amax``, ``min``/``amin``),
and NumPy's ``ptp``, ``nanmax`` and ``nanmin``.

Maths notes
-----------
* ``max``/``min``: ties split the cotangent equally (the minimum-norm subgradient, as JAX, PyTorch
  and autograd do): ``x_bar = y_bar * mask / count`` with ``mask = (x == y)``. A mask and a count,
  never an ``argmax`` read on the host. NumPy arrays take a NumPy method (the ufunc's reduction,
  and the ties' share from one mask and one count).
* ``ptp = max - min``: each end splits its cotangent among its ties (a constant slice gets 0).
* ``nanmax``, ``nanmin``: ``max``'s rule; a NaN is never equal to the extremum, so NaN entries get
  a zero cotangent (a mask, no host reads).

Registration under both names (the standard's and ``"numpy:NAME"``): see the package docstring.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from ...core.toolkit import TangentsIn
from .._util import chunk_axes, count_true, expand_reduced, in_dtype, masked_product, safe
from .._util.numpy_like import numpy_like_module
from .._util.statistical import *

__all__: list[str] = []  # rules only


# fmt: off
_MAX, _MIN = (
    signatures(
        name,
        lambda x, /, *, axis=None, keepdims=False: None,
        lambda x, /, axis=None, out=None, keepdims=False, initial=None, where=None: None,
    )
    for name in ("max", "min")
)
_PTP = signature("ptp", lambda x, /, axis=None, out=None, keepdims=False: None)
# fmt: on


def _ties_bar(x: Any, y: Any, g: Any, axes: tuple[int, ...], kshape: Any) -> Any:
    """The cotangent of a NumPy ``x`` for its extremum ``y`` over ``axes``: ``g`` shared equally
    among the elements equal to ``y`` -- the generic ``_extremum_bar``'s values from one mask
    and one count (``kshape``: the output's shape with the reduced axes kept, ``None`` when
    ``y`` and ``g`` have it). Counted in integers, then cast, as ``count_true`` does."""
    if len(axes) == x.ndim:
        mask = x == y
        return np.where(mask, g / (int(np.count_nonzero(mask)) or 1), 0.0)  # a Python int: weak
    if kshape is not None:
        y, g = y.reshape(kshape), g.reshape(kshape)
    mask = x == y
    count = np.add.reduce(mask, axis=axes, keepdims=True, dtype=np.intp).astype(x.dtype)
    return np.where(mask, g / np.where(count == 0, 1, count), 0.0)


# --- max, min (and NumPy's ptp): ties split equally ---------------------------------------------
def _ties(xp: Any, x: Any, y: Any, axes: tuple[int, ...], keepdims: bool) -> tuple[Any, Any]:
    """(mask of the elements equal to the extremum ``y``, their count per slice in y's dtype)."""
    mask = x == expand_reduced(xp, y, axes, keepdims)
    return mask, xp.astype(count_true(xp, mask, axes, keepdims), y.dtype)


def _extremum_bar(xp: Any, x: Any, y: Any, y_bar: Any, axes: Any, keepdims: bool) -> Any:
    """The cotangent of ``x`` for the extremum ``y``: ``y_bar`` shared among the ties."""
    mask, count = _ties(xp, x, y, axes, keepdims)
    share = expand_reduced(xp, y_bar / safe(xp, count), axes, keepdims)
    return masked_product(xp, mask, share, 1.0)


def _extremum_dot(xp: Any, x: Any, y: Any, ts: TangentsIn, axes: Any, kw: dict[str, Any]) -> Any:
    """The tangent of the extremum ``y``: the mean of the ties' tangents."""
    keepdims = kw["keepdims"]
    mask, count = _ties(xp, x, y, axes, keepdims)
    t = ts[0]
    picked = xp.sum(
        xp.where(mask, t, xp.zeros_like(t)), axis=chunk_axes(axes, ts.extra), keepdims=keepdims
    )
    return in_dtype(xp, picked / safe(xp, count), y.dtype)


def _extremum_ex(rng: Any) -> list[Any]:
    # distinct values: finite differences cannot judge ties (the convention tests do)
    return [
        ((rng.permutation(6).astype(float) + rng.uniform(0, 0.5, 6),), {}),
        ((rng.permutation(12).reshape(3, 4) * 1.0,), {"axis": 1}),
        ((rng.permutation(12).reshape(3, 4) * 1.0,), {"axis": 0, "keepdims": True}),
        ((rng.permutation(24).reshape(2, 3, 4) * 1.0,), {"axis": (0, 2)}),
    ]


def _extremum_rules(name: str, sig: Signature, numpy: bool) -> Rules:
    def extremum_pullback_of(
        xp: Any, x: Any, y: Any, axes: tuple[int, ...], keepdims: bool, nos: tuple[Any, ...]
    ) -> Any:
        project = ProjectTo(x, xp)

        @pullback(y, (x, *nos), name=name)
        def extremum_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (NO, *nos)
            return (project(_extremum_bar(xp, x, y, y_bar, axes, keepdims)), *nos)

        return extremum_pullback

    @specialise
    def extremum_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw = bind(sig, numpy, args, kwargs)
        y = getattr(xp, name)(x, **kw)
        return y, extremum_pullback_of(xp, x, y, axes, kw["keepdims"], consts(args))

    # NumPy's signature only: NumPy's own function is what its arrays meet (np.sum is the
    # "numpy:" registration's; the standard's reaches NumPy arrays through compat wrappers)
    def _extremum_rrule_numpy(*args: Any, **kwargs: Any) -> Any:
        """A real, non-empty NumPy array with ``axis=``/``keepdims=`` at most: the ufunc's
        reduction (what ``np.max`` calls) and, for a NumPy cotangent of the output's shape and
        ``x``'s dtype, the ties' share from one mask and one count (:func:`_ties_bar`); any
        other cotangent goes to the generic pullback, built then. At n=10 the generic binding
        and bookkeeping cost 3-8 us around a sub-microsecond reduction.
        Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.89, median of 9
        cells (0.49 at best)."""
        fast = bind_real_numpy(sig, args, kwargs)
        if fast is None:
            return NotImplemented
        x, axes, keepdims = args[0], fast[0], fast[1]["keepdims"]
        ufunc = np.maximum if name == "max" else np.minimum
        y: Any = ufunc.reduce(x, axis=axes, keepdims=keepdims)
        y_shape, dtype = np.shape(y), x.dtype
        kshape = None if keepdims else tuple(1 if a in axes else n for a, n in enumerate(x.shape))

        def extremum_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
            plain = not chunk and isinstance(y_bar, np.ndarray | np.generic)
            if plain and y_bar.shape == y_shape and y_bar.dtype == dtype:
                return (NO, _ties_bar(x, y, y_bar, axes, kshape))
            xp = namespace_of(x)
            return extremum_pullback_of(xp, x, y, axes, keepdims, ())(y_bar, chunk=chunk)

        return y, extremum_pullback

    if numpy:
        extremum_rrule.method("numpy")(_extremum_rrule_numpy)

    return extremum_rrule, reduction_frule(name, sig, numpy, _extremum_dot)


register_both("max", ("max", "amax"), _extremum_rules, _MAX, _extremum_ex)
register_both("min", ("min", "amin"), _extremum_rules, _MIN, _extremum_ex)


@register_rrule("numpy:ptp", examples=_extremum_ex)
def ptp_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x, axes, kw = bind(_PTP, True, args, kwargs)
    hi, lo = xp.max(x, **kw), xp.min(x, **kw)
    y = hi - lo
    project = ProjectTo(x, xp)
    keepdims, nos = kw["keepdims"], consts(args)

    @pullback(y, (x, *nos))
    def ptp_pullback(y_bar: Any) -> tuple[Any, ...]:
        if not project.differentiable:
            return (NO, *nos)
        hi_bar = project(_extremum_bar(xp, x, hi, y_bar, axes, keepdims))
        lo_bar = project(_extremum_bar(xp, x, lo, y_bar, axes, keepdims))
        return (hi_bar - lo_bar, *nos)

    return y, ptp_pullback


@register_frule("numpy:ptp", examples=_extremum_ex)
def ptp_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x, axes, kw = bind(_PTP, True, args, kwargs)
    hi, lo = xp.max(x, **kw), xp.min(x, **kw)
    ts = tangent("ptp", tangents, args, ProjectTo(x, xp))
    if ts is None:
        return hi - lo, ZERO
    dots = _extremum_dot(xp, x, hi, ts, axes, kw), _extremum_dot(xp, x, lo, ts, axes, kw)
    return hi - lo, dots[0] - dots[1]


# --- NumPy's nanmax, nanmin: max's rule, NaNs never equal to the extremum ---------------------
def _nan_reduce_ex(rng: Any) -> list[Any]:
    m = nan_entries(rng, 3, 4)
    return [
        ((nan_entries(rng, 6),), {}),
        ((m,), {"axis": 1}),
        ((m, 0), {"keepdims": True}),
        ((nan_entries(rng, 2, 3, 2),), {"axis": (0, 2)}),
    ]


def _nan_extremum_rules(name: str) -> Any:

    sig = signature(
        name,
        lambda x, /, axis=None, out=None, keepdims=False, initial=None, where=None: None,
        ("where", "initial"),
    )

    def nan_extremum_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw = bind(sig, True, args, kwargs)
        y = getattr(numpy_like_module(x, xp), name)(x, **kw)
        project, nos = ProjectTo(x, xp), consts(args)

        @pullback(y, (x, *nos), name=name)
        def nan_extremum_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (NO, *nos)
            return (project(_extremum_bar(xp, x, y, y_bar, axes, kw["keepdims"])), *nos)

        return y, nan_extremum_pullback

    return nan_extremum_rrule, reduction_frule(name, sig, True, _extremum_dot, own=True)


for _name in ("nanmax", "nanmin"):
    _r, _f = _nan_extremum_rules(_name)
    register_rrule(f"numpy:{_name}", examples=_nan_reduce_ex)(_r)
    register_frule(f"numpy:{_name}", examples=_nan_reduce_ex)(_f)
