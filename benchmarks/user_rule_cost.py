"""What registering a rule for a plain Python function costs later gradients (issue 27, item 3).

A 40-operation program at n = 10 under ``chainrules.ad.grad``, timed in fresh processes: without
any rule of the user's, and after ``register_rrule`` of a plain function that the program never
calls. Each measurement is its own process (the fastest of 25 batches of 100 gradients there, the
one least disturbed by other load on the machine); the report is the median over
``--processes`` processes per condition, run interleaved, and the ratio after / before. The
target is <= 1.1x.

    python benchmarks/user_rule_cost.py [--processes 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

_CHILD = r"""
import json, os, sys, timeit
import numpy as np
import chainrules as cr
from chainrules import ad

def program(x):  # 10 rounds of 4 operations, and a sum: 41 operations
    y = x
    for _ in range(10):
        y = np.tanh(y) * 0.9 + y * 0.1
    return np.sum(y)

if sys.argv[1] == "after":
    def softplus(x):  # a plain function (not @cr.traceable), never called by the program
        return np.logaddexp(x, 0.0)

    @cr.register_rrule(softplus)
    def _softplus_rrule(x):
        return softplus(x), lambda g: (cr.NoTangent(), g / (1 + np.exp(-x)))

g = ad.grad(program)
x = np.linspace(-1.0, 1.0, 10)
for _ in range(200):
    g(x)
t = timeit.Timer(lambda: g(x))
per = sorted(t.repeat(repeat=25, number=100))
print(json.dumps(per[0] / 100))  # the fastest batch: the least disturbed by other load
"""


def measure(condition: str) -> float:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, condition], env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--processes", type=int, default=5)
    a = p.parse_args()
    times: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(a.processes):  # interleaved, so that drift on the machine hits both
        for condition in times:
            times[condition].append(measure(condition))
    before, after = (statistics.median(times[c]) for c in ("before", "after"))
    for c, ts in times.items():
        print(
            f"{c:7s} median {statistics.median(ts) * 1e6:7.1f} us  ", [f"{t * 1e6:.1f}" for t in ts]
        )
    print(f"ratio after / before: {after / before:.3f}  (target <= 1.1)")
    # each 'after' process ran right after its 'before' one: their ratio sees the same load
    pairs = [a / b for a, b in zip(times["after"], times["before"])]
    print(
        f"median of the paired ratios: {statistics.median(pairs):.3f}", [f"{r:.2f}" for r in pairs]
    )


if __name__ == "__main__":
    main()
