"""``python -m chainrules``: the command line.

``python -m chainrules check`` runs ``test_rrule`` and ``test_frule`` on every registered rule, at
the example inputs stored with it, on every installed backend, in float64, float32 and (where the
function takes them) complex dtypes; then ``check_scalar_free`` (guarded device arrays) and
``check_jit`` (``jax.jit``) as two more columns. Each check is judged against the limits the
registration declares (``chainrules.Expect``), the same declarations the test suite reads. The
cells run in one worker process per core; progress (cells done, ETA) goes to stderr. It prints the
failures first, then a table (function x column, failing rows first), the declared limits and the
warnings each rule raised, and a summary line; it exits with status 1 when any check fails.
``--thorough`` runs every example on every column (the default is the fast profile of the test
suite); ``--json`` prints every count; ``--module mypkg.rules`` imports a user's module and
checks only the rules it registers.

``python -m chainrules coverage`` lists every function of the Array API standard (read from the
installed ``array_api_strict``) with what chainrules has for it: see ``chainrules.coverage``.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from . import __version__
from .core.registry import Registration, registrations
from .testing.backends import (
    BACKENDS,
    EXTRA_BACKENDS,
    get_backend,
    use_jax_compilation_cache,
    use_quick_xla_compiles,
)
from .testing.runner import (
    DEVICE_CHECKS,
    LAZY_COLUMN,
    Cell,
    check_lazy,
    check_registration,
    dask_expectations,
    set_profile,
)
from .testing.suite import defined_in, run_cell

__all__ = ["main"]


class _Progress:
    """Cells done (and rules whose every cell is done), elapsed time and an ETA: one rewritten
    line on a terminal, a plain line every 10% otherwise.

    The ETA is the time per cell since the first cell finished (worker start-up is paid once,
    before it) times the cells left. It is honest because ``cell_order`` runs the rules in a
    shuffled order, so the cells done at any point are a fair sample of the cells left -- by
    cost (linalg and jit cells are slow, elementwise NumPy ones fast) as well as by count. No
    ETA is shown before 2% of the cells are done: one or two cells say nothing of the rest."""

    def __init__(self, cells: int, rules: int, stream: TextIO) -> None:
        self.cells, self.rules, self.stream = max(cells, 1), max(rules, 1), stream
        self.done = self.rules_done = 0
        self.tty = stream.isatty()
        self.start = time.perf_counter()
        self.first: float | None = None  # when the first cell finished
        self.last_pct = -10

    def eta(self, now: float) -> float | None:
        """Seconds left, or ``None`` while too few cells are done to say."""
        if self.first is None or self.done < max(2, self.cells // 50):
            return None
        return (now - self.first) / (self.done - 1) * (self.cells - self.done)

    def line(self, now: float) -> str:
        pct = 100 * self.done // self.cells
        eta = self.eta(now)
        return (
            f"checked {self.done}/{self.cells} cells ({pct}%), {self.rules_done}/{self.rules} "
            f"rules complete, in {_duration(now - self.start)}, "
            + ("ETA ..." if eta is None else f"ETA {_duration(eta)}")
        )

    def step(self, label: str, rules_done: int) -> None:
        now = time.perf_counter()
        self.done += 1
        self.rules_done = rules_done
        if self.first is None:
            self.first = now
        pct = 100 * self.done // self.cells
        text = self.line(now)
        if self.tty:
            self.stream.write(f"\r{text} {label[:30]:<30}")
            self.stream.flush()
        elif pct >= self.last_pct + 10 or self.done == self.cells:
            self.last_pct = pct
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * 120 + "\r")
            self.stream.flush()


def _duration(s: float) -> str:
    return f"{s:.0f} s" if s < 90 else f"{int(s // 60)} min {int(s % 60):02d} s"


def _select(
    pattern: str | None, module: str | None = None, changed: frozenset[int] = frozenset()
) -> list[Registration]:
    """The registrations ``-k pattern`` selects (see ``name_matches``); only those of ``module``
    when it is given (see ``_of_module``; ``changed``: the ``id`` of each registration its
    import changed)."""
    regs = [r for r in registrations() if r.family != "callable" or r.generic]
    if module:
        regs = [r for r in regs if _of_module(r, module, changed)]
    if not pattern:
        return regs
    exact = [r for r in regs if r.name == pattern]
    return exact or [r for r in regs if name_matches(pattern, r.name)]


def _parts(name: str) -> list[str]:
    return re.split(r"[.:]", name)


def name_matches(pattern: str, name: str) -> bool:
    """Whether ``-k pattern`` selects the registration ``name`` (``"linalg.vector_norm"``,
    ``"numpy:linalg.norm"``, ``"scipy:stats.norm.pdf"``). A name's parts are separated by ``.``
    and ``:``; its last part is the function's own name.

    * A pattern of one part is matched against the function's own name only: as a glob when it
      has ``*``, ``?`` or ``[``, else as a substring. ``norm`` selects ``linalg.vector_norm``,
      ``linalg.matrix_norm`` and ``numpy:linalg.norm``, not ``scipy:stats.norm.pdf`` (whose
      function is ``pdf``, of the distribution ``norm``).
    * A pattern of several parts matches consecutive whole parts of the name, each part a glob:
      ``stats.norm`` selects ``scipy:stats.norm.pdf`` and its siblings, ``linalg.norm`` selects
      ``numpy:linalg.norm``, ``numpy:arc*`` NumPy's own ``arccos``, ``arcsin``, ...
    """
    want = _parts(pattern)
    if len(want) == 1:
        own = _parts(name)[-1]
        if any(c in pattern for c in "*?["):
            return fnmatch.fnmatchcase(own, pattern)
        return pattern in own
    parts = _parts(name)
    return any(
        all(fnmatch.fnmatchcase(p, w) for p, w in zip(parts[i : i + len(want)], want))
        for i in range(len(parts) - len(want) + 1)
    )


def _of_module(reg: Registration, module: str, changed: frozenset[int]) -> bool:
    """Whether ``module`` (or a submodule) registered ``reg``, or holds its rules: a user's
    module that replaces a library rule by name (``register_rrule("expm1")``) changes the
    library's registration, which keeps its ``module``."""
    if id(reg) in changed or defined_in(reg, module):
        return True
    for rule in (reg.rrule, reg.frule):
        where = str(getattr(rule, "__module__", None) or "")
        if where == module or where.startswith(module + "."):
            return True
    return False


def _import_user_module(name: str, err: TextIO) -> frozenset[int] | None:
    """Import the user's module ``name``; the ``id`` of each registration the import added or
    changed, or ``None`` (after one line on ``err``) when the import raised anything."""
    before = {id(r): (r, r.rrule, r.frule) for r in registrations()}
    try:
        importlib.import_module(name)
    except (Exception, SystemExit) as e:  # noqa: BLE001 -- a user module may raise anything
        err.write(f"--module {name}: cannot import it ({type(e).__name__}: {e})\n")
        return None
    return frozenset(
        id(r)
        for r in registrations()
        if id(r) not in before or before[id(r)][1:] != (r.rrule, r.frule)
    )


def _run_cell(reg: Registration, column: str) -> Cell:
    """One cell: the test suite's (``run_cell``), or one of the opt-in dask columns (``dask``:
    the testers on dask arrays; ``lazy``: see ``check_lazy``), judged with the dask tables."""
    if column == LAZY_COLUMN:
        return check_lazy(reg)
    if column in EXTRA_BACKENDS:
        return check_registration(reg, EXTRA_BACKENDS[column], expects=dask_expectations(reg))
    return run_cell(reg, column)


# --- the cells, in this process or in worker processes -------------------------------------------
def cell_order(
    regs: Sequence[Registration], columns: Sequence[str], seed: int = 0
) -> list[tuple[Registration, str]]:
    """The order the cells run in: the rules shuffled (the same order on every run), each rule's
    columns together. Every stretch of the run is then a fair sample of the whole -- of linalg
    and elementwise rules, of slow (jit, JAX) and fast (NumPy) columns -- so the rate so far
    predicts the time left (``_Progress``), and rules complete at a steady pace from the start.
    (Cells sorted slowest-first, as before, made the first 10% several times slower than the
    rest and no rule complete before the last column began.)"""
    import random

    shuffled = list(regs)
    random.Random(seed).shuffle(shuffled)
    return [(r, c) for r in shuffled for c in columns]


# A worker past this resident memory retires after its cell, and a fresh one takes over. Each
# restart costs about 4 s of imports (JAX, torch) and the in-process caches the worker had built;
# at 1000 MB a first run on two cores started 31 workers for 3534 cells (a worker with JAX,
# torch and array-api-strict loaded grows past 1 GB within about 100 cells).
_WORKER_MEMORY_MB = 2000.0


def _worker_init(module: str | None, profile: str) -> None:
    import threading

    parent = os.getppid()

    def orphaned() -> None:  # a worker whose check command died (Ctrl-C, kill) ends too
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=orphaned, daemon=True).start()
    # a worker runs one cell at a time: the libraries' own thread pools would only compete
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    set_profile(profile)  # (JAX's disk cache comes with the environment run_check set up)
    if module:
        importlib.import_module(module)
    try:  # one intra-op thread: the workers already use every core
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def _worker_main(
    module: str | None, profile: str, limit_mb: float, tasks: Any, results: Any
) -> None:
    """A worker process: run cells from ``tasks`` until a ``None``, or until its memory passes
    ``limit_mb`` (JAX's and torch's caches of compiled code only grow): then it retires and the
    parent starts a fresh one."""
    _worker_init(module, profile)
    by_name = {r.name: r for r in registrations()}
    pid = os.getpid()
    while True:
        task = tasks.get()
        if task is None:
            return
        name, column = task
        results.put(("start", pid, name, column))
        try:
            cell = _run_cell(by_name[name], column)
        except BaseException as e:  # noqa: BLE001  (reported as the cell's failure)
            cell = Cell("FAIL", errors=[f"the checker itself failed: {type(e).__name__}: {e}"])
        rss = _peak_rss_mb()
        results.put(("cell", pid, name, column, cell, rss))
        if rss > limit_mb:
            results.put(("retire", pid))
            return


def _peak_rss_mb() -> float:
    """This process's peak resident memory in MB (``VmHWM``: it starts anew at ``exec``, unlike
    ``ru_maxrss``, which a spawned worker inherits from the process that forked it)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def _run_cells(
    regs: Sequence[Registration],
    columns: Sequence[str],
    jobs: int,
    module: str | None,
    profile: str,
    progress: _Progress,
) -> tuple[dict[str, dict[str, Cell]], float, int]:
    """Every (registration, column) cell; in ``jobs`` worker processes when ``jobs > 1``. Returns
    the table, the largest resident memory of a worker (MB; 0 in this process) and the number of
    worker processes started (0 in this process; more than ``jobs`` when workers retired)."""
    table: dict[str, dict[str, Cell]] = {r.name: {} for r in regs}
    left = {r.name: len(columns) for r in regs}
    rules_done = 0

    def done(name: str, column: str, cell: Cell) -> None:
        nonlocal rules_done
        table[name][column] = cell
        left[name] -= 1
        rules_done += left[name] == 0
        progress.step(f"{name} on {column}", rules_done)

    if jobs <= 1:
        for reg, column in cell_order(regs, columns):
            done(reg.name, column, _run_cell(reg, column))
        return table, 0.0, 0

    import multiprocessing
    import queue

    ordered = cell_order(regs, columns)
    ctx = multiprocessing.get_context("spawn")  # JAX and torch do not survive a fork
    tasks, results = ctx.Queue(), ctx.Queue()
    for r, c in ordered:
        tasks.put((r.name, c))
    workers: dict[int, Any] = {}
    running: dict[int, tuple[str, str]] = {}
    started: list[int] = []

    def start() -> None:
        p = ctx.Process(
            target=_worker_main,
            args=(module, profile, _WORKER_MEMORY_MB, tasks, results),
            daemon=True,
        )
        p.start()
        assert p.pid is not None
        workers[p.pid] = p
        started.append(p.pid)

    for _ in range(min(jobs, len(ordered))):
        start()
    peak, remaining = 0.0, len(ordered)
    try:
        while remaining:
            try:
                msg = results.get(timeout=5.0)
            except queue.Empty:
                for pid, p in list(workers.items()):
                    if not p.is_alive():  # died without a word (killed, out of memory)
                        del workers[pid]
                        if pid in running:
                            name, column = running.pop(pid)
                            why = f"the worker process died (exit code {p.exitcode})"
                            done(name, column, Cell("FAIL", errors=[why]))
                            remaining -= 1
                        start()
                continue
            if msg[0] == "start":
                running[msg[1]] = (msg[2], msg[3])
            elif msg[0] == "cell":
                _, pid, name, column, cell, rss = msg
                running.pop(pid, None)
                peak = max(peak, rss)
                done(name, column, cell)
                remaining -= 1
            elif msg[0] == "retire":
                workers.pop(msg[1]).join()
                if remaining > len(workers):
                    start()
    finally:
        for _ in workers:
            tasks.put(None)
        for p in workers.values():
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
    return table, peak, len(started)


def run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    start = time.perf_counter()
    changed: frozenset[int] = frozenset()
    if args.module:
        found = _import_user_module(args.module, err)
        if found is None:
            return 2
        changed = found
    profile = "thorough" if args.thorough else "fast"
    set_profile(profile)
    use_jax_compilation_cache()  # before JAX is imported: workers inherit the environment
    use_quick_xla_compiles()
    names = args.backend or list(BACKENDS)
    backends = []
    for n in names:
        b = get_backend(n)
        if b.available():
            backends.append(b)
        elif args.backend:
            err.write(f"backend {n!r} is not available here (not installed, or no GPU)\n")
            return 2
    regs = _select(args.k, args.module, changed)
    if not regs:
        where = f" in module {args.module}" if args.module else ""
        if args.k:
            err.write(f"no registered rule matches {args.k!r}{where}\n")
        else:
            err.write(f"no rule is registered{where}\n")
        return 2
    columns = [b.name for b in backends] + ([] if args.no_device_checks else list(DEVICE_CHECKS))
    if args.lazy or args.thorough or "dask" in names:  # opt-in: the default run stays as it is
        try:
            import array_api_compat.dask.array  # noqa: F401
        except ImportError as e:
            err.write(f"the lazy column needs dask and array-api-compat: {e}\n")
            return 2
        columns.append(LAZY_COLUMN)
    n_cells = len(regs) * len(columns)
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if args.jobs is None and n_cells < 24:
        jobs = 1  # a few cells: starting worker processes would cost more than they save
    progress = _Progress(n_cells, len(regs), err)
    table, peak, starts = _run_cells(regs, columns, jobs, args.module, profile, progress)
    progress.close()
    elapsed = time.perf_counter() - start

    cells = [c for row in table.values() for c in row.values()]
    summary = {
        "rules": len(regs),
        "columns": len(columns),
        "cells": len(cells),
        "passed": sum(c.status == "ok" for c in cells),
        "failed": sum(c.status == "FAIL" for c in cells),
        "xfail": sum(c.status == "xfail" for c in cells),
        "skipped": sum(c.status == "skip" for c in cells),
        "not_applicable": sum(c.status == "n/a" for c in cells),
        "no_examples": sum(c.status == "none" for c in cells),
        "checks": sum(c.checks for c in cells),
        "xfailed_checks": sum(len(c.xfailed) for c in cells),
        "unexpected_passes": sum("but passed" in e for c in cells for e in c.errors),
        "skipped_examples": sum(len(c.unsupported) for c in cells),
        "undeclared_refusals": sum(len(c.undeclared) for c in cells),
        "warnings": sum(len(c.warnings) for c in cells),
        "profile": profile,
        "jobs": jobs,
        "seconds": round(elapsed, 1),
        "worker_peak_rss_mb": round(peak),
        "worker_starts": starts,
    }
    if args.json:
        json.dump(
            {
                "version": __version__,
                "columns": columns,
                "rules": {
                    name: {col: _cell_json(c) for col, c in row.items()}
                    for name, row in table.items()
                },
                "summary": summary,
            },
            out,
            indent=2,
        )
        out.write("\n")
    else:
        _report(table, columns, args.max_errors, out)
        out.write(
            f"\n{_plural(len(regs), 'function')} x {_plural(len(columns), 'column')}: "
            f"{summary['passed']} passed, {summary['failed']} failed, {summary['xfail']} xfail "
            f"(declared), {summary['skipped']} skipped (declared), {summary['not_applicable']} "
            f"not applicable; {summary['checks']} checks "
            f"run; {summary['skipped_examples']} examples skipped (declared); "
            f"{summary['warnings']} warnings; {profile} profile, {_duration(elapsed)} on "
            f"{_plural(jobs, 'process', 'es')}\n"
        )
    return 1 if summary["failed"] else 0


def _cell_json(c: Cell) -> dict[str, Any]:
    return {
        "status": c.status,
        "checks": c.checks,
        "errors": c.errors,
        "xfailed": c.xfailed,
        "skipped_examples": c.unsupported,
        "undeclared_refusals": c.undeclared,
        "not_applicable_examples": c.not_applicable,
        "warnings": c.warnings,
        "seconds": round(c.seconds, 3),
    }


def _plural(n: int, word: str, suffix: str = "s") -> str:
    return f"{n} {word}{suffix * (n != 1)}"


def _report(
    table: dict[str, dict[str, Cell]], columns: Sequence[str], max_errors: int, out: TextIO
) -> None:
    """Failures first (each distinct message once), then the table with failing rows first, then
    the declared limits and the warnings."""
    failing = [n for n, row in table.items() if any(c.status == "FAIL" for c in row.values())]
    for name in failing:
        for col, c in table[name].items():
            msgs = list(dict.fromkeys(c.errors + c.undeclared))
            for e in msgs[:max_errors]:
                out.write(f"FAIL {name} on {col}: {e}\n")
            if len(msgs) > max_errors:
                out.write(f"FAIL {name} on {col}: ... and {len(msgs) - max_errors} more\n")
    if failing:
        out.write("\n")
    order = failing + [n for n in table if n not in set(failing)]
    _print_table({n: table[n] for n in order}, columns, out)
    notes = []
    for name, row in table.items():
        for col, c in row.items():
            for reason in c.xfail_reasons():
                notes.append(f"xfail {name} on {col}: {reason}")
            for w in c.warnings:
                notes.append(f"warning {name} on {col}: {w}")
    if notes:
        out.write("\n" + "\n".join(notes) + "\n")


def _print_table(table: dict[str, dict[str, Cell]], columns: Sequence[str], out: TextIO) -> None:
    w0 = max([len("function")] + [len(n) for n in table])
    widths = [max(len(b), 5) for b in columns]

    def line(first: str, cells: Sequence[str]) -> None:
        text = first.ljust(w0) + "  " + "  ".join(c.ljust(w) for c, w in zip(cells, widths))
        out.write(text.rstrip() + "\n")

    line("function", columns)
    line("-" * w0, ["-" * w for w in widths])
    for name, row in table.items():
        line(name, [row[b].status for b in columns])


def run_coverage(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import coverage

    if args.against:
        return _run_anchor_coverage(args, out, err)
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


def _run_anchor_coverage(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``coverage --against ANCHOR``: each anchor's own list, section by section."""
    from . import coverage

    reports = []
    for name in dict.fromkeys(args.against):  # in the order given, once each
        try:
            reports.append(coverage.anchor_coverage(name))
        except coverage.AnchorMissing as e:
            err.write(f"{e}\n")
            return 2
    if args.json:
        coverage.write_anchor_json(reports, out)
    else:
        for i, (entries, summary) in enumerate(reports):
            out.write("\n" * (i > 0))
            coverage.write_anchor_table(entries, summary, out)
    if args.markdown:
        doc = args.markdown.read_text()
        if ANCHOR_MARKER not in doc or ANCHOR_END not in doc.split(ANCHOR_MARKER, 1)[1]:
            err.write(f"{args.markdown} has no {ANCHOR_MARKER} ... {ANCHOR_END} lines\n")
            return 2
        head, rest = doc.split(ANCHOR_MARKER, 1)
        tail = rest.split(ANCHOR_END, 1)[1]
        body = coverage.write_anchor_markdown(reports)
        args.markdown.write_text(head + ANCHOR_MARKER + "\n\n" + body + "\n" + ANCHOR_END + tail)
    if args.fail_under is not None:
        under = [
            f"{summary['anchor']} {section} {s['percent']}%"
            for _, summary in reports
            for section, s in summary["sections"].items()
            if s["percent"] < args.fail_under
        ]
        if under:
            err.write(f"coverage under {args.fail_under}%: {', '.join(under)}\n")
            return 1
    return 0


COVERAGE_MARKER = "<!-- COVERAGE TABLE -->"
ANCHOR_MARKER = "<!-- ANCHOR COVERAGE -->"
ANCHOR_END = "<!-- END ANCHOR COVERAGE -->"


def build_parser(prog: str = "python -m chainrules") -> argparse.ArgumentParser:
    from pathlib import Path

    p = argparse.ArgumentParser(
        prog=prog,
        description="chainrules' command line: check the rules, report the coverage.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="run the rule testers on every registered rule and backend")
    c.add_argument(
        "-k",
        metavar="PATTERN",
        help="only the rule named PATTERN, else the rules whose function name (the part after "
        "the last '.') contains PATTERN or matches it as a glob ('norm', 'logical_*'); a "
        "dotted PATTERN matches whole parts of the name ('stats.norm', 'numpy:arc*')",
    )
    c.add_argument(
        "--backend",
        action="append",
        choices=[*BACKENDS, *EXTRA_BACKENDS],
        help="check on this backend only (repeatable; default: every installed one but dask; "
        "--backend dask also adds the lazy column)",
    )
    c.add_argument("--json", action="store_true", help="print the results as JSON")
    c.add_argument(
        "--thorough",
        action="store_true",
        help="run every example on every column (default: the fast profile, the test suite's)",
    )
    c.add_argument(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="worker processes (default: one per core; in this process for a few cells)",
    )
    c.add_argument(
        "--no-device-checks",
        action="store_true",
        help="leave out the scalar-free (guarded device arrays) and jit (jax.jit) columns",
    )
    c.add_argument(
        "--lazy",
        action="store_true",
        help="add the lazy column: each rule on dask arrays runs no graph and matches NumPy "
        "(also in --thorough and with --backend dask)",
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
        "coverage",
        help="list every function of the Array API standard (or of another library's lists, "
        "--against) with its rules' status",
    )
    cov.add_argument(
        "--against",
        action="append",
        choices=["numpy", "scipy", "jax", "autograd"],
        metavar="ANCHOR",
        help="measure against this library's own public lists instead, read from it at run "
        "time: numpy, scipy, jax or autograd (repeatable)",
    )
    cov.add_argument("--json", action="store_true", help="print the report as JSON")
    cov.add_argument(
        "--markdown",
        type=Path,
        metavar="PATH",
        help=f"also write the table into PATH after its {COVERAGE_MARKER} line (with --against: "
        f"the anchors' numbers between its {ANCHOR_MARKER} and {ANCHOR_END} lines)",
    )
    cov.add_argument(
        "--fail-under",
        type=float,
        metavar="PERCENT",
        help="exit with status 1 when less than PERCENT of the standard is covered (with "
        "--against: of any section of an anchor's lists)",
    )
    return p


def main(
    argv: Sequence[str] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    prog: str = "python -m chainrules",
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    args = build_parser(prog).parse_args(argv)
    if args.command == "check":
        return run_check(args, out, err)
    if args.command == "coverage":
        return run_coverage(args, out, err)
    return 2  # pragma: no cover  (argparse rejects unknown commands)


def _entry(argv: Sequence[str] | None = None) -> Any:
    """The ``chainrules`` console script."""
    return main(argv, prog="chainrules")
