"""What each backend method buys on the population (issue 27, item 3).

``python -m benchmarks.population.methods [--half all] [--repeats 2] [--only NAME ...]``

A faster way to do a rule on one library is a method declared beside the rule
(``chainrules.core.specialise``), and a gain on the population justifies it. For each function
with methods, this finds the cells of the population (program x transformation, as
``python -m benchmarks.population`` has them, ``chainrules.ad`` without ``jit``) where one of its
methods ran and gave the value (``record_methods``). It checks that the cell's result is the
same with the method and with that one function sent to its generic path (``generic_only(fn)``,
rtol 1e-7), then times the two side by side in alternating rounds in this process (CPU time of
this thread, BLAS at one thread). A cell's ratio is its time with the method over its time
without: below 1 the method helps. Per function: the cells it ran in, the median ratio with its
range over ``--repeats`` runs, and the best cell. A method the population never reaches (torch's,
on NumPy programs) has no cells: a gain elsewhere (``benchmarks/torch_bridge.py``) is its case.
"""

# ruff: noqa: E402  (the environment is set before NumPy and SciPy load)
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("SCIPY_ARRAY_API", "1")  # as python -m benchmarks.population runs

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from chainrules.core.specialise import (
    Specialised,
    generic_only,
    methods,
    record_methods,
    specialise,
)

from .._timing import interleaved
from .bench import (
    _call,
    _nondeterministic,
    disagreement,
    json_text,
    one_thread,
    quiet,
    select,
    transforms_of,
)
from .engines import chainrules_engine
from .programs import population


@specialise
def _never_called(x: Any) -> Any:
    """Sent to its generic path in the timed arm *with* the method: both arms then pay the same
    ``generic_only`` scope."""
    return x


def name_of(fn: Specialised) -> str:
    return f"{fn.__module__.removeprefix('chainrules.')}.{fn.generic.__qualname__}"


Cells = dict[str, tuple[Callable[[], Any], bool]]  # label -> (call, compared)


def find_cells(programs: Sequence[Any], err: TextIO) -> dict[str, Cells]:
    """function's name -> the cells (label -> (call, compared)) where one of its methods ran and
    gave the value. A function a factory makes once per registration is one name: one
    declaration. A program that draws random numbers inside is timed, not compared."""
    engine = chainrules_engine()
    cells: dict[str, Cells] = {}
    for p in programs:
        for t in transforms_of(p):
            try:
                call = _call(engine, p, t)
                with quiet():
                    call()
                    with record_methods() as used:
                        call()
            except Exception:  # noqa: BLE001  (the population benchmark reports these cells)
                continue
            compared = not _nondeterministic(p)
            for fn in used:
                cells.setdefault(name_of(fn), {})[f"{p.name}:{t}"] = (call, compared)
    err.write(f"found the methods of {len(cells)} functions in {len(programs)} programs\n")
    return cells


def _arm(call: Callable[[], Any], off: Sequence[Specialised]) -> Callable[[], Any]:
    def run() -> Any:
        with generic_only(*off):
            return call()

    return run


def measure(
    fns: list[Specialised],
    cells: Cells,
    repeats: int,
    rounds: int,
    budget: float,
) -> dict[str, Any]:
    """The on/off ratio of each cell (``repeats`` runs), after checking the two agree."""
    ratios: dict[str, list[float]] = {}
    disagree: dict[str, str] = {}
    for label, (call, compared) in cells.items():
        on, off = _arm(call, [_never_called]), _arm(call, fns)
        with quiet():
            why = disagreement(on(), off(), 1e-7) if compared else None
        if why:
            disagree[label] = why
            continue
        for _ in range(repeats):
            with quiet():
                t = interleaved(
                    {"on": on, "off": off}, rounds=rounds, budget=budget, timer=time.thread_time
                )
            ratios.setdefault(label, []).append(t["on"] / t["off"])
    per_cell = {k: statistics.median(v) for k, v in ratios.items()}
    row: dict[str, Any] = {
        "function": name_of(fns[0]),
        "libraries": sorted(fns[0].library_methods),
        "cells": len(cells),
        "disagree": disagree,
        "ratios": per_cell,
    }
    if per_cell:
        runs = [statistics.median(v[k] for v in ratios.values()) for k in range(repeats)]
        best = min(per_cell, key=per_cell.__getitem__)
        row.update(
            median=statistics.median(runs),  # within the range of the runs' medians
            median_range=[min(runs), max(runs)],
            best=per_cell[best],
            best_cell=best,
        )
    return row


def markdown(rows: list[dict[str, Any]]) -> str:
    out = [
        "| function (libraries) | cells | with / without, median (range) | best cell |",
        "|---|---:|---|---|",
    ]
    for r in rows:
        fn = f"`{r['function']}` ({', '.join(r['libraries'])})"
        if "median" not in r:
            out.append(f"| {fn} | {r['cells']} | – | – |")
            continue
        lo, hi = r["median_range"]
        bad = f"; **{len(r['disagree'])} disagree**" if r["disagree"] else ""
        out.append(
            f"| {fn} | {r['cells']}{bad} | {r['median']:.3f} ({lo:.3f}–{hi:.3f}) | "
            f"{r['best']:.3f} `{r['best_cell']}` |"
        )
    return "\n".join(out) + "\n"


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.population.methods", description=__doc__.split("\n")[0]
    )
    p.add_argument("--half", choices=("dev", "held-out", "all"), default="all")
    p.add_argument(
        "--programs", nargs="*", default=[], help="only programs whose name contains one of these"
    )
    p.add_argument(
        "--only", nargs="*", default=[], help="only functions whose name contains one of these"
    )
    p.add_argument("--repeats", type=int, default=1, help="timed runs (ranges over runs)")
    p.add_argument("--quick", action="store_true", help="fewer rounds, shorter budgets (noisier)")
    p.add_argument("--json", type=str, metavar="OUT", help="write the rows as JSON")
    args = p.parse_args(argv)
    rounds, budget = (2, 0.004) if args.quick else (3, 0.008)
    progs = select(population(), args.half, args.programs)
    t0 = time.perf_counter()
    with one_thread():
        found = find_cells(progs, err)
        groups: dict[str, list[Specialised]] = {}
        for fn in methods():
            groups.setdefault(name_of(fn), []).append(fn)
        rows = []
        for name, fns in groups.items():
            if args.only and not any(n in name for n in args.only):
                continue
            err.write(f"{name}: {len(found.get(name, {}))} cells\n")
            err.flush()
            rows.append(measure(fns, found.get(name, {}), args.repeats, rounds, budget))
    rows.sort(key=lambda r: (r.get("median", 2.0), r["function"]))
    out.write(
        f"Backend methods on the population ({len(progs)} programs, half: {args.half}, "
        f"{args.repeats} run(s), {time.perf_counter() - t0:.0f} s)\n\n" + markdown(rows)
    )
    if args.json:
        with open(args.json, "w") as f:
            f.write(json_text({"half": args.half, "repeats": args.repeats, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
