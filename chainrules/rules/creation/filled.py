"""Rules for the arrays filled with one value: the standard's ``full`` and ``full_like`` (and
NumPy's signatures of them), with the zero-derivative ``zeros_like``, ``ones_like``,
``empty_like`` and the non-differentiable ``zeros``, ``ones``, ``empty``, ``eye`` (the standard's
and NumPy's) and NumPy's ``identity``.

* ``full(shape, fill_value)`` / ``full_like(x, fill_value)``: ``fill_value`` (a Python float or
  complex, or a floating array that broadcasts to ``shape`` where the library takes one) gets
  ``sum(y_bar)`` over the axes it was broadcast along. ``x`` of ``full_like`` only lends its
  shape: zero derivative (``ZeroTangent()`` for a floating ``x``).
* Zero derivative (``ZeroTangent()`` for floating arguments): ``zeros_like``, ``ones_like``,
  ``empty_like`` -- their floating ``x`` only lends a shape. Non-differentiable (integer arguments
  only): ``empty``, ``eye``, ``identity``, ``ones``, ``zeros``.

Which library computes a call without array arguments: :mod:`chainrules.rules._util.creation`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util.creation import *
from .._util.numpy_like import lift_tangent, numpy_non_differentiable

__all__: list[str] = []  # rules only


_FULL = signature("full", lambda shape, fill_value, *, dtype=None, out=None, **kwargs: None)
_NUMPY_FULL = signature(
    "full", lambda shape, fill_value, dtype=None, order="C", *, out=None, **kwargs: None
)
_FULL_LIKE = signature(
    "full_like", lambda x, /, fill_value, *, dtype=None, out=None, **kwargs: None
)
_NUMPY_FULL_LIKE = signature(
    "full_like",
    lambda a, fill_value, dtype=None, order="K", subok=True, shape=None, *, out=None, **kwargs: (
        None
    ),
)
# the standard's fill_value is a Python scalar; the examples give 0-d arrays
_STRICT_FILL = Expect(
    "array_api_strict", "the standard's fill_value is a Python scalar, not a 0-d array", kind="skip"
)
_C = "creation"  # the kind of the functions that make arrays from shapes and numbers


# --- full, full_like ------------------------------------------------------------------------------
def _full_rules(sig: Signature, numpy: bool, like: bool = False) -> Rules:
    """The rules of ``sig.name`` called with the signature ``sig`` (``numpy``: NumPy's);
    ``like``: ``full_like``, whose first argument lends its shape only."""
    name = sig.name

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        bound = sig.bind(args, kwargs)
        fill = bound["fill_value"]
        xp = call_namespace(args, kwargs, name)
        call = getattr(call_module(numpy, xp, args, kwargs, like), name)
        if not is_array_arg(fill):
            return xp, fill, call(*args, **kwargs)
        # an array fill_value: the library's array of zeros plus the fill broadcast to its shape,
        # one path for every library (PyTorch's full takes a number only, and a traced fill
        # cannot become one). Its dtype is the fill's unless given (or, for *_like, x's).
        if len(args) > 1:
            args = (args[0], 0, *args[2:])
        else:
            kwargs = {**kwargs, "fill_value": 0}
        if bound["dtype"] is None and not like:
            kwargs = {**kwargs, "dtype": fill.dtype}
        y0 = call(*args, **kwargs)
        fill_c = xp.astype(fill, y0.dtype)  # a new array
        if y0.ndim == 0:  # NumPy's 0-d sum would be a scalar
            return xp, fill, fill_c
        y = y0 + xp.broadcast_to(fill_c, tuple(y0.shape))
        return xp, fill, xp.astype(y, y0.dtype, copy=False)  # NumPy's sum is native-endian

    def full_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, fill, y = setup(args, kwargs)
        diff = ProjectTo(y, xp).differentiable
        pf = ProjectTo(fill, xp)
        # x of full_like lends its shape only: a zero derivative; the shape of full has none
        head = ZERO if like and args and has_tangent_space(args[0], xp) else NO
        rest = (NO,) * max(len(args) - 2, 0)

        @pullback(y, tangent_args(args, diff))
        def full_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not diff:
                return (NO,) * len(args)
            # fill_value's cotangent: summed over the axes it was broadcast along
            fill_bar = pf(y_bar) if pf.differentiable else NO
            return (head, fill_bar, *rest)[: len(args)]

        return y, full_pullback

    def full_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, fill, y = setup(args, kwargs)
        if not ProjectTo(y, xp).differentiable:
            return y, NO
        t = forced_tangent(tangents[2], fill, xp) if len(args) > 1 else None
        if t is None:
            return y, ZERO
        t, extra = lift_tangent(xp, t, fill, y.ndim, y.dtype, name)
        return y, xp.broadcast_to(t, tuple(t.shape[:extra]) + tuple(y.shape))

    return full_rrule, full_frule


register_pair(
    "full", _full_rules(_FULL, False), lambda rng: _full_examples(rng), _STRICT_FILL, kind=_C
)
register_pair(
    "numpy:full", _full_rules(_NUMPY_FULL, True), lambda rng: _numpy_full_examples(rng), kind=_C
)
register_pair(
    "full_like",
    _full_rules(_FULL_LIKE, False, like=True),
    lambda rng: _full_like_examples(rng),
    _STRICT_FILL,
    kind=_C,  # not "like" (a constant): its fill_value carries a derivative
)
register_pair(
    "numpy:full_like",
    _full_rules(_NUMPY_FULL_LIKE, True, like=True),
    lambda rng: _full_like_examples(rng),
    kind=_C,  # not "like" (a constant): its fill_value carries a derivative
)


# --- examples -------------------------------------------------------------------------------------
def _full_examples(rng: Any) -> list[Any]:
    return [
        (((2, 3), np.asarray(rng.standard_normal())), {}),
        (((), np.asarray(rng.standard_normal())), {}),
        (((0, 3), np.asarray(rng.standard_normal())), {}),
        (((4,), np.asarray(rng.standard_normal() + 1j)), {}),
    ]


def _numpy_full_examples(rng: Any) -> list[Any]:
    return [*_full_examples(rng), (((2, 3), rng.standard_normal(3)), {})]  # a broadcast fill


def _full_like_examples(rng: Any) -> list[Any]:
    x = rng.standard_normal((2, 3))
    return [
        ((x, np.asarray(rng.standard_normal())), {}),
        ((np.arange(4), np.asarray(1.5)), {}),  # an integer x: an integer output
        ((np.zeros(0), np.asarray(rng.standard_normal())), {}),
    ]


def _like_examples(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((2, 3)),), {}),
        ((rng.standard_normal(()),), {}),
        ((np.zeros(0),), {}),
    ]


def _empty_like_examples(rng: Any) -> list[Any]:
    # empty's values are arbitrary: only zero-size outputs can be compared with the function's
    return [((np.zeros((2, 0)),), {}), ((np.zeros(0),), {})]


def _shape_examples(rng: Any) -> list[Any]:
    return [(((2, 3),), {}), ((4,), {}), (((0,),), {})]


def _empty_examples(rng: Any) -> list[Any]:
    return [(((2, 0),), {}), ((0,), {})]


def _eye_examples(rng: Any) -> list[Any]:
    return [((3,), {}), ((2, 4), {"k": 1})]


# --- zero derivative, non-differentiable ------------------------------------------------------
# (an integer x: zero_derivative's frule says ZeroTangent() for its integer output too, so the
# examples keep to floating ones)
# (kinds: "creation" -- in traced code, arrays made from no traced array are created arrays --
# and "like" -- created likewise from an untraced array, a constant of a traced one)
zero_derivative("zeros_like", "ones_like", examples=_like_examples, kind="like")
zero_derivative("empty_like", examples=_empty_like_examples, kind="like")
non_differentiable("zeros", "ones", examples=_shape_examples, kind=_C)
non_differentiable("empty", examples=_empty_examples, kind=_C)
non_differentiable("eye", examples=_eye_examples, kind=_C)
# NumPy's signatures (a positional dtype, order=...) computed by NumPy's own functions
numpy_non_differentiable("zeros", "ones", examples=_shape_examples, kind=_C)
numpy_non_differentiable("empty", examples=_empty_examples, kind=_C)
numpy_non_differentiable("eye", examples=_eye_examples, kind=_C)
numpy_non_differentiable("zeros_like", "ones_like", zero=True, examples=_like_examples, kind="like")
numpy_non_differentiable("empty_like", zero=True, examples=_empty_like_examples, kind="like")
numpy_non_differentiable("identity", examples=fixed_examples(((3,), {})))
