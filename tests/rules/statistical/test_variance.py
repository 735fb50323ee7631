"""Variance and standard deviation (``var``, ``std``; NumPy's ``nanvar``, ``nanstd``): the tester on
every backend, JAX as a reference, constant slices."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.statistical import variance
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == variance.__name__]


@pytest.mark.parametrize("reg", [r for r in REGS if r.family == "numpy"], ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_std_of_a_constant_slice_has_zero_gradient_without_warnings(grad) -> None:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert grad(np.std, np.ones(4)).tolist() == [0.0] * 4


def test_nanvar_gives_nans_zero_cotangent(grad) -> None:  # type: ignore[no-untyped-def]
    x = np.array([2.0, np.nan, 5.0, 5.0])
    g = grad(np.nanvar, x)
    assert g[1] == 0.0 and np.all(np.isfinite(g))


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical.variance")
