"""SciPy's global-optimisation benchmark functions (``sources/scipy_go/``, copied unchanged but
for their docstrings from scipy/scipy ``benchmarks/benchmarks/go_benchmark_functions``,
BSD-3-Clause) as programs: each class's ``fun`` at a point drawn uniformly within its bounds
(the generator seeded by sha256 of the class's name), in its default dimension, or in n = 2..10
(from the same hash) where the class can change it."""

from __future__ import annotations

import hashlib
import inspect
from typing import Any

import numpy as np

from ..programs import Program, spelling_of

PATH = "benchmarks/benchmarks/go_benchmark_functions"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _seed(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")


def programs() -> list[Program]:
    from . import scipy_go
    from .scipy_go.go_benchmark import Benchmark

    out = []
    for letter in LETTERS:
        module = f"{scipy_go.__name__}.go_funcs_{letter}"
        mod = __import__(module, fromlist=["_"])
        for cls_name, cls in vars(mod).items():
            if not (inspect.isclass(cls) and issubclass(cls, Benchmark) and cls is not Benchmark):
                continue
            if cls.__module__ != mod.__name__:
                continue
            seed = _seed(cls_name)
            n = 2 + seed % 9 if cls.change_dimensionality else None
            inst: Any = cls() if n is None else cls(dimensions=n)
            lo, hi = np.asarray(inst.bounds, dtype=float).T
            x = np.random.default_rng(seed).uniform(lo, hi)
            out.append(
                Program(
                    name=f"scipy_go.{cls_name}",
                    category="test function",
                    source=f"scipy/scipy:{PATH}/go_funcs_{letter}.py",
                    licence="BSD-3-Clause",
                    args=(x,),
                    module=module,
                    entry=lambda m, c=cls_name, n=n: (
                        (getattr(m, c)() if n is None else getattr(m, c)(dimensions=n)).fun
                    ),
                    spelling=spelling_of(cls.fun),
                    note=f"N={inst.N}",
                )
            )
    return out
