"""Order statistics: NumPy's ``median``, ``quantile``, ``percentile`` and their NaN-ignoring
forms ``nanmedian``, ``nanquantile``, ``nanpercentile``.

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
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import count_true, in_dtype, masked_product, normalize_axis, safe
from .._util.numpy_like import numpy_like_module

__all__: list[str] = []  # rules only


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
        seen = [b.x] + [NO] * (len(args) - 1)
        if q_diff and len(args) > 1:
            seen[1] = b.q

        @pullback(y, tuple(seen), name=name)
        def quantile_pullback(y_bar: Any) -> tuple[Any, ...]:
            out: list[Any] = [NO] * len(args)
            if not b.n:  # nothing to reduce (a host shape): y is NaN whatever a and q are
                if project_x.differentiable:
                    out[0] = project_x(xp.zeros_like(b.x))
                if project_q is not None and len(args) > 1:
                    out[1] = ZERO
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
                out[1] = ZERO  # the discrete methods: piecewise constant in q
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
            return y, ZERO
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
        tq = ts[1] if len(args) > 1 else ZERO
        if (
            not isinstance(tq, AbstractZero)
            and b.dhdq is not None
            and ProjectTo(xp.asarray(b.q), xp).differentiable
        ):
            tq = xp.reshape(xp.asarray(tq), (*lead, *(1,) * len(b.kshape), b.nq))
            term = tq * b.q_slope(stats)
            cols = term if cols is None else cols + term
        if cols is None:
            return y, ZERO
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
