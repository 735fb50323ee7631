"""The bridges' rules of both modes: a function registered with one rule only gets the other,
derived by ``chainrules.ad.frule_from_rrule`` / ``chainrules.ad.rrule_from_frule`` (how, and at
what cost: ``chainrules/ad/_derive.py``), which ``chainrules.ad`` uses for its own traces too."""

from __future__ import annotations

import dataclasses

from ..ad import frule_from_rrule, rrule_from_frule
from ..core.calls import Rules

__all__ = ["complete"]


def complete(rules: Rules) -> Rules:
    """``rules`` with the missing mode derived from the other (unchanged when it has both)."""
    if rules.frule is None and rules.rrule is not None:
        return dataclasses.replace(rules, frule=frule_from_rrule(rules.rrule))
    if rules.rrule is None and rules.frule is not None:
        return dataclasses.replace(rules, rrule=rrule_from_frule(rules.frule, rules.f))
    return rules
