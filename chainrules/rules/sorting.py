"""Rules for the standard's sorting functions (``sorting_functions``): ``sort`` and, declared
non-differentiable, ``argsort``; with NumPy's signatures (``"numpy:sort"``: ``axis=-1`` by
default, ``axis=None`` sorts the flattened array, ``kind=``; ``"numpy:argsort"``).

Conventions
-----------
* ``sort`` is a permutation of its input: ``y = take_along_axis(x, p, axis)`` with ``p`` the
  *stable* sorting permutation (``argsort(x, stable=True, descending=...)``), computed on the
  device. The pushforward gathers the tangent with ``p``; the pullback gathers the cotangent with
  the inverse permutation ``argsort(p)`` -- a scatter through ``p`` written as a gather, with no
  host reads and no accumulation (a permutation hits each place once).
* Ties: tied elements are routed by the stable order, whatever ``stable=``/``kind=`` the primal
  was called with (the tied values are equal, so the primal is the same): the ``k``-th smallest
  of equal elements, in input order, receives the ``k``-th of their cotangents. This is the
  order JAX's ``sort`` uses for its derivative, and it needs no count of the ties.
* The pullback is ``take_along_axis`` (and ``reshape`` for NumPy's ``axis=None``), both with
  rules of their own: it is differentiable again.
* ``argsort`` returns indices: no tangent space, ``NoTangent()`` for every argument.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..core.namespaces import namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import _reject_out, non_differentiable
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._util import cotangent, in_dtype, tangent_extra
from .searching import numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()
_NP_ORDER = ("axis", "kind", "order")


class _Sort:
    """A ``sort`` call, normalised: the array (flattened for NumPy's ``axis=None``), the axis
    sorted along, ``descending``, and how to compute the primal."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any], numpy: bool) -> None:
        if not args:
            raise TypeError("sort needs an array argument")
        x, *pos = args
        _reject_out("sort", kwargs)
        if not numpy and pos:
            raise TypeError(
                "sort takes 1 positional argument in its rule (the standard's parameters after "
                f"x are keyword-only), got {len(args)}"
            )
        if len(pos) > len(_NP_ORDER):
            raise TypeError(f"sort takes at most 4 positional arguments, got {len(args)}")
        params = dict(zip(_NP_ORDER, pos))
        for k, v in kwargs.items():
            if k in params:
                raise TypeError(f"sort got multiple values for argument {k!r}")
            params[k] = v
        if params.get("order") is not None:
            raise TypeError("sort: the rule does not support order= (structured arrays)")
        self.xp = xp = namespace_of(x, fname="sort")
        self.x, self.args, self.kwargs, self.numpy = x, args, kwargs, numpy
        self.nargs = len(args)
        self.descending = bool(params.get("descending", False))
        axis = params.get("axis", -1)
        if axis is None:
            if not numpy:
                raise TypeError("sort: axis must be an int")
            self.work = xp.reshape(x, (-1,)) if x.ndim != 1 else x
            self.axis = 0
        else:
            nd = x.ndim
            a = operator.index(axis)
            if not -nd <= a < max(nd, 1) or nd == 0:
                raise ValueError(f"sort: axis {a} is out of bounds for an array of rank {nd}")
            self.work, self.axis = x, a % nd

    def primal(self) -> Any:
        if self.numpy:
            return numpy_like_module(self.x, self.xp).sort(*self.args, **self.kwargs)
        return self.xp.sort(self.x, **self.kwargs)

    def permutation(self) -> Any:
        """The stable sorting permutation of the working array (on the device)."""
        return self.xp.argsort(self.work, axis=self.axis, descending=self.descending, stable=True)


def _sort_rules(numpy: bool) -> tuple[Any, Any]:
    def sort_rrule(*args: Any, **kwargs: Any) -> Any:
        c = _Sort(args, kwargs, numpy)
        xp, x = c.xp, c.x
        y = c.primal()
        project = ProjectTo(x, xp)
        rest = (_NO,) * (c.nargs - 1)

        def sort_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, AbstractZero):
                return (_NO, _ZERO if project.differentiable else _NO, *rest)
            g = cotangent("sort", y_bar, y)
            if not project.differentiable:
                return (_NO, _NO, *rest)
            inverse = xp.argsort(c.permutation(), axis=c.axis)
            g_work = xp.reshape(g, tuple(c.work.shape)) if g.ndim != c.work.ndim else g
            x_bar = xp.take_along_axis(g_work, inverse, axis=c.axis)
            if c.work is not x:
                x_bar = xp.reshape(x_bar, tuple(x.shape))
            return (_NO, project(x_bar), *rest)

        return y, sort_pullback

    def sort_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        c = _Sort(args, kwargs, numpy)
        xp, x = c.xp, c.x
        y = c.primal()
        t = unthunk(tangents[1])
        if isinstance(t, AbstractZero) or not ProjectTo(x, xp).differentiable:
            return y, (_ZERO if ProjectTo(x, xp).differentiable else _NO)
        extra = tangent_extra("sort", t, x)
        lead = tuple(t.shape[:extra])
        if c.work is not x:  # flatten the primal axes, keep the chunk axes
            t = xp.reshape(t, (*lead, -1))
        perm = c.permutation()
        if extra:
            perm = xp.broadcast_to(perm, lead + tuple(perm.shape))
        y_dot = xp.take_along_axis(t, perm, axis=c.axis + extra)
        if tuple(y_dot.shape[extra:]) != tuple(y.shape):  # a 0-d x under NumPy's axis=None
            y_dot = xp.reshape(y_dot, lead + tuple(y.shape))
        return y, in_dtype(xp, y_dot, y.dtype)

    return sort_rrule, sort_frule


# --- examples ----------------------------------------------------------------------------------
def _distinct(rng: Any, *shape: int) -> Any:
    """Distinct values (finite differences cannot judge ties; the convention tests do)."""
    n = int(np.prod(shape))
    return (rng.permutation(n) + rng.uniform(0.1, 0.4, n)).reshape(shape) * 1.0


def _sort_examples(rng: Any) -> list[Any]:
    # descending= is not in the examples: NumPy's np.sort (what the device checks call) lacks
    # it; the test suite covers it on the other backends
    m = _distinct(rng, 3, 4)
    return [
        ((_distinct(rng, 6),), {}),
        ((m,), {}),
        ((m,), {"axis": 0}),
        ((m,), {"axis": 0, "stable": False}),
        ((_distinct(rng, 2, 3, 4),), {"axis": 1}),
        ((np.zeros((0, 3)),), {"axis": 0}),
        ((np.zeros((2, 0)),), {}),
    ]


def _numpy_sort_examples(rng: Any) -> list[Any]:
    # kind= only in the test suite: jax.numpy's sort rejects it
    m = _distinct(rng, 3, 4)
    return [
        ((_distinct(rng, 6),), {}),
        ((m,), {}),
        ((m, 0), {}),
        ((m,), {"axis": None}),
        ((_distinct(rng, 2, 3, 2),), {"axis": None}),
        ((m,), {"stable": True}),
        ((np.asarray(1.5),), {"axis": None}),
        ((np.zeros((0, 3)),), {"axis": 0}),
    ]


def _argsort_examples(rng: Any) -> list[Any]:
    m = np.round(rng.standard_normal((3, 4)), 0)  # ties
    return [((m,), {}), ((m,), {"axis": 0}), ((m,), {"axis": -1, "stable": True})]


def _numpy_argsort_examples(rng: Any) -> list[Any]:
    m = _distinct(rng, 3, 4)  # NumPy's default kind is not stable: no ties here
    return [((m,), {}), ((m, 0), {}), ((m,), {"axis": None})]


_r, _f = _sort_rules(numpy=False)
register_rrule("sort", examples=_sort_examples)(_r)
register_frule("sort", examples=_sort_examples)(_f)
_r, _f = _sort_rules(numpy=True)
register_rrule("numpy:sort", examples=_numpy_sort_examples)(_r)
register_frule("numpy:sort", examples=_numpy_sort_examples)(_f)

non_differentiable("argsort", examples=_argsort_examples)
numpy_non_differentiable("argsort", examples=_numpy_argsort_examples)
