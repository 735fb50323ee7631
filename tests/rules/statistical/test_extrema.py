"""Extrema (``max``, ``min``; NumPy's ``amax``, ``amin``, ``ptp``, ``nanmax``, ``nanmin``): the
tester on every backend, JAX as a reference, ties split exactly."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.statistical import extrema
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == extrema.__name__]


@pytest.mark.parametrize("reg", [r for r in REGS if r.family == "numpy"], ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_max_and_min_split_ties_equally(grad) -> None:  # type: ignore[no-untyped-def]
    assert grad(np.max, np.array([1.0, 3.0, 3.0, 2.0])).tolist() == [0.0, 0.5, 0.5, 0.0]
    assert grad(np.min, np.array([1.0, 3.0, 1.0, 1.0])).tolist() == [1 / 3, 0.0, 1 / 3, 1 / 3]
    m = np.array([[1.0, 2.0, 2.0], [5.0, 4.0, 5.0]])
    assert grad(np.amax, m, axis=1).tolist() == [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]]
    _, ydot = cr.frule(
        (cr.NoTangent(), np.array([1.0, 10.0, 20.0, 0.0])), np.max, np.array([1.0, 3.0, 3.0, 2.0])
    )
    assert float(ydot) == 15.0


def test_ptp_conventions(grad) -> None:  # type: ignore[no-untyped-def]
    # ptp: each end splits its cotangent among its ties; a constant slice gets 0
    assert grad(np.ptp, np.array([1.0, 3.0, 3.0, 1.0, 2.0])).tolist() == [
        -0.5,
        0.5,
        0.5,
        -0.5,
        0.0,
    ]
    assert grad(np.ptp, np.ones(3)).tolist() == [0.0, 0.0, 0.0]


def test_nanmax_gives_nans_zero_cotangent(grad) -> None:  # type: ignore[no-untyped-def]
    x = np.array([2.0, np.nan, 5.0, 5.0])
    assert grad(np.nanmax, x).tolist() == [0.0, 0.0, 0.5, 0.5]


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical.extrema")
