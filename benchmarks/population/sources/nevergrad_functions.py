"""Test functions from facebookresearch/nevergrad ``nevergrad/functions/corefuncs.py`` (MIT
licence, Copyright (c) Meta Platforms, Inc. and affiliates; at commit 617a3b0bcd9b).

The bodies are copied unchanged, ``float(...)`` of the result included (nevergrad's functions
return Python floats: a tracing engine has to refuse that, and the refusal is this population's
finding, not a reason to leave them out); the ``@registry.register`` decorators and the type
annotations are left out.
"""

# ruff: noqa
from __future__ import annotations

from math import exp, sqrt

import numpy as np

PATH = "facebookresearch/nevergrad:nevergrad/functions/corefuncs.py"


def sphere(x):
    """The most classical continuous optimization testbed.

    If you do not solve that one then you have a bug."""
    assert x.ndim == 1
    return float(x.dot(x))


def sphere1(x):
    """Translated sphere function."""
    return sphere(x - 1.0)


def maxdeceptive(x):
    dec = 3 * x**2 - (2 / (3 ** (x - 2) ** 2 + 0.1))
    return float(np.max(dec))


def sumdeceptive(x):
    dec = 3 * x**2 - (2 / (3 ** (x - 2) ** 2 + 0.1))
    return float(np.sum(dec))


def altcigar(x):
    """Similar to cigar, but variables in inverse order.

    E.g. for pointing out algorithms not invariant to the order of variables."""
    return float(x[-1]) ** 2 + 1000000.0 * sphere(x[:-1])


def discus(x):
    """Only one variable is very penalized."""
    return sphere(x[1:]) + 1000000.0 * float(x[0]) ** 2


def cigar(x):
    """Classical example of ill conditioned function.

    The other classical example is ellipsoid.
    """
    return float(x[0]) ** 2 + 1000000.0 * sphere(x[1:])


def altellipsoid(y):
    """Similar to Ellipsoid, but variables in inverse order.

    E.g. for pointing out algorithms not invariant to the order of variables."""
    return ellipsoid(y[::-1])


def ellipsoid(x):
    """Classical example of ill conditioned function.

    The other classical example is cigar.
    """
    dim = x.size
    weights = 10 ** np.linspace(0, 6, dim)
    return float(weights.dot(x**2))


def rastrigin(x):
    """Classical multimodal function."""
    cosi = float(np.sum(np.cos(2 * np.pi * x)))
    return float(10 * (len(x) - cosi) + sphere(x))


def doublelinearslope(x):
    """We decided to use two linear slopes rather than having a constraint artificially added for
    not having the optimum at infinity."""
    return float(np.abs(np.sum(x)))


def hm(x):
    """New multimodal function (proposed for Nevergrad)."""
    return float((x**2).dot(1.1 + np.cos(1.0 / x)))


def rosenbrock(x):
    x_m_1 = x[:-1] - 1
    x_diff = x[:-1] ** 2 - x[1:]
    return float(100 * x_diff.dot(x_diff) + x_m_1.dot(x_m_1))


def ackley(x):
    dim = x.size
    sum_cos = np.sum(np.cos(2 * np.pi * x))
    return -20.0 * exp(-0.2 * sqrt(sphere(x) / dim)) - exp(sum_cos / dim) + 20 + exp(1)


def schwefel_1_2(x):
    cx = np.cumsum(x)
    return sphere(cx)


def griewank(x):
    """Multimodal function, often used in Bayesian optimization."""
    part1 = sphere(x)
    part2 = np.prod(np.cos(x / np.sqrt(1 + np.arange(len(x)))))
    return 1 + (float(part1) / 4000.0) - float(part2)


def _x(n, seed):
    return np.random.default_rng(seed).uniform(-2.0, 2.0, n)


_NAMES = [
    "sphere",
    "sphere1",
    "maxdeceptive",
    "sumdeceptive",
    "altcigar",
    "discus",
    "cigar",
    "altellipsoid",
    "ellipsoid",
    "rastrigin",
    "doublelinearslope",
    "hm",
    "rosenbrock",
    "ackley",
    "schwefel_1_2",
    "griewank",
]
PROGRAMS = [
    dict(
        name=f"nevergrad.{fn}",
        fn=fn,
        category="test function",
        source=PATH,
        args=lambda n=2 + k % 9, k=k: (_x(n, 100 + k),),
    )
    for k, fn in enumerate(_NAMES)
]


def programs():
    from ..programs import from_table

    return from_table(__name__, PROGRAMS, licence="MIT")
