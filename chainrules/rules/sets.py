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

from ..core import (
    AbstractZero,
    Expect,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    device_of,
    namespace_of,
    non_differentiable,
    pullback,
    register_frule,
    register_rrule,
    scatter_add,
    signature,
    tangents_in,
)
from ._util import in_dtype

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()

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


def _unique_rrule(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
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
            return _NO
        if isinstance(v_bar, AbstractZero):  # only the integer outputs' entries were given
            return _ZERO
        inv, counts = _inverse_and_counts(xp, x, y, values)
        x_bar = xp.take(v_bar / counts, inv, axis=0)
        return project(xp.reshape(x_bar, tuple(x.shape)))

    return y, unique_pullback


def _unique_frule(name: str, tangents: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    x = _UNIQUE[name].bind(args, kwargs)["x"]
    xp = namespace_of(x, fname=name)
    y = _unique(xp, name, x)
    v = y if name == "unique_values" else y[0]
    if not ProjectTo(x, xp).differentiable:
        return y, _NO
    ts = tangents_in(name, tangents[:2], (x,))
    if ts is None:
        v_dot: Any = _ZERO
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
    return y, Tangent(v_dot, *(_NO for _ in y[1:]), primal_type=type(y))


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


@register_rrule("unique_all", examples=_unique_examples, expect=_UNIQUE_ALL)
def unique_all_rrule(*args: Any, **kwargs: Any) -> Any:
    return _unique_rrule("unique_all", args, kwargs)


@register_frule("unique_all", examples=_unique_examples)
def unique_all_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    return _unique_frule("unique_all", tangents, args, kwargs)


@register_rrule("unique_counts", examples=_unique_examples, expect=_UNIQUE_JIT)
def unique_counts_rrule(*args: Any, **kwargs: Any) -> Any:
    return _unique_rrule("unique_counts", args, kwargs)


@register_frule("unique_counts", examples=_unique_examples)
def unique_counts_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    return _unique_frule("unique_counts", tangents, args, kwargs)


@register_rrule("unique_inverse", examples=_unique_examples, expect=_UNIQUE_JIT)
def unique_inverse_rrule(*args: Any, **kwargs: Any) -> Any:
    return _unique_rrule("unique_inverse", args, kwargs)


@register_frule("unique_inverse", examples=_unique_examples)
def unique_inverse_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    return _unique_frule("unique_inverse", tangents, args, kwargs)


@register_rrule("unique_values", examples=_unique_examples, expect=_UNIQUE_JIT)
def unique_values_rrule(*args: Any, **kwargs: Any) -> Any:
    return _unique_rrule("unique_values", args, kwargs)


@register_frule("unique_values", examples=_unique_examples)
def unique_values_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    return _unique_frule("unique_values", tangents, args, kwargs)


# isin (standard 2025.12): a boolean output, nothing to differentiate
def _isin_examples(rng: Any) -> list[Any]:
    # integers: array-api-strict accepts no other dtype in isin
    x = rng.integers(0, 5, (2, 3))
    return [((x, np.asarray([1, 3])), {}), ((x, np.asarray([2])), {"invert": True})]


non_differentiable("isin", examples=_isin_examples)
