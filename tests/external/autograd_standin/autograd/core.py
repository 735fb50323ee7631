"""autograd.core's ``make_vjp`` / ``make_jvp`` (unary: ``f(x)``) on ``chainrules.ad``."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules import ad


def _is_complex(x: Any) -> bool:
    dt = getattr(x, "dtype", None)
    if dt is None:
        return type(x) is complex
    return getattr(dt, "kind", "") == "c"


def _leaves(x: Any) -> list[Any]:
    if type(x) in (tuple, list):
        return [e for v in x for e in _leaves(v)]
    if type(x) is dict:
        return [e for k in sorted(x) for e in _leaves(x[k])]
    return [x]


def tree_map(f: Any, x: Any, *rest: Any) -> Any:
    if type(x) in (tuple, list):
        return type(x)(tree_map(f, *es) for es in zip(x, *rest))
    if type(x) is dict:
        return {k: tree_map(f, x[k], *(r[k] for r in rest)) for k in x}
    return f(x, *rest)


def _conj(x: Any) -> Any:
    return tree_map(lambda e: np.conj(e) if _is_complex(e) else e, x)


def _to_float(x: Any) -> Any:
    """autograd accepts integers where it differentiates nothing but their value's float."""
    return tree_map(lambda e: float(e) if type(e) is int else e, x)


def untraced(x: Any) -> Any:
    """``x`` without the innermost level of tracing (autograd's ``getval`` of one box)."""
    return x._value if isinstance(x, ad.Tracer) else x


def make_vjp(fun: Any, x: Any) -> tuple[Any, Any]:
    """``(vjp, fun(x))`` with autograd's complex convention (the transpose, not the adjoint)."""
    y, pullback = ad.vjp(fun, _to_float(x))

    def vjp(g: Any) -> Any:
        return _conj(pullback(_conj(g))[0])

    return vjp, y


def make_jvp(fun: Any, x: Any) -> Any:
    def jvp(v: Any) -> tuple[Any, Any]:
        return ad.jvp(fun, (_to_float(x),), (_to_float(v),))

    return jvp


from .extend import VSpace, defjvp, defvjp, primitive, vspace  # noqa: E402

primitive_vjps: dict[Any, Any] = {}
primitive_with_deprecation_warnings = primitive
__all__ = ["VSpace", "defjvp", "defvjp", "make_jvp", "make_vjp", "primitive", "vspace"]
