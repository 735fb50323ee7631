"""Rules for the triangular and diagonal matrix builders: the standard's ``tril`` and ``triu``,
and NumPy's non-differentiable ``tri``, ``diag_indices``, ``diag_indices_from``,
``tril_indices``, ``tril_indices_from``, ``triu_indices``, ``triu_indices_from`` and
``mask_indices`` (integer or index outputs, or outputs set by an integer size alone).

* ``tril``/``triu`` (``k`` offset, batched over leading axes): a mask, so the pullback is
  ``tril``/``triu`` of the cotangent (a function with this very rule: differentiable again).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import in_dtype
from .._util.creation import *
from .._util.numpy_like import numpy_non_differentiable

__all__: list[str] = []  # rules only


_TRIL = signature("tril", lambda x, /, k=0, *, out=None: None)
_TRIU = signature("triu", lambda x, /, k=0, *, out=None: None)


# --- tril, triu -----------------------------------------------------------------------------------
def _triangle_rules(name: str) -> Rules:
    sig = _TRIL if name == "tril" else _TRIU

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        x = sig.bind(args, kwargs)["x"]
        xp = namespace_of(x, fname=name)
        return x, xp, getattr(xp, name)(*args, **kwargs)

    def triangle_rrule(*args: Any, **kwargs: Any) -> Any:
        x, xp, y = setup(args, kwargs)
        project = ProjectTo(x, xp)
        rest, k = (NO,) * (len(args) - 1), args[1:]  # k, not x: the pullback must not keep x

        @pullback(y, args)
        def triangle_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (NO, *rest)
            # the same mask again: tril/triu of the cotangent (a function with this rule)
            return (project(getattr(xp, name)(y_bar, *k, **kwargs)), *rest)

        return y, triangle_pullback

    def triangle_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        x, xp, y = setup(args, kwargs)
        ts = tangents_in(name, tangents[:2], (x,))  # k has no tangent
        if ts is None or not ProjectTo(x, xp).differentiable:
            return y, (ZERO if ProjectTo(x, xp).differentiable else NO)
        # the mask acts on the last two axes: leading chunk axes are batch axes to it
        return y, in_dtype(xp, getattr(xp, name)(ts[0], *args[1:], **kwargs), y.dtype)

    return triangle_rrule, triangle_frule


register_pair("tril", _triangle_rules("tril"), lambda rng: _triangle_examples(rng))
register_pair("triu", _triangle_rules("triu"), lambda rng: _triangle_examples(rng))


# --- examples -------------------------------------------------------------------------------------
def _triangle_examples(rng: Any) -> list[Any]:
    m = rng.standard_normal((4, 4))
    return [
        ((m,), {}),
        ((m,), {"k": 1}),
        ((m,), {"k": -2}),
        ((rng.standard_normal((3, 5)),), {"k": 1}),
        ((rng.standard_normal((2, 3, 3)),), {}),  # batched
        ((np.zeros((0, 3)),), {}),
        ((rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)),), {"k": -1}),
    ]


def _square(rng: np.random.Generator) -> list[Any]:
    return [((rng.standard_normal((3, 3)),), {}), ((rng.standard_normal((3, 4)),), {"k": 1})]


# --- non-differentiable: index builders ---------------------------------------------------------
numpy_non_differentiable(
    "tri", examples=fixed_examples(((3,), {}), ((2, 3, 1), {})), kind="creation"
)
numpy_non_differentiable("diag_indices", examples=fixed_examples(((3,), {}), ((2, 3), {})))
numpy_non_differentiable(
    "diag_indices_from", examples=lambda rng: [((rng.standard_normal((3, 3)),), {})]
)
numpy_non_differentiable(
    "tril_indices", "triu_indices", examples=fixed_examples(((3,), {}), ((3, 1, 4), {}))
)
numpy_non_differentiable("tril_indices_from", "triu_indices_from", examples=_square)
numpy_non_differentiable(
    "mask_indices", examples=fixed_examples(((3, np.triu), {}), ((3, np.tril, -1), {}))
)
