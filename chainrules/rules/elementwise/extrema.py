"""Rules for the elementwise extrema: the standard's ``maximum``, ``minimum`` and ``clip``, and
NumPy's ``fmax`` and ``fmin``.

Ties give half of the cotangent to each tied argument, as JAX does (``clip`` at its bounds too);
``fmax``/``fmin`` ignore a NaN operand: all of the cotangent goes to the other one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat
import numpy as np

from ...core import scalar_kind
from ...core.prelude import *
from .._util.elementwise import TORCH_NO_SCALAR, R

__all__: list[str] = []  # rules only


def _tie_weight(xp: Any, a: Any, b: Any, out: Any, greater: bool) -> Any:
    """1 where ``a`` wins, 1/2 where ``a`` and ``b`` tie, 0 where ``b`` wins (out's dtype)."""
    win = (a > b) if greater else (a < b)
    return xp.astype(win, out.dtype) + 0.5 * xp.astype(a == b, out.dtype)


def _nan_aware(xp: Any, w: Any, other: Any) -> Any:
    """``fmax``/``fmin`` ignore a NaN operand: all of the cotangent goes to the other one."""
    return xp.where(xp.isnan(other), xp.ones_like(w), w)


def _extremum_partials(greater: bool, nan_aware: bool) -> tuple[Callable[..., Any], ...]:
    """``d out / d x1`` and ``d out / d x2`` of ``maximum`` (``greater``) or ``minimum``: the tie
    weights; ``nan_aware`` (``fmax``, ``fmin``): all of it to the other operand of a NaN."""

    def weight(xp: Any, out: Any, a: Any, b: Any) -> Any:  # d out / d a
        w = _tie_weight(xp, a, b, out, greater)
        return _nan_aware(xp, w, b) if nan_aware else w

    return (
        lambda xp, out, x1, x2: weight(xp, out, x1, x2),
        lambda xp, out, x1, x2: weight(xp, out, x2, x1),
    )


for _name, _greater, _nan, _meta in (
    ("maximum", True, False, {"expect": TORCH_NO_SCALAR}),
    ("minimum", False, False, {"expect": TORCH_NO_SCALAR}),
    ("numpy:fmax", True, True, {}),
    ("numpy:fmin", False, True, {}),
):
    scalar_rule(_name, *_extremum_partials(_greater, _nan), domain=(R, R), **_meta)


# --- clip: min(max(x, low), high), ties split like maximum/minimum ----------------------------
# the standard's clip(x, /, min=None, max=None) and NumPy's clip(a, a_min, a_max, out, *, min,
# max): the bounds are the second and third positional arguments, or min=/a_min=, max=/a_max=
_CLIP = signature(
    "clip", lambda x, /, min=None, max=None, out=None, *, a_min=None, a_max=None, **options: None
)


def _clip_weights(xp: Any, x: Any, low: Any, high: Any, out: Any) -> tuple[Any, Any, Any]:
    """Weights of x, low and high in d clip: they sum to 1 everywhere."""
    one = xp.ones_like(out)
    if low is None:
        m, wx, wl = x, one, None
    else:
        m = xp.maximum(x, low)
        wx = _tie_weight(xp, x, low, out, True)
        wl = one - wx
    if high is None:
        return wx, wl, None
    wm = _tie_weight(xp, m, high, out, False)
    return wx * wm, (None if wl is None else wl * wm), one - wm


def _clip_bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    """``(x, low, high, rest)``: the bounds by either spelling (the standard's ``min``/``max``,
    NumPy's ``a_min``/``a_max``) and the other keywords given (``out``, NumPy's options)."""
    a = _CLIP.bind(args, kwargs)
    low = a["min"] if a["min"] is not None else a["a_min"]
    high = a["max"] if a["max"] is not None else a["a_max"]
    rest = {**({"out": a["out"]} if a["out"] is not None else {}), **a["options"]}
    return a["x"], low, high, rest


def _clip(xp: Any, args: tuple[Any, ...], kwargs: dict[str, Any], bound: Any) -> Any:
    """The primal: NumPy's own ``clip`` for NumPy arrays, whose result type follows NumPy's
    promotion (an integer ``x`` clipped to ``2.5`` is a float array, as NumPy and JAX give;
    array-api-compat's keeps ``x``'s dtype), the namespace's otherwise. ``bound``:
    :func:`_clip_bind`'s."""
    if array_api_compat.is_numpy_namespace(xp):
        # the bounds by NumPy's own positions: NumPy refuses the standard's clip(x, min)
        # ("missing a_max"), where the standard takes min and max by position or keyword
        x, low, high, rest = bound
        return np.clip(x, low, high, **rest)
    return xp.clip(*args, **kwargs)


@register_rrule(
    "clip",
    domain=(R, (-1.0, -0.2), (0.2, 1.0)),
    expect=Expect("torch", "torch.clip takes no (Tensor, Tensor, float) mix", "skip", "scalar"),
)
def clip_rrule(*args: Any, **kwargs: Any) -> Any:
    bound = _clip_bind(args, kwargs)
    x, low, high, _ = bound
    xp = namespace_of(x, low, high, fname="clip")
    out = _clip(xp, args, kwargs, bound)
    projs = [ProjectTo(a, xp) if a is not None else None for a in args]

    @pullback(out, args)
    def clip_pullback(y_bar: Any) -> tuple[Any, ...]:
        weights = _clip_weights(xp, x, low, high, out)
        return tuple(
            NO if p is None or not p.differentiable or w is None else p(y_bar * w)
            for p, w in zip(projs, weights)
        )

    return out, clip_pullback


@register_frule("clip", domain=(R, (-1.0, -0.2), (0.2, 1.0)))
def clip_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    bound = _clip_bind(args, kwargs)
    x, low, high, _ = bound
    xp = namespace_of(x, low, high, fname="clip")
    out = _clip(xp, args, kwargs, bound)
    ts = tangents_in("clip", tangents, args)
    if ts is None:
        return out, ZERO
    weights = _clip_weights(xp, x, low, high, out)
    acc: Any = None
    for a, t, w in zip(args, ts, weights):
        if a is None or w is None or isinstance(t, AbstractZero) or scalar_kind(a, xp) in "ib":
            continue
        nd = getattr(a, "ndim", 0)
        if ts.extra and nd < out.ndim:  # the primal axes right-aligned with the output's
            s = tuple(t.shape)
            t = xp.reshape(t, s[: ts.extra] + (1,) * (out.ndim - nd) + s[ts.extra :])
        acc = w * t if acc is None else acc + w * t
    return out, finish_tangent(xp, acc, out)
