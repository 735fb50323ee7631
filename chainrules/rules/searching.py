"""Rules for the standard's searching functions (``searching_functions``): ``where`` and, declared
non-differentiable, ``argmax``, ``argmin``, ``nonzero``, ``searchsorted`` and ``count_nonzero``;
with NumPy's ``where`` (``"numpy:where"``: the three-argument form differentiable, the
one-argument form -- ``nonzero`` -- not).

Conventions
-----------
* ``where(condition, x1, x2)`` selects: ``x1_bar = where(condition, y_bar, 0)`` and
  ``x2_bar = where(condition, 0, y_bar)``, each summed over the axes its argument was broadcast
  along (``ProjectTo``). ``condition`` is boolean: ``NoTangent()``. ``x1``/``x2`` may be Python
  scalars (standard 2024.12): their cotangent is a 0-d array of the sum. The pullback is built
  from ``where``, ``zeros_like`` and ``sum`` only (each with rules): it is differentiable again.
* Index finders (``argmax``, ``argmin``, ``nonzero``, ``searchsorted``) and ``count_nonzero``
  return integers: no tangent space, ``NoTangent()`` for every argument. Their derivative with
  respect to the values searched is zero almost everywhere and undefined at ties; an engine stops
  differentiating there instead of raising ``NoRuleError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.prelude import *
from ._util.numpy_like import lift_tangent, numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only


def _where_examples(rng: Any) -> list[Any]:
    def r(*s: int) -> Any:
        return rng.standard_normal(s)

    c2 = rng.random((2, 3)) > 0.5
    return [
        ((c2, r(2, 3), r(2, 3)), {}),
        ((c2, r(3), r(2, 1)), {}),  # broadcasting all three
        ((rng.random(3) > 0.5, r(2, 3), r()), {}),  # a 0-d x2
        ((c2, 0.5, r(2, 3)), {}),  # a Python scalar x1
        ((c2, r(2, 3), -1.5), {}),  # a Python scalar x2
        ((np.asarray(True), r(), r()), {}),  # 0-d
        ((np.zeros((0, 3), dtype=bool), r(0, 3), r(3)), {}),  # zero-size
        ((c2, r(2, 3) + 1j * r(2, 3), r(2, 3) + 1j * r(2, 3)), {}),  # complex
        ((rng.random((2, 3, 4)) > 0.5, r(2, 3, 4), r(4)), {}),  # batched
    ]


# out= is bound only to be refused with the rules' message; np.where has no keywords
_WHERE = signature("where", lambda condition, /, *x1_x2, out=None: None)


def _where_bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
    if len(args) == 3 and not kwargs:  # the ordinary call: nothing to bind
        return args[0], args[1], args[2]
    x1_x2 = _WHERE.bind(args, kwargs)["x1_x2"]
    if len(x1_x2) != 2:
        raise TypeError(f"where takes 3 positional arguments (condition, x1, x2), got {len(args)}")
    return (args[0], *x1_x2)


def _where_pullback(xp: Any, y: Any, cond: Any, x1: Any, x2: Any) -> Any:
    """The named pullback of ``y = where(cond, x1, x2)``: each branch takes the cotangent where
    it was selected (``ProjectTo`` sums the axes it was broadcast along)."""
    p1, p2 = ProjectTo(x1, xp), ProjectTo(x2, xp)

    @pullback(y, (cond, x1, x2))
    def where_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        # a Python 0.0 keeps y_bar's dtype and saves a zeros_like pass over the output
        b1 = p1(xp.where(cond, y_bar, 0.0)) if p1.differentiable else NO
        b2 = p2(xp.where(cond, 0.0, y_bar)) if p2.differentiable else NO
        return NO, b1, b2

    return where_pullback


def _where_tangent(xp: Any, y: Any, tangents: Any, cond: Any, x1: Any, x2: Any) -> Any:
    """``where(cond, x1_dot, x2_dot)``, each tangent lifted to the output's rank and dtype."""
    if not ProjectTo(y, xp).differentiable:
        return NO
    t = tangents_in("where", (tangents[0], *tangents[2:4]), (x1, x2))  # cond has no tangent
    if t is None:
        return ZERO
    parts = [
        None
        if isinstance(d, AbstractZero) or not ProjectTo(x, xp).differentiable
        else lift_tangent(xp, d, x, y.ndim, y.dtype, "where")[0]
        for d, x in zip(t, (x1, x2))
    ]
    if parts[0] is None and parts[1] is None:
        return ZERO
    a, b = (p if p is not None else xp.zeros((), dtype=y.dtype) for p in parts)
    lead = next(tuple(p.shape[: t.extra]) for p in parts if p is not None)
    return xp.broadcast_to(xp.where(cond, a, b), lead + tuple(y.shape))


@register_rrule("where", examples=_where_examples)
def where_rrule(*args: Any, **kwargs: Any) -> Any:
    cond, x1, x2 = _where_bind(args, kwargs)
    xp = namespace_of(cond, x1, x2, fname="where")
    y = xp.where(cond, x1, x2)
    return y, _where_pullback(xp, y, cond, x1, x2)


@register_frule("where", examples=_where_examples)
def where_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    cond, x1, x2 = _where_bind(args, kwargs)
    xp = namespace_of(cond, x1, x2, fname="where")
    y = xp.where(cond, x1, x2)
    return y, _where_tangent(xp, y, tangents, cond, x1, x2)


def _numpy_where(xp: Any, cond: Any, x1: Any, x2: Any) -> Any:
    arr = next((a for a in (cond, x1, x2) if is_array(a)), cond)
    return numpy_like_module(arr, xp).where(cond, x1, x2)


@register_rrule("numpy:where", examples=_where_examples)
def numpy_where_rrule(*args: Any, **kwargs: Any) -> Any:
    if len(args) == 1 and not kwargs:  # np.where(condition): nonzero
        return _nonzero_form(args[0])
    cond, x1, x2 = _where_bind(args, kwargs)
    xp = namespace_of(cond, x1, x2, fname="where")
    y = _numpy_where(xp, cond, x1, x2)
    return y, _where_pullback(xp, y, cond, x1, x2)


@register_frule("numpy:where", examples=_where_examples)
def numpy_where_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    if len(args) == 1 and not kwargs:
        return _nonzero_form(args[0])[0], NO
    cond, x1, x2 = _where_bind(args, kwargs)
    xp = namespace_of(cond, x1, x2, fname="where")
    y = _numpy_where(xp, cond, x1, x2)
    return y, _where_tangent(xp, y, tangents, cond, x1, x2)


def _nonzero_form(cond: Any) -> tuple[Any, Any]:
    """``np.where(condition)``: ``nonzero``, no tangent space."""
    out = numpy_like_module(cond, namespace_of(cond)).where(cond)

    # None stands for the condition: an argument without a tangent space (NoTangent())
    @pullback(out, (None,), name="where")
    def where_pullback(y_bar: Any) -> Any:
        return NO

    return out, where_pullback


# --- non-differentiable ------------------------------------------------------------------------
def _argmax_examples(rng: Any) -> list[Any]:
    m = rng.permutation(12).reshape(3, 4) * 1.0
    return [((m,), {}), ((m,), {"axis": 1}), ((m,), {"axis": 0, "keepdims": True})]


def _nonzero_examples(rng: Any) -> list[Any]:
    return [((rng.standard_normal((3, 4)) > 0,), {}), ((rng.integers(0, 2, 5) * 1.0,), {})]


def _searchsorted_examples(rng: Any) -> list[Any]:
    s = rng.standard_normal(6)
    s.sort()
    return [
        ((s, rng.standard_normal(4)), {}),
        ((s, rng.standard_normal((2, 3))), {"side": "right"}),
    ]


def _count_nonzero_examples(rng: Any) -> list[Any]:
    m = rng.integers(0, 2, (3, 4)) * rng.standard_normal((3, 4))
    return [((m,), {}), ((m,), {"axis": 1}), ((m,), {"axis": (0, 1), "keepdims": True})]


non_differentiable("argmax", "argmin", examples=_argmax_examples)
non_differentiable(
    "nonzero",
    examples=_nonzero_examples,
    expect=Expect("jit", "nonzero's output shape is its data's: jax.jit refuses it", kind="skip"),
)
non_differentiable("searchsorted", examples=_searchsorted_examples)
non_differentiable("count_nonzero", examples=_count_nonzero_examples)


# NumPy's index finders
def _argwhere_ex(rng: Any) -> list[Any]:
    return [((rng.standard_normal((3, 4)) > 0,), {}), ((rng.integers(0, 2, 5) * 1.0,), {})]


def _nanarg_ex(rng: Any) -> list[Any]:
    m = (rng.permutation(12) + 0.5).reshape(3, 4)
    m[0, 1] = m[2, 2] = np.nan
    return [((m,), {}), ((m,), {"axis": 1}), ((m, 0), {"keepdims": True})]


_SHAPE_JIT = Expect(
    "jit", "its output shape is its data's: jax.jit refuses it (as for nonzero)", kind="skip"
)
numpy_non_differentiable("argwhere", "flatnonzero", examples=_argwhere_ex, expect=_SHAPE_JIT)
numpy_non_differentiable("nanargmax", "nanargmin", examples=_nanarg_ex)
