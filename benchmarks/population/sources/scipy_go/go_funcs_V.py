"""Copied from scipy/scipy benchmarks/benchmarks/go_benchmark_functions/go_funcs_V.py at commit 3dbf660a919b
(BSD-3-Clause, Copyright (c) 2001-2002 Enthought, Inc. 2003, SciPy Developers).

The code is unchanged except that docstrings are removed (the originals describe each
function and its references); see benchmarks/population/__init__.py."""

# ruff: noqa
# fmt: off
from numpy import sum, cos, sin, log
from .go_benchmark import Benchmark


class VenterSobiezcczanskiSobieski(Benchmark):


    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)

        self._bounds = list(zip([-50.0] * self.N, [50.0] * self.N))
        self.custom_bounds = ([-10, 10], [-10, 10])

        self.global_optimum = [[0.0 for _ in range(self.N)]]
        self.fglob = -400

    def fun(self, x, *args):
        self.nfev += 1

        u = x[0] ** 2.0 - 100.0 * cos(x[0]) ** 2.0
        v = -100.0 * cos(x[0] ** 2.0 / 30.0) + x[1] ** 2.0
        w = - 100.0 * cos(x[1]) ** 2.0 - 100.0 * cos(x[1] ** 2.0 / 30.0)
        return u + v + w


class Vincent(Benchmark):

    change_dimensionality = True

    def __init__(self, dimensions=2):
        Benchmark.__init__(self, dimensions)

        self._bounds = list(zip([0.25] * self.N, [10.0] * self.N))

        self.global_optimum = [[7.70628098 for _ in range(self.N)]]
        self.fglob = -float(self.N)

    def fun(self, x, *args):
        self.nfev += 1

        return -sum(sin(10.0 * log(x)))
