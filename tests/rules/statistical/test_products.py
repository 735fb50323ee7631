"""Products (``prod``; NumPy's ``nanprod``): the tester on every backend, JAX as a reference,
exact with zeros."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.statistical import products
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == products.__name__]


@pytest.mark.parametrize("reg", [r for r in REGS if r.family == "numpy"], ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_prod_is_exact_with_zeros(grad) -> None:  # type: ignore[no-untyped-def]
    assert grad(np.prod, np.array([0.0, 2.0, 3.0])).tolist() == [6.0, 0.0, 0.0]
    assert grad(np.prod, np.array([0.0, 2.0, 0.0])).tolist() == [0.0, 0.0, 0.0]
    assert grad(np.prod, np.array([[0.0, 2.0], [3.0, 4.0]]), axis=0).tolist() == [
        [3.0, 4.0],
        [0.0, 2.0],
    ]


def test_nanprod_gives_nans_zero_cotangent(grad) -> None:  # type: ignore[no-untyped-def]
    x = np.array([2.0, np.nan, 5.0, 5.0])
    assert grad(np.nanprod, x).tolist() == [25.0, 0.0, 10.0, 10.0]


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical.products")
