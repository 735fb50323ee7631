"""``python -m chainrules``: the command line.

``python -m chainrules check`` runs ``test_rrule`` and ``test_frule`` on every registered rule, at
the example inputs stored with it, on every installed backend, in float64, float32 and (where the
function takes them) complex dtypes; then ``check_scalar_free`` (guarded device arrays) and
``check_jit`` (``jax.jit``) as two more columns. It prints a table (function x column) with a
summary line and exits with status 1 when any check fails. ``--module mypkg.rules`` imports a
user's module and checks only the rules it registers.

``python -m chainrules coverage`` lists every function of the Array API standard (read from the
installed ``array_api_strict``) with what chainrules has for it: see ``chainrules.coverage``.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from .core.registry import Registration, registrations
from .testing.backends import BACKENDS, get_backend
from .testing.runner import DEVICE_CHECKS, Cell, check_device, check_registration

__all__ = ["main"]


class _Progress:
    """A one-line progress bar on a terminal; occasional plain lines otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.done, self.stream = max(total, 1), 0, stream
        self.tty = stream.isatty()
        self.start = time.perf_counter()
        self.last_pct = -10

    def step(self, label: str) -> None:
        self.done += 1
        pct = 100 * self.done // self.total
        if self.tty:
            width = 30
            fill = width * self.done // self.total
            bar = "#" * fill + "-" * (width - fill)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label[:40]:<40}")
            self.stream.flush()
        elif pct >= self.last_pct + 10 or self.done == self.total:
            self.last_pct = pct
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"checked {self.done}/{self.total} ({pct}%) in {elapsed:.1f} s\n")
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()


def _select(pattern: str | None, module: str | None = None) -> list[Registration]:
    """Registrations named ``pattern`` exactly; else matching it as a glob; else containing it;
    only those defined in ``module`` (or its submodules) when it is given."""
    regs = [r for r in registrations() if r.family != "callable" or r.meta.get("generic")]
    if module:
        regs = [r for r in regs if _defined_in(r, module)]
    if not pattern:
        return regs
    for match in (
        lambda n: n == pattern,
        lambda n: fnmatch.fnmatch(n, pattern),
        lambda n: pattern in n,
    ):
        chosen = [r for r in regs if match(r.name)]
        if chosen:
            return chosen
    return []


def _defined_in(reg: Registration, module: str) -> bool:
    where = str(reg.meta.get("module") or "")
    return where == module or where.startswith(module + ".")


def _import_user_module(name: str, err: TextIO) -> bool:
    try:
        importlib.import_module(name)
    except ImportError as e:
        err.write(f"--module {name}: cannot import it ({type(e).__name__}: {e})\n")
        return False
    return True


def run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.module and not _import_user_module(args.module, err):
        return 2
    names = args.backend or list(BACKENDS)
    backends = []
    for n in names:
        b = get_backend(n)
        if b.available():
            backends.append(b)
        elif args.backend:
            err.write(f"backend {n!r} is not available here (not installed, or no GPU)\n")
            return 2
    regs = _select(args.k, args.module)
    if not regs:
        where = f" in module {args.module}" if args.module else ""
        if args.k:
            err.write(f"no registered rule matches {args.k!r}{where}\n")
        else:
            err.write(f"no rule is registered{where}\n")
        return 2
    device = [] if args.no_device_checks else list(DEVICE_CHECKS)
    progress = _Progress(len(regs) * (len(backends) + len(device)), err)
    table: dict[str, dict[str, Cell]] = {}
    for reg in regs:
        row = table.setdefault(reg.name, {})
        for b in backends:
            row[b.name] = check_registration(reg, b)
            progress.step(f"{reg.name} on {b.name}")
        for which in device:
            row[which] = check_device(reg, which)
            progress.step(f"{reg.name}: {which}")
    progress.close()

    cells = [c for row in table.values() for c in row.values()]
    failed = sum(c.status == "FAIL" for c in cells)
    passed = sum(c.status == "ok" for c in cells)
    checks = sum(c.checks for c in cells)
    bnames = [b.name for b in backends] + device
    if args.json:
        json.dump(
            {
                "backends": bnames,
                "rules": {
                    name: {
                        b: {
                            "status": c.status,
                            "checks": c.checks,
                            "errors": c.errors,
                            "unsupported_examples": c.unsupported,
                        }
                        for b, c in row.items()
                    }
                    for name, row in table.items()
                },
                "summary": {"passed": passed, "failed": failed, "checks": checks},
            },
            out,
            indent=2,
        )
        out.write("\n")
    else:
        _print_table(table, bnames, out)
        for name, row in table.items():
            for bname, c in row.items():
                for e in c.errors[: args.max_errors]:
                    out.write(f"FAIL {name} on {bname}: {e}\n")
        out.write(
            f"\n{_plural(len(regs), 'function')} x {_plural(len(bnames), 'column')}: "
            f"{passed} passed, {failed} failed, {sum(c.status == 'n/a' for c in cells)} not "
            f"applicable; {checks} checks run; {sum(len(c.unsupported) for c in cells)} "
            "examples skipped (the library's own function rejects them, or a device check "
            "cannot take them)\n"
        )
    return 1 if failed else 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _print_table(table: dict[str, dict[str, Cell]], backends: Sequence[str], out: TextIO) -> None:
    w0 = max([len("function")] + [len(n) for n in table])
    widths = [max(len(b), 4) for b in backends]

    def line(first: str, cells: Sequence[str]) -> None:
        text = first.ljust(w0) + "  " + "  ".join(c.ljust(w) for c, w in zip(cells, widths))
        out.write(text.rstrip() + "\n")

    line("function", backends)
    line("-" * w0, ["-" * w for w in widths])
    for name, row in table.items():
        line(name, [row[b].status for b in backends])


def run_coverage(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import coverage

    try:
        entries, summary = coverage.coverage()
    except ImportError as e:
        err.write(f"coverage reads the standard from array_api_strict, which is missing: {e}\n")
        return 2
    if args.json:
        coverage.write_json(entries, summary, out)
    else:
        coverage.write_table(entries, summary, out)
    if args.markdown:
        doc = args.markdown.read_text()
        if COVERAGE_MARKER not in doc:
            err.write(f"{args.markdown} has no {COVERAGE_MARKER} line\n")
            return 2
        head = doc.split(COVERAGE_MARKER)[0]
        args.markdown.write_text(
            head + COVERAGE_MARKER + "\n\n" + coverage.write_markdown(entries, summary)
        )
    if args.fail_under is not None and summary["percent"] < args.fail_under:
        err.write(f"coverage {summary['percent']}% is under {args.fail_under}%\n")
        return 1
    return 0


COVERAGE_MARKER = "<!-- COVERAGE TABLE -->"


def build_parser() -> argparse.ArgumentParser:
    from pathlib import Path

    p = argparse.ArgumentParser(
        prog="python -m chainrules",
        description="chainrules' command line: check the rules, report the coverage.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="run the rule testers on every registered rule and backend")
    c.add_argument(
        "-k",
        metavar="PATTERN",
        help="only rules named PATTERN; else matching it as a glob; else containing it",
    )
    c.add_argument(
        "--backend",
        action="append",
        choices=list(BACKENDS),
        help="check on this backend only (repeatable; default: every installed one)",
    )
    c.add_argument("--json", action="store_true", help="print the results as JSON")
    c.add_argument(
        "--no-device-checks",
        action="store_true",
        help="leave out the scalar-free (guarded device arrays) and jit (jax.jit) columns",
    )
    c.add_argument(
        "--max-errors", type=int, default=3, help="failure messages shown per cell (default 3)"
    )
    c.add_argument(
        "--module",
        metavar="MODULE",
        help="import MODULE (mypkg.rules) and check only the rules registered in it",
    )
    cov = sub.add_parser(
        "coverage", help="list every function of the Array API standard with its rules' status"
    )
    cov.add_argument("--json", action="store_true", help="print the report as JSON")
    cov.add_argument(
        "--markdown",
        type=Path,
        metavar="PATH",
        help=f"also write the table into PATH after its {COVERAGE_MARKER} line",
    )
    cov.add_argument(
        "--fail-under",
        type=float,
        metavar="PERCENT",
        help="exit with status 1 when less than PERCENT of the standard is covered",
    )
    return p


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    args = build_parser().parse_args(argv)
    if args.command == "check":
        return run_check(args, out, err)
    if args.command == "coverage":
        return run_coverage(args, out, err)
    return 2  # pragma: no cover  (argparse rejects unknown commands)


def _entry(argv: Sequence[str] | None = None) -> Any:
    return main(argv)
