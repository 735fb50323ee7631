"""What the drop-in namespace ``chainrules.ad.numpy`` costs against NumPy itself (issue 29).

Outside a transformation each changed function is a wrapper that reads one context variable and
calls NumPy's; inside one it also looks into its arguments for lists of traced values. Measured
in one process, interleaved: each call of a set of NumPy functions at n = 10 and n = 100 000
through ``numpy`` and through ``chainrules.ad.numpy`` (the fastest of 7 batches each, per round),
and ``ad.grad`` of a 12-operation program written with each. The report is the ratio
drop-in / NumPy per case: the median and the range over ``--rounds`` rounds.

    python benchmarks/dropin_overhead.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from collections.abc import Callable
from typing import Any

import numpy

import chainrules.ad.numpy as dropin
from chainrules import ad


def calls(m: Any, n: int) -> dict[str, Callable[[], Any]]:
    x = numpy.linspace(-1.0, 1.0, n)
    lst = list(x)
    return {
        "sum": lambda: m.sum(x),
        "mean": lambda: m.mean(x),
        "concatenate": lambda: m.concatenate([x, x]),
        "zeros": lambda: m.zeros(n),
        "array(list)": lambda: m.array(lst),
        "where": lambda: m.where(x > 0, x, 0.0),
        "linalg.norm": lambda: m.linalg.norm(x),
        "sin (ufunc)": lambda: m.sin(x),
    }


def program(m: Any) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        y = m.concatenate([m.sin(x), m.cos(x)])
        z = m.where(y > 0, y, 0.1 * y)
        return m.sum(m.tanh(z) ** 2) + m.mean(x * x) + m.linalg.norm(x)

    return f


def best(fn: Callable[[], Any], number: int) -> float:
    return min(timeit.Timer(fn).repeat(repeat=7, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    ratios: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for n in (10, 100_000):
            number = 2000 if n == 10 else 20
            theirs, ours = calls(numpy, n), calls(dropin, n)
            for name in theirs:
                t_np = best(theirs[name], number)
                t_in = best(ours[name], number)
                ratios.setdefault(f"{name} n={n}", []).append(t_in / t_np)
        x = numpy.linspace(-1.0, 1.0, 10)
        g_np, g_in = ad.grad(program(numpy)), ad.grad(program(dropin))
        numpy.testing.assert_allclose(g_in(x), g_np(x), rtol=1e-14)
        ratios.setdefault("ad.grad of a program n=10", []).append(
            best(lambda g=g_in, x=x: g(x), 200) / best(lambda g=g_np, x=x: g(x), 200)
        )
    print(f"{'case':32s} {'median':>7s}  range (drop-in / NumPy, {args.rounds} rounds)")
    for name, rs in ratios.items():
        print(f"{name:32s} {statistics.median(rs):7.2f}  {min(rs):.2f}-{max(rs):.2f}")


if __name__ == "__main__":
    main()
