"""median / quantile pullbacks against the same formula written by hand in NumPy (issue 11).

The rule's pullback: the order statistics (NumPy: ``np.partition`` at the two indices), then per
order statistic a tie mask, its count and a masked share (ties split as ``max`` splits them).
The hand-written baseline is that formula in plain NumPy. Target: within 1.2x at n = 1e6.
Also reported: the naive pullback (``argsort`` + a scatter, no tie sharing), and rrule + pullback
against ``np.median`` + the hand pullback. Times are medians over interleaved rounds, with the
range (min-max) of the rounds' ratios.

    python benchmarks/quantile.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable

import numpy as np

try:
    from ._timing import Row, fmt_time, median_time, table
except ImportError:  # run as a script
    from _timing import Row, fmt_time, median_time, table  # type: ignore[no-redef,unused-ignore]

import chainrules as cr

N = 1_000_000


def _hand_pullback(x: np.ndarray, q: float, y_bar: float) -> np.ndarray:
    """The rule's formula in NumPy: linear interpolation of two order statistics, each one's
    weight shared among the elements equal to it."""
    n = x.size
    h = (n - 1) * q
    lo = int(np.floor(h))
    hi = min(lo + 1, n - 1)
    g = h - lo
    s = np.partition(x, [lo, hi])
    out = np.zeros_like(x)
    for k, w in ((lo, 1 - g), (hi, g)):
        mask = x == s[k]
        out += np.where(mask, y_bar * w / np.count_nonzero(mask), 0.0)
    return out


def _naive_pullback(x: np.ndarray, q: float, y_bar: float) -> np.ndarray:
    """argsort + a scatter at the two positions: no tie sharing."""
    n = x.size
    h = (n - 1) * q
    lo = int(np.floor(h))
    hi = min(lo + 1, n - 1)
    g = h - lo
    p = np.argsort(x, kind="stable")
    out = np.zeros_like(x)
    np.add.at(out, p[[lo, hi]], [y_bar * (1 - g), y_bar * g])
    return out


def _cases(q: float | None) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N)
    qq = 0.5 if q is None else q
    if q is None:
        _, pb = cr.rrule(np.median, x)
    else:
        _, pb = cr.rrule(np.quantile, x, q)

    def rule_total() -> object:
        y, p = cr.rrule(np.median, x) if q is None else cr.rrule(np.quantile, x, q)
        return y, p(1.0)[1]

    def hand_total() -> object:
        y = np.median(x) if q is None else np.quantile(x, q)
        return y, _hand_pullback(x, qq, 1.0)

    return {
        "rule": lambda: pb(1.0)[1],
        "hand": lambda: _hand_pullback(x, qq, 1.0),
        "naive": lambda: _naive_pullback(x, qq, 1.0),
        "rule_total": rule_total,
        "hand_total": hand_total,
    }


def _interleaved(
    fns: dict[str, Callable[[], object]], rounds: int, budget: float
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            samples[k].append(median_time(fn, budget=budget, repeats=3))
    return samples


def _ratio(s: dict[str, list[float]], a: str, b: str) -> tuple[float, float, float]:
    r = [x / y for x, y in zip(s[a], s[b])]
    return statistics.median(r), min(r), max(r)


def run(quick: bool = False) -> list[Row]:
    budget = 0.15 if quick else 0.4
    rounds = 3 if quick else 7
    rows: list[Row] = []
    for label, q in (("median", None), ("quantile q=0.3", 0.3)):
        cases = _cases(q)
        # agreement first: the rule's pullback is the hand formula's
        got, want = np.asarray(cases["rule"]()), np.asarray(cases["hand"]())
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
        s = _interleaved(cases, rounds, budget)
        med = {k: statistics.median(v) for k, v in s.items()}
        r, lo, hi = _ratio(s, "rule", "hand")
        rows.append(
            Row(
                f"{label} pullback, n=1e6",
                fmt_time(med["rule"]),
                fmt_time(med["hand"]) + " same formula in NumPy",
                f"{r:.2f}x (range {lo:.2f}-{hi:.2f})",
                "≤ 1.2x",
                r <= 1.2,
            )
        )
        r, lo, hi = _ratio(s, "rule", "naive")
        rows.append(
            Row(
                f"  {label}: against argsort + scatter (no tie sharing)",
                fmt_time(med["rule"]),
                fmt_time(med["naive"]) + " naive",
                f"{r:.2f}x (range {lo:.2f}-{hi:.2f})",
                "(reported)",
                None,
            )
        )
        r, lo, hi = _ratio(s, "rule_total", "hand_total")
        rows.append(
            Row(
                f"  {label}: rrule + pullback",
                fmt_time(med["rule_total"]),
                fmt_time(med["hand_total"]) + " np function + hand pullback",
                f"{r:.2f}x (range {lo:.2f}-{hi:.2f})",
                "(reported)",
                None,
            )
        )
    return rows


if __name__ == "__main__":
    print(table(run(quick="--quick" in sys.argv)))
