"""Products: the standard's ``prod`` (and NumPy's name for it) and NumPy's ``nanprod``.

Maths notes
-----------
* ``prod``: ``d prod / d x_i`` is the product of the *other* elements, computed exactly -- also with
  one or several zeros -- as ``left_i * right_i``, the exclusive cumulative products from both
  ends. No division, no host read of how many zeros there are.
* ``nanprod`` is ``prod``'s rule applied to ``x`` with NaNs replaced by 1, its cotangent zeroed at
  the NaNs.

Registration under both names (the standard's and ``"numpy:NAME"``): see the package docstring.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import chunk_axes, expand_reduced, in_dtype, reduced_size
from .._util.statistical import *

__all__: list[str] = []  # rules only


# fmt: off
_PROD = signatures(
    "prod",
    lambda x, /, *, axis=None, dtype=None, keepdims=False: None,
    lambda x, /, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None: None,
    unsupported=("initial",),
)
# fmt: on


@specialise
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


@_others_product.method("numpy")
def _others_product_numpy(xp: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """A floating NumPy array over a non-empty reduction: the exclusive products as two
    ``np.cumprod`` written behind a leading (and a trailing) 1, where the array API's
    ``cumulative_prod(..., include_initial=True)`` takes 7 us a side through its compat wrapper
    at n = 5 (NumPy's ``cumprod`` 1.8): ``prod``'s pullback 26 -> 13 us, Griewank's gradient
    137 -> 114 us. ``prod`` is in a dozen of the population's test functions.
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.96, median of 22
    cells (0.77 at best)."""
    if type(x) is not np.ndarray or x.dtype.kind not in "fc" or not axes or 0 in x.shape:
        return NotImplemented
    nd = x.ndim
    perm = tuple(a for a in range(nd) if a not in axes) + tuple(axes)
    moved = perm != tuple(range(nd))
    xt = x.transpose(perm) if moved else x
    flat = xt.reshape((*xt.shape[: nd - len(axes)], -1))
    left, right = np.empty_like(flat), np.empty_like(flat)
    left[..., 0] = right[..., -1] = 1
    np.cumprod(flat[..., :-1], axis=-1, out=left[..., 1:])
    np.cumprod(flat[..., :0:-1], axis=-1, out=right[..., -2::-1])
    others = (left * right).reshape(xt.shape)
    return others.transpose(np.argsort(perm)) if moved else others


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


def _prod_dot(xp: Any, x: Any, y: Any, ts: Any, axes: Any, kw: dict[str, Any]) -> Any:
    others = _others_product(xp, x, axes)
    y_dot = xp.sum(others * ts[0], axis=chunk_axes(axes, ts.extra), keepdims=kw["keepdims"])
    return in_dtype(xp, y_dot, y.dtype)


def _prod_rules(name: str, sig: Signature, numpy: bool) -> Rules:
    def prod_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, axes, kw = bind(sig, numpy, args, kwargs)
        y = xp.prod(x, **kw)
        project = ProjectTo(x, xp)
        keepdims, nos = kw["keepdims"], consts(args)

        @pullback(y, (x, *nos))
        def prod_pullback(y_bar: Any) -> tuple[Any, ...]:
            others = _others_product(xp, x, axes)
            if project.kind == "c":
                others = xp.conj(others)
            return (project(expand_reduced(xp, y_bar, axes, keepdims) * others), *nos)

        return y, prod_pullback

    return prod_rrule, reduction_frule("prod", sig, numpy, _prod_dot)


register_both("prod", ("prod",), _prod_rules, _PROD, _prod_ex)


# --- NumPy's nanprod: prod's rule on x with NaNs filled ---------------------------------------
def _nan_prod_ex(rng: Any) -> list[Any]:
    m = nan_entries(rng, 3, 4) / 6 + 0.5
    return [
        ((nan_entries(rng, 6) / 4 + 0.5,), {}),
        ((m,), {"axis": 1}),
        ((m, 0), {"keepdims": True}),
    ]


register_filled("nanprod", "prod", 1.0, _nan_prod_ex)
