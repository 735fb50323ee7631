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


def _pull(f, *args, y_bar, **kw):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args, **kw)
    return y, tuple(cr.unthunk(c) for c in pb(y_bar))  # products and solvers defer (Thunks)


# ---- JAX's own derivatives as a reference ------------------------------------------------------
AGREE = ["cho_solve"]


@pytest.mark.parametrize("name", AGREE)
def test_agrees_with_jax(name: str, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    reg = REGS[f"scipy:linalg.{name}"]
    examples = examples_for(reg)
    if name == "solve":  # JAX reads the whole matrix for assume_a='sym' (SciPy one triangle)
        examples = [ex for ex in examples if ex.kwargs.get("assume_a") != "sym"]
    if name == "svd":  # full U and V are gauge-dependent: the reduced and values-only examples
        examples = [ex for ex in examples if ex.kwargs]
    assert_agrees_with_jax(reg, examples, rtol=1e-7, atol=1e-9)


# ---- what each library computes ----------------------------------------------------------------
def test_cho_factor_unused_triangle() -> None:
    """SciPy's c keeps A's entries in the unused triangle (their cotangent passes through); JAX's
    holds zeros (none does)."""
    a = positive_definite(RNG, (3, 3))
    g = np.triu(np.ones((3, 3)), k=1)  # only the unused triangle of a lower factor
    (c, _), (_, a_bar) = _pull(sl.cho_factor, a, y_bar=(g, cr.NoTangent()), lower=True)
    np.testing.assert_allclose(np.triu(c, k=1), np.triu(a, k=1))
    np.testing.assert_allclose(a_bar, (g + g.T) / 2)
    jsl = pytest.importorskip("jax.scipy.linalg")
    jnp = pytest.importorskip("jax.numpy")
    (c, _), (_, a_bar) = _pull(
        jsl.cho_factor, jnp.asarray(a), y_bar=(jnp.asarray(g), cr.NoTangent()), lower=True
    )
    np.testing.assert_allclose(np.triu(c, k=1), 0)
    np.testing.assert_allclose(a_bar, 0, atol=1e-14)
