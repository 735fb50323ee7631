"""The non-differentiable elementwise functions: comparisons, predicates, logical and bitwise
functions (the standard's ``equal``, ``less``, ``isnan``, ``signbit``, ``logical_and``,
``bitwise_and``, ... and NumPy's ``isclose``, ``isposinf``, ``left_shift``, ``invert``, ...),
NumPy's ``gcd``, ``lcm`` and ``bitwise_count``, its comparisons of whole arrays (``allclose``,
``array_equal``, ``array_equiv``) and bit packing (``packbits``, ``unpackbits``).

``NoTangent()`` for every argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util.elementwise import TORCH_NO_SCALAR, TORCH_NO_SCALAR_FIRST, R
from .._util.numpy_like import numpy_non_differentiable

__all__: list[str] = []  # rules only


# --- comparisons, predicates, logical and bitwise functions -------------------------------------
_FLOAT2 = (R, R)
non_differentiable("equal", "numpy:isclose", domain=_FLOAT2)
non_differentiable(
    "not_equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    domain=_FLOAT2,
    expect=TORCH_NO_SCALAR_FIRST,
)
non_differentiable(
    "isfinite",
    "isinf",
    "isnan",
    "signbit",
    "numpy:isneginf",
    "numpy:isposinf",
    "numpy:isreal",
    "numpy:iscomplex",
    domain=(R,),
)
non_differentiable(
    "logical_and", "logical_or", "logical_xor", domain=("bool", "bool"), expect=TORCH_NO_SCALAR
)
non_differentiable("logical_not", domain=("bool",))
non_differentiable(
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "numpy:left_shift",
    "numpy:right_shift",
    domain=("int", "int"),
)
non_differentiable("bitwise_invert", "numpy:invert", "numpy:bitwise_not", domain=("int",))


# --- NumPy's integer functions ------------------------------------------------------------------
non_differentiable("numpy:gcd", "numpy:lcm", domain=("int", "int"))
non_differentiable("numpy:bitwise_count", domain=("int",))


# --- comparisons of whole arrays and bit packing: no tangent space -------------------------------
def _pair_ex(rng: Any) -> list[Any]:
    x = rng.standard_normal((2, 3))
    return [((x, x + 1e-9), {}), ((x, rng.standard_normal(3)), {})]


def _bits_ex(rng: Any) -> list[Any]:
    return [((rng.integers(0, 2, (2, 8)),), {}), ((np.arange(4) > 1,), {})]


# bool outputs (NumPy's "logic functions"): a Python bool, a host read by the function's nature
_HOST_BOOL = Expect(
    "scalar-free", "the function returns a Python bool: it reads the device by its nature"
)
numpy_non_differentiable(
    "allclose", "array_equal", "array_equiv", examples=_pair_ex, expect=_HOST_BOOL
)
# bits in, uint8 out
numpy_non_differentiable("packbits", examples=_bits_ex)


def _unpackbits_ex(rng: Any) -> list[Any]:
    return [
        ((np.array([5, 200, 3], dtype=np.uint8),), {}),
        ((np.array([[1, 255], [128, 7]], dtype=np.uint8),), {"axis": 1, "count": 12}),
    ]


# uint8 in, uint8 out. The backend columns pass integer example arrays as int64, which
# unpackbits refuses; the scalar-free and jit columns keep uint8 (and the tests call it on NumPy
# and JAX uint8 arrays)
numpy_non_differentiable(
    "unpackbits",
    examples=_unpackbits_ex,
    expect=tuple(
        Expect(
            column,
            "the checkers pass integer example arrays as int64, and unpackbits takes uint8 only",
            kind="skip",
        )
        for column in ("numpy", "jax")
    ),
)
