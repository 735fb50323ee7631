"""What a registration says about how it is checked: example inputs and known limits.

Both are data on the registration (``register_rrule(..., examples=..., expect=...)``), so the
library's test suite and ``python -m chainrules check`` -- also ``check --module mypkg.rules`` for
a user's own rules -- read the same declarations and cannot disagree.

* :class:`Example`: positional and keyword arguments as NumPy values, with a short note.
* :class:`Expect`: one known limit in one column of the checker, with its reason:

  - ``Expect("jit", "jax.numpy.from_dlpack cannot take a tracer")`` -- the check fails there, for
    that reason (shown as ``xfail: reason``); a check that passes after all is reported, so that
    a fix is noticed;
  - ``Expect("array_api_strict", "fill_value must be a Python scalar", kind="skip",
    example="0-d")`` -- the library's own function (or the device check) cannot take those
    examples: they are not run, and are counted. An example that is refused without such a
    declaration is a failure, and so is a declared skip that does not happen.

  ``column`` is a backend (``numpy``, ``array_api_strict``, ``jax``, ``torch``, ``cupy``) or a
  device check (``scalar-free``, ``jit``). ``example`` selects examples: ``"#3"`` the one of
  that index, any other text those whose note contains it (all when ``None``); ``dtype`` those
  run in a dtype whose name contains it; ``phase`` one tester (``test_rrule``, ``test_frule``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Example", "Expect"]

_KINDS = ("xfail", "skip")


@dataclass
class Example:
    """Positional and keyword arguments as NumPy values, and a short description."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    complex: bool = False


@dataclass(frozen=True)
class Expect:
    """A known limit of a rule in one column of the checker, declared once with its reason."""

    column: str
    reason: str
    kind: str = "xfail"
    example: str | None = None
    dtype: str | None = None
    phase: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"Expect: kind must be one of {_KINDS}, got {self.kind!r}")
        if not self.reason:
            raise ValueError("Expect: give the reason for the known limit")

    def matches(self, column: str, note: str, dtype: str, phase: str | None = None) -> bool:
        """Whether this declaration covers one check (``phase`` ``None``: any tester)."""
        return (
            self.column == column
            and (self.example is None or _example_matches(self.example, note))
            and (self.dtype is None or self.dtype in dtype)
            and (self.phase is None or phase is None or self.phase == phase)
        )


def _example_matches(example: str, label: str) -> bool:
    """``"#3"`` names the example of that index exactly (not ``#30``); any other text selects
    the examples whose label (``"#3 complex (2, 3)"``) contains it."""
    if example.startswith("#") and example[1:].isdigit():
        return label.split(" ", 1)[0] == example
    return example in label
