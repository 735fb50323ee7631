"""Variance and standard deviation: the standard's ``var`` and ``std`` (and NumPy's names for
them), and NumPy's ``nanvar`` and ``nanstd``.

Maths notes
-----------
* ``var``/``std``: ``d var = 2 Re(conj(x - mean) dx) / (N - correction)``; ``std``'s is that over
  ``2 std``, and 0 where ``std`` is 0 (a constant slice: the minimum-norm subgradient). NumPy's
  ``ddof`` is the standard's ``correction``.
* ``nanvar``, ``nanstd``: the same over the non-NaN values (their mean and count); 0 at the NaNs.

Registration under both names (the standard's and ``"numpy:NAME"``): see the package docstring.
"""

from __future__ import annotations

from typing import Any

from ...core.prelude import *
from .._util import (
    chunk_axes,
    count_true,
    expand_reduced,
    in_dtype,
    is_complex,
    reduced_size,
    safe,
)
from .._util.numpy_like import numpy_like_module
from .._util.statistical import *

__all__: list[str] = []  # rules only


# fmt: off
_VAR, _STD = (
    signatures(
        name,
        lambda x, /, *, axis=None, correction=0.0, keepdims=False: None,
        lambda x, /, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None: None,
    )
    for name in ("var", "std")
)
# fmt: on


# --- var, std -----------------------------------------------------------------------------------
def _spread_direction(xp: Any, x: Any, y: Any, axes: Any, kw: dict[str, Any], std: bool) -> Any:
    """``d y / d x`` as a Re-linear form ``Re(conj(g) dx)``: ``g = 2 (x - mean) / dof`` for
    ``var``, and that over ``2 std`` for ``std`` (0 where ``std = 0``, a constant slice)."""
    dof = reduced_size(x.shape, axes) - float(kw.get("correction", 0.0))
    dof = dof if dof != 0 else 1.0
    d = x - xp.mean(x, axis=kw.get("axis"), keepdims=True)
    if std:
        return d * expand_reduced(xp, 1 / (dof * safe(xp, y)), axes, kw["keepdims"])
    return d * (2.0 / dof)


def _spread_ex(rng: Any) -> list[Any]:
    x2 = rng.standard_normal((3, 4))
    return [
        ((rng.standard_normal(6),), {}),
        ((x2,), {"axis": 1}),
        ((x2,), {"axis": 0, "keepdims": True, "correction": 1}),
        ((rng.standard_normal((2, 3, 4)),), {"axis": (1, 2), "correction": 1.5}),
    ]


def _spread_rules(name: str, sig: Signature, numpy: bool) -> Rules:
    std = name == "std"

    def spread_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw = bind(sig, numpy, args, kwargs)
        y = getattr(xp, name)(x, **kw)
        project = ProjectTo(x, xp)
        nos = consts(args)

        @pullback(y, (x, *nos), name=name)
        def spread_pullback(y_bar: Any) -> tuple[Any, ...]:
            g = _spread_direction(xp, x, y, axes, kw, std)
            return (project(g * expand_reduced(xp, y_bar, axes, kw["keepdims"])), *nos)

        return y, spread_pullback

    def spread_dot(xp: Any, x: Any, y: Any, ts: Any, axes: Any, kw: dict[str, Any]) -> Any:
        g, t = _spread_direction(xp, x, y, axes, kw, std), ts[0]
        term = xp.real(xp.conj(g) * t) if is_complex(xp, x) else g * t
        y_dot = xp.sum(term, axis=chunk_axes(axes, ts.extra), keepdims=kw["keepdims"])
        return in_dtype(xp, y_dot, y.dtype)

    return spread_rrule, reduction_frule(name, sig, numpy, spread_dot)


register_both("var", ("var",), _spread_rules, _VAR, _spread_ex)
register_both(
    "std",
    ("std",),
    _spread_rules,
    _STD,
    _spread_ex,
    expect=Expect("torch", "array_api_compat.torch's std refuses a float correction", "skip", "#3"),
)


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

    sig = signature(name, _nan_spread_template, ("where", "mean"))
    std = name == "nanstd"

    def parts(args: Any, kwargs: Any) -> tuple[Any, ...]:
        xp, x, axes, kw = bind(sig, True, args, kwargs)
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
        project, nos = ProjectTo(x, xp), consts(args)

        @pullback(y, (x, *nos), name=name)
        def nan_spread_pullback(y_bar: Any) -> tuple[Any, ...]:
            g = direction(xp, x, y, axes, kw, ddof)
            return (project(g * expand_reduced(xp, y_bar, axes, kw["keepdims"])), *nos)

        return y, nan_spread_pullback

    def nan_spread_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:

        xp, x, axes, kw, ddof, y = parts(args, kwargs)
        ts = tangent(name, tangents, args, ProjectTo(x, xp))
        if ts is None:
            return y, ZERO
        g = direction(xp, x, y, axes, kw, ddof)
        t = xp.where(xp.isnan(x), xp.zeros_like(ts[0]), ts[0])
        term = xp.real(xp.conj(g) * t) if is_complex(xp, x) else g * t  # a Re-linear form
        y_dot = xp.sum(term, axis=chunk_axes(axes, ts.extra), keepdims=kw["keepdims"])
        return y, in_dtype(xp, y_dot, y.dtype)

    return nan_spread_rrule, nan_spread_frule


def _nan_spread_ex(rng: Any) -> list[Any]:
    m = nan_entries(rng, 3, 5)
    return [
        ((nan_entries(rng, 7),), {}),
        ((m,), {"axis": 1, "ddof": 1}),
        ((m, 0), {"keepdims": True}),
        ((nan_entries(rng, 2, 3, 4),), {"axis": (0, 2)}),
    ]


for _name in ("nanvar", "nanstd"):
    _r, _f = _nan_spread_rules(_name)
    register_rrule(f"numpy:{_name}", examples=_nan_spread_ex)(_r)
    register_frule(f"numpy:{_name}", examples=_nan_spread_ex)(_f)
