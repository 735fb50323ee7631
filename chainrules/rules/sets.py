"""Rules for the standard's set functions (``set_functions``): ``unique_all``,
``unique_counts``, ``unique_inverse`` and ``unique_values``.

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
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.namespaces import device_of, namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import _reject_out, check_cotangent, non_differentiable
from ..core.scatter import scatter_add
from ..core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent, unthunk
from ._util import in_dtype, tangent_extra

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()


class _Unique:
    """A ``unique_*`` call: its primal, and the flat inverse indices and counts of the values."""

    def __init__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        _reject_out(name, kwargs)
        if len(args) != 1 or kwargs:
            raise TypeError(f"{name} takes exactly one argument (the array), got {len(args)}")
        (x,) = args
        self.name = name
        self.xp = xp = namespace_of(x, fname=name)
        self.x = x
        self.y = getattr(xp, name)(x)
        self.values = self.y if name == "unique_values" else self.y[0]

    def inverse_and_counts(self) -> tuple[Any, Any]:
        """Flat inverse indices (where each element of ``x`` went) and the counts, as the
        values' real dtype; from the primal when it has them, else from ``unique_inverse`` and a
        ``scatter_add`` of ones (no host reads)."""
        xp, y = self.xp, self.y
        inv = getattr(y, "inverse_indices", None)
        if inv is None:
            inv = xp.unique_inverse(self.x).inverse_indices
        inv = xp.reshape(inv, (-1,))
        counts = getattr(y, "counts", None)
        real = xp.real(self.values).dtype if _is_complex(xp, self.values) else self.values.dtype
        if counts is None:
            n = self.values.shape[0]
            zeros = xp.zeros((n,), dtype=real, device=device_of(self.values))
            counts = scatter_add(zeros, inv, xp.ones(inv.shape, dtype=real, device=device_of(inv)))
        else:
            counts = xp.astype(counts, real)
        return inv, counts


def _is_complex(xp: Any, v: Any) -> bool:
    return bool(xp.isdtype(v.dtype, "complex floating"))


def _values_cotangent(u: _Unique, y_bar: Any) -> Any:
    """The cotangent of the values output in ``y_bar`` (a Tangent, a tuple or an array)."""
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, AbstractZero):
        return y_bar
    if u.name != "unique_values":
        parts = y_bar.elements() if isinstance(y_bar, Tangent) else tuple(y_bar)
        if len(parts) != len(u.y):
            raise ValueError(
                f"{u.name}: cotangent has {len(parts)} parts for an output of {len(u.y)}"
            )
        y_bar = unthunk(parts[0])
        if isinstance(y_bar, AbstractZero):
            return y_bar
    check_cotangent(u.name, y_bar, u.values)
    return y_bar


def _unique_rules(name: str) -> tuple[Any, Any]:
    def unique_rrule(*args: Any, **kwargs: Any) -> Any:
        u = _Unique(name, args, kwargs)
        xp, x = u.xp, u.x
        project = ProjectTo(x, xp)

        def unique_pullback(y_bar: Any) -> tuple[Any, Any]:
            g = _values_cotangent(u, y_bar)
            if not project.differentiable:
                return _NO, _NO
            if isinstance(g, AbstractZero):
                return _NO, _ZERO
            inv, counts = u.inverse_and_counts()
            x_bar = xp.take(g / counts, inv, axis=0)
            return _NO, project(xp.reshape(x_bar, tuple(x.shape)))

        return u.y, unique_pullback

    def unique_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        u = _Unique(name, args, kwargs)
        xp, x, v = u.xp, u.x, u.values
        t = unthunk(tangents[1])
        if not ProjectTo(x, xp).differentiable:
            return u.y, _NO
        if isinstance(t, AbstractZero):
            v_dot: Any = _ZERO
        else:
            extra = tangent_extra(name, t, x)
            lead = tuple(t.shape[:extra])
            k = math.prod(lead)
            inv, counts = u.inverse_and_counts()
            # chunk axes last: row i sums the tangents of the elements equal to value i
            flat = xp.permute_dims(xp.reshape(t, (k, -1)), (1, 0))
            zeros = xp.zeros((v.shape[0], k), dtype=t.dtype, device=device_of(t))
            # one integer array per axis: the standard's (and array-api-strict's) indexing form
            cols = xp.reshape(xp.arange(k, dtype=inv.dtype, device=device_of(inv)), (1, k))
            key = (xp.reshape(inv, (-1, 1)), cols)
            sums = xp.permute_dims(scatter_add(zeros, key, flat), (1, 0))
            v_dot = in_dtype(xp, xp.reshape(sums / counts, (*lead, v.shape[0])), v.dtype)
        if name == "unique_values":
            return u.y, v_dot
        return u.y, Tangent(v_dot, *(_NO for _ in u.y[1:]), primal_type=type(u.y))

    return unique_rrule, unique_frule


def _unique_examples(rng: Any) -> list[Any]:
    # distinct values, as finite differences need (ties: the convention tests); one 2-D array
    return [
        ((rng.permutation(6) * 1.0 + 0.25,), {}),
        ((rng.permutation(12).reshape(3, 4) * 0.5,), {}),
        ((np.asarray(2.5),), {}),
        ((np.zeros(0),), {}),
    ]


for _name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
    _r, _f = _unique_rules(_name)
    register_rrule(_name, examples=_unique_examples)(_r)
    register_frule(_name, examples=_unique_examples)(_f)


# isin (standard 2025.12): a boolean output, nothing to differentiate
def _isin_examples(rng: Any) -> list[Any]:
    # integers: array-api-strict accepts no other dtype in isin
    x = rng.integers(0, 5, (2, 3))
    return [((x, np.asarray([1, 3])), {}), ((x, np.asarray([2])), {"invert": True})]


non_differentiable("isin", examples=_isin_examples)
