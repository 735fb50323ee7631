"""The vocabulary a rule module is written in, imported whole: ``from ...core.prelude import *``.

ChainRules.jl's rules begin with ``using ChainRulesCore``; ours begin with this line, so that each
rule module states only what is its own. It holds what three or more rule modules use --
registration, the binder, projection, the tangent types, namespaces -- and the two zero
singletons ``NO`` (``NoTangent()``) and ``ZERO`` (``ZeroTangent()``). Anything rarer is
imported from its ``core`` module by name.
"""

from __future__ import annotations

from .examples import Example, Expect
from .namespaces import device_of, dtype_kind, is_array, namespace_of
from .nondiff import non_differentiable, zero_derivative
from .projection import ProjectTo
from .registry import (
    register_frule,
    register_kind,
    register_rrule,
    traceable,
)
from .scalar_rule import finish_tangent, scalar_rule
from .scatter import scatter_add
from .specialise import specialise
from .tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, is_zero, unthunk
from .toolkit import (
    Signature,
    numpy_result,
    output,
    pullback,
    signature,
    tangents_in,
    zero_tangent,
)

NO = NoTangent()
ZERO = ZeroTangent()

__all__ = [
    "NO",
    "ZERO",
    "AbstractZero",
    "Example",
    "Expect",
    "NoTangent",
    "ProjectTo",
    "Signature",
    "Tangent",
    "Thunk",
    "ZeroTangent",
    "device_of",
    "dtype_kind",
    "finish_tangent",
    "is_array",
    "is_zero",
    "namespace_of",
    "non_differentiable",
    "numpy_result",
    "output",
    "pullback",
    "register_frule",
    "register_kind",
    "register_rrule",
    "scalar_rule",
    "scatter_add",
    "signature",
    "specialise",
    "tangents_in",
    "traceable",
    "unthunk",
    "zero_derivative",
    "zero_tangent",
]
