"""The core: registry, tangent types, projection, namespaces, rule helpers and rule config."""

from .config import RuleConfig, rule_config, use_rule_config
from .namespaces import device_of, dtype_kind, is_array, namespace_of, scalar_kind
from .projection import ProjectTo, project
from .registry import (
    NoRuleError,
    Registration,
    find_frule,
    find_rrule,
    frule,
    function_name,
    register_frule,
    register_rrule,
    registrations,
    rrule,
)
from .scalar_rule import check_cotangent, non_differentiable, scalar_rule, zero_derivative
from .tangents import (
    AbstractZero,
    InplaceableThunk,
    NoTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    accumulate,
    add_tangents,
    is_zero,
    unthunk,
)

__all__ = [
    "AbstractZero",
    "InplaceableThunk",
    "NoRuleError",
    "NoTangent",
    "ProjectTo",
    "Registration",
    "RuleConfig",
    "Tangent",
    "Thunk",
    "ZeroTangent",
    "accumulate",
    "add_tangents",
    "check_cotangent",
    "device_of",
    "dtype_kind",
    "find_frule",
    "find_rrule",
    "frule",
    "function_name",
    "is_array",
    "is_zero",
    "namespace_of",
    "non_differentiable",
    "project",
    "register_frule",
    "register_rrule",
    "registrations",
    "rrule",
    "rule_config",
    "scalar_kind",
    "scalar_rule",
    "unthunk",
    "use_rule_config",
    "zero_derivative",
]
