"""Product pullbacks against the hand-written NumPy code of the same formulas, n = 500
(500 x 500 float64 matrices).

Questions answered:
* ``matmul``: the pullback (``y_bar @ B.T``, ``A.T @ y_bar``) and rrule + pullback (with the
  primal ``A @ B``) against the same formulas written by hand. Target: within 1.1x.
* ``einsum('ij,jk->ik')`` and ``einsum('ij,jk,kl->il')``: the pullback (an einsum per operand,
  pairwise through BLAS) against the hand-written matmuls (``y_bar @ C.T @ B.T``, ...).
  Target: within 1.1x. The primal is called with ``optimize=True``: NumPy's default
  (``optimize=False``) computes it without BLAS, which would dwarf everything else.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

try:
    from ._timing import Row, fmt_time, interleaved
except ImportError:  # run as a script
    from _timing import Row, fmt_time, interleaved  # type: ignore[no-redef]

import chainrules as cr

N = 500
TARGET = 1.1


def _matrices(k: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((N, N)) for _ in range(k)]


def _matmul() -> dict[str, Callable[[], object]]:
    a, b, yb = _matrices(3, 0)
    _, pullback = cr.rrule(np.matmul, a, b)

    def hand_pb() -> object:
        return yb @ b.T, a.T @ yb

    def rule_pb() -> object:
        return pullback(yb)[1:]

    def hand() -> object:
        return a @ b, yb @ b.T, a.T @ yb

    def rule() -> object:
        y, pb = cr.rrule(np.matmul, a, b)
        return y, pb(yb)[1:]

    return {"rule_pb": rule_pb, "hand_pb": hand_pb, "rule": rule, "hand": hand}


def _einsum2() -> dict[str, Callable[[], object]]:
    a, b, yb = _matrices(3, 1)
    _, pullback = cr.rrule(np.einsum, "ij,jk->ik", a, b, optimize=True)

    def hand_pb() -> object:
        return yb @ b.T, a.T @ yb

    def rule_pb() -> object:
        return pullback(yb)[2:]

    def hand() -> object:
        return np.einsum("ij,jk->ik", a, b, optimize=True), yb @ b.T, a.T @ yb

    def rule() -> object:
        y, pb = cr.rrule(np.einsum, "ij,jk->ik", a, b, optimize=True)
        return y, pb(yb)[2:]

    return {"rule_pb": rule_pb, "hand_pb": hand_pb, "rule": rule, "hand": hand}


def _einsum3() -> dict[str, Callable[[], object]]:
    a, b, c, yb = _matrices(4, 2)
    _, pullback = cr.rrule(np.einsum, "ij,jk,kl->il", a, b, c, optimize=True)

    def hand_pb() -> object:
        return yb @ c.T @ b.T, a.T @ yb @ c.T, b.T @ (a.T @ yb)

    def rule_pb() -> object:
        return pullback(yb)[2:]

    return {"rule_pb": rule_pb, "hand_pb": hand_pb}


def _rows(label: str, t: dict[str, float], hand_label: str, full: bool) -> list[Row]:
    r = t["rule_pb"] / t["hand_pb"]
    rows = [
        Row(
            f"{label} pullback, n={N}",
            fmt_time(t["rule_pb"]),
            fmt_time(t["hand_pb"]) + " " + hand_label,
            f"{r:.2f}x",
            f"≤ {TARGET}x",
            r <= TARGET,
        )
    ]
    if full:
        r = t["rule"] / t["hand"]
        rows.append(
            Row(
                "  rrule + pullback (with the primal)",
                fmt_time(t["rule"]),
                fmt_time(t["hand"]),
                f"{r:.2f}x",
                f"≤ {TARGET}x",
                r <= TARGET,
            )
        )
    return rows


def run(quick: bool = False) -> list[Row]:
    budget = 0.3 if quick else 1.0
    rounds = 3 if quick else 7
    rows: list[Row] = []
    t = interleaved(_matmul(), budget=budget, rounds=rounds)
    rows += _rows("matmul", t, "y_bar @ B.T, A.T @ y_bar", True)
    t = interleaved(_einsum2(), budget=budget, rounds=rounds)
    rows += _rows("einsum 'ij,jk->ik'", t, "y_bar @ B.T, A.T @ y_bar", True)
    t = interleaved(_einsum3(), budget=budget, rounds=rounds)
    rows += _rows("einsum 'ij,jk,kl->il'", t, "six matmuls", False)
    return rows


if __name__ == "__main__":
    try:
        from ._timing import table
    except ImportError:
        from _timing import table  # type: ignore[no-redef]
    import sys

    print(table(run(quick="--quick" in sys.argv)))
