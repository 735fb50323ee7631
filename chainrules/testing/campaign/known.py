"""Known differences between the oracles: the only things that may excuse a disagreement.

Each is a named predicate ``(program, engine, relation) -> bool`` with the documented reason.
A disagreement that no predicate covers is a wrong value. There is no list of wrong values:
a predicate names a *difference in definition* between two oracles (what each one's function
or convention is), never a rule that is wrong.

Conventions are converted, not excused: JAX's cotangent of a complex input is the conjugate of
ours, and the campaign conjugates it before comparing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["KNOWN", "Known", "excuse"]


@dataclass(frozen=True)
class Known:
    name: str
    reason: str
    applies: Callable[[Any, str, str], bool]


KNOWN: tuple[Known, ...] = (
    Known(
        "oracle-primal-differs",
        "the other engine's function computes another value on these inputs (its definition, "
        "a default argument or a branch cut differs), so its derivative is of another "
        "function: the gradient comparison is skipped and counted as such, never as agreement",
        lambda p, engine, relation: relation == "primal",
    ),
)


def excuse(program: Any, engine: str, relation: str) -> str | None:
    """The name of the known difference that covers this disagreement, or None."""
    for k in KNOWN:
        if k.applies(program, engine, relation):
            return k.name
    return None
