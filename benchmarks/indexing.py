"""Indexing pullbacks (the scatter ``scatter_add``) against hand-written NumPy, in one process.

Questions answered (the indexing issue):
* The pullback of ``x[idx]`` with 1e6 repeated indices into 1e4 elements: is it as fast as the
  hand-written ``np.bincount(idx, weights=y_bar, minlength=n)`` (target: within 1.2x)?
* How much slower is the portable fallback (sort + cumulative_sum + searchsorted) that every
  library without a native scatter gets (reported)?
* What extra memory does the pullback take at its peak, in multiples of the input's size
  (reported)?
* float32, complex128 and a two-index-array key against the NumPy code one would write for them
  (reported: these decided ``np.add.at`` over ``np.bincount`` in NumPy's backend).
"""

from __future__ import annotations

import operator
import tracemalloc

import numpy as np

try:
    from ._timing import Row, fmt_time, interleaved
except ImportError:  # run as a script
    from _timing import Row, fmt_time, interleaved  # type: ignore[no-redef]

import chainrules as cr
import chainrules.rules.indexing  # registers getitem's rules (until chainrules imports it)
from chainrules.core.scatter import scatter_add_generic

N, M = 10_000, 1_000_000


def _problem(dtype: type = np.float64) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N).astype(dtype)
    idx = rng.integers(0, N, M)  # about 100 repeats of every index
    g = rng.standard_normal(M).astype(dtype)
    if np.dtype(dtype).kind == "c":
        g = g + 1j * rng.standard_normal(M)
    return x, idx, g


def _pullback_cases(dtype: type = np.float64) -> dict[str, object]:
    x, idx, g = _problem(dtype)
    _, pullback = cr.rrule(operator.getitem, x, idx)

    def hand() -> object:
        if np.dtype(dtype).kind == "c":  # bincount takes real weights only
            re = np.bincount(idx, weights=g.real, minlength=N)
            return (re + 1j * np.bincount(idx, weights=g.imag, minlength=N)).astype(dtype)
        return np.bincount(idx, weights=g, minlength=N).astype(dtype, copy=False)

    return {"hand": hand, "rule": lambda: pullback(g)[1]}


def _generic_cases() -> dict[str, object]:
    x, idx, g = _problem()
    zeros = np.zeros_like(x)
    return {
        "hand": lambda: np.bincount(idx, weights=g, minlength=N),
        "generic": lambda: scatter_add_generic(zeros, idx, g),
    }


def _two_array_cases() -> dict[str, object]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((100, 100))
    i, j = rng.integers(0, 100, M), rng.integers(0, 100, M)
    g = rng.standard_normal(M)
    _, pullback = cr.rrule(operator.getitem, x, (i, j))

    def hand() -> object:
        flat = np.ravel_multi_index((i, j), x.shape)
        return np.bincount(flat, weights=g, minlength=x.size).reshape(x.shape)

    def add_at() -> object:
        out = np.zeros_like(x)
        np.add.at(out, (i, j), g)
        return out

    return {"hand": hand, "rule": lambda: pullback(g)[1], "add_at": add_at}


def _peak_memory() -> float:
    """Peak bytes allocated during one pullback call, over the input's bytes."""
    x, idx, g = _problem()
    _, pullback = cr.rrule(operator.getitem, x, idx)
    pullback(g)  # warm up (lazy imports, caches)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        pullback(g)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - base) / x.nbytes


def _row(name: str, t: dict[str, float], key: str, baseline: str, target: float | None) -> Row:
    ratio = t[key] / t["hand"]
    return Row(
        name,
        fmt_time(t[key]),
        fmt_time(t["hand"]) + " " + baseline,
        f"{ratio:.2f}x",
        f"≤ {target}x" if target is not None else "(reported)",
        None if target is None else ratio <= target,
    )


def run(quick: bool = False) -> list[Row]:
    rows: list[Row] = []
    budget = 0.1 if quick else 0.3
    rounds = 3 if quick else 7
    t = interleaved(_pullback_cases(), budget=budget, rounds=rounds)  # type: ignore[arg-type]
    rows.append(
        _row("getitem pullback, 1e6 repeated indices into 1e4", t, "rule", "np.bincount", 1.2)
    )
    t = interleaved(_generic_cases(), budget=budget, rounds=3)  # type: ignore[arg-type]
    rows.append(
        _row("  generic fallback (sort + cumsum), same problem", t, "generic", "np.bincount", None)
    )
    extra = _peak_memory()
    rows.append(
        Row(
            "  peak extra memory of that pullback",
            f"{extra:.2f}x the input",
            "1x: x_bar itself",
            f"{extra:.2f}x",
            "(reported)",
            None,
        )
    )
    t = interleaved(_pullback_cases(np.float32), budget=budget, rounds=3)  # type: ignore[arg-type]
    rows.append(_row("  float32", t, "rule", "np.bincount + astype", None))
    t = interleaved(_pullback_cases(np.complex128), budget=budget, rounds=3)  # type: ignore[arg-type]
    rows.append(_row("  complex128", t, "rule", "np.bincount of re, im", None))
    t = interleaved(_two_array_cases(), budget=budget, rounds=3)  # type: ignore[arg-type]
    rows.append(
        _row("getitem pullback, x[i, j], 1e6 into 100x100", t, "rule", "ravel + bincount", None)
    )
    rows.append(_row("  np.add.at with the key (i, j)", t, "add_at", "ravel + bincount", None))
    return rows
