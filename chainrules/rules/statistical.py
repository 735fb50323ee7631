"""Rules for the standard's statistical functions (``statistical_functions``) and NumPy's names:
``sum``, ``mean``, ``prod``, ``max``/``amax``, ``min``/``amin``, ``var``, ``std``,
``cumulative_sum``/``cumsum`` and ``cumulative_prod``/``cumprod``.

Maths notes
-----------
* ``sum``: the pullback broadcasts ``y_bar`` back over the reduced axes (``unsum``, a function
  with rules of its own, so the pullback is differentiable again); ``mean`` divides by the count.
* ``prod``: ``d prod / d x_i`` is the product of the *other* elements, computed exactly -- also with
  one or several zeros -- as ``left_i * right_i``, the exclusive cumulative products from both
  ends. No division, no host read of how many zeros there are.
* ``max``/``min``: ties split the cotangent equally (the minimum-norm subgradient, as JAX, PyTorch
  and autograd do): ``x_bar = y_bar * mask / count`` with ``mask = (x == y)``. A mask and a count,
  never an ``argmax`` read on the host.
* ``var``/``std``: ``d var = 2 Re(conj(x - mean) dx) / (N - correction)``; ``std``'s is that over
  ``2 std``, and 0 where ``std`` is 0 (a constant slice: the minimum-norm subgradient).
* ``cumulative_sum``: the pullback is the reversed cumulative sum of ``y_bar``.
* ``cumulative_prod``: exact with zeros. With ``B`` marking the positions before the first zero of
  each slice, ``F`` the first zero itself and ``C`` the cumulative product of ``x`` with that first
  zero replaced by 1: ``x_bar = B * revcumsum(y_bar * C * B) / x + F * revcumsum(y_bar * C)``
  (conjugated partials for complex ``x``), and ``y_dot = C * (B * cumsum(B * x_dot / x) +
  cumsum(F * x_dot))``. Every term is a mask or a cumulative sum: no host reads.

Every rule accepts the standard's keyword signature and, registered under ``"numpy:NAME"``, NumPy's
(``axis`` positional, ``ddof``, ``initial``); ``out=`` and ``where=`` are rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.namespaces import namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._util import (
    along,
    chunk_axes,
    cotangent,
    count_true,
    expand_reduced,
    in_dtype,
    masked_product,
    normalize_axis,
    numpy_kwargs,
    reduced_size,
    safe,
    tangent_extra,
    unsum,
)

_NO = NoTangent()
_ZERO = ZeroTangent()

# NumPy's positional parameters after the array, per function
_NP_ORDER = {
    "sum": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "prod": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "mean": ("axis", "dtype", "out", "keepdims"),
    "max": ("axis", "out", "keepdims", "initial", "where"),
    "min": ("axis", "out", "keepdims", "initial", "where"),
    "var": ("axis", "dtype", "out", "ddof", "keepdims"),
    "std": ("axis", "dtype", "out", "ddof", "keepdims"),
    "cumulative_sum": ("axis", "dtype", "out"),
    "cumulative_prod": ("axis", "dtype", "out"),
}


class _Call:
    """A reduction call, normalised: the array, its axes and the primal's keyword arguments."""

    __slots__ = ("axes", "axis", "keepdims", "kw", "nargs", "numpy", "x", "xp")

    def __init__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], numpy: bool):
        if not args:
            raise TypeError(f"{name} needs an array argument")
        x, *pos = args
        order = _NP_ORDER[name] if numpy else ()
        if len(pos) > len(order):
            raise TypeError(
                f"{name} takes {1 + len(order)} positional argument(s) in its rule, got {len(args)}"
                + ("" if numpy else " (the standard's parameters after x are keyword-only)")
            )
        params = dict(zip(order, pos))
        for k, v in kwargs.items():
            if k in params:
                raise TypeError(f"{name} got multiple values for argument {k!r}")
            params[k] = v
        numpy_kwargs(name, params, ("where",))
        params.pop("out", None)
        params.pop("where", None)
        if "ddof" in params:  # NumPy's name for the standard's correction
            ddof = params.pop("ddof")
            if params.get("correction") is not None and ddof:
                raise TypeError(f"{name}: give ddof or correction, not both")
            params.setdefault("correction", ddof)
            if params["correction"] is None:
                params["correction"] = ddof
        self.xp = namespace_of(x, fname=name)
        if not hasattr(x, "shape"):  # a Python scalar
            x = self.xp.asarray(x)
        self.x = x
        self.axis = params.pop("axis", None)
        self.keepdims = bool(params.pop("keepdims", False))
        self.kw = {k: v for k, v in params.items() if v is not None}
        self.axes = normalize_axis(self.axis, x.ndim, name)
        self.nargs = len(args)
        self.numpy = numpy  # called with NumPy's signature

    @property
    def std_axis(self) -> Any:
        return None if self.axis is None else self.axes

    def reduce(self, name: str) -> Any:
        """The primal: the namespace's reduction ``name`` of the array, as called."""
        return getattr(self.xp, name)(self.x, axis=self.std_axis, keepdims=self.keepdims, **self.kw)

    def no_tangents(self) -> tuple[Any, ...]:
        """NoTangent for the positional arguments after the array (NumPy's axis, dtype...)."""
        return (_NO,) * (self.nargs - 1)


def _wrap(name: str, numpy: bool, rrule: Any, frule: Any) -> tuple[Any, Any]:
    """The registered rules: parse the call (standard or NumPy signature), then run the rule."""

    def reduction_rrule(*args: Any, **kwargs: Any) -> Any:
        return rrule(_Call(name, args, kwargs, numpy))

    def reduction_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        return frule(tangents, _Call(name, args, kwargs, numpy))

    return reduction_rrule, reduction_frule


def _register(name: str, numpy_names: tuple[str, ...], rrule: Any, frule: Any, **meta: Any) -> None:
    """Register a reduction under its standard name and, with NumPy's signature, NumPy's names."""
    numpy_meta = {**meta, **meta.pop("numpy_meta", {})}
    r, f = _wrap(name, False, rrule, frule)
    register_rrule(name, **meta)(r)
    register_frule(name, **meta)(f)
    if numpy_names:
        targets = tuple(f"numpy:{n}" for n in numpy_names)
        meta = numpy_meta
        r, f = _wrap(name, True, rrule, frule)
        register_rrule(*targets, **meta)(r)
        register_frule(*targets, **meta)(f)


def _zero_pullback(c: _Call, project: ProjectTo) -> tuple[Any, ...]:
    return (_NO, _ZERO if project.differentiable else _NO, *c.no_tangents())


def _tangent(name: str, tangents: Any, c: _Call, project: ProjectTo) -> tuple[Any, int]:
    """The array's tangent (forced) and its number of chunk axes; (None, 0) for a zero one."""
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero) or not project.differentiable:
        return None, 0
    return t, tangent_extra(name, t, c.x)


# --- sum, mean ---------------------------------------------------------------------------------
def _sum_like(name: str, mean: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def rrule(c: _Call) -> Any:
        xp, x = c.xp, c.x
        y = c.reduce(name)
        project = ProjectTo(x, xp)
        n = max(reduced_size(x.shape, c.axes), 1)

        def sum_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return _zero_pullback(c, project)
            y_bar = cotangent(name, y_bar, y)
            if mean:
                y_bar = y_bar / n
            return (
                _NO,
                project(unsum(y_bar, tuple(x.shape), c.axes, c.keepdims)),
                *c.no_tangents(),
            )

        return y, sum_pullback

    def frule(tangents: Any, c: _Call) -> Any:
        xp, x = c.xp, c.x
        y = c.reduce(name)
        t, extra = _tangent(name, tangents, c, ProjectTo(x, xp))
        if t is None:
            return y, _ZERO
        y_dot = getattr(xp, name)(t, axis=chunk_axes(c.axes, extra), keepdims=c.keepdims)
        return y, in_dtype(xp, y_dot, y.dtype)

    return rrule, frule


_register("sum", ("sum",), *_sum_like("sum", mean=False), examples=lambda rng: _reduce_ex(rng))
_register("mean", ("mean",), *_sum_like("mean", mean=True), examples=lambda rng: _reduce_ex(rng))


# --- prod ----------------------------------------------------------------------------------------
def _others_product(xp: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """``prod over axes of x, leaving out each element in turn``, exact with zeros."""
    nd = x.ndim
    if not axes:
        return xp.ones_like(x)
    kept = tuple(a for a in range(nd) if a not in axes)
    perm = kept + axes
    xt = xp.permute_dims(x, perm) if perm != tuple(range(nd)) else x
    lead = tuple(xt.shape[: len(kept)])
    n = reduced_size(x.shape, axes)
    flat = xp.reshape(xt, (*lead, n))
    # exclusive cumulative products from the left and from the right
    left = xp.cumulative_prod(flat, axis=-1, include_initial=True)[..., :-1]
    right = xp.flip(
        xp.cumulative_prod(xp.flip(flat, axis=-1), axis=-1, include_initial=True)[..., :-1],
        axis=-1,
    )
    others = xp.reshape(left * right, tuple(xt.shape))
    if perm != tuple(range(nd)):
        inverse = tuple(perm.index(i) for i in range(nd))
        others = xp.permute_dims(others, inverse)
    return others


def _prod_rrule(c: _Call) -> Any:
    xp, x = c.xp, c.x
    if "initial" in c.kw:
        raise TypeError("prod: the rule does not support initial=")
    y = c.reduce("prod")
    project = ProjectTo(x, xp)

    def prod_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return _zero_pullback(c, project)
        y_bar = cotangent("prod", y_bar, y)
        others = _others_product(xp, x, c.axes)
        if project.kind == "c":
            others = xp.conj(others)
        g = expand_reduced(xp, y_bar, c.axes, c.keepdims) * others
        return (_NO, project(g), *c.no_tangents())

    return y, prod_pullback


def _prod_frule(tangents: Any, c: _Call) -> Any:
    xp, x = c.xp, c.x
    y = c.reduce("prod")
    t, extra = _tangent("prod", tangents, c, ProjectTo(x, xp))
    if t is None:
        return y, _ZERO
    y_dot = xp.sum(
        _others_product(xp, x, c.axes) * t, axis=chunk_axes(c.axes, extra), keepdims=c.keepdims
    )
    return y, in_dtype(xp, y_dot, y.dtype)


_register("prod", ("prod",), _prod_rrule, _prod_frule, examples=lambda rng: _prod_ex(rng))


# --- max, min: ties split equally ---------------------------------------------------------------
def _extremum(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def tie_mask(xp: Any, x: Any, y: Any, c: _Call) -> tuple[Any, Any]:
        """(mask of the elements equal to the extremum, their count per slice as y's dtype)."""
        mask = x == expand_reduced(xp, y, c.axes, c.keepdims)
        count = count_true(xp, mask, c.axes, c.keepdims)
        return mask, xp.astype(count, y.dtype)

    def rrule(c: _Call) -> Any:
        xp, x = c.xp, c.x
        y = c.reduce(name)
        project = ProjectTo(x, xp)

        def extremum_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return _zero_pullback(c, project)
            y_bar = cotangent(name, y_bar, y)
            if not project.differentiable:
                return (_NO, _NO, *c.no_tangents())
            mask, count = tie_mask(xp, x, y, c)
            share = expand_reduced(xp, y_bar / safe(xp, count), c.axes, c.keepdims)
            g = masked_product(xp, mask, share, 1.0)
            return (_NO, project(g), *c.no_tangents())

        return y, extremum_pullback

    def frule(tangents: Any, c: _Call) -> Any:
        xp, x = c.xp, c.x
        y = c.reduce(name)
        t, extra = _tangent(name, tangents, c, ProjectTo(x, xp))
        if t is None:
            return y, _ZERO
        mask, count = tie_mask(xp, x, y, c)
        picked = xp.sum(
            xp.where(mask, t, xp.zeros_like(t)), axis=chunk_axes(c.axes, extra), keepdims=c.keepdims
        )
        y_dot = picked / safe(xp, count)
        return y, in_dtype(xp, y_dot, y.dtype)

    return rrule, frule


_register("max", ("max", "amax"), *_extremum("max"), examples=lambda rng: _extremum_ex(rng))
_register("min", ("min", "amin"), *_extremum("min"), examples=lambda rng: _extremum_ex(rng))


# --- var, std -----------------------------------------------------------------------------------
def _spread(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    is_std = name == "std"

    def setup(c: _Call) -> tuple[Any, Any, float]:
        x = c.x
        y = c.reduce(name)
        dof = reduced_size(x.shape, c.axes) - float(c.kw.get("correction", 0.0))
        return y, dof, (dof if dof != 0 else 1.0)

    def direction(c: _Call, y: Any, dof: float) -> Any:
        """``d y / d x`` as a Re-linear form: ``Re(conj(scale * (x - mean)) dx)``."""
        xp, x = c.xp, c.x
        d = x - xp.mean(x, axis=c.std_axis, keepdims=True)
        if is_std:  # d std = d var / (2 std), and 0 where std = 0 (a constant slice)
            return d * expand_reduced(xp, 1 / (dof * safe(xp, y)), c.axes, c.keepdims)
        return d * (2.0 / dof)

    def rrule(c: _Call) -> Any:
        xp, x = c.xp, c.x
        y, _, dof = setup(c)
        project = ProjectTo(x, xp)

        def spread_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return _zero_pullback(c, project)
            y_bar = cotangent(name, y_bar, y)
            g = direction(c, y, dof) * expand_reduced(xp, y_bar, c.axes, c.keepdims)
            return (_NO, project(g), *c.no_tangents())

        return y, spread_pullback

    def frule(tangents: Any, c: _Call) -> Any:
        xp, x = c.xp, c.x
        y, _, dof = setup(c)
        project = ProjectTo(x, xp)
        t, extra = _tangent(name, tangents, c, project)
        if t is None:
            return y, _ZERO
        g = direction(c, y, dof)
        term = xp.real(xp.conj(g) * t) if project.kind == "c" else g * t
        y_dot = xp.sum(term, axis=chunk_axes(c.axes, extra), keepdims=c.keepdims)
        return y, in_dtype(xp, y_dot, y.dtype)

    return rrule, frule


_register("var", ("var",), *_spread("var"), examples=lambda rng: _spread_ex(rng))
_register("std", ("std",), *_spread("std"), examples=lambda rng: _spread_ex(rng))


# --- cumulative sums and products ---------------------------------------------------------------
class _Cumulative:
    """A cumulative call: the array (flattened for NumPy's ``axis=None``) and its axis."""

    def __init__(self, name: str, c: _Call) -> None:
        xp, x = c.xp, c.x
        self.c = c
        self.include_initial = bool(c.kw.pop("include_initial", False))
        if c.axis is None:
            if x.ndim > 1 and not c.numpy:
                raise ValueError(f"{name}: axis is required for arrays of rank {x.ndim}")
            # NumPy's cumsum/cumprod flatten when axis is None
            self.work = xp.reshape(x, (-1,)) if x.ndim != 1 else x
            self.axis = 0
        else:
            self.work = x
            (self.axis,) = normalize_axis(c.axis, x.ndim, name)

    def primal(self, name: str) -> Any:
        return getattr(self.c.xp, name)(
            self.work, axis=self.axis, include_initial=self.include_initial, **self.c.kw
        )

    def along(self, extra: int = 0) -> int:
        return self.axis + extra

    def drop_initial(self, g: Any) -> Any:
        """The cotangent without the constant first entry that ``include_initial`` adds."""
        if not self.include_initial:
            return g
        return g[along(self.axis, slice(1, None))]

    def back(self, g: Any) -> Any:
        """A cotangent of the working array as one of the original."""
        return self.c.xp.reshape(g, tuple(self.c.x.shape)) if self.c.x.ndim != 1 else g


def _revcumsum(xp: Any, v: Any, axis: int) -> Any:
    return xp.flip(xp.cumulative_sum(xp.flip(v, axis=axis), axis=axis), axis=axis)


def _cumulative_rrule(name: str, back: Any) -> Any:
    """The rrule of a cumulative function; ``back(xp, work, g, axis, complex)`` is the cotangent
    of the working array for the cotangent ``g`` of the output (the constant first entry that
    ``include_initial`` adds already dropped)."""

    def rrule(c: _Call) -> Any:
        cc = _Cumulative(name, c)
        xp = c.xp
        y = cc.primal(name)
        project = ProjectTo(c.x, xp)

        def cumulative_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return _zero_pullback(c, project)
            g = cc.drop_initial(cotangent(name, y_bar, y))
            x_bar = back(xp, cc.work, g, cc.axis, project.kind == "c")
            return (_NO, project(cc.back(x_bar)), *c.no_tangents())

        return y, cumulative_pullback

    return rrule


def _cumsum_back(xp: Any, x: Any, g: Any, ax: int, cplx: bool) -> Any:
    return _revcumsum(xp, g, ax)


_cumsum_rrule = _cumulative_rrule("cumulative_sum", _cumsum_back)


def _cumulative_tangent(name: str, tangents: Any, c: _Call, cc: _Cumulative) -> tuple[Any, int]:
    """The tangent of a cumulative call (flattened like the array for NumPy's ``axis=None``)
    and the axis to accumulate it along; ``(None, 0)`` for a zero tangent."""
    t, extra = _tangent(name, tangents, c, ProjectTo(c.x, c.xp))
    if t is not None and cc.work is not c.x:  # flatten the primal axes, keep the chunk axes
        t = c.xp.reshape(t, (*tuple(t.shape[:extra]), -1))
    return t, cc.along(extra)


def _cumsum_frule(tangents: Any, c: _Call) -> Any:
    cc = _Cumulative("cumulative_sum", c)
    xp = c.xp
    y = cc.primal("cumulative_sum")
    t, ax = _cumulative_tangent("cumulative_sum", tangents, c, cc)
    if t is None:
        return y, _ZERO
    y_dot = xp.cumulative_sum(t, axis=ax, include_initial=cc.include_initial)
    return y, in_dtype(xp, y_dot, y.dtype)


def _cumprod_parts(xp: Any, x: Any, axis: int) -> tuple[Any, Any, Any, Any]:
    """(B, F, C, x_safe): before-the-first-zero mask, first-zero mask (both in x's dtype), the
    cumulative product with the first zero replaced by 1, and x with zeros replaced by 1."""
    one = xp.ones_like(x)
    nonzero = xp.astype(x != 0, x.dtype)
    before = xp.cumulative_prod(nonzero, axis=axis)  # 1 until the first zero, then 0
    # the exclusive version: 1 for every position up to and including the first zero
    upto = xp.cumulative_prod(nonzero, axis=axis, include_initial=True)
    upto = upto[along(axis, slice(None, -1))]
    first = upto - before  # 1 exactly at the first zero
    x1 = xp.where(first == 1, one, x)
    return before, first, xp.cumulative_prod(x1, axis=axis), xp.where(x == 0, one, x)


def _cumprod_back(xp: Any, x: Any, g: Any, ax: int, cplx: bool) -> Any:
    b, f, cp, xs = _cumprod_parts(xp, x, ax)
    if cplx:  # conjugated partials: the cotangent convention for complex inputs
        cp, xs = xp.conj(cp), xp.conj(xs)
    return b * _revcumsum(xp, g * cp * b, ax) / xs + f * _revcumsum(xp, g * cp, ax)


_cumprod_rrule = _cumulative_rrule("cumulative_prod", _cumprod_back)


def _cumprod_frule(tangents: Any, c: _Call) -> Any:
    cc = _Cumulative("cumulative_prod", c)
    xp = c.xp
    y = cc.primal("cumulative_prod")
    t, ax = _cumulative_tangent("cumulative_prod", tangents, c, cc)
    if t is None:
        return y, _ZERO
    b, f, cp, xs = _cumprod_parts(xp, cc.work, cc.axis)
    y_dot = cp * (b * xp.cumulative_sum(b * t / xs, axis=ax) + xp.cumulative_sum(f * t, axis=ax))
    if cc.include_initial:
        zero = xp.zeros_like(y_dot[along(ax, slice(0, 1))])
        y_dot = xp.concat((zero, y_dot), axis=ax)
    return y, in_dtype(xp, y_dot, y.dtype)


def _register_cumulative(name: str, np_name: str, rrule: Any, frule: Any, zeros: bool) -> None:
    _register(
        name,
        (np_name,),
        rrule,
        frule,
        examples=_cumulative_ex(zeros, numpy=False),
        numpy_meta={"examples": _cumulative_ex(zeros, numpy=True)},
    )


# --- example inputs (python -m chainrules check, and the test suite) ---------------------------
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


def _prod_ex(rng: Any) -> list[Any]:
    one_zero = rng.uniform(0.5, 1.5, 5)
    one_zero[2] = 0.0
    two_zeros = rng.uniform(0.5, 1.5, (3, 4))
    two_zeros[0, 1] = two_zeros[0, 3] = two_zeros[2, 0] = 0.0
    return [
        ((rng.uniform(0.5, 1.5, 5),), {}),
        ((one_zero,), {}),
        ((two_zeros,), {"axis": 1}),
        ((two_zeros,), {"axis": 0, "keepdims": True}),
        ((rng.uniform(0.5, 1.5, (2, 3, 2)),), {"axis": (0, 2)}),
    ]


def _extremum_ex(rng: Any) -> list[Any]:
    # distinct values: finite differences cannot judge ties (the convention tests do)
    return [
        ((rng.permutation(6).astype(float) + rng.uniform(0, 0.5, 6),), {}),
        ((rng.permutation(12).reshape(3, 4) * 1.0,), {"axis": 1}),
        ((rng.permutation(12).reshape(3, 4) * 1.0,), {"axis": 0, "keepdims": True}),
        ((rng.permutation(24).reshape(2, 3, 4) * 1.0,), {"axis": (0, 2)}),
    ]


def _spread_ex(rng: Any) -> list[Any]:
    x2 = rng.standard_normal((3, 4))
    return [
        ((rng.standard_normal(6),), {}),
        ((x2,), {"axis": 1}),
        ((x2,), {"axis": 0, "keepdims": True, "correction": 1}),
        ((rng.standard_normal((2, 3, 4)),), {"axis": (1, 2), "correction": 1.5}),
    ]


def _cumulative_ex(with_zeros: bool, numpy: bool) -> Any:
    def make(rng: Any) -> list[Any]:
        v = rng.uniform(0.5, 1.5, 6)
        m = rng.uniform(0.5, 1.5, (3, 4))
        if with_zeros:
            v[2] = 0.0
            m[0, 1] = m[0, 3] = m[2, 0] = 0.0
        common = [((v,), {}), ((m,), {"axis": 1}), ((m,), {"axis": 0})]
        if numpy:  # NumPy's signature: axis positional, axis=None flattens
            return [*common, ((m, -1), {}), ((m,), {})]
        return [
            *common,
            ((v,), {"include_initial": True}),
            ((m,), {"axis": -1, "include_initial": True}),
        ]

    return make


_register_cumulative("cumulative_sum", "cumsum", _cumsum_rrule, _cumsum_frule, zeros=False)
_register_cumulative("cumulative_prod", "cumprod", _cumprod_rrule, _cumprod_frule, zeros=True)


# --- NumPy's ptp, nansum, nanmean, average ------------------------------------------------------
# ptp = max - min: each end splits its cotangent among its ties (a constant slice gets 0); the NaN
# variants give NaN entries a zero cotangent (a mask, no host reads); average's weights are
# differentiated when positional (np.average(a, axis, weights)), never as a keyword.
_NP_ORDER["ptp"] = ("axis", "out", "keepdims")
_NP_ORDER["nansum"] = ("axis", "dtype", "out", "keepdims", "initial", "where")
_NP_ORDER["nanmean"] = ("axis", "dtype", "out", "keepdims")
_MAX_RULES, _MIN_RULES = _extremum("max"), _extremum("min")


def _ptp_rrule(c: _Call) -> Any:
    y_max, pb_max = _MAX_RULES[0](c)
    y_min, pb_min = _MIN_RULES[0](c)
    y = y_max - y_min

    def ptp_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return pb_max(y_bar)
        y_bar = cotangent("ptp", y_bar, y)
        hi, lo = pb_max(y_bar)[1], pb_min(y_bar)[1]
        if isinstance(hi, AbstractZero):
            return pb_max(y_bar)
        return (_NO, hi - lo, *c.no_tangents())

    return y, ptp_pullback


def _ptp_frule(tangents: Any, c: _Call) -> Any:
    y_max, d_max = _MAX_RULES[1](tangents, c)
    y_min, d_min = _MIN_RULES[1](tangents, c)
    if isinstance(d_max, AbstractZero):
        return y_max - y_min, d_max
    return y_max - y_min, d_max - d_min


def _nan_rules(name: str, mean: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def parts(c: _Call) -> tuple[Any, Any, Any]:
        """(y, the NaN mask, the count of non-NaN elements per slice with the reduced axes kept
        as length 1, in y's real dtype; None for nansum)."""
        xp, x = c.xp, c.x
        y = c.reduce(name)
        nan = xp.isnan(x)
        count = None
        if mean:
            real = xp.real(y).dtype if xp.isdtype(y.dtype, "complex floating") else y.dtype
            count = xp.astype(count_true(xp, ~nan, c.axes, True), real)
        return y, nan, count

    def rrule(c: _Call) -> Any:
        xp, x = c.xp, c.x
        y, nan, count = parts(c)
        project = ProjectTo(x, xp)

        def nan_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return _zero_pullback(c, project)
            g = unsum(cotangent(name, y_bar, y), tuple(x.shape), c.axes, c.keepdims)
            if count is not None:
                g = g / safe(xp, count)
            return (_NO, project(xp.where(nan, xp.zeros_like(g), g)), *c.no_tangents())

        return y, nan_pullback

    def frule(tangents: Any, c: _Call) -> Any:
        xp = c.xp
        y, nan, count = parts(c)
        t, extra = _tangent(name, tangents, c, ProjectTo(c.x, xp))
        if t is None:
            return y, _ZERO
        y_dot = xp.sum(
            xp.where(nan, xp.zeros_like(t), t), axis=chunk_axes(c.axes, extra), keepdims=True
        )
        if count is not None:
            y_dot = y_dot / safe(xp, count)
        if not c.keepdims:
            y_dot = xp.reshape(y_dot, (*tuple(t.shape[:extra]), *tuple(y.shape)))
        return y, in_dtype(xp, y_dot, y.dtype)

    return rrule, frule


def _register_numpy(name: str, rrule: Any, frule: Any, examples: Any) -> None:
    r, f = _wrap(name, True, rrule, frule)
    register_rrule(f"numpy:{name}", examples=examples)(r)
    register_frule(f"numpy:{name}", examples=examples)(f)


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


_register_numpy("ptp", _ptp_rrule, _ptp_frule, lambda rng: _extremum_ex(rng))
_register_numpy("nansum", *_nan_rules("nansum", mean=False), _nan_ex)
_register_numpy("nanmean", *_nan_rules("nanmean", mean=True), _nan_ex)


class _Average:
    """``np.average(a, axis=None, weights=None, returned=False, *, keepdims=False)``."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if not args:
            raise TypeError("average needs an array argument")
        numpy_kwargs("average", kwargs, ())
        a, *pos = args
        if len(pos) > 3:
            raise TypeError(f"average takes at most 4 positional arguments, got {len(args)}")
        params = dict(zip(("axis", "weights", "returned"), pos))
        for k, v in kwargs.items():
            if k in params:
                raise TypeError(f"average got multiple values for argument {k!r}")
            params[k] = v
        if params.get("returned"):
            raise TypeError("average: the rule does not support returned=True")
        self.xp = xp = namespace_of(a, params.get("weights"), fname="average")
        self.a, self.args, self.kwargs = a, args, kwargs
        self.w: Any = params.get("weights")
        self.w_slot = 3 if len(pos) > 1 else None  # index in the pullback's tuple
        self.keepdims = bool(params.get("keepdims", False))
        self.axes = normalize_axis(params.get("axis"), a.ndim, "average")
        self.nargs = len(args)
        from .searching import numpy_like_module

        self.y = numpy_like_module(a, xp).average(*args, **kwargs)
        self.wb: Any
        if self.w is not None and self.w.ndim != a.ndim:  # 1-D weights along the one axis
            shape = [1] * a.ndim
            shape[self.axes[0]] = self.w.shape[0]
            self.wb = xp.reshape(self.w, tuple(shape))
        else:
            self.wb = self.w

    def expand(self, v: Any, extra: int = 0) -> Any:
        return expand_reduced(self.xp, v, self.axes, self.keepdims, extra)

    def total_weight(self) -> Any:
        xp = self.xp
        if self.wb is None:
            return reduced_size(self.a.shape, self.axes)
        return xp.sum(xp.broadcast_to(self.wb, tuple(self.a.shape)), axis=self.axes, keepdims=True)

    def w_cotangent(self, g: Any) -> Any:
        """A cotangent of the broadcast weights as one of ``weights`` itself."""
        xp = self.xp
        if self.w.ndim != self.a.ndim:
            others = tuple(i for i in range(self.a.ndim) if i != self.axes[0])
            g = xp.reshape(xp.sum(g, axis=others), tuple(self.w.shape)) if others else g
        return ProjectTo(self.w, xp)(g)


def _average_rrule(*args: Any, **kwargs: Any) -> Any:
    c = _Average(args, kwargs)
    xp, a, y = c.xp, c.a, c.y
    pa = ProjectTo(a, xp)

    def average_pullback(y_bar: Any) -> tuple[Any, ...]:
        out: list[Any] = [_NO] * (c.nargs + 1)
        if isinstance(y_bar, AbstractZero):
            out[1] = _ZERO if pa.differentiable else _NO
            if c.w_slot is not None:
                out[c.w_slot] = _ZERO if ProjectTo(c.w, xp).differentiable else _NO
            return tuple(out)
        g = c.expand(cotangent("average", y_bar, y))
        total = c.total_weight()
        scale = (c.wb / total) if c.wb is not None else 1 / total
        if pa.kind == "c" and c.wb is not None:
            scale = xp.conj(scale)
        out[1] = pa(xp.broadcast_to(g * scale, tuple(a.shape)))
        if c.w_slot is not None:
            d = (a - c.expand(y)) / total
            gw = g * (xp.conj(d) if xp.isdtype(d.dtype, "complex floating") else d)
            out[c.w_slot] = c.w_cotangent(gw)
        return tuple(out)

    return y, average_pullback


def _average_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    c = _Average(args, kwargs)
    xp, a, y = c.xp, c.a, c.y
    total = c.total_weight()
    y_dot: Any = None
    lead: tuple[int, ...] = ()
    ta = unthunk(tangents[1])
    if not isinstance(ta, AbstractZero) and ProjectTo(a, xp).differentiable:
        extra = tangent_extra("average", ta, a)
        lead = tuple(ta.shape[:extra])
        term = ta * c.wb if c.wb is not None else ta
        y_dot = xp.sum(term, axis=chunk_axes(c.axes, extra), keepdims=True) / total
    tw = unthunk(tangents[c.w_slot]) if c.w_slot is not None else _ZERO
    if not isinstance(tw, AbstractZero) and ProjectTo(c.w, xp).differentiable:
        extra = tw.ndim - c.w.ndim
        lead = tuple(tw.shape[:extra])
        if c.w.ndim != a.ndim:
            tw = xp.reshape(tw, lead + tuple(c.wb.shape))
        d = a - c.expand(y)
        term = xp.sum(tw * d, axis=chunk_axes(c.axes, extra), keepdims=True) / total
        y_dot = term if y_dot is None else y_dot + term
    if y_dot is None:
        return y, _ZERO
    return y, in_dtype(xp, xp.reshape(y_dot, lead + tuple(y.shape)), y.dtype)


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


register_rrule("numpy:average", examples=_average_ex)(_average_rrule)
register_frule("numpy:average", examples=_average_ex)(_average_frule)
