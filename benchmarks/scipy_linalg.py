"""scipy.linalg pullbacks against the hand-written NumPy/SciPy code of the same formula.

Questions answered (the issue's speed requirement: within 1.2x):
* ``expm`` at n = 200: the pullback ``A_bar = L(A^T, Y_bar)`` against
  ``scipy.linalg.expm_frechet(A.T, Y_bar, compute_expm=False)`` written by hand.
* ``solve_triangular`` at n = 500 (an upper triangle, a 500x500 and a 500-vector right-hand
  side): ``B_bar = solve_triangular(T, Y_bar, trans=1)``, ``T_bar = -triu(B_bar Y^T)`` against
  those lines by hand.

Each ratio is measured in one process, rule and hand-written code in alternating rounds; the
table gives the median time of each, the median ratio and the range of the per-round ratios.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg as sl

try:
    from ._timing import Row, fmt_time, median_time, table
except ImportError:  # run as a script
    from _timing import Row, fmt_time, median_time, table  # type: ignore[no-redef]

import chainrules as cr

N_EXPM = 200
N_TRSM = 500


def _expm() -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N_EXPM, N_EXPM)) / np.sqrt(N_EXPM)
    y, pullback = cr.rrule(sl.expm, a)
    y_bar = rng.standard_normal(y.shape)

    def hand() -> object:
        return sl.expm_frechet(a.T, y_bar, compute_expm=False)

    return {"rule": lambda: pullback(y_bar), "hand": hand}


def _trsm(vector: bool) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(1)
    t = np.triu(rng.standard_normal((N_TRSM, N_TRSM)) / np.sqrt(N_TRSM)) + 2 * np.eye(N_TRSM)
    b = rng.standard_normal(N_TRSM if vector else (N_TRSM, N_TRSM))
    y, pullback = cr.rrule(sl.solve_triangular, t, b)
    y_bar = rng.standard_normal(y.shape)

    def hand() -> object:
        b_bar = sl.solve_triangular(t, y_bar, trans=1)
        a_bar = -np.triu(np.outer(b_bar, y) if vector else b_bar @ y.T)
        return a_bar, b_bar

    return {"rule": lambda: pullback(y_bar), "hand": hand}


def _ratios(fns: dict[str, Callable[[], object]], rounds: int, budget: float) -> tuple[Any, ...]:
    """Median time of each, the median ratio and the range of the per-round ratios."""
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            samples[k].append(median_time(fn, budget=budget, repeats=5))
    per_round = [r / h for r, h in zip(samples["rule"], samples["hand"])]
    med = {k: statistics.median(v) for k, v in samples.items()}
    return med["rule"], med["hand"], statistics.median(per_round), min(per_round), max(per_round)


def run(quick: bool = False) -> list[Row]:
    budget = 0.3 if quick else 1.0
    rounds = 3 if quick else 7
    rows: list[Row] = []
    cases = [
        (f"expm pullback, {N_EXPM}x{N_EXPM}", _expm(), " expm_frechet(A.T, Y_bar)"),
        (
            f"solve_triangular pullback, T {N_TRSM}x{N_TRSM}, b {N_TRSM}x{N_TRSM}",
            _trsm(False),
            " trsm(T, Y_bar, trans=1); -triu(B_bar Y^T)",
        ),
        (
            f"solve_triangular pullback, T {N_TRSM}x{N_TRSM}, b ({N_TRSM},)",
            _trsm(True),
            " trsm(T, y_bar, trans=1); -triu(outer)",
        ),
    ]
    for name, fns, what in cases:
        rule, hand, r, lo, hi = _ratios(fns, rounds, budget)
        rows.append(
            Row(
                name,
                fmt_time(rule),
                fmt_time(hand) + what,
                f"{r:.2f}x (range {lo:.2f}-{hi:.2f})",
                "≤ 1.2x",
                r <= 1.2,
            )
        )
    return rows


if __name__ == "__main__":
    print(table(run(quick=True)))
