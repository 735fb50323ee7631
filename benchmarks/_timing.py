"""Timing helpers: medians of repeated runs, ratios measured side by side in one process."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass

# --keep-heap (benchmarks/peers.py, python -m benchmarks.population): glibc keeps the memory it
# frees -- no mmap for blocks under 32 MB, no trim of the heap's top. By default a freed buffer
# above the mmap threshold goes back to the system and the top is trimmed, so a fresh 1e5-1e6
# element temporary is often new memory, faulted in (0.3-0.6 ms per 800 KB on these machines,
# more than the arithmetic), and which ones are fresh depends on all the process ran before.
KEEP_HEAP = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}


def heap_kept() -> bool:
    """Whether this process started with :data:`KEEP_HEAP` (glibc reads it only at start-up)."""
    return all(os.environ.get(k) == v for k, v in KEEP_HEAP.items())


def keep_heap_restart(command: list[str]) -> None:
    """With ``--keep-heap`` among the arguments of a process that did not start with
    :data:`KEEP_HEAP`: run ``command`` (the same one, e.g. ``[script, *args]``) again in its
    place, with it set."""
    if "--keep-heap" in sys.argv[1:] and not heap_kept():
        os.environ.update(KEEP_HEAP)
        os.execv(sys.executable, [sys.executable, *command])


def median_time(
    fn: Callable[[], object],
    *,
    budget: float = 0.2,
    repeats: int = 15,
    timer: Callable[[], float] = time.perf_counter,
) -> float:
    """Median seconds per call over ``repeats`` runs, each sized to about ``budget / repeats``.
    ``timer=time.thread_time`` counts this thread's CPU time only: on a shared machine, the
    time other processes hold the cores is left out."""
    fn()  # warm up (caches, lazy imports)
    n, t = 1, 0.0
    while True:  # find a loop count that takes about budget/repeats
        t = timeit.timeit(fn, number=n, timer=timer)
        if t >= budget / repeats or n >= 1 << 20:
            break
        n *= 2
    runs = timeit.repeat(fn, number=n, repeat=repeats, timer=timer)
    return statistics.median(runs) / n


def interleaved(
    fns: dict[str, Callable[[], object]],
    *,
    rounds: int = 5,
    budget: float = 0.1,
    timer: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Median time of each function, measured in alternating rounds so that drift in the
    machine's speed (shared, noisy) hits all of them alike."""
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            samples[k].append(median_time(fn, budget=budget, repeats=5, timer=timer))
    return {k: statistics.median(v) for k, v in samples.items()}


def import_time(module: str, repeats: int = 7, bytecode: bool = True) -> float:
    """Median wall time of ``python -c 'import module'`` minus a bare interpreter start.

    ``bytecode=True``: with a bytecode cache (a fresh ``PYTHONPYCACHEPREFIX``, written by one
    warm-up import), as an installed package runs; ``False``: every module compiled from source
    (``PYTHONDONTWRITEBYTECODE=1`` and an empty cache), as a first import after installing."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
        if bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"

        def run(code: str) -> float:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            return time.perf_counter() - t0

        run(f"import {module}")  # the warm-up: writes the cache (bytecode=True)
        base = statistics.median(run("pass") for _ in range(repeats))
        full = statistics.median(run(f"import {module}") for _ in range(repeats))
    return full - base


@dataclass
class Row:
    name: str
    value: str
    baseline: str
    ratio: str
    target: str
    ok: bool | None

    def cells(self) -> list[str]:
        mark = "" if self.ok is None else (" ✓" if self.ok else " ✗")
        return [self.name, self.value, self.baseline, self.ratio, self.target + mark]


def fmt_time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    return f"{s * 1e3:.3f} ms"


def table(rows: list[Row]) -> str:
    head = ["benchmark", "chainrules", "baseline", "ratio / difference", "target"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(lines)
