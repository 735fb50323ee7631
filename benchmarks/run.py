"""Run every benchmark and print one Markdown table of medians and same-process ratios.

    python benchmarks/run.py            # full
    python benchmarks/run.py --quick    # shorter runs, noisier
    python benchmarks/run.py --markdown docs/benchmarks-method.md  # the table into the docs
    python benchmarks/run.py --repeats 3 --json run.json     # ratio ranges over 3 runs, as JSON
    python benchmarks/run.py --plots    # also measure the plots' series, write docs/img/*.svg
    python benchmarks/run.py --plots-from run.json           # redraw the SVGs from a saved run

Times are medians of repeated runs; each ratio compares two functions timed in alternating rounds
in this process, because absolute times on a shared machine move 2-3x between processes. A ✓/✗
marks targets from the issues; the numbers are the result, not a test (the test suite asserts no
timings).

Each row is printed as soon as it is measured; the output (stdout) is the Markdown table and,
after it, a summary of the targets missed and the suites that failed. Progress, and anything a
suite prints itself, goes to stderr. A suite that fails (a missing library, an error) is reported
with its error and the others still run; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import platform
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

sys.path.insert(0, str(Path(__file__).parent))

from _timing import Row, table

MARKER = "<!-- BENCHMARK TABLE -->"
# suite name -> module in benchmarks/ (imported when the suite runs, so that one whose libraries
# are missing fails alone)
SUITES = {
    name: name
    for name in (
        "elementwise",
        "norms",
        "indexing",
        "linear_algebra",
        "linalg_solvers",
        "linalg_decompositions",
        "fft",
        "quantile",
        "linalg_extras",
        "scipy_linalg",
        "ad",
        "interop",
        "torch_bridge",
        "jax_bridge",
    )
} | {"second_order": "peers"}  # hessian and jacobian against every eager engine (peers.py)
IMG = Path(__file__).resolve().parents[1] / "docs" / "img"

_TIME = re.compile(r"^\s*([0-9.]+)\s*(µs|ms|s)\b")
_RATIO = re.compile(r"^\s*([0-9.]+)x( faster)?\s*$")


def parse_time(cell: str) -> float | None:
    """Seconds from a cell written by ``_timing.fmt_time`` (``"2.58 µs"``, ``"24.880 ms hand"``)."""
    m = _TIME.match(cell)
    if not m:
        return None
    return float(m.group(1)) * {"µs": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)]


def parse_ratio(cell: str) -> float | None:
    """Our time over the baseline's, from ``"1.011x"`` or ``"19.4x faster"`` (= 1 / 19.4)."""
    m = _RATIO.match(cell)
    if not m:
        return None
    r = float(m.group(1))
    return 1 / r if m.group(2) else r


def row_json(r: Row) -> dict[str, Any]:
    return {
        "name": r.name,
        "value": r.value,
        "baseline": r.baseline,
        "ratio": r.ratio,
        "target": r.target,
        "ok": r.ok,
        "seconds": parse_time(r.value),
        "baseline_seconds": parse_time(r.baseline),
        "ratio_value": parse_ratio(r.ratio),
    }


class _RowStream:
    """Prints each ``Row`` the moment a suite builds it (the suites return their rows only at the
    end, so a suite that fails half-way would otherwise lose every row it had measured)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.rows: list[Row] = []

    def __enter__(self) -> _RowStream:
        self.init = Row.__init__
        stream = self

        def init(row: Row, *args: Any, **kwargs: Any) -> None:
            stream.init(row, *args, **kwargs)
            stream.rows.append(row)
            stream.out.write("| " + " | ".join(row.cells()) + " |\n")
            stream.out.flush()

        Row.__init__ = init  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        Row.__init__ = self.init  # type: ignore[method-assign]


def run_suites(
    names: Sequence[str],
    quick: bool,
    repeats: int,
    out: TextIO,
    err: TextIO,
    suites: dict[str, Callable[..., list[Row]]] | None = None,
) -> tuple[list[list[Row]], dict[str, str]]:
    """Every suite ``repeats`` times, rows streamed to ``out``; returns the rows of each repeat
    (in order) and the failed suites' errors (name -> last line of the traceback)."""
    runs: list[list[Row]] = []
    failed: dict[str, str] = {}
    out.write(table([]) + "\n")  # the table's header; rows follow as they are measured
    out.flush()
    for rep in range(repeats):
        rows: list[Row] = []
        for name in names:
            if name in failed:
                continue
            label = f" (run {rep + 1} of {repeats})" if repeats > 1 else ""
            err.write(f"running {name}{label} ...\n")
            err.flush()
            # the suite's own prints (progress, debugging) go to err: out is the table only
            with _RowStream(out) as stream, contextlib.redirect_stdout(err):
                try:
                    fn = suites[name] if suites else importlib.import_module(SUITES[name]).run
                    fn(quick=quick)
                except Exception as e:  # noqa: BLE001  (reported; the other suites still run)
                    failed[name] = f"{type(e).__name__}: {e}"
                    err.write(f"suite {name} FAILED: {failed[name]}\n")
                    err.write("".join(traceback.format_exception(e)[-3:]))
                    err.flush()
            rows += stream.rows
        runs.append(rows)
    return runs, failed


def ranges(runs: list[list[Row]]) -> dict[str, tuple[float, float, float]]:
    """Per row name: (min, median, max) of its ratio over the repeats (rows with a plain ratio)."""
    import statistics

    seen: dict[str, list[float]] = {}
    for rows in runs:
        for r in rows:
            v = parse_ratio(r.ratio)
            if v is not None:
                seen.setdefault(r.name, []).append(v)
    return {k: (min(v), statistics.median(v), max(v)) for k, v in seen.items()}


def summary(rows: list[Row], failed: dict[str, str]) -> str:
    """The closing lines after the table: how many targets were met, each one missed (its name,
    ratio and target) and each suite that failed. Rows with no target (``ok`` is None) are
    reported in the table only."""
    judged = [r for r in rows if r.ok is not None]
    missed = [r for r in judged if not r.ok]
    if not judged:
        lines = ["No targets were judged."]
    elif not missed:
        lines = [f"All {len(judged)} targets met."]
    else:
        lines = [f"{len(judged) - len(missed)} of {len(judged)} targets met; missed:", ""]
        lines += [f"- {r.name.strip()}: {r.ratio or r.value} (target {r.target})" for r in missed]
    if failed:
        lines += ["", f"{len(failed)} suite(s) failed (their rows are missing above):", ""]
        lines += [f"- {name}: {error}" for name, error in failed.items()]
    return "\n".join(lines)


def _with_ranges(rows: list[Row], rng: dict[str, tuple[float, float, float]], n: int) -> list[Row]:
    if n <= 1:
        return rows
    out = []
    for r in rows:
        lo_med_hi = rng.get(r.name)
        ratio = r.ratio
        if lo_med_hi:
            ratio = f"{r.ratio} ({lo_med_hi[0]:.2f}-{lo_med_hi[2]:.2f} over {n} runs)"
        out.append(Row(r.name, r.value, r.baseline, ratio, r.target, r.ok))
    return out


def main(
    argv: Sequence[str] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    suites: dict[str, Callable[..., list[Row]]] | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    known = suites or SUITES
    p = argparse.ArgumentParser(prog="benchmarks/run.py", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="shorter runs, noisier")
    p.add_argument("--markdown", type=Path, help="replace the table after the marker in this file")
    p.add_argument("--repeats", type=int, default=1, help="run every suite N times (ranges)")
    p.add_argument("--json", type=Path, metavar="PATH", help="write the rows and series as JSON")
    p.add_argument(
        "--plots", action="store_true", help=f"measure the plots' series and write SVGs to {IMG}"
    )
    p.add_argument("--plots-from", type=Path, metavar="JSON", help="only redraw the SVGs")
    p.add_argument("--img", type=Path, default=IMG, help="folder for the SVGs")
    p.add_argument("suites", nargs="*", help=f"suites to run (default: all of {', '.join(known)})")
    args = p.parse_args(argv)
    if args.plots_from:
        import plots

        written = plots.write_svgs(json.loads(args.plots_from.read_text()), args.img)
        out.write("wrote " + ", ".join(str(w) for w in written) + "\n")
        return 0
    unknown = [s for s in args.suites if s not in known]
    if unknown:
        p.error(f"unknown suite(s) {unknown}; choose from {list(known)}")
    if args.repeats < 1:
        p.error(f"--repeats must be at least 1, got {args.repeats}")
    if args.markdown and MARKER not in args.markdown.read_text():
        p.error(f"{args.markdown} has no {MARKER} line")
    import numpy as np

    header = (
        f"Measured on {platform.machine()}, Python {platform.python_version()}, "
        f"NumPy {np.__version__}; medians, ratios from one process"
        + (f", ranges over {args.repeats} runs" if args.repeats > 1 else "")
        + (" (--quick)" if args.quick else "")
        + "."
    )
    out.write(header + "\n\n")
    runs, failed = run_suites(
        args.suites or list(known), args.quick, args.repeats, out, err, suites
    )
    rng = ranges(runs)
    rows = _with_ranges(runs[0], rng, args.repeats)
    text = header + "\n\n" + table(rows)
    if args.repeats > 1:
        out.write("\n" + text + "\n")
    out.write("\n" + summary(rows, failed) + "\n")
    series: dict[str, Any] = {}
    if args.plots:
        import plots

        err.write("measuring the plots' series ...\n")
        series = plots.measure(quick=args.quick, repeats=max(args.repeats, 3), err=err)
    data = {
        "header": header,
        "quick": args.quick,
        "repeats": args.repeats,
        "runs": [[row_json(r) for r in rows] for rows in runs],
        "ranges": {k: list(v) for k, v in rng.items()},
        "failed_suites": failed,
        "missed": [r.name for r in rows if r.ok is False],
        "series": series,
    }
    if args.json:
        args.json.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    if args.plots:
        import plots

        written = plots.write_svgs(data, args.img)
        err.write("wrote " + ", ".join(str(w) for w in written) + "\n")
    if failed:
        err.write(
            f"{len(failed)} suite(s) failed: "
            + "; ".join(f"{k}: {v}" for k, v in failed.items())
            + "\n"
        )
    if args.markdown:
        head = args.markdown.read_text().split(MARKER)[0]
        args.markdown.write_text(head + MARKER + "\n\n" + text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
