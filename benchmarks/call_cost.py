"""What the engine adds to a call and to an operation (issue 27, stage 2, two targets).

* **The fixed cost of a call.** ``ad.value_and_grad(f)(x)`` of a one-operation function
  (``f(x) = np.dot(x, x)``) at n = 1, minus the bare ``f(x)``. Target: <= 5 us. Samplers and
  optimisers call gradients millions of times on models with a few parameters.
* **The generic per-operation overhead.** For each function below, ``ad.value_and_grad`` of a
  program of ``K`` applications of it at n = 10 (``f(x) + f(x * s_1) + ...``, summed at the end
  for the elementwise ones) against the same program of ``1``; the difference over ``K - 1`` is
  what one more application costs the engine, recorded and pulled back: three operations, the
  scaling, ``f`` and the ``+``. Minus the same difference for a hand-written value and gradient
  of those programs (the forward, and the derivative written out with NumPy), and divided by
  three, it is the engine's overhead per operation. Each application has its own scale
  ``s_i`` so that none repeats another: ``ad.jit`` replays a repeated call once (before
  e184689 the terms were all ``f(x)``, two operations each). Target: the median <= 3 us. The
  functions are a fixed sample of the registered elementwise and reduction functions, each with
  its derivative written out here by hand, not every registration.

Every number is a median over interleaved rounds in one process, with BLAS on one thread, in
this thread's CPU time (``time.thread_time``: on a shared machine the time other processes hold
the cores is left out); the medians' range over ``--runs`` runs is printed beside them.

    python benchmarks/call_cost.py [--runs 3] [--quick] [--jit]

``--jit`` measures ``ad.jit(ad.value_and_grad(f))`` (recorded once, replayed when timed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # BLAS on one thread, set before NumPy loads
    for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_v, "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))  # benchmarks/, as run.py does

from _timing import interleaved

from chainrules import ad

K = 9  # applications in the long program (1 in the short one)

# name: (f, f') written out by hand, on x in (0.2, 0.9) where every one is defined
ELEMENTWISE: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "sin": (np.sin, np.cos),
    "cos": (np.cos, lambda x: -np.sin(x)),
    "tan": (np.tan, lambda x: 1.0 + np.tan(x) ** 2),
    "exp": (np.exp, np.exp),
    "expm1": (np.expm1, np.exp),
    "log": (np.log, lambda x: 1.0 / x),
    "log1p": (np.log1p, lambda x: 1.0 / (1.0 + x)),
    "sqrt": (np.sqrt, lambda x: 0.5 / np.sqrt(x)),
    "tanh": (np.tanh, lambda x: 1.0 - np.tanh(x) ** 2),
    "sinh": (np.sinh, np.cosh),
    "arctan": (np.arctan, lambda x: 1.0 / (1.0 + x * x)),
    "arcsin": (np.arcsin, lambda x: 1.0 / np.sqrt(1.0 - x * x)),
    "square": (np.square, lambda x: 2.0 * x),
    "abs": (np.abs, np.sign),
    "negative": (np.negative, lambda x: -np.ones_like(x)),
    "reciprocal": (np.reciprocal, lambda x: -1.0 / (x * x)),
}
# reductions to a scalar: (f, gradient of f at x)
REDUCTIONS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "sum": (np.sum, np.ones_like),
    "mean": (np.mean, lambda x: np.full_like(x, 1.0 / x.size)),
    "prod": (np.prod, lambda x: np.prod(x) / x),
    "max": (np.max, lambda x: (x == np.max(x)).astype(x.dtype)),
    "var": (np.var, lambda x: 2.0 * (x - np.mean(x)) / x.size),
    "norm": (np.linalg.norm, lambda x: x / np.linalg.norm(x)),
}


def _programs(
    f: Callable[[Any], Any], df: Callable[[Any], Any], k: int, reduction: bool
) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """``f(x) + f(x * s_1) + ... + f(x * s_{k-1})`` (``k`` terms, ``s_i = 1 - i / 4k``: inside
    every function's domain on the points used; summed for an elementwise ``f``), and its value
    and gradient by hand."""
    scales = [1.0 - i / (4 * k) for i in range(1, k)]

    def prog(x: Any) -> Any:
        out = f(x)
        for s in scales:
            out = out + f(x * s)
        return out if reduction else np.sum(out)

    def hand(x: Any) -> tuple[Any, Any]:
        out, g = f(x), df(x)
        for s in scales:
            out = out + f(x * s)
            g = g + df(x * s) * s
        return (out if reduction else np.sum(out)), g

    return prog, hand


def _value_and_grad(f: Callable[..., Any], jit: bool) -> Callable[..., Any]:
    return ad.jit(ad.value_and_grad(f)) if jit else ad.value_and_grad(f)


def per_operation(name: str, reduction: bool, rounds: int, jit: bool = False) -> float:
    """The engine's overhead of one more operation ``name`` at n = 10, in seconds (``jit``: of
    ``ad.jit(ad.value_and_grad(...))``, recorded by the correctness check, replayed when timed)."""
    f, df = (REDUCTIONS if reduction else ELEMENTWISE)[name]
    x = np.linspace(0.2, 0.9, 10)
    p1, h1 = _programs(f, df, 1, reduction)
    pk, hk = _programs(f, df, K, reduction)
    g1, gk = _value_and_grad(p1, jit), _value_and_grad(pk, jit)
    for prog, hand in ((g1, h1), (gk, hk)):  # the engine's gradient is the hand-written one
        np.testing.assert_allclose(prog(x)[1], hand(x)[1], rtol=1e-10, atol=1e-12)
    t = interleaved(
        {"e1": lambda: g1(x), "ek": lambda: gk(x), "h1": lambda: h1(x), "hk": lambda: hk(x)},
        rounds=rounds,
        budget=0.05,
        timer=time.thread_time,
    )
    return ((t["ek"] - t["e1"]) - (t["hk"] - t["h1"])) / (3 * (K - 1))


def fixed_cost(rounds: int, jit: bool = False) -> tuple[float, float]:
    """``value_and_grad`` of ``np.dot(x, x)`` at n = 1, and the bare call, in seconds."""
    x = np.array([0.5])

    def f(x: Any) -> Any:
        return np.dot(x, x)

    vg = _value_and_grad(f, jit)
    vg(x)  # ad.jit records here
    t = interleaved(
        {"vg": lambda: vg(x), "bare": lambda: f(x)},
        rounds=rounds,
        budget=0.05,
        timer=time.thread_time,
    )
    return t["vg"], t["bare"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="3 rounds per measurement, not 7")
    p.add_argument("--jit", action="store_true", help="ad.jit(ad.value_and_grad(f)), replayed")
    a = p.parse_args()
    rounds = 3 if a.quick else 7
    fixed: list[float] = []
    medians: list[float] = []
    per: dict[str, list[float]] = {}
    for _ in range(a.runs):
        vg, bare = fixed_cost(rounds, a.jit)
        fixed.append(vg - bare)
        costs = {n: per_operation(n, False, rounds, a.jit) for n in ELEMENTWISE}
        costs |= {n: per_operation(n, True, rounds, a.jit) for n in REDUCTIONS}
        for n, c in costs.items():
            per.setdefault(n, []).append(c)
        medians.append(statistics.median(costs.values()))
        print(
            f"run: fixed cost {(vg - bare) * 1e6:.2f} us (value_and_grad {vg * 1e6:.2f} us, "
            f"bare {bare * 1e6:.2f} us); per-operation overhead, median "
            f"{medians[-1] * 1e6:.2f} us",
            flush=True,
        )
    print("\n| function | overhead per operation (median over runs) | range |\n|---|---:|---|")
    for n, cs in per.items():
        print(
            f"| {n} | {statistics.median(cs) * 1e6:.2f} us | "
            f"{min(cs) * 1e6:.2f}-{max(cs) * 1e6:.2f} |"
        )
    print(
        f"\nfixed cost of a call: median {statistics.median(fixed) * 1e6:.2f} us over {a.runs} "
        f"runs (range {min(fixed) * 1e6:.2f}-{max(fixed) * 1e6:.2f}); target <= 5 us"
    )
    print(
        f"per-operation overhead: median of the functions' medians "
        f"{statistics.median(statistics.median(c) for c in per.values()) * 1e6:.2f} us "
        f"(per run {', '.join(f'{m * 1e6:.2f}' for m in medians)}); target <= 3 us"
    )


if __name__ == "__main__":
    main()
