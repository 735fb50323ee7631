"""scipy.linalg's matrix functions (expm, expm_frechet, sqrtm): every registration on every
backend, JAX's own derivatives as a reference, the formulas by hand."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.scipy.linalg import matrix_functions as rules
from chainrules.testing import examples_for, test_rrule
from chainrules.testing.suite import rule_tests

sl = pytest.importorskip("scipy.linalg")

test_rule = rule_tests("chainrules.rules.scipy.linalg.matrix_functions")

REGS = {r.name: r for r in cr.registrations() if r.meta.get("module") == rules.__name__}
RNG = np.random.default_rng(11)


# ---- JAX's own derivatives as a reference ------------------------------------------------------
AGREE = ["expm", "expm_frechet"]


@pytest.mark.parametrize("name", AGREE)
def test_agrees_with_jax(name: str, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    reg = REGS[f"scipy:linalg.{name}"]
    examples = examples_for(reg)
    assert_agrees_with_jax(reg, examples, rtol=1e-7, atol=1e-9)


# ---- the formulas by hand ----------------------------------------------------------------------
def test_expm_pullback_is_the_frechet_derivative_at_the_adjoint(pull) -> None:  # type: ignore[no-untyped-def]
    a = RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4))
    g = RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4))
    y, (_, a_bar) = pull(sl.expm, a, y_bar=g)
    np.testing.assert_allclose(y, sl.expm(a))
    np.testing.assert_allclose(a_bar, sl.expm_frechet(a.conj().T, g, compute_expm=False))
    # and the pushforward is the block identity, one call for a chunk of 3
    dots = RNG.standard_normal((3, 4, 4))
    _, y_dot = cr.frule((cr.NoTangent(), dots), sl.expm, a)
    for k in range(3):
        np.testing.assert_allclose(
            y_dot[k], sl.expm_frechet(a, dots[k], compute_expm=False), rtol=1e-10, atol=1e-12
        )


def test_expm_second_order() -> None:
    """expm's pullback calls expm_frechet, which has a rule: differentiate the pullback."""
    a = RNG.standard_normal((2, 2)) * 0.5
    g = RNG.standard_normal((2, 2))
    # scipy converts with numpy.asarray: no guarded-array check (the rule_tests xfail says so)
    test_rrule(sl.expm_frechet, a.T, g, compute_expm=False, scalar_free=False)


def test_expm_at_nonfinite() -> None:
    for v in (np.nan, np.inf, -np.inf):  # SciPy's expm gives NaN there: so does the pullback
        x = np.full((3, 3), v)
        with np.errstate(all="ignore"):
            y, pb = cr.rrule(sl.expm, x)
            np.testing.assert_array_equal(y, sl.expm(x))
            assert np.all(np.isnan(cr.unthunk(pb(np.ones((3, 3)))[1])))
