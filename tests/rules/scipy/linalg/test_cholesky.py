"""scipy.linalg's Cholesky rules (cholesky, cho_factor, cho_solve): every registration on every
backend, JAX's own derivatives as a reference, and what each library computes."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util.linalg import positive_definite
from chainrules.rules.scipy.linalg import cholesky as rules
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

sl = pytest.importorskip("scipy.linalg")

test_rule = rule_tests("chainrules.rules.scipy.linalg.cholesky")

REGS = {r.name: r for r in cr.registrations() if r.meta.get("module") == rules.__name__}
RNG = np.random.default_rng(11)


# ---- JAX's own derivatives as a reference ------------------------------------------------------
AGREE = ["cho_solve"]


@pytest.mark.parametrize("name", AGREE)
def test_agrees_with_jax(name: str, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    reg = REGS[f"scipy:linalg.{name}"]
    examples = examples_for(reg)
    assert_agrees_with_jax(reg, examples, rtol=1e-7, atol=1e-9)


# ---- what each library computes ----------------------------------------------------------------
def test_cho_factor_unused_triangle(pull) -> None:  # type: ignore[no-untyped-def]
    """SciPy's c keeps A's entries in the unused triangle (their cotangent passes through); JAX's
    holds zeros (none does)."""
    a = positive_definite(RNG, (3, 3))
    g = np.triu(np.ones((3, 3)), k=1)  # only the unused triangle of a lower factor
    (c, _), (_, a_bar) = pull(sl.cho_factor, a, y_bar=(g, cr.NoTangent()), lower=True)
    np.testing.assert_allclose(np.triu(c, k=1), np.triu(a, k=1))
    np.testing.assert_allclose(a_bar, (g + g.T) / 2)
    jsl = pytest.importorskip("jax.scipy.linalg")
    jnp = pytest.importorskip("jax.numpy")
    (c, _), (_, a_bar) = pull(
        jsl.cho_factor, jnp.asarray(a), y_bar=(jnp.asarray(g), cr.NoTangent()), lower=True
    )
    np.testing.assert_allclose(np.triu(c, k=1), 0)
    np.testing.assert_allclose(a_bar, 0, atol=1e-14)
