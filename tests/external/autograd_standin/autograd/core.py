"""autograd.core: its unary ``make_vjp(fun, x)`` / ``make_jvp(fun, x)`` are chainrules.ad's
``make_vjp(fun)(x)`` / ``make_jvp(fun)(x)``; its extension names come from ``extend``.
``primitive_vjps`` and ``vspace`` (autograd's registry and vector spaces) have no counterpart:
the tests that use them are in not_applicable.txt; the names exist so that modules import."""

from __future__ import annotations

from typing import Any

from chainrules import ad

from .extend import VSpace, defjvp, defvjp, primitive, vspace


def make_vjp(fun: Any, x: Any) -> Any:
    return ad.make_vjp(fun)(x)


def make_jvp(fun: Any, x: Any) -> Any:
    return ad.make_jvp(fun)(x)


primitive_vjps: dict[Any, Any] = {}
__all__ = ["VSpace", "defjvp", "defvjp", "make_jvp", "make_vjp", "primitive", "vspace"]
