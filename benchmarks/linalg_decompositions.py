"""Decomposition pullbacks against hand-written NumPy code of the same formulas.

Questions answered:
* ``cholesky``: the generic pullback (two ``linalg.solve`` calls standing in for triangular
  solves, so that it can be differentiated again) against the same formula written in NumPy with
  the same solves, at n = 500. Target: within 1.1x.
* ``cholesky``: what the missing triangular solve costs -- the same formula with SciPy's
  ``solve_triangular`` (reported; only when SciPy is installed).
* ``eigh``: the pullback of both outputs (with the tie mask on the eigenvalue gaps) against the
  textbook NumPy formula ``V (diag(w_bar) + F ∘ (V^T V_bar)) V^T`` with ``F = 1 / (w_j - w_i)``
  and no tie handling, n = 500. Reported.
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


def _cholesky(n: int) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(0)
    b = rng.standard_normal((n, n))
    a = b @ b.T + n * np.eye(n)
    l_bar = rng.standard_normal((n, n))
    lo, pullback = cr.rrule(np.linalg.cholesky, a)

    def hand() -> object:  # the same formula, the same two general solves
        lt = lo.T
        m = lt @ np.tril(l_bar)
        p = (np.tril(m) + np.tril(m, -1)) / 2
        x1 = np.linalg.solve(lt, p + p.T)
        a0 = np.linalg.solve(lt, x1.T)
        return (a0 + a0.T) / 4

    cases: dict[str, Callable[[], object]] = {
        "rule": lambda: pullback(l_bar)[1],
        "hand": hand,
    }
    try:
        from scipy.linalg import solve_triangular
    except ImportError:
        return cases

    def triangular() -> object:
        lt = lo.T
        m = lt @ np.tril(l_bar)
        p = (np.tril(m) + np.tril(m, -1)) / 2
        x1 = solve_triangular(lt, p + p.T, lower=False)
        a0 = solve_triangular(lt, x1.T, lower=False)
        return (a0 + a0.T) / 4

    cases["triangular"] = triangular
    return cases


def _eigh(n: int) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(1)
    b = rng.standard_normal((n, n))
    a = (b + b.T) / 2
    (w, v), pullback = cr.rrule(np.linalg.eigh, a)
    w_bar, v_bar = rng.standard_normal(n), rng.standard_normal((n, n))

    def hand() -> object:
        d = w[None, :] - w[:, None]
        np.fill_diagonal(d, np.inf)
        inner = (v.T @ v_bar) / d
        inner[np.diag_indices(n)] = w_bar
        g = v @ inner @ v.T
        return (g + g.T) / 2

    return {"rule": lambda: pullback((w_bar, v_bar))[1], "hand": hand}


def run(quick: bool = False) -> list[Row]:
    budget = 0.3 if quick else 1.0
    rounds = 3 if quick else 7
    rows: list[Row] = []
    t = interleaved(_cholesky(N), budget=budget, rounds=rounds)
    r = t["rule"] / t["hand"]
    rows.append(
        Row(
            f"cholesky pullback, n={N}",
            fmt_time(t["rule"]),
            fmt_time(t["hand"]) + " NumPy, same 2 solves",
            f"{r:.2f}x",
            "≤ 1.1x",
            r <= 1.1,
        )
    )
    if "triangular" in t:
        rows.append(
            Row(
                "  the same with SciPy's triangular solves",
                fmt_time(t["rule"]),
                fmt_time(t["triangular"]) + " solve_triangular",
                f"{t['rule'] / t['triangular']:.2f}x",
                "(reported)",
                None,
            )
        )
    t = interleaved(_eigh(N), budget=budget, rounds=rounds)
    rows.append(
        Row(
            f"eigh pullback (w and V), n={N}",
            fmt_time(t["rule"]),
            fmt_time(t["hand"]) + " NumPy, no tie mask",
            f"{t['rule'] / t['hand']:.2f}x",
            "(reported)",
            None,
        )
    )
    return rows


if __name__ == "__main__":
    try:
        from ._timing import table
    except ImportError:
        from _timing import table  # type: ignore[no-redef]
    print(table(run(quick=False)))
