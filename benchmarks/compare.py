"""Compare two checkouts of the library on the benchmark suites: is this tree within 10% of a base?

    python benchmarks/compare.py --base /path/to/old/checkout                # every common suite
    python benchmarks/compare.py --base ../base --rounds 5 --quick norms fft
    python benchmarks/compare.py --base ../base --json compare.json

Each suite runs in fresh subprocesses, one per tree and round, alternating (base, this, this, base,
...), with ``PYTHONPATH`` and the working directory set to the library under test. The suite's code
is this tree's ``benchmarks/<suite>.py`` for both trees, so that both measure the same thing; where
that code fails on the base (it needs API the base lacks), the base runs its own
``benchmarks/<suite>.py`` instead, and the table says so.

Absolute times move 2-3x between processes on a shared machine, but every row already holds a
ratio measured in one process (ours against a hand-written or peer function). The column to read
is the ratio of the two trees' same-process ratios: this tree's ratio over the base's, median and
range over the rounds; above ``--threshold`` (1.10) the row is flagged. Rows with no ratio
(``+12 ms``) fall back to the ratio of absolute times, marked ``abs``; rows whose value is a ratio
itself (``1.00x input``, peak memory) compare those values, marked ``value``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from run import SUITES, parse_time  # noqa: E402  (benchmarks/ is on sys.path only now)

_RATIO = re.compile(r"^\s*([0-9.]+)x( faster)?\b")
# Run in the child: import one suite from a benchmarks folder, print its rows as JSON.
_CHILD = """
import dataclasses, json, sys
sys.path.insert(0, sys.argv[1])
import importlib
rows = importlib.import_module(sys.argv[2]).run(quick=sys.argv[3] == "1")
print("@@ROWS@@" + json.dumps([dataclasses.asdict(r) for r in rows], ensure_ascii=False))
"""


def parse_ratio(cell: str) -> float | None:
    """Ours over the reference, from the start of a ratio cell: ``"1.01x"``, ``"0.98x (0.9-1.1)"``,
    ``"19.4x faster"`` (= 1 / 19.4), ``"1.2x cpu, 1.1x wall"`` (the first); None for others."""
    m = _RATIO.match(cell)
    if not m:
        return None
    try:
        r = float(m.group(1))
    except ValueError:
        return None
    if r == 0:
        return None
    return 1 / r if m.group(2) else r


@dataclasses.dataclass
class Sample:
    """One row of one suite's run in one process."""

    seconds: float | None
    ratio: float | None
    value: float | None = None  # a value cell that is a ratio itself ("1.00x input": memory)


@dataclasses.dataclass
class Compared:
    name: str
    main_s: float | None  # median over rounds
    base_s: float | None
    kind: str  # "ratio" (same-process ratios compared) or "abs" (absolute times) or "-"
    med: float | None  # this tree's over the base's: median over rounds
    lo: float | None
    hi: float | None
    rounds: int

    def flagged(self, threshold: float) -> bool:
        return self.med is not None and self.med > threshold


def samples(rows: list[dict[str, Any]]) -> dict[str, Sample]:
    """Row name -> its time, ratio and ratio-like value, from a suite's rows (as dicts)."""
    return {
        r["name"]: Sample(parse_time(r["value"]), parse_ratio(r["ratio"]), parse_ratio(r["value"]))
        for r in rows
        if isinstance(r.get("name"), str)
    }


def _med(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def compare(main: list[dict[str, Sample]], base: list[dict[str, Sample]]) -> list[Compared]:
    """Per row (in this tree's order): round by round, this tree's same-process ratio over the
    base's (or, without ratios, the absolute times' ratio), summarised over the rounds. Rounds are
    paired by index; a row missing from one tree has no comparison."""
    names = list(dict.fromkeys(n for rnd in main for n in rnd))
    out: list[Compared] = []
    for name in names:
        pairs = [(m[name], b[name]) for m, b in zip(main, base) if name in m and name in b]
        rel = [m.ratio / b.ratio for m, b in pairs if m.ratio and b.ratio]
        kind = "ratio"
        if not rel:
            rel = [m.seconds / b.seconds for m, b in pairs if m.seconds and b.seconds]
            kind = "abs" if rel else "-"
        if not rel:
            rel = [m.value / b.value for m, b in pairs if m.value and b.value]
            kind = "value" if rel else "-"
        mt = [s.seconds for rnd in main if (s := rnd.get(name)) and s.seconds is not None]
        bt = [s.seconds for rnd in base if (s := rnd.get(name)) and s.seconds is not None]
        out.append(
            Compared(
                name,
                _med(mt),
                _med(bt),
                kind,
                _med(rel),
                min(rel) if rel else None,
                max(rel) if rel else None,
                len(rel),
            )
        )
    return out


def _t(s: float | None) -> str:
    if s is None:
        return "-"
    return f"{s * 1e6:.2f} µs" if s < 1e-3 else f"{s * 1e3:.3f} ms"


def table(rows: list[Compared], threshold: float, notes: dict[str, str] | None = None) -> str:
    head = ["suite / benchmark", "this tree", "base", "this / base (median, range)", "flag"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r.med is None:
            rel = "- (no pair)"
        else:
            rel = f"{r.med:.3f} ({r.lo:.2f}-{r.hi:.2f}, {r.rounds} rounds)"
            rel += f" {r.kind}" if r.kind != "ratio" else ""
        flag = f"> {threshold:.2f}" if r.flagged(threshold) else ""
        note = (notes or {}).get(r.name, "")
        name = r.name + (f" [{note}]" if note else "")
        lines.append(f"| {name} | {_t(r.main_s)} | {_t(r.base_s)} | {rel} | {flag} |")
    return "\n".join(lines)


def run_child(
    lib: Path, bench: Path, suite: str, quick: bool, err: TextIO
) -> list[dict[str, Any]] | str:
    """One suite in a fresh process against the library at ``lib``: its rows, or the error."""
    env = dict(os.environ, PYTHONPATH=str(lib))
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(bench), suite, "1" if quick else "0"],
        cwd=lib,
        env=env,
        capture_output=True,
        text=True,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("@@ROWS@@"):
            rows: list[dict[str, Any]] = json.loads(line[len("@@ROWS@@") :])
            return rows
    tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
    err.write(f"  {suite} on {lib} failed (exit {proc.returncode}): {tail}\n")
    return tail


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = sys.stderr
    p = argparse.ArgumentParser(prog="benchmarks/compare.py", description=__doc__.split("\n")[0])
    p.add_argument("--base", type=Path, required=True, help="the other checkout's root")
    p.add_argument("--main", type=Path, default=ROOT, help=f"this checkout's root ({ROOT})")
    p.add_argument("--rounds", type=int, default=3, help="processes per tree and suite (3)")
    p.add_argument("--quick", action="store_true", help="the suites' shorter runs")
    p.add_argument("--threshold", type=float, default=1.10, help="flag above this (1.10)")
    p.add_argument("--json", type=Path, metavar="PATH", help="write every round's rows as JSON")
    p.add_argument("suites", nargs="*", help="suites (default: those in both trees' benchmarks/)")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error(f"--rounds must be at least 1, got {args.rounds}")
    base_bench, main_bench = args.base / "benchmarks", args.main / "benchmarks"
    if not (args.base / "chainrules").is_dir():
        p.error(f"--base {args.base} has no chainrules/ package")
    common = [s for s in SUITES.values() if (base_bench / f"{s}.py").is_file()]
    unknown = [s for s in args.suites if s not in common]
    if unknown:
        p.error(f"suite(s) {unknown} not in both trees; choose from {common}")
    data: dict[str, Any] = {"base": str(args.base), "main": str(args.main), "suites": {}}
    all_rows: list[Compared] = []
    notes: dict[str, str] = {}
    failed: list[str] = []
    for suite in args.suites or common:
        base_code = main_bench  # the same suite code for both, unless the base cannot run it
        main_runs: list[dict[str, Sample]] = []
        base_runs: list[dict[str, Sample]] = []
        raw: dict[str, list[Any]] = {"main": [], "base": []}
        for rnd in range(args.rounds):
            order = ("base", "main") if rnd % 2 == 0 else ("main", "base")
            for which in order:
                err.write(f"{suite}: round {rnd + 1} of {args.rounds}, {which} ...\n")
                err.flush()
                lib = args.base if which == "base" else args.main
                code = base_code if which == "base" else main_bench
                rows = run_child(lib, code, suite, args.quick, err)
                if isinstance(rows, str) and which == "base" and base_code == main_bench:
                    err.write(f"  {suite}: the base runs its own benchmarks/{suite}.py\n")
                    base_code = base_bench
                    rows = run_child(lib, base_code, suite, args.quick, err)
                if isinstance(rows, str):
                    break
                raw[which].append(rows)
                (base_runs if which == "base" else main_runs).append(samples(rows))
            else:
                continue
            failed.append(suite)
            break
        n = min(len(main_runs), len(base_runs))
        rows_c = compare(main_runs[:n], base_runs[:n])
        for r in rows_c:
            r.name = f"{suite}: {r.name}"
            if base_code != main_bench:
                notes[r.name] = "base ran its own suite file"
        all_rows += rows_c
        data["suites"][suite] = {
            "base_suite_code": str(base_code),
            "rounds": raw,
            "compared": [dataclasses.asdict(r) for r in rows_c],
        }
        out.write(table(rows_c, args.threshold, notes) + "\n\n")
        out.flush()
    flagged = [r.name for r in all_rows if r.flagged(args.threshold)]
    head = f"{args.main} against {args.base}, {args.rounds} rounds" + (
        " (--quick)" if args.quick else ""
    )
    out.write(f"{head}\n\n{table(all_rows, args.threshold, notes)}\n\n")
    out.write(f"{len(flagged)} of {len(all_rows)} rows above {args.threshold:.2f}")
    out.write((": " + "; ".join(flagged) if flagged else "") + "\n")
    if failed:
        out.write(f"suites that failed: {', '.join(failed)}\n")
    data["flagged"] = flagged
    data["failed_suites"] = failed
    if args.json:
        args.json.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
