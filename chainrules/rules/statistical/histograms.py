"""Counting and binning: NumPy's ``bincount`` (differentiable in its weights) and, declared
non-differentiable (or with a zero derivative), ``histogram``, ``histogram2d``, ``histogramdd``,
``histogram_bin_edges`` and ``digitize``.

Maths notes
-----------
* ``bincount(x, weights)`` is a scatter-add of the weights into the bins ``x``: the pullback
  gathers the cotangent at ``x``, the pushforward scatters the tangent.
* The counts are piecewise constant in the data: zero derivative. The bin edges are constant
  only for a given ``range=`` (or explicit edges); edges taken from the data's min and max are
  not differentiated (a documented limit).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import in_dtype
from .._util.numpy_like import numpy_like_module

__all__: list[str] = []  # rules only


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
    seen = tuple(w if i == 1 and w_positional else NO for i in range(len(args)))

    @pullback(y, seen)
    def bincount_pullback(y_bar: Any) -> Any:
        out: list[Any] = [NO] * len(args)
        if project_w is not None and project_w.differentiable:
            out[1] = project_w(xp.take(y_bar, xp.reshape(x, (-1,)), axis=0))  # the gather
        return tuple(out) if len(out) > 1 else out[0]

    return y, bincount_pullback


@register_frule("numpy:bincount", examples=lambda rng: _bincount_ex(rng), expect=_BINCOUNT_JIT)
def bincount_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    from ...core import scatter_add

    xp, x, w, y = _bincount_parts(args, kwargs)
    if w is None or len(args) < 2 or not ProjectTo(w, xp).differentiable:
        return y, NO if w is None else ZERO
    ts = tangents_in("bincount", tangents, args)
    if ts is None or isinstance(ts[1], AbstractZero):
        return y, ZERO
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
    from .._util.numpy_like import numpy_non_differentiable

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
    zero = ZERO if ProjectTo(args[0], xp).differentiable else NO

    @pullback(y, args)
    def histogramdd_pullback(y_bar: Any) -> tuple[Any, ...]:
        return (zero, *(NO,) * (len(args) - 1))

    return y, histogramdd_pullback


@register_frule("numpy:histogramdd", examples=_histogramdd_ex)
def histogramdd_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    y, _ = histogramdd_rrule(*args, **kwargs)
    return y, ZERO
