"""Which functions of the Array API standard have rules: ``python -m chainrules coverage``.

The list of functions is read from the installed ``array_api_strict`` -- the standard's reference
implementation -- not written by hand: every callable of its ``__all__`` and of its ``linalg`` and
``fft`` extensions, grouped by the section of the standard that defines it (its defining module).
``array_api_strict``'s own configuration functions (``set_array_api_strict_flags``, ...) are not
the standard's and are left out.

Each function gets a status, found by looking up the rules of *array_api_strict's own function
object* (so a rule that exists but does not reach the standard's function counts as missing):

* ``rrule+frule`` -- differentiable, both modes (``rrule only`` / ``frule only`` when one lacks);
* ``non-differentiable`` -- declared with ``chainrules.non_differentiable`` (comparisons,
  ``argmax``, ``unique_values``, ...): engines stop there instead of failing;
* ``no array output`` -- inspection functions that take or return no arrays (``finfo``,
  ``can_cast``, ``broadcast_shapes``, ...), nothing to differentiate;
* ``missing``.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import asdict, dataclass
from typing import Any, TextIO

from .core.registry import ARRAY_API, find_frule, find_rrule, registrations

__all__ = ["Entry", "coverage", "write_json", "write_markdown", "write_table"]

# Functions of the standard that neither take nor return arrays of numbers (they answer questions
# about dtypes, shapes and the namespace): the standard's "data type functions" except astype and
# the broadcasts, and the inspection API.
NO_ARRAY_OUTPUT = frozenset(
    ("can_cast", "finfo", "iinfo", "isdtype", "result_type", "broadcast_shapes")
)
_SECTIONS = {  # array_api_strict's module -> the standard's section
    "_creation_functions": "creation",
    "_data_type_functions": "data types",
    "_elementwise_functions": "elementwise",
    "_indexing_functions": "indexing",
    "_info": "inspection",
    "_linear_algebra_functions": "linear algebra",
    "_manipulation_functions": "manipulation",
    "_searching_functions": "searching",
    "_set_functions": "sets",
    "_sorting_functions": "sorting",
    "_statistical_functions": "statistical",
    "_utility_functions": "utility",
    "_linalg": "linalg extension",
    "_fft": "fft extension",
}
_NOT_STANDARD = ("_flags",)  # array_api_strict's own configuration functions
STATUSES = (
    "rrule+frule",
    "rrule only",
    "frule only",
    "non-differentiable",
    "no array output",
    "missing",
)


@dataclass
class Entry:
    """One function of the standard and what chainrules has for it."""

    name: str  # "sin", "linalg.cholesky", "fft.rfft"
    section: str
    status: str
    rule_module: str | None  # where its rule is defined

    @property
    def covered(self) -> bool:
        return self.status != "missing"


def _standard_functions() -> list[tuple[str, Any, str]]:
    import array_api_strict as xs

    out: list[tuple[str, Any, str]] = []
    spaces = [("", xs, xs.__all__)] + [
        (f"{ext}.", getattr(xs, ext), getattr(xs, ext).__all__) for ext in ("linalg", "fft")
    ]
    for prefix, ns, names in spaces:
        for n in names:
            fn = getattr(ns, n)
            if not callable(fn) or inspect.isclass(fn) or inspect.ismodule(fn):
                continue  # constants, dtypes, the extension modules themselves
            module = str(getattr(fn, "__module__", "")).rsplit(".", 1)[-1]
            if module in _NOT_STANDARD:
                continue
            out.append((prefix + n, fn, _SECTIONS.get(module, module.strip("_"))))
    return out


def coverage() -> tuple[list[Entry], dict[str, Any]]:
    """Every function of the standard with its status, and a summary (counts per status, the
    standard's version, ``covered`` and ``percent``)."""
    import array_api_strict as xs

    named = {str(r.target): r for r in registrations() if r.family == ARRAY_API}
    entries = []
    for name, fn, section in _standard_functions():
        r, f = find_rrule(fn), find_frule(fn)
        reg = named.get(name)
        if name in NO_ARRAY_OUTPUT or name == "__array_namespace_info__":
            status = "no array output"
        elif r is None and f is None:
            status = "missing"
        elif reg is not None and reg.non_differentiable:
            status = "non-differentiable"
        elif r is not None and f is not None:
            status = "rrule+frule"
        else:
            status = "rrule only" if r is not None else "frule only"
        module = reg.meta.get("module") if reg is not None else None
        entries.append(Entry(name, section, status, module))
    counts = {s: sum(e.status == s for e in entries) for s in STATUSES}
    covered = sum(e.covered for e in entries)
    summary = {
        "standard_version": xs.__array_api_version__,
        "array_api_strict": xs.__version__,
        "functions": len(entries),
        "counts": counts,
        "covered": covered,
        "percent": round(100.0 * covered / max(len(entries), 1), 1),
    }
    return entries, summary


def write_table(entries: list[Entry], summary: dict[str, Any], out: TextIO) -> None:
    """A plain-text table, one line per function, then the counts."""
    w = max(len(e.name) for e in entries)
    ws = max(len(e.section) for e in entries)
    out.write(f"{'function'.ljust(w)}  {'section'.ljust(ws)}  status\n")
    out.write(f"{'-' * w}  {'-' * ws}  {'-' * 18}\n")
    for e in entries:
        out.write(f"{e.name.ljust(w)}  {e.section.ljust(ws)}  {e.status}\n")
    out.write("\n" + _summary_line(summary) + "\n")


def _summary_line(summary: dict[str, Any]) -> str:
    counts = ", ".join(f"{n} {s}" for s, n in summary["counts"].items() if n)
    return (
        f"{summary['covered']}/{summary['functions']} functions of the Array API standard "
        f"{summary['standard_version']} covered ({summary['percent']}%): {counts} "
        f"(array_api_strict {summary['array_api_strict']})"
    )


def write_json(entries: list[Entry], summary: dict[str, Any], out: TextIO) -> None:
    json.dump({"summary": summary, "functions": [asdict(e) for e in entries]}, out, indent=2)
    out.write("\n")


def write_markdown(entries: list[Entry], summary: dict[str, Any]) -> str:
    """The docs page's table: one row per function, grouped by section."""
    lines = [_summary_line(summary) + ".", ""]
    lines += ["| section | function | status | rules in |", "|---|---|---|---|"]
    for e in sorted(entries, key=lambda e: (e.section, e.name)):
        where = f"`{e.rule_module}`" if e.rule_module else ""
        lines.append(f"| {e.section} | `{e.name}` | {e.status} | {where} |")
    return "\n".join(lines) + "\n"
