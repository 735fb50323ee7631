"""What every registered rule costs above its function, on NumPy: the registry as a population.

``python benchmarks/rule_overhead.py [--top 40] [--names NAME ...] [--json OUT] [--quick]``

For each registration with an rrule and a NumPy function, at its first real example (the
examples the check command runs): the function itself, ``rrule(f, *args)``, and the pullback of a
cotangent of ones with every cotangent forced (``unthunk``), each a median over interleaved rounds
in this thread's CPU time, BLAS on one thread. A rule's *overhead* is ``rrule + pullback - f``
(what a gradient through it costs beyond the forward call), and its *ratio* ``(rrule + pullback)
/ f``. The report gives the median over the registrations and the rules with the most overhead:
where the generic machinery (binding, projections, gathers, scatters, conventions) costs most,
for whoever looks for what to make cheaper next. Registrations whose example has no floating
output, or whose rule raises on it, are counted and left out.

Not a target of its own: the population benchmark (``benchmarks/population``) judges speed on
programs; this shows which rules the programs' time comes from.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # BLAS on one thread, set before NumPy loads
    for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_v, "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))  # benchmarks/, as run.py does

from _timing import interleaved

import chainrules as cr


def _case(reg: Any) -> tuple[Any, tuple[Any, ...], dict[str, Any]] | None:
    """``(f, args, kwargs)``: the registration's NumPy function at its first real example, or
    ``None`` (no NumPy function, no real example)."""
    from chainrules.testing.backends import BACKENDS
    from chainrules.testing.examples import examples_for

    numpy = BACKENDS["numpy"]
    f = numpy.function(reg)
    if f is None:
        return None
    ex = next((e for e in examples_for(reg) if not e.complex), None)
    if ex is None:
        return None
    return f, tuple(numpy.asarray(a, "float64") for a in ex.args), dict(ex.kwargs)


def measure(reg: Any, rounds: int = 3, budget: float = 0.004) -> dict[str, Any] | None:
    """The times (seconds) of the function, its rrule and its pullback at the registration's
    first real example; ``None`` where there is nothing to time (see the module's docs)."""
    case = _case(reg)
    if case is None:
        return None
    f, args, kwargs = case
    y, pb = cr.rrule(f, *args, **kwargs)
    if not isinstance(y, np.ndarray | np.generic) or np.asarray(y).dtype.kind != "f":
        return None
    ct = np.ones_like(np.asarray(y))

    def back() -> list[Any]:
        return [cr.unthunk(c) for c in pb(ct)]

    back()  # the cotangents are computed at least once before timing
    t = interleaved(
        {
            "f": lambda: f(*args, **kwargs),
            "rrule": lambda: cr.rrule(f, *args, **kwargs),
            "pullback": back,
        },
        rounds=rounds,
        budget=budget,
        timer=time.thread_time,
    )
    over = t["rrule"] + t["pullback"] - t["f"]
    ratio = (t["rrule"] + t["pullback"]) / t["f"] if t["f"] > 0 else float("inf")
    return {"name": reg.name, **t, "overhead": over, "ratio": ratio}


def run(names: list[str] | None, rounds: int, budget: float) -> tuple[list[dict[str, Any]], int]:
    """The measured rows (most overhead first) and the number of registrations left out."""
    import chainrules.rules  # noqa: F401  (every rule module: every registration)
    from chainrules.core.registry import registrations

    rows, left_out = [], 0
    for reg in registrations():
        if reg.rrule is None or (names and reg.name not in names):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the examples' own domain warnings
            try:
                row = measure(reg, rounds, budget)
            except Exception:  # noqa: BLE001  (a rule that raises on its example: left out)
                row = None
        if row is None:
            left_out += 1
        else:
            rows.append(row)
    rows.sort(key=lambda r: -r["overhead"])
    return rows, left_out


def report(rows: list[dict[str, Any]], left_out: int, top: int) -> str:
    us = 1e6
    lines = [
        f"{len(rows)} rules timed on NumPy ({left_out} left out: no NumPy function, no real "
        "example or no floating output)",
    ]
    if rows:
        lines.append(
            f"median overhead (rrule + pullback - f): "
            f"{statistics.median(r['overhead'] for r in rows) * us:.1f} us; median ratio "
            f"(rrule + pullback) / f: {statistics.median(r['ratio'] for r in rows):.1f}x"
        )
    lines += ["", "| rule | overhead | rrule - f | pullback | f | ratio |", "|---" * 6 + "|"]
    for r in rows[:top]:
        lines.append(
            f"| {r['name']} | {r['overhead'] * us:.1f} us | {(r['rrule'] - r['f']) * us:.1f} us "
            f"| {r['pullback'] * us:.1f} us | {r['f'] * us:.1f} us | {r['ratio']:.1f}x |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--top", type=int, default=40, help="rows of the table (most overhead)")
    p.add_argument("--names", nargs="*", help="only these registrations (registry names)")
    p.add_argument("--json", help="write every row as JSON")
    p.add_argument("--quick", action="store_true", help="one round each (noisier)")
    args = p.parse_args(argv)
    rows, left_out = run(args.names, 1 if args.quick else 3, 0.002 if args.quick else 0.004)
    print(report(rows, left_out, args.top))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "left_out": left_out}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
