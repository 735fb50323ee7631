"""NumPy's linalg extras: the ``lstsq`` and ``eig`` pullbacks against the same formulas written
by hand in NumPy.

Questions answered:
* ``lstsq`` (``A`` 400x200, ``b`` 400x4): the pullback of ``x_bar`` and the residuals'
  cotangent (one SVD, ``b_bar = P^H x_bar``, the three rank-``q`` terms of ``A_bar``) against
  those lines in NumPy. Target: within 1.2x.
* ``eig`` (``A`` 200x200, real with complex eigenvalues, and 60x60): the pullback of
  ``(w_bar, V_bar)`` with LAPACK's gauge against the same formula in NumPy. Target: within 1.2x.

Each ratio is the median over rounds, the two functions timed alternately in one process; the
range is the lowest and highest per-round ratio.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import numpy as np

try:
    from ._timing import Row, fmt_time, median_time, table
except ImportError:  # run as a script
    from _timing import Row, fmt_time, median_time, table

import chainrules as cr


def _rounds(
    fns: dict[str, Callable[[], object]], rounds: int, budget: float
) -> tuple[dict[str, float], float, float, float]:
    """Median times, and the median / min / max of the per-round ratio rule / hand."""
    samples: dict[str, list[float]] = {k: [] for k in fns}
    ratios = []
    for _ in range(rounds):
        for k, fn in fns.items():
            samples[k].append(median_time(fn, budget=budget, repeats=5))
        ratios.append(samples["rule"][-1] / samples["hand"][-1])
    med = {k: statistics.median(v) for k, v in samples.items()}
    return med, statistics.median(ratios), min(ratios), max(ratios)


def _lstsq(m: int, n: int, q: int) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, n))
    b = rng.standard_normal((m, q))
    y, pullback = cr.rrule(np.linalg.lstsq, a, b)
    x = y[0]
    x_bar = rng.standard_normal(x.shape)
    res_bar = rng.standard_normal(y[1].shape)
    y_bar = cr.Tangent(x_bar, res_bar, cr.NoTangent(), cr.ZeroTangent())
    cut = np.finfo(np.float64).eps * max(m, n)

    def hand() -> object:
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        mask = s > cut * s.max()
        sinv = np.where(mask, 1 / np.where(mask, s, 1), 0)[:, None]
        r = b - a @ x
        rr = r * res_bar
        xb = x_bar - 2 * (a.T @ rr)
        bx = u @ (sinv * (vh @ xb))
        pb = vh.T @ (sinv * (u.T @ bx))
        px = u @ (sinv * (vh @ x))
        rest = xb - vh.T @ (mask[:, None] * (vh @ xb))
        a_bar = -2 * (rr @ x.T) - bx @ x.T + r @ pb.T + px @ rest.T
        return a_bar, 2 * rr + bx

    return {"rule": lambda: pullback(y_bar), "hand": hand}


def _eig(n: int) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n))
    w, v = np.linalg.eig(a)
    _, pullback = cr.rrule(np.linalg.eig, a)
    w_bar = rng.standard_normal(w.shape) + 1j * rng.standard_normal(w.shape)
    v_bar = rng.standard_normal(v.shape) + 1j * rng.standard_normal(v.shape)
    y_bar = cr.Tangent(w_bar, v_bar)
    eps = np.finfo(np.float64).eps

    def hand() -> object:
        d = w[None, :] - w[:, None]
        small = np.abs(d) <= 10 * n * eps * np.abs(w).max()
        f = np.where(small, 0, 1 / np.where(small, 1, d))
        vh = v.conj().T
        wm = vh @ v_bar
        dw = np.diagonal(wm)
        g = wm - (vh @ v) * dw.real[None, :]
        k = np.argmax(np.abs(v), axis=0)
        mask = np.arange(n)[:, None] == k[None, :]
        top = np.sum(np.where(mask, v, 0), axis=0).real
        g = g - vh @ np.where(mask, (1j * dw.imag / top)[None, :], 0)
        g = f.conj() * g + np.eye(n) * w_bar[None, :]
        return np.linalg.solve(vh, g @ vh).real

    return {"rule": lambda: pullback(y_bar), "hand": hand}


def run(quick: bool = False) -> list[Row]:
    budget = 0.3 if quick else 1.0
    rounds = 3 if quick else 7
    rows: list[Row] = []
    cases = [
        ("lstsq pullback (x, residuals), A 400x200, b 400x4", _lstsq(400, 200, 4), "SVD formula"),
        ("eig pullback (w, V), 200x200 real", _eig(200), "same formula, LAPACK gauge"),
        ("eig pullback (w, V), 60x60 real", _eig(60), "same formula, LAPACK gauge"),
    ]
    for name, fns, what in cases:
        t, r, lo, hi = _rounds(fns, rounds, budget)
        rows.append(
            Row(
                name,
                fmt_time(t["rule"]),
                fmt_time(t["hand"]) + f" {what} in NumPy",
                f"{r:.2f}x (range {lo:.2f}-{hi:.2f})",
                "≤ 1.2x",
                r <= 1.2,
            )
        )
    return rows


if __name__ == "__main__":
    print(table(run(quick=True)))
