"""Rules for the standard's set functions (``set_functions``): ``unique_all``,
``unique_counts``, ``unique_inverse`` and ``unique_values`` (``isin`` non-differentiable); with
NumPy's (``"numpy:NAME"``, for NumPy, ``jax.numpy`` and CuPy): ``unique``, ``union1d``,
``intersect1d``, ``setdiff1d`` and ``setxor1d``.

Conventions
-----------
* Only the *values* output has a tangent space; ``indices``, ``inverse_indices`` and ``counts``
  are integers (``NoTangent()`` parts of the cotangent are ignored).
* The values are *not* piecewise constant: away from ties each distinct value moves with the
  element equal to it (``values = x[indices]`` locally), so declaring them non-differentiable
  would silently drop a gradient. Ties are split equally, as ``max`` does: a distinct value shared
  by ``c`` elements passes ``1/c`` of its cotangent to each, ``x_bar = take(v_bar / counts,
  inverse)``, and its tangent is the mean of theirs -- the minimum-norm choice, with no host read
  of which element came first.
* The primal's shape depends on the data (never usable under ``jit``), but the pullback and the
  pushforward add none: a gather (``take``) back, a ``scatter_add`` forward, both with rules.
* Multi-dimensional ``x`` is flattened by the primal, as the standard says; the cotangent comes
  back in ``x``'s shape.

NumPy's set functions
---------------------
* Only the *values* have a tangent space; ``indices``, ``inverse`` and ``counts`` (and
  ``intersect1d``'s ``return_indices`` outputs) are integers and get no cotangent.
* Each output value is a *group* of equal input elements (across both arrays for the binary
  functions). Away from ties a group has one element and the value moves with it. Ties split
  equally, as ``max`` does: a value shared by ``c`` elements passes ``1/c`` of its cotangent to
  each, and its tangent is the mean of theirs -- the minimum-norm choice, with no host read of
  which element came first. An element whose group is not in the output (``setdiff1d``'s
  removed values, ``intersect1d``'s unmatched ones) gets a zero cotangent.
* ``intersect1d``'s values always come from ties across the two arrays (``x1_i == x2_j``):
  moving one of them alone leaves the intersection, so the rule is the derivative along moves
  that keep the ties (the mean of the tied tangents), as the tie convention gives.
* The output's size depends on the data: the primal syncs by its nature (``jax.jit`` cannot
  trace these functions without JAX's ``size=``, which the rules refuse). The pullback and the
  pushforward add no sync: the groups (``inverse``, ``counts`` of ``unique`` of the inputs,
  and which group each output value is, by ``searchsorted`` on the sorted groups) are computed
  in the primal; the pullback is a ``scatter_add`` and a ``take`` with them, the pushforward a
  ``scatter_add`` and a ``take`` -- all with rules of their own.
* ``unique(ar, axis=k)`` groups equal slices along ``k``; the cotangent of a slice is the
  group's cotangent slice over its count.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.prelude import *
from ._util import axis_opt, in_dtype, moveaxis
from ._util.numpy_like import numpy_like_module

__all__: list[str] = []  # rules only


# the four functions' one signature; out= is bound only to be refused with the rules' message
_UNIQUE = {
    name: signature(name, lambda x, /, *, out=None: None)
    for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values")
}


def _unique(xp: Any, name: str, x: Any) -> Any:
    """The primal: NumPy's own function for a NumPy array (NumPy 2.4's ``unique_values`` of
    integers, booleans and complex numbers keeps a hash order, where array-api-compat's
    sorts), the namespace's otherwise."""
    return getattr(np if type(x) is np.ndarray else xp, name)(x)


def _inverse_and_counts(xp: Any, x: Any, y: Any, values: Any) -> tuple[Any, Any]:
    """Flat inverse indices (where each element of ``x`` went) and the counts, as the values'
    real dtype; from the primal ``y`` when it has them, else from ``unique_inverse`` and a
    ``scatter_add`` of ones (no host reads)."""
    inv = getattr(y, "inverse_indices", None)
    if inv is None:
        inv = xp.unique_inverse(x).inverse_indices  # into the sorted values
        if type(values) is np.ndarray:  # NumPy's unique_values need not sort: into its order
            inv = xp.take(xp.argsort(values), inv)
    inv = xp.reshape(inv, (-1,))
    counts = getattr(y, "counts", None)
    real = xp.real(values).dtype if xp.isdtype(values.dtype, "complex floating") else values.dtype
    if counts is None:
        zeros = xp.zeros((values.shape[0],), dtype=real, device=device_of(values))
        counts = scatter_add(zeros, inv, xp.ones(inv.shape, dtype=real, device=device_of(inv)))
    else:
        counts = xp.astype(counts, real)
    return inv, counts


def _unique_rules(name: str) -> Any:
    """The rrule and the frule of the standard's ``name`` (one of ``_UNIQUE``)."""

    def unique_rrule(*args: Any, **kwargs: Any) -> Any:
        x = _UNIQUE[name].bind(args, kwargs)["x"]
        xp = namespace_of(x, fname=name)
        y = _unique(xp, name, x)
        values = y if name == "unique_values" else y[0]
        project = ProjectTo(x, xp)

        # a named tuple's cotangent is a Tangent (or a tuple) with one entry per field
        @pullback(y if name == "unique_values" else tuple(y), (x,), name=name)
        def unique_pullback(y_bar: Any) -> Any:
            v_bar = y_bar if name == "unique_values" else y_bar[0]  # the values' cotangent
            if not project.differentiable:
                return NO
            if isinstance(v_bar, AbstractZero):  # only the integer outputs' entries were given
                return ZERO
            inv, counts = _inverse_and_counts(xp, x, y, values)
            x_bar = xp.take(v_bar / counts, inv, axis=0)
            return project(xp.reshape(x_bar, tuple(x.shape)))

        return y, unique_pullback

    def unique_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        x = _UNIQUE[name].bind(args, kwargs)["x"]
        xp = namespace_of(x, fname=name)
        y = _unique(xp, name, x)
        v = y if name == "unique_values" else y[0]
        if not ProjectTo(x, xp).differentiable:
            return y, NO
        ts = tangents_in(name, tangents[:2], (x,))
        if ts is None:
            v_dot: Any = ZERO
        else:
            t = ts[0]
            lead = tuple(t.shape[: ts.extra])
            k = math.prod(lead)
            inv, counts = _inverse_and_counts(xp, x, y, v)
            # chunk axes last: row i sums the tangents of the elements equal to value i
            flat = xp.permute_dims(xp.reshape(t, (k, -1)), (1, 0))
            zeros = xp.zeros((v.shape[0], k), dtype=t.dtype, device=device_of(t))
            # one integer array per axis: the standard's (and array-api-strict's) indexing form
            cols = xp.reshape(xp.arange(k, dtype=inv.dtype, device=device_of(inv)), (1, k))
            key = (xp.reshape(inv, (-1, 1)), cols)
            sums = xp.permute_dims(scatter_add(zeros, key, flat), (1, 0))
            v_dot = in_dtype(xp, xp.reshape(sums / counts, (*lead, v.shape[0])), v.dtype)
        if name == "unique_values":
            return y, v_dot
        return y, Tangent(v_dot, *(NO for _ in y[1:]), primal_type=type(y))

    return unique_rrule, unique_frule


def _unique_examples(rng: Any) -> list[Any]:
    # distinct values, as finite differences need (ties: the convention tests); one 2-D array
    return [
        ((rng.permutation(6) * 1.0 + 0.25,), {}),
        ((rng.permutation(12).reshape(3, 4) * 0.5,), {}),
        ((np.asarray(2.5),), {}),
        ((np.zeros(0),), {}),
    ]


# unique's output shape is its data's: jax.jit refuses the function itself
_UNIQUE_JIT = Expect("jit", "jax.numpy.unique_* have data-dependent output shapes", kind="skip")
_UNIQUE_ALL = (
    _UNIQUE_JIT,
    Expect("torch", "array-api-compat has no unique_all for torch (pytorch#36748)", kind="skip"),
)


for _name in _UNIQUE:
    _r, _f = _unique_rules(_name)
    _expect = _UNIQUE_ALL if _name == "unique_all" else _UNIQUE_JIT
    register_rrule(_name, examples=_unique_examples, expect=_expect)(_r)
    register_frule(_name, examples=_unique_examples)(_f)


# isin (standard 2025.12): a boolean output, nothing to differentiate
def _isin_examples(rng: Any) -> list[Any]:
    # integers: array-api-strict accepts no other dtype in isin
    x = rng.integers(0, 5, (2, 3))
    return [((x, np.asarray([1, 3])), {}), ((x, np.asarray([2])), {"invert": True})]


non_differentiable("isin", examples=_isin_examples)


# --- NumPy's set functions ---------------------------------------------------------------------
# JAX's size=/fill_value= (static output sizes, padded) are refused: padded entries have no
# group, and the groups themselves would need padding too
_JAX_ONLY = ("size", "fill_value")


def _unique_template(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: Any = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,
    size: Any = None,
    fill_value: Any = None,
) -> None:
    """NumPy's (and JAX's) signature of ``unique``."""


_NUMPY_UNIQUE = signature("unique", _unique_template, _JAX_ONLY)
_SIGS = {
    "union1d": signature(
        "union1d", lambda ar1, ar2, *, size=None, fill_value=None: None, _JAX_ONLY
    ),
    "intersect1d": signature(
        "intersect1d",
        lambda ar1, ar2, assume_unique=False, return_indices=False, *, size=None, fill_value=None: (
            None
        ),
        _JAX_ONLY,
    ),
    "setdiff1d": signature(
        "setdiff1d",
        lambda ar1, ar2, assume_unique=False, *, size=None, fill_value=None: None,
        _JAX_ONLY,
    ),
    "setxor1d": signature(
        "setxor1d",
        lambda ar1, ar2, assume_unique=False, *, size=None, fill_value=None: None,
        _JAX_ONLY,
    ),
}


def _real(xp: Any, dtype: Any) -> Any:
    return xp.float32 if dtype in (xp.float32, xp.complex64) else xp.float64


def _as_tuple(y: Any) -> tuple[Any, ...] | None:
    """The outputs of a call that returned several (a tuple), else ``None``."""
    return tuple(y) if isinstance(y, tuple) else None


def _with_tangent(y: Any, v_dot: Any) -> Any:
    """The frule's output tangent: ``v_dot`` for the values, ``NoTangent()`` for the rest."""
    if not isinstance(y, tuple):
        return v_dot
    return Tangent(v_dot, *(NO for _ in y[1:]), primal_type=type(y))


def _values_bar(y: Any, y_bar: Any) -> Any:
    return y_bar[0] if isinstance(y, tuple) else y_bar


class _Groups:
    """The groups of equal elements behind a set function's values, found in the primal.

    ``inv`` (the group of each flat input element), ``counts`` (each group's size, in the
    values' real dtype) and ``sel`` (the group of each output value; ``None``: the values are
    the groups, in order)."""

    __slots__ = ("counts", "inv", "sel")

    def __init__(self, inv: Any, counts: Any, sel: Any) -> None:
        self.inv, self.counts, self.sel = inv, counts, sel

    def pull(self, xp: Any, v_bar: Any, n_groups: int) -> Any:
        """The flat cotangent of the grouped elements: ``take(w / counts, inv)`` with ``w`` each
        group's share of ``v_bar`` (``v_bar`` along the groups' axis 0)."""
        if self.sel is None:
            w = v_bar / _along0(xp, self.counts, v_bar.ndim)
        else:
            share = v_bar / _along0(xp, xp.take(self.counts, self.sel, axis=0), v_bar.ndim)
            zeros = xp.zeros(
                (n_groups, *v_bar.shape[1:]), dtype=v_bar.dtype, device=device_of(v_bar)
            )
            w = scatter_add(zeros, self.sel, share)
        return xp.take(w, self.inv, axis=0)

    def push(self, xp: Any, t: Any, n_groups: int) -> Any:
        """The values' tangent from the elements' ``t`` (grouped axis first): the mean of each
        group, a ``scatter_add`` of ``t`` over ``inv`` divided by the counts."""
        zeros = xp.zeros((n_groups, *t.shape[1:]), dtype=t.dtype, device=device_of(t))
        sums = scatter_add(zeros, self.inv, t) / _along0(xp, self.counts, t.ndim)
        return sums if self.sel is None else xp.take(sums, self.sel, axis=0)


def _along0(xp: Any, c: Any, ndim: int) -> Any:
    return xp.reshape(c, (c.shape[0],) + (1,) * (ndim - 1))


def _chunk_first(xp: Any, t: Any, extra: int, axis: int) -> tuple[Any, tuple[int, ...]]:
    """``t`` (``extra`` chunk axes, then the primal's) as a 2-D array with the primal's ``axis``
    first and everything else (chunk axes included) flattened behind it; and the chunk shape."""
    lead = tuple(t.shape[:extra])
    moved = moveaxis(xp, t, extra + axis, 0)
    return xp.reshape(moved, (moved.shape[0], -1)), lead


# --- unique ---------------------------------------------------------------------------------------
_UNIQUE_DEFAULTS = {"equal_nan": True, "sorted": True}


def _unique_parts(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    s = _NUMPY_UNIQUE.bind(args, kwargs)
    ar, axis = s["ar"], s["axis"]
    xp = namespace_of(ar, fname="unique")
    axis = axis_opt(axis, "unique", ndim=getattr(ar, "ndim", None), bool_ok=True)  # True: 1
    lib = numpy_like_module(ar, xp)
    y = lib.unique(*args, **kwargs)
    # the groups from the library's own unique, with the same axis / equal_nan / sorted: the
    # very call with return_inverse and return_counts (the values are the user's y)
    options = {k: s[k] for k in ("equal_nan", "sorted") if s[k] != _UNIQUE_DEFAULTS[k]}
    full = lib.unique(ar, return_inverse=True, return_counts=True, axis=axis, **options)
    values = y[0] if isinstance(y, tuple) else y
    real = _real(xp, values.dtype) if ProjectTo(ar, xp).differentiable else xp.float64
    groups = _Groups(xp.reshape(full[1], (-1,)), xp.astype(full[2], real), None)
    ax = None if axis is None else axis % max(ar.ndim, 1)
    return xp, ar, ax, y, values, groups


def _unique_ex(rng: Any) -> list[Any]:
    # distinct values (slices), as finite differences need; ties: the convention tests
    return [
        ((rng.permutation(12).reshape(3, 4) * 0.5 + 0.25, True, True, True), {}),
        ((rng.standard_normal((4, 3)),), {"axis": 0, "return_counts": True}),
    ]


# the output's shape is its data's: jax.jit refuses the function itself
_SET_JIT = Expect(
    "jit", "jax.numpy's set functions have data-dependent output shapes without size=", kind="skip"
)


@register_rrule("numpy:unique", examples=_unique_ex, expect=_SET_JIT)
def unique_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, ar, ax, y, values, groups = _unique_parts(args, kwargs)
    project = ProjectTo(ar, xp)

    @pullback(_as_tuple(y) or y, args)
    def unique_pullback(y_bar: Any) -> Any:
        v_bar = _values_bar(y, y_bar)
        rest = tuple(NO for _ in args[1:])
        if not project.differentiable:
            return (NO, *rest)
        if isinstance(v_bar, AbstractZero):  # only the integer outputs' entries were given
            return (ZERO, *rest)
        if ax is None:
            x_bar = xp.reshape(groups.pull(xp, v_bar, values.shape[0]), tuple(ar.shape))
        else:
            g = moveaxis(xp, v_bar, ax, 0)
            x_bar = moveaxis(xp, groups.pull(xp, g, g.shape[0]), 0, ax)
        return (project(x_bar), *rest)

    return y, unique_pullback


@register_frule("numpy:unique", examples=_unique_ex, expect=_SET_JIT)
def unique_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, ar, ax, y, values, groups = _unique_parts(args, kwargs)
    ts = tangents_in("unique", tangents[:2], (ar,))
    if not ProjectTo(ar, xp).differentiable:
        return y, NO
    if ts is None:
        return y, _with_tangent(y, ZERO)
    t = ts[0]
    if ax is None:
        lead = tuple(t.shape[: ts.extra])
        flat = xp.permute_dims(xp.reshape(t, (math.prod(lead), -1)), (1, 0))
        v = groups.push(xp, flat, values.shape[0])  # (n_values, chunk)
        v_dot = xp.reshape(xp.permute_dims(v, (1, 0)), (*lead, values.shape[0]))
    else:
        flat, lead = _chunk_first(xp, t, ts.extra, ax)
        n = values.shape[ax]
        v = groups.push(xp, flat, n)  # (n, chunk * other axes)
        rest = tuple(ar.shape[:ax]) + tuple(ar.shape[ax + 1 :])
        v = xp.reshape(v, (n, *lead, *rest))
        v_dot = moveaxis(xp, v, 0, len(lead) + ax)
    return y, _with_tangent(y, in_dtype(xp, v_dot, values.dtype))


# --- union1d, intersect1d, setdiff1d, setxor1d --------------------------------------------------
def _binary_parts(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    s = _SIGS[name].bind(args, kwargs)
    a1, a2 = s["ar1"], s["ar2"]
    xp = namespace_of(a1, a2, fname=name)
    lib = numpy_like_module(a1 if hasattr(a1, "shape") else a2, xp)
    y = getattr(lib, name)(*args, **kwargs)  # the very function the user called
    values = y[0] if isinstance(y, tuple) else y
    a1, a2 = xp.asarray(a1), xp.asarray(a2)
    z = xp.concat((xp.reshape(a1, (-1,)), xp.reshape(a2, (-1,))), axis=0)
    # the groups: unique of both inputs together (each output value is one of them, found by
    # searchsorted in the sorted groups: exact, since the values are copies of elements)
    groups, inv, counts = lib.unique(z, return_inverse=True, return_counts=True)
    sel = xp.searchsorted(groups, values)
    diff = ProjectTo(a1, xp).differentiable or ProjectTo(a2, xp).differentiable
    real = _real(xp, values.dtype) if diff else xp.float64
    return xp, a1, a2, y, values, _Groups(xp.reshape(inv, (-1,)), xp.astype(counts, real), sel)


def _binary_rules(name: str) -> Any:
    def set_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, a1, a2, y, _values, groups = _binary_parts(name, args, kwargs)
        p1, p2 = ProjectTo(args[0], xp), ProjectTo(args[1], xp)
        n1 = math.prod(a1.shape)
        n_groups = groups.counts.shape[0]

        @pullback(_as_tuple(y) or y, args, name=name)
        def set_pullback(y_bar: Any) -> Any:
            v_bar = _values_bar(y, y_bar)
            rest = tuple(NO for _ in args[2:])
            if isinstance(v_bar, AbstractZero):
                return (
                    ZERO if p1.differentiable else NO,
                    ZERO if p2.differentiable else NO,
                    *rest,
                )
            z_bar = groups.pull(xp, v_bar, n_groups)
            b1 = p1(xp.reshape(z_bar[:n1], tuple(a1.shape))) if p1.differentiable else NO
            b2 = p2(xp.reshape(z_bar[n1:], tuple(a2.shape))) if p2.differentiable else NO
            return (b1, b2, *rest)

        set_pullback.__qualname__ = f"{name}_pullback"
        return y, set_pullback

    def set_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, a1, a2, y, values, groups = _binary_parts(name, args, kwargs)
        ts = tangents_in(name, tangents[:3], args[:2])
        if not (ProjectTo(args[0], xp).differentiable or ProjectTo(args[1], xp).differentiable):
            return y, NO
        if ts is None:
            return y, _with_tangent(y, ZERO)
        lead = ts.lead()
        k = math.prod(lead)
        parts = []
        for t, a in ((ts[0], a1), (ts[1], a2)):
            n = math.prod(a.shape)
            if isinstance(t, AbstractZero) or not ProjectTo(a, xp).differentiable:
                parts.append(xp.zeros((n, k), dtype=values.dtype, device=device_of(values)))
            else:
                flat = xp.reshape(in_dtype(xp, xp.asarray(t), values.dtype), (k, n))
                parts.append(xp.permute_dims(flat, (1, 0)))
        v = groups.push(xp, xp.concat(parts, axis=0), groups.counts.shape[0])  # (n_values, k)
        v_dot = xp.reshape(xp.permute_dims(v, (1, 0)), (*lead, values.shape[0]))
        return y, _with_tangent(y, v_dot)

    return set_rrule, set_frule


def _disjoint(rng: Any, n1: Any, n2: Any) -> tuple[Any, Any]:
    """Two arrays of distinct values with no value in common (finite differences need no ties:
    the convention tests cover them)."""
    v = rng.permutation(math.prod(n1) + math.prod(n2)) * 0.5 + 0.25
    return v[: math.prod(n1)].reshape(n1), v[math.prod(n1) :].reshape(n2)


def _binary_ex(options: tuple[dict[str, Any], dict[str, Any]]) -> Any:
    def ex(rng: Any) -> list[Any]:
        return [
            (_disjoint(rng, (2, 3), (4,)), options[0]),
            (_disjoint(rng, (5,), (3,)), options[1]),
        ]

    return ex


_SET_EXAMPLES = {
    "union1d": ({}, {}),
    # the intersection of disjoint arrays is empty: its ties are in the convention tests
    "intersect1d": ({"return_indices": True}, {"assume_unique": True}),
    "setdiff1d": ({}, {"assume_unique": True}),
    "setxor1d": ({}, {"assume_unique": True}),
}

for _name, _options in _SET_EXAMPLES.items():
    _r, _f = _binary_rules(_name)
    register_rrule(f"numpy:{_name}", examples=_binary_ex(_options), expect=_SET_JIT)(_r)
    register_frule(f"numpy:{_name}", examples=_binary_ex(_options), expect=_SET_JIT)(_f)
