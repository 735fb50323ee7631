"""Run every benchmark and print one Markdown table of medians and same-process ratios.

    python benchmarks/run.py            # full
    python benchmarks/run.py --quick    # shorter runs, noisier
    python benchmarks/run.py --markdown docs/benchmarks.md   # also write the table into the docs

Times are medians of repeated runs; each ratio compares two functions timed in alternating rounds
in this process, because absolute times on a shared machine move 2-3x between processes. A ✓/✗
marks targets from the issues; the numbers are the result, not a test (the test suite asserts no
timings).
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import ad
import elementwise
import fft
import indexing
import interop
import linalg_decompositions
import linalg_extras
import linalg_solvers
import linear_algebra
import norms
import quantile
import scipy_linalg
from _timing import table

MARKER = "<!-- BENCHMARK TABLE -->"
SUITES = {
    "elementwise": elementwise.run,
    "norms": norms.run,
    "indexing": indexing.run,
    "linear_algebra": linear_algebra.run,
    "linalg_solvers": linalg_solvers.run,
    "linalg_decompositions": linalg_decompositions.run,
    "fft": fft.run,
    "quantile": quantile.run,
    "linalg_extras": linalg_extras.run,
    "scipy_linalg": scipy_linalg.run,
    "ad": ad.run,
    "interop": interop.run,
}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--markdown", type=Path, help="replace the table after the marker in this file")
    p.add_argument("suites", nargs="*", help=f"suites to run (default: all of {', '.join(SUITES)})")
    args = p.parse_args()
    unknown = [s for s in args.suites if s not in SUITES]
    if unknown:
        p.error(f"unknown suite(s) {unknown}; choose from {list(SUITES)}")
    rows = []
    for name in args.suites or SUITES:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows += SUITES[name](quick=args.quick)
    import numpy as np

    header = (
        f"Measured on {platform.machine()}, Python {platform.python_version()}, "
        f"NumPy {np.__version__}; medians, ratios from one process."
    )
    text = header + "\n\n" + table(rows)
    print(text)
    if args.markdown:
        doc = args.markdown.read_text()
        if MARKER not in doc:
            print(f"{args.markdown} has no {MARKER} line", file=sys.stderr)
            return 2
        head = doc.split(MARKER)[0]
        args.markdown.write_text(head + MARKER + "\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
