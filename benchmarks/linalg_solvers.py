"""Solver pullbacks against the hand-written NumPy code of the same formula.

Questions answered:
* ``solve`` at n = 500 (``A`` 500x500, ``b`` 500x500 and a 500-vector): the pullback
  (``B_bar = solve(A^T, Y_bar)``, ``A_bar = -B_bar Y^T``) against those two lines in NumPy.
  Target: within 1.1x -- the rule's overhead (namespace lookup, shape check, projection) must
  vanish next to the LU factorisation.
* ``inv`` at n = 500: ``A_bar = -Y^T Y_bar Y^T`` against the same two matmuls. Target: 1.1x.
* ``det`` at n = 500, reported: the adjugate through the SVD (finite at singular matrices)
  against ``det(A) * inv(A).T`` (which raises there).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

try:
    from ._timing import Row, fmt_time, interleaved, table
except ImportError:  # run as a script
    from _timing import Row, fmt_time, interleaved, table  # type: ignore[no-redef]

import chainrules as cr

N = 500


def _matrix(rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal((N, N)) / np.sqrt(N) + 2 * np.eye(N)


def _solve(vector: bool) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(0)
    a = _matrix(rng)
    b = rng.standard_normal(N if vector else (N, N))
    y, pullback = cr.rrule(np.linalg.solve, a, b)
    y_bar = rng.standard_normal(y.shape)

    def hand() -> object:
        b_bar = np.linalg.solve(a.T, y_bar)
        a_bar = -np.outer(b_bar, y) if vector else -b_bar @ y.T
        return a_bar, b_bar

    def rule() -> object:  # solve's cotangents are deferred (Thunks): force them, as hand does
        return tuple(cr.unthunk(c) for c in pullback(y_bar))

    return {"rule": rule, "hand": hand}


def _inv() -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(1)
    a = _matrix(rng)
    y, pullback = cr.rrule(np.linalg.inv, a)
    y_bar = rng.standard_normal(y.shape)

    def hand() -> object:
        return -y.T @ (y_bar @ y.T)

    return {"rule": lambda: pullback(y_bar), "hand": hand}


def _det() -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(2)
    a = _matrix(rng) / 2
    y, pullback = cr.rrule(np.linalg.det, a)

    def hand() -> object:
        return y * np.linalg.inv(a).T

    return {"rule": lambda: pullback(1.0), "hand": hand}


def run(quick: bool = False) -> list[Row]:
    budget = 0.3 if quick else 1.0
    rounds = 3 if quick else 5
    rows: list[Row] = []
    for vector in (False, True):
        t = interleaved(_solve(vector), budget=budget, rounds=rounds)
        r = t["rule"] / t["hand"]
        rows.append(
            Row(
                f"solve pullback, A {N}x{N}, b " + (f"({N},)" if vector else f"{N}x{N}"),
                fmt_time(t["rule"]),
                fmt_time(t["hand"]) + " solve(A.T, y_bar); -b_bar y^T",
                f"{r:.2f}x",
                "≤ 1.1x",
                r <= 1.1,
            )
        )
    t = interleaved(_inv(), budget=budget, rounds=rounds)
    r = t["rule"] / t["hand"]
    rows.append(
        Row(
            f"inv pullback, {N}x{N}",
            fmt_time(t["rule"]),
            fmt_time(t["hand"]) + " -Y^T (Y_bar Y^T)",
            f"{r:.2f}x",
            "≤ 1.1x",
            r <= 1.1,
        )
    )
    t = interleaved(_det(), budget=budget, rounds=rounds)
    rows.append(
        Row(
            f"det pullback (adjugate by SVD), {N}x{N}",
            fmt_time(t["rule"]),
            fmt_time(t["hand"]) + " det(A) inv(A).T (raises if singular)",
            f"{t['rule'] / t['hand']:.2f}x",
            "(reported)",
            None,
        )
    )
    return rows


if __name__ == "__main__":
    print(table(run(quick=True)))
