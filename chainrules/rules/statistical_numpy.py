"""NumPy-only statistical functions (``"numpy:NAME"``: NumPy, ``jax.numpy`` and CuPy): the order
statistics ``median``, ``quantile``, ``percentile`` and their NaN-ignoring forms; ``nanmax``,
``nanmin``, ``nanprod``, ``nancumsum``, ``nancumprod``, ``nanvar``, ``nanstd``; ``cov`` and
``corrcoef``; ``bincount`` (differentiable in its weights); and, declared non-differentiable,
``histogram``, ``histogram2d``, ``histogramdd``, ``histogram_bin_edges`` and ``digitize``.

Maths notes
-----------
* A quantile is a weighted sum of order statistics: with ``s`` the sorted slice of ``n`` values
  and ``h`` NumPy's virtual index for ``q`` and ``method``, ``y = (1 - g) s[lo] + g s[hi]``
  (``lo = floor(h)``, ``hi = lo + 1``, both clipped to ``[0, n - 1]``, ``g = h - floor(h)``;
  ``lower``/``higher``/``nearest`` take one order statistic with weight 1, ``midpoint`` weights
  ``floor(h)`` and ``ceil(h)`` by 1/2 each).
* **Ties** (the convention of ``max``): the weight of each order statistic ``s[k]`` is shared
  equally among the elements equal to ``s[k]``:
  ``x_bar = sum_k w_k y_bar (x == s[k]) / count(x == s[k])``. Where the values are distinct this is
  the exact derivative; within a run of ties it is the minimum-norm subgradient (the mean of the
  derivatives at the orderings nearby), ``q = 1`` gives ``max``'s rule and ``q = 0`` ``min``'s.
  The pullback needs the order statistics' values, not the sorting permutation: ``sort`` and
  ``take_along_axis`` on the device (NumPy arrays: ``partition`` at the host-known indices),
  then a mask and a count per order statistic. No host reads.
* ``q`` is differentiated for the interpolating methods: ``dy/dq = (dh/dq) (s[hi] - s[lo])``
  (``dh/dq = n - 1`` for ``linear``; ``percentile`` divides by 100); the discrete methods'
  output is piecewise constant in ``q``: zero.
* NaN forms: NaN entries get a zero cotangent (their mask is false); ``nanquantile`` counts
  ``n`` per slice (NaNs sort last in NumPy, JAX and CuPy). An all-NaN slice gets 0.
* ``nanprod``, ``nancumsum``, ``nancumprod`` are the plain rules applied to ``x`` with NaNs
  replaced by 1 (0 for the sum), their cotangents zeroed at the NaNs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import (
    AbstractZero,
    Example,
    Expect,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    namespace_of,
    pullback,
    register_frule,
    register_rrule,
    signature,
    tangents_in,
)
from ._util import (
    adjoint,
    conj,
    count_true,
    in_dtype,
    is_complex,
    masked_product,
    normalize_axis,
    safe,
)
from ._util.numpy_like import numpy_like_module

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()


# --- order statistics: median, quantile, percentile and their NaN forms ------------------------
def _quantile_template(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    interpolation: Any = None,
) -> None: ...


def _median_template(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> None: ...


_Q_SIGS = {
    name: signature(name, _quantile_template, ("weights", "interpolation"))
    for name in ("quantile", "percentile", "nanquantile", "nanpercentile")
}
_MEDIAN_SIGS = {name: signature(name, _median_template) for name in ("median", "nanmedian")}

# (alpha, beta) of NumPy's continuous methods: h = n q + alpha + q (1 - alpha - beta) - 1
_CONTINUOUS = {
    "interpolated_inverted_cdf": (0.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
}
_METHODS = ("linear", "lower", "higher", "nearest", "midpoint", *_CONTINUOUS)


class _Quantile:
    """A quantile call bound and laid out: the reduced axes moved last and flattened
    (``xt``: ``(*kept, n)``), ``q`` as a flat array of fractions (``qf``: ``(nq,)``), the method's
    order statistics as ``(index, weight)`` pairs (indices ``(*kept or 1, nq)``), and ``dh/dq``."""

    def __init__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.name = name
        self.nan = name.startswith("nan")
        base = name[3:] if self.nan else name
        if base == "median":
            a = _MEDIAN_SIGS[name].bind(args, kwargs)
            q, method = None, "linear"
        else:
            a = _Q_SIGS[name].bind(args, kwargs)
            q, method = a["q"], a["method"]
        if method not in _METHODS:
            raise ValueError(
                f"{name}: the rule supports method= one of {', '.join(_METHODS)}; got {method!r}"
            )
        x = a["a"]
        xp = namespace_of(x, *([q] if hasattr(q, "shape") else []), fname=name)
        if not hasattr(x, "shape"):
            x = xp.asarray(x)
        self.xp, self.x, self.q, self.method = xp, x, q, method
        self.keepdims = bool(a["keepdims"])
        self.axis = a["axis"]
        self.axes = normalize_axis(self.axis, x.ndim, name)
        module = numpy_like_module(x, xp)
        kw: dict[str, Any] = {"axis": self.axis, "keepdims": self.keepdims}
        if base == "median":
            self.y = getattr(module, name)(x, **kw)
        else:
            if method != "linear":
                kw["method"] = method
            self.y = getattr(module, name)(x, q, **kw)
        # layout: (*kept, n), the reduced axes last
        nd = x.ndim
        kept = tuple(i for i in range(nd) if i not in self.axes)
        self.perm = kept + self.axes
        self.kshape = tuple(x.shape[i] for i in kept)
        self.n = math.prod(x.shape[i] for i in self.axes)
        # q: flat fractions, and its shape (() for a scalar, the median's 0.5)
        scale = 100.0 if base == "percentile" else 1.0
        self.scale = scale
        if q is None:
            qa = xp.asarray([0.5], dtype=xp.float64)
            self.qshape: tuple[int, ...] = ()
        else:
            qa = xp.asarray(q)
            if not xp.isdtype(qa.dtype, "real floating"):
                qa = xp.astype(qa, xp.float64)
            self.qshape = tuple(qa.shape)
            qa = xp.reshape(qa, (-1,)) / scale
        self.nq = math.prod(self.qshape)
        self.xt = self._last(x, 0)
        self.parts, self.dhdq = self._positions(qa)

    def _last(self, v: Any, extra: int) -> Any:
        """``v`` (``x``'s shape after ``extra`` chunk axes) as ``(*chunk, *kept, n)``."""
        xp = self.xp
        perm = tuple(range(extra)) + tuple(p + extra for p in self.perm)
        if perm != tuple(range(v.ndim)):
            v = xp.permute_dims(v, perm)
        return xp.reshape(v, (*tuple(v.shape[:extra]), *self.kshape, self.n))

    def _back(self, g: Any) -> Any:
        """The inverse of ``_last`` (no chunk axes): ``(*kept, n)`` to ``x``'s shape."""
        xp = self.xp
        g = xp.reshape(g, tuple(self.x.shape[i] for i in self.perm))
        if self.perm != tuple(range(self.x.ndim)):
            inverse = tuple(self.perm.index(i) for i in range(self.x.ndim))
            g = xp.permute_dims(g, inverse)
        return g

    def _positions(self, qf: Any) -> tuple[list[tuple[Any, Any]], Any]:
        """The method's ``[(index, weight), ...]`` and ``dh/dq`` (``None`` for the discrete
        methods), computed on the arrays' device from ``q`` and the count ``n`` per slice."""
        xp, method = self.xp, self.method
        if self.nan:  # the count of non-NaN values per slice, (*kept, 1)
            nv = xp.astype(count_true(xp, ~xp.isnan(self.xt), (self.xt.ndim - 1,)), qf.dtype)
        else:
            nv = xp.asarray(float(self.n), dtype=qf.dtype)
        top = self.n - 1
        itype = xp.int32 if self.n < 2**31 else xp.int64  # int64 is missing in JAX's default

        def index(v: Any) -> Any:
            return xp.clip(xp.astype(v, itype), 0, max(top, 0))

        if method in ("lower", "higher", "nearest", "midpoint"):
            h = (nv - 1) * qf
            lo, hi = xp.floor(h), xp.ceil(h)
            if method == "midpoint":
                half = xp.full_like(h, 0.5)
                return [(index(lo), half), (index(hi), half)], None
            pick = {"lower": lo, "higher": hi, "nearest": xp.round(h)}[method]
            return [(index(pick), xp.ones_like(h))], None
        if method == "linear":
            h, dhdq = (nv - 1) * qf, nv - 1
        else:
            alpha, beta = _CONTINUOUS[method]
            h = nv * qf + (alpha + qf * (1 - alpha - beta)) - 1
            dhdq = nv + (1 - alpha - beta)
        fl = xp.floor(h)
        gamma = h - fl
        last = xp.broadcast_to(nv - 1, h.shape)
        first = xp.zeros_like(h)
        above, below = h >= nv - 1, h < 0
        lo = xp.where(above, last, xp.where(below, first, fl))
        hi = xp.where(above, last, xp.where(below, first, fl + 1))
        return [(index(lo), 1 - gamma), (index(hi), gamma)], dhdq

    def order_statistics(self) -> list[Any]:
        """The order statistics ``s[index]`` of each part, ``(*kept, nq)``: NumPy arrays are
        partitioned at the (host) indices; other arrays sorted on their device."""
        xp, xt = self.xp, self.xt
        shape = (*self.kshape, self.nq)
        idx = [xp.broadcast_to(i, shape) for i, _ in self.parts]
        if type(xt) is np.ndarray and self.n:
            kth = np.unique(np.concatenate([np.reshape(i, (-1,)) for i in idx]))
            s = np.partition(xt, kth, axis=-1) if kth.size <= 32 else np.sort(xt, axis=-1)
        else:
            s = xp.sort(xt, axis=-1)
        return [xp.take_along_axis(s, i, axis=-1) for i in idx]

    def q_slope(self, stats: list[Any]) -> Any:
        """``dy/dq`` per output, ``(*kept, nq)``, for the interpolating methods."""
        return self.dhdq * (stats[1] - stats[0]) / self.scale


def _quantile_examples(name: str) -> Any:
    base = name[3:] if name.startswith("nan") else name
    pct = 100.0 if base == "percentile" else 1.0

    def make(rng: Any) -> list[Any]:
        v = rng.permutation(7) + rng.uniform(0.1, 0.4, 7)  # distinct: FD cannot judge ties
        m = (rng.permutation(12) + rng.uniform(0.1, 0.4, 12)).reshape(3, 4)
        m3 = (rng.permutation(24) + rng.uniform(0.1, 0.4, 24)).reshape(2, 3, 4)
        if name.startswith("nan"):
            v[2] = np.nan
            m[0, 1] = m[2, 3] = np.nan
            m3[1, 0, 2] = np.nan
        if base == "median":
            return [((v,), {}), ((m,), {"axis": 1}), ((m3,), {"axis": (0, 2), "keepdims": True})]
        # q away from the virtual indices' integers (kinks of the q-derivative)
        return [
            ((v, 0.37 * pct), {}),
            ((m, np.array([0.13, 0.62]) * pct), {"axis": 1}),
            ((m, 0.71 * pct), {"axis": 0, "keepdims": True, "method": "lower"}),
            ((m3, 0.36 * pct), {"axis": (0, 2), "method": "midpoint"}),
        ]

    return make


def _quantile_rules(name: str) -> Any:
    def quantile_rrule(*args: Any, **kwargs: Any) -> Any:
        b = _Quantile(name, args, kwargs)
        xp, y = b.xp, b.y
        project_x = ProjectTo(b.x, xp)
        q_diff = b.q is not None and _floating(b.q)
        project_q = ProjectTo(xp.asarray(b.q), xp) if q_diff else None
        # arguments as the pullback sees them: a, and q where it is differentiated
        seen = [b.x] + [_NO] * (len(args) - 1)
        if q_diff and len(args) > 1:
            seen[1] = b.q

        @pullback(y, tuple(seen), name=name)
        def quantile_pullback(y_bar: Any) -> tuple[Any, ...]:
            out: list[Any] = [_NO] * len(args)
            if not b.n:  # nothing to reduce (a host shape): y is NaN whatever a and q are
                if project_x.differentiable:
                    out[0] = project_x(xp.zeros_like(b.x))
                if project_q is not None and len(args) > 1:
                    out[1] = _ZERO
                return tuple(out) if len(out) > 1 else out[0]
            # y_bar as (*kept, nq)
            g = xp.reshape(y_bar, (b.nq, *b.kshape))
            g = xp.permute_dims(g, (*range(1, g.ndim), 0)) if b.kshape else g
            stats = b.order_statistics()
            if project_x.differentiable:
                acc = None
                for (_, w), s in zip(b.parts, stats):
                    share = g * xp.broadcast_to(w, tuple(g.shape))
                    for j in range(b.nq):
                        sj = s[..., j : j + 1]
                        mask = b.xt == sj
                        cnt = count_true(xp, mask, (mask.ndim - 1,))
                        term = masked_product(xp, mask, share[..., j : j + 1] / safe(xp, cnt), 1.0)
                        acc = term if acc is None else acc + term
                out[0] = project_x(b._back(acc))
            if project_q is not None and len(args) > 1 and b.dhdq is None:
                out[1] = _ZERO  # the discrete methods: piecewise constant in q
            elif project_q is not None and len(args) > 1:
                gq = xp.sum(g * b.q_slope(stats), axis=tuple(range(len(b.kshape))))
                out[1] = project_q(xp.reshape(gq, b.qshape))
            return tuple(out) if len(out) > 1 else out[0]

        return y, quantile_pullback

    def quantile_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        b = _Quantile(name, args, kwargs)
        xp, y = b.xp, b.y
        ts = tangents_in(name, tangents, args)
        if ts is None or not b.n:  # no elements reduced: y is NaN whatever a and q are
            return y, _ZERO
        extra, lead = ts.extra, ts.lead()
        stats = b.order_statistics()
        cols = None  # (*lead, *kept, nq)
        t = ts[0]
        if not isinstance(t, AbstractZero) and ProjectTo(b.x, xp).differentiable:
            tt = b._last(t, extra)
            per_q = []
            for j in range(b.nq):
                col = None
                for (_, w), s in zip(b.parts, stats):
                    mask = b.xt == s[..., j : j + 1]
                    cnt = xp.astype(count_true(xp, mask, (mask.ndim - 1,)), tt.dtype)
                    picked = xp.sum(xp.where(mask, tt, xp.zeros_like(tt)), axis=-1, keepdims=True)
                    wj = xp.broadcast_to(w, (*b.kshape, b.nq))[..., j : j + 1]
                    term = picked / safe(xp, cnt) * wj
                    col = term if col is None else col + term
                per_q.append(col)
            cols = xp.concat(per_q, axis=-1)
        tq = ts[1] if len(args) > 1 else _ZERO
        if (
            not isinstance(tq, AbstractZero)
            and b.dhdq is not None
            and ProjectTo(xp.asarray(b.q), xp).differentiable
        ):
            tq = xp.reshape(xp.asarray(tq), (*lead, *(1,) * len(b.kshape), b.nq))
            term = tq * b.q_slope(stats)
            cols = term if cols is None else cols + term
        if cols is None:
            return y, _ZERO
        k = len(b.kshape)
        cols = xp.broadcast_to(cols, (*lead, *b.kshape, b.nq))
        if k:  # the q axis before the kept ones, as in y
            cols = xp.permute_dims(cols, (*range(extra), extra + k, *range(extra, extra + k)))
        return y, in_dtype(xp, xp.reshape(cols, (*lead, *tuple(y.shape))), y.dtype)

    return quantile_rrule, quantile_frule


def _floating(v: Any) -> bool:
    if isinstance(v, float):
        return True
    dtype = getattr(v, "dtype", None)
    return dtype is not None and np.dtype(getattr(dtype, "name", dtype)).kind == "f"


for _name in ("median", "quantile", "percentile", "nanmedian", "nanquantile", "nanpercentile"):
    _r, _f = _quantile_rules(_name)
    register_rrule(f"numpy:{_name}", examples=_quantile_examples(_name))(_r)
    register_frule(f"numpy:{_name}", examples=_quantile_examples(_name))(_f)


# --- nanmax, nanmin: max's rule, NaNs never equal to the extremum -------------------------------
def _nan_entries(rng: Any, *shape: int) -> Any:
    """Distinct values with NaNs at a few places (never a whole slice)."""
    n = math.prod(shape)
    v = (rng.permutation(n) + rng.uniform(0.1, 0.4, n)).reshape(shape)
    flat = v.reshape(-1)
    flat[[1, n - 2]] = np.nan
    return v


def _nan_reduce_ex(rng: Any) -> list[Any]:
    m = _nan_entries(rng, 3, 4)
    return [
        ((_nan_entries(rng, 6),), {}),
        ((m,), {"axis": 1}),
        ((m, 0), {"keepdims": True}),
        ((_nan_entries(rng, 2, 3, 2),), {"axis": (0, 2)}),
    ]


def _nan_extremum_rules(name: str) -> Any:
    from .statistical import _bind, _consts, _extremum_bar, _extremum_dot, _tangent

    sig = signature(
        name,
        lambda x, /, axis=None, out=None, keepdims=False, initial=None, where=None: None,
        ("where", "initial"),
    )

    def nan_extremum_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw = _bind(sig, True, args, kwargs)
        y = getattr(numpy_like_module(x, xp), name)(x, **kw)
        project, nos = ProjectTo(x, xp), _consts(args)

        @pullback(y, (x, *nos), name=name)
        def nan_extremum_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (_NO, *nos)
            return (project(_extremum_bar(xp, x, y, y_bar, axes, kw["keepdims"])), *nos)

        return y, nan_extremum_pullback

    def nan_extremum_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw = _bind(sig, True, args, kwargs)
        y = getattr(numpy_like_module(x, xp), name)(x, **kw)
        ts = _tangent(name, tangents, args, ProjectTo(x, xp))
        if ts is None:
            return y, _ZERO
        return y, _extremum_dot(xp, x, y, ts, axes, kw["keepdims"])

    return nan_extremum_rrule, nan_extremum_frule


for _name in ("nanmax", "nanmin"):
    _r, _f = _nan_extremum_rules(_name)
    register_rrule(f"numpy:{_name}", examples=_nan_reduce_ex)(_r)
    register_frule(f"numpy:{_name}", examples=_nan_reduce_ex)(_f)


# --- nanprod, nancumsum, nancumprod: the plain rule on x with NaNs filled -------------------------
def _nan_cumulative_ex(rng: Any) -> list[Any]:
    m = _nan_entries(rng, 3, 4) / 6 + 0.5
    return [((_nan_entries(rng, 6) / 4 + 0.5,), {}), ((m,), {"axis": 1}), ((m, 0), {})]


def _nan_prod_ex(rng: Any) -> list[Any]:
    m = _nan_entries(rng, 3, 4) / 6 + 0.5
    return [
        ((_nan_entries(rng, 6) / 4 + 0.5,), {}),
        ((m,), {"axis": 1}),
        ((m, 0), {"keepdims": True}),
    ]


def _filled_rules(name: str, plain: str, fill: float) -> Any:
    """``name(x, ...) = plain(where(isnan(x), fill, x), ...)``: NumPy's own definition; the
    plain function's rules on the filled array, the NaNs' cotangents and tangents zeroed."""
    from ..core import frule as _frule
    from ..core import rrule as _rrule

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
        nos = (_NO,) * (len(args) - 1)

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
            nos = (_NO,) * (len(args) + 1)
            return _frule(nos, f, filled, *args[1:], **kwargs)[0], _ZERO
        t = ts[0]
        t = xp.where(nan, xp.zeros_like(t), t)
        return _frule((_NO, t, *(_NO,) * (len(args) - 1)), f, filled, *args[1:], **kwargs)

    return filled_rrule, filled_frule


for _name, _plain, _fill, _ex in (
    ("nanprod", "prod", 1.0, _nan_prod_ex),
    ("nancumsum", "cumsum", 0.0, _nan_cumulative_ex),
    ("nancumprod", "cumprod", 1.0, _nan_cumulative_ex),
):
    _r, _f = _filled_rules(_name, _plain, _fill)
    register_rrule(f"numpy:{_name}", examples=_ex)(_r)
    register_frule(f"numpy:{_name}", examples=_ex)(_f)


# --- nanvar, nanstd -----------------------------------------------------------------------------
def _nan_spread_template(
    x: Any,
    /,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: Any = 0,
    keepdims: bool = False,
    *,
    where: Any = None,
    mean: Any = None,
    correction: Any = None,
) -> None: ...


def _nan_spread_rules(name: str) -> Any:
    from ._util import expand_reduced
    from .statistical import _bind, _consts, _tangent

    sig = signature(name, _nan_spread_template, ("where", "mean"))
    std = name == "nanstd"

    def parts(args: Any, kwargs: Any) -> tuple[Any, ...]:
        xp, x, axes, kw = _bind(sig, True, args, kwargs)
        ddof = kw.pop("correction", 0)
        y = getattr(numpy_like_module(x, xp), name)(x, ddof=ddof, **kw)
        return xp, x, axes, kw, ddof, y

    def direction(xp: Any, x: Any, y: Any, axes: Any, kw: Any, ddof: Any) -> Any:
        """``d y / d x``: ``2 (x - mean) / (count - ddof)`` over the non-NaN values (over
        ``2 std`` for ``nanstd``, 0 where it is 0); 0 at the NaNs."""
        valid = ~xp.isnan(x)
        zero = xp.zeros_like(x)
        cnt = xp.astype(count_true(xp, valid, axes, True), x.dtype)
        mean = xp.sum(xp.where(valid, x, zero), axis=axes, keepdims=True) / safe(xp, cnt)
        d = xp.where(valid, x - mean, zero)
        dof = safe(xp, cnt - ddof)
        if std:
            return d / (dof * safe(xp, expand_reduced(xp, y, axes, kw["keepdims"])))
        return 2 * d / dof

    def nan_spread_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw, ddof, y = parts(args, kwargs)
        project, nos = ProjectTo(x, xp), _consts(args)

        @pullback(y, (x, *nos), name=name)
        def nan_spread_pullback(y_bar: Any) -> tuple[Any, ...]:
            g = direction(xp, x, y, axes, kw, ddof)
            return (project(g * expand_reduced(xp, y_bar, axes, kw["keepdims"])), *nos)

        return y, nan_spread_pullback

    def nan_spread_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        from ._util import chunk_axes

        xp, x, axes, kw, ddof, y = parts(args, kwargs)
        ts = _tangent(name, tangents, args, ProjectTo(x, xp))
        if ts is None:
            return y, _ZERO
        g = direction(xp, x, y, axes, kw, ddof)
        t = xp.where(xp.isnan(x), xp.zeros_like(ts[0]), ts[0])
        y_dot = xp.sum(g * t, axis=chunk_axes(axes, ts.extra), keepdims=kw["keepdims"])
        return y, in_dtype(xp, y_dot, y.dtype)

    return nan_spread_rrule, nan_spread_frule


def _nan_spread_ex(rng: Any) -> list[Any]:
    m = _nan_entries(rng, 3, 5)
    return [
        ((_nan_entries(rng, 7),), {}),
        ((m,), {"axis": 1, "ddof": 1}),
        ((m, 0), {"keepdims": True}),
        ((_nan_entries(rng, 2, 3, 4),), {"axis": (0, 2)}),
    ]


for _name in ("nanvar", "nanstd"):
    _r, _f = _nan_spread_rules(_name)
    register_rrule(f"numpy:{_name}", examples=_nan_spread_ex)(_r)
    register_frule(f"numpy:{_name}", examples=_nan_spread_ex)(_f)


# --- cov, corrcoef ------------------------------------------------------------------------------
# C = Xc W Xc^T / f with Xc = X - avg (avg = X w / sum(w)), W = diag(fweights * aweights) and f
# NumPy's normaliser. Since Xc w = 0, the centring drops out of the pullback:
# X_bar = (C_bar + C_bar^T) Xc W / f. The weights are constants (keyword arguments).
def _cov_template(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: Any = None,
    fweights: Any = None,
    aweights: Any = None,
    *,
    dtype: Any = None,
) -> None: ...


def _corrcoef_template(
    x: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: Any = None,
    ddof: Any = None,
    *,
    dtype: Any = None,
) -> None: ...


_COV = signature("cov", _cov_template)


def _real(xp: Any, x: Any) -> Any:
    """The real part of a complex array; a real one as it is."""
    return xp.real(x) if is_complex(xp, x) else x


_CORRCOEF = signature("corrcoef", _corrcoef_template, ("bias", "ddof"))


class _Cov:
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
        return out[0], (out[1] if len(out) > 1 else _NO)

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


def _cov_rules(name: str) -> Any:
    sig = _COV if name == "cov" else _CORRCOEF
    corr = name == "corrcoef"

    def parts(args: Any, kwargs: Any) -> tuple[Any, Any, Any]:
        a = sig.bind(args, kwargs)
        c = _Cov(name, a)
        y = getattr(numpy_like_module(c.Xc, c.xp), name)(*args, **kwargs)
        return c, y, a

    def scales(c: _Cov) -> Any:
        xp = c.xp
        d = xp.linalg.diagonal(c.C) if hasattr(xp, "linalg") else None
        s = 1 / xp.sqrt(_real(xp, d))  # NumPy's: a Hermitian C's diagonal is real
        return s, c.C * s[:, None] * s[None, :]

    def cov_rrule(*args: Any, **kwargs: Any) -> Any:
        c, y, _ = parts(args, kwargs)
        xp = c.xp
        seen = tuple(a if i < 2 else _NO for i, a in enumerate(args))

        @pullback(y, seen, name=name)
        def cov_pullback(y_bar: Any) -> tuple[Any, ...]:
            p = c.C.shape[0]
            Cb = xp.reshape(y_bar, (p, p))
            if corr:  # R's diagonal is 1 whatever C is: its cotangent is dropped
                s, R = scales(c)
                eye = xp.eye(p, dtype=Cb.dtype)
                Cb = Cb * (1 - eye)
                # s = 1 / sqrt(Re diag C) is real: d s_i / s_i = -(s_i^2 / 2) d Re C_ii
                RbS = conj(xp, Cb + adjoint(xp, Cb))
                dd = -(s * s / 2) * _real(xp, xp.sum(RbS * R, axis=1))
                Cb = Cb * s[:, None] * s[None, :] + eye * dd
            # C = Xc W Xc^H / f: Xc_bar = (C_bar + C_bar^H) Xc W / f, the centring drops out
            X_bar = ((Cb + adjoint(xp, Cb)) @ c.Xcw) / c.fact
            m_bar, y_bar2 = c.back(X_bar)
            out = [m_bar] + [_NO] * (len(args) - 1)
            if len(args) > 1 and args[1] is not None:
                out[1] = y_bar2
            return tuple(out) if len(out) > 1 else out[0]

        return y, cov_pullback

    def cov_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        c, y, _ = parts(args, kwargs)
        xp = c.xp
        ts = tangents_in(name, tangents, args)
        if ts is None:
            return y, _ZERO
        tm = ts[0] if ProjectTo(c.m, xp).differentiable else _ZERO
        ty = ts[1] if len(args) > 1 and args[1] is not None else _ZERO
        if ty is not _ZERO and not ProjectTo(args[1], xp).differentiable:
            ty = _ZERO
        if isinstance(tm, AbstractZero) and isinstance(ty, AbstractZero):
            return y, _ZERO
        lead = ts.lead()
        dC = c.C_dot(c.X_dot(tm, ty, ts.extra, lead))
        if corr:
            s, R = scales(c)
            dd = _real(xp, xp.linalg.diagonal(dC)) * s * s  # d(diag C) / diag C
            dC = dC * s[:, None] * s[None, :] - R * (dd[..., :, None] + dd[..., None, :]) / 2
            dC = dC * (1 - xp.eye(R.shape[0], dtype=dC.dtype))  # the diagonal stays 1
        return y, in_dtype(xp, xp.reshape(dC, (*lead, *tuple(y.shape))), y.dtype)

    return cov_rrule, cov_frule


def _cov_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 6))
    return [
        ((m,), {}),
        ((m.T,), {"rowvar": False}),
        ((rng.standard_normal(5), rng.standard_normal(5)), {}),
        ((m,), {"bias": True}),
        Example((m,), {"ddof": 2, "aweights": rng.uniform(0.5, 1.5, 6)}, note="weights"),
        Example((m,), {"fweights": np.array([1, 2, 1, 3, 1, 2])}, note="weights"),
        ((rng.standard_normal(6),), {}),  # one variable: a 0-d result
    ]


def _corrcoef_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 6))
    return [
        ((m,), {}),
        ((m.T,), {"rowvar": False}),
        ((rng.standard_normal(5), rng.standard_normal(5)), {}),
        ((rng.standard_normal((2, 5)), rng.standard_normal(5)), {}),
    ]


_COV_EXPECT = Expect(
    "scalar-free",
    "the checker moves positional arrays to the device, not keywords: np.cov itself refuses the "
    "host weights beside device data",
    example="weights",
)

_CORR_EXPECT = Expect(
    "numpy",
    "the float32 finite-difference reference of an entry whose derivative is ~0 is float32 "
    "rounding of np.corrcoef itself (-2.7e-8, above the 1e-8 absolute tolerance)",
    example="#0",
    dtype="float32",
    phase="test_frule",
)

for _name, _ex in (("cov", _cov_ex), ("corrcoef", _corrcoef_ex)):
    _r, _f = _cov_rules(_name)
    _expect = _COV_EXPECT if _name == "cov" else _CORR_EXPECT
    register_rrule(f"numpy:{_name}", examples=_ex, expect=_expect)(_r)
    register_frule(f"numpy:{_name}", examples=_ex, expect=_expect)(_f)


# --- bincount: a scatter-add of the weights -----------------------------------------------------
_BINCOUNT = signature("bincount", lambda x, /, weights=None, minlength=0, **options: None)


def _bincount_parts(args: Any, kwargs: Any) -> tuple[Any, Any, Any, Any]:
    a = _BINCOUNT.bind(args, kwargs)
    x, w = a["x"], a["weights"]
    xp = namespace_of(x, *([w] if w is not None else []), fname="bincount")
    y = numpy_like_module(x, xp).bincount(*args, **kwargs)
    return xp, x, w, y


_BINCOUNT_JIT = Expect(
    "jit", "jax.numpy.bincount needs a static length= under jax.jit (NumPy has none)", kind="skip"
)


@register_rrule("numpy:bincount", examples=lambda rng: _bincount_ex(rng), expect=_BINCOUNT_JIT)
def bincount_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x, w, y = _bincount_parts(args, kwargs)
    w_positional = len(args) > 1 and w is not None
    project_w = ProjectTo(w, xp) if w_positional else None
    seen = tuple(w if i == 1 and w_positional else _NO for i in range(len(args)))

    @pullback(y, seen)
    def bincount_pullback(y_bar: Any) -> Any:
        out: list[Any] = [_NO] * len(args)
        if project_w is not None and project_w.differentiable:
            out[1] = project_w(xp.take(y_bar, xp.reshape(x, (-1,)), axis=0))  # the gather
        return tuple(out) if len(out) > 1 else out[0]

    return y, bincount_pullback


@register_frule("numpy:bincount", examples=lambda rng: _bincount_ex(rng), expect=_BINCOUNT_JIT)
def bincount_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    from ..core import scatter_add

    xp, x, w, y = _bincount_parts(args, kwargs)
    if w is None or len(args) < 2 or not ProjectTo(w, xp).differentiable:
        return y, _NO if w is None else _ZERO
    ts = tangents_in("bincount", tangents, args)
    if ts is None or isinstance(ts[1], AbstractZero):
        return y, _ZERO
    t, lead = ts[1], ts.lead()
    dest = xp.zeros((*lead, y.shape[0]), dtype=y.dtype)
    return y, scatter_add(dest, (..., x), in_dtype(xp, t, y.dtype))


def _bincount_ex(rng: Any) -> list[Any]:
    x = np.array([0, 2, 2, 5, 1, 2])
    return [
        ((x, rng.standard_normal(6)), {}),
        ((x, rng.standard_normal(6)), {"minlength": 8}),
        ((x,), {}),
    ]


# --- non-differentiable: counts, bin edges, bin indices -----------------------------------------
# The counts are piecewise constant in the data: zero derivative. The bin edges are constant only
# for a given range= (or explicit edges); edges taken from the data's min and max are not
# differentiated (documented limit), so the examples fix range=.
def _histogram_ex(rng: Any) -> list[Any]:
    return [
        ((rng.uniform(-2.9, 2.9, 10),), {"bins": 4, "range": (-3.0, 3.0)}),
        ((rng.uniform(-0.9, 0.9, 8), 3), {"range": (-1.0, 1.0), "density": True}),
    ]


def _bin_edges_ex(rng: Any) -> list[Any]:
    return [((rng.uniform(-2.9, 2.9, 10),), {"bins": 4, "range": (-3.0, 3.0)})]


def _histogram2d_ex(rng: Any) -> list[Any]:
    u = rng.uniform(-0.9, 0.9, (2, 8))
    return [((u[0], u[1]), {"bins": 3, "range": ((-1.0, 1.0), (-1.0, 1.0))})]


def _histogramdd_ex(rng: Any) -> list[Any]:
    return [((rng.uniform(-0.9, 0.9, (8, 2)),), {"bins": 3, "range": ((-1, 1), (-1, 1))})]


def _digitize_ex(rng: Any) -> list[Any]:
    return [((rng.standard_normal(6), np.array([-1.0, 0.0, 1.0])), {})]


def _register_nondiff() -> None:
    from ._util.numpy_like import numpy_non_differentiable

    numpy_non_differentiable("histogram", zero=True, examples=_histogram_ex)
    numpy_non_differentiable("histogram_bin_edges", zero=True, examples=_bin_edges_ex)
    numpy_non_differentiable("histogram2d", zero=True, examples=_histogram2d_ex)
    numpy_non_differentiable("digitize", examples=_digitize_ex)


_register_nondiff()


# histogramdd returns (counts, [edges, ...]): a list nested in the tuple, whose cotangent
# @pullback checks entry by entry (check_cotangent on a nested output)
@register_rrule("numpy:histogramdd", examples=_histogramdd_ex)
def histogramdd_rrule(*args: Any, **kwargs: Any) -> Any:
    if not args:
        raise TypeError("histogramdd() missing required argument 'sample' (pos 0)")
    if kwargs.get("out") is not None:
        raise TypeError("histogramdd: out= is not supported by the rules")
    xp = namespace_of(args[0], fname="histogramdd")
    y = numpy_like_module(args[0], xp).histogramdd(*args, **kwargs)
    zero = _ZERO if ProjectTo(args[0], xp).differentiable else _NO

    @pullback(y, args)
    def histogramdd_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (zero, *(_NO,) * (len(args) - 1))

    return y, histogramdd_pullback


@register_frule("numpy:histogramdd", examples=_histogramdd_ex)
def histogramdd_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    y, _ = histogramdd_rrule(*args, **kwargs)
    return y, _ZERO
