"""The engine's core, by topic: traced arrays, their traces and the dispatcher
(``_tracer``), the traced namespace (``_namespace``), NumPy's methods on tracers
(``_numpy_methods``), the tracer classes (``_classes``), values entering a trace (``_lift``) and
calls over pytrees (``_pytree``). This module imports them all, so that the functions they hand
to ``_tracer.ABOVE`` are in place once ``chainrules.ad`` is imported, and re-exports the names
other modules and tests import from here."""

from __future__ import annotations

from ..core.namespaces import namespace_of
from ._classes import _OPERATORS, tracer_class
from ._errors import no_rule
from ._lift import _liftable, enter, lift_constants, lift_values, number, stack_sequences
from ._namespace import TracedNamespace, copy_of
from ._pytree import call_pytree, is_flat
from ._tracer import (
    ACTIVE,
    CREATED,
    Trace,
    Tracer,
    dispatch,
    floating,
    is_constant,
    lift_like,
    lookup_rule,
    memory_root,
    plain,
    plain_kwargs,
    primal,
)

__all__ = [
    "ACTIVE",
    "CREATED",
    "_OPERATORS",
    "Trace",
    "TracedNamespace",
    "Tracer",
    "_liftable",
    "call_pytree",
    "copy_of",
    "dispatch",
    "enter",
    "floating",
    "is_constant",
    "is_flat",
    "lift_constants",
    "lift_like",
    "lift_values",
    "lookup_rule",
    "memory_root",
    "namespace_of",
    "no_rule",
    "number",
    "plain",
    "plain_kwargs",
    "primal",
    "stack_sequences",
    "tracer_class",
]
