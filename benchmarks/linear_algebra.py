"""Product pullbacks against the hand-written NumPy code of the same formulas, n = 500
(500 x 500 float64 matrices).

Questions answered:
* ``matmul``: the pullback (``y_bar @ B.T``, ``A.T @ y_bar``) and rrule + pullback (with the
  primal ``A @ B``) against the same formulas written by hand. Target: within 1.1x.
* ``einsum('ij,jk->ik')`` and ``einsum('ij,jk,kl->il')``: the pullback (an einsum per operand,
  pairwise through BLAS) against the hand-written matmuls (``y_bar @ C.T @ B.T``, ...).
  Target: within 1.1x. The primal is called with ``optimize=True``: NumPy's default
  (``optimize=False``) computes it without BLAS, which would dwarf everything else.

Each ratio is measured twice, side by side in one process: in wall time (``interleaved``) and in
the process's CPU time (all threads), which a shared, busy machine disturbs far less -- the target
is judged on the CPU-time ratio, and both are shown.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

try:
    from ._timing import Row, fmt_time, interleaved
except ImportError:  # run as a script
    from _timing import Row, fmt_time, interleaved  # type: ignore[no-redef]

import chainrules as cr

N = 500
TARGET = 1.1


def _forced(bars: tuple[object, ...]) -> tuple[object, ...]:
    """Every cotangent computed: the product rules defer each one in a ``Thunk``
    (docs/conventions.md, only the cotangents asked for), which the hand-written code does not."""
    return tuple(cr.unthunk(b) for b in bars)


def _matrices(k: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((N, N)) for _ in range(k)]


def _matmul() -> dict[str, Callable[[], object]]:
    a, b, yb = _matrices(3, 0)
    _, pullback = cr.rrule(np.matmul, a, b)

    def hand_pb() -> object:
        return yb @ b.T, a.T @ yb

    def rule_pb() -> object:
        return _forced(pullback(yb)[1:])

    def hand() -> object:
        return a @ b, yb @ b.T, a.T @ yb

    def rule() -> object:
        y, pb = cr.rrule(np.matmul, a, b)
        return y, _forced(pb(yb)[1:])

    return {"rule_pb": rule_pb, "hand_pb": hand_pb, "rule": rule, "hand": hand}


def _einsum2() -> dict[str, Callable[[], object]]:
    a, b, yb = _matrices(3, 1)
    _, pullback = cr.rrule(np.einsum, "ij,jk->ik", a, b, optimize=True)

    def hand_pb() -> object:
        return yb @ b.T, a.T @ yb

    def rule_pb() -> object:
        return _forced(pullback(yb)[2:])

    def hand() -> object:
        return np.einsum("ij,jk->ik", a, b, optimize=True), yb @ b.T, a.T @ yb

    def rule() -> object:
        y, pb = cr.rrule(np.einsum, "ij,jk->ik", a, b, optimize=True)
        return y, _forced(pb(yb)[2:])

    return {"rule_pb": rule_pb, "hand_pb": hand_pb, "rule": rule, "hand": hand}


def _einsum3() -> dict[str, Callable[[], object]]:
    a, b, c, yb = _matrices(4, 2)
    _, pullback = cr.rrule(np.einsum, "ij,jk,kl->il", a, b, c, optimize=True)

    def hand_pb() -> object:
        return yb @ c.T @ b.T, a.T @ yb @ c.T, b.T @ (a.T @ yb)

    def rule_pb() -> object:
        return _forced(pullback(yb)[2:])

    return {"rule_pb": rule_pb, "hand_pb": hand_pb}


def cpu_interleaved(
    fns: dict[str, Callable[[], object]], *, rounds: int = 5, budget: float = 0.1
) -> dict[str, float]:
    """Median process CPU seconds per call of each function, in alternating rounds."""
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():
        fn()  # warm up
    for _ in range(rounds):
        for k, fn in fns.items():
            n, t0 = 0, time.process_time()
            while True:
                fn()
                n += 1
                spent = time.process_time() - t0
                if spent >= budget:
                    break
            samples[k].append(spent / n)
    return {k: statistics.median(v) for k, v in samples.items()}


def _rows(
    label: str, wall: dict[str, float], cpu: dict[str, float], hand_label: str, full: bool
) -> list[Row]:
    rows = []
    for rule, hand, name, base in (
        ("rule_pb", "hand_pb", f"{label} pullback, n={N}", hand_label),
        ("rule", "hand", "  rrule + pullback (with the primal)", ""),
    ):
        if rule == "rule" and not full:
            continue
        rw, rc = wall[rule] / wall[hand], cpu[rule] / cpu[hand]
        rows.append(
            Row(
                name,
                f"{fmt_time(wall[rule])} (cpu {fmt_time(cpu[rule])})",
                f"{fmt_time(wall[hand])} (cpu {fmt_time(cpu[hand])}) {base}".rstrip(),
                f"{rc:.2f}x cpu, {rw:.2f}x wall",
                f"≤ {TARGET}x",
                rc <= TARGET,
            )
        )
    return rows


def run(quick: bool = False) -> list[Row]:
    budget = 0.3 if quick else 1.0
    rounds = 3 if quick else 7
    rows: list[Row] = []
    for label, make, hand_label, full in (
        ("matmul", _matmul, "y_bar @ B.T, A.T @ y_bar", True),
        ("einsum 'ij,jk->ik'", _einsum2, "y_bar @ B.T, A.T @ y_bar", True),
        ("einsum 'ij,jk,kl->il'", _einsum3, "six matmuls", False),
    ):
        fns = make()
        wall = interleaved(fns, budget=budget, rounds=rounds)
        cpu = cpu_interleaved(fns, budget=budget, rounds=rounds)
        rows += _rows(label, wall, cpu, hand_label, full)
    return rows


if __name__ == "__main__":
    try:
        from ._timing import table
    except ImportError:
        from _timing import table  # type: ignore[no-redef]
    import sys

    print(table(run(quick="--quick" in sys.argv)))
