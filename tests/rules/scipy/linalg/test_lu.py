"""scipy.linalg's LU rules (lu, lu_factor, lu_solve): every registration on every backend, JAX's
own derivatives as a reference, 0-d, empty, bool and singular inputs, and the calls they refuse."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util.scipy_linalg import _general_ex
from chainrules.rules.scipy.linalg import lu as rules
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

sl = pytest.importorskip("scipy.linalg")

test_rule = rule_tests("chainrules.rules.scipy.linalg.lu")

REGS = {r.name: r for r in cr.registrations() if r.meta.get("module") == rules.__name__}
RNG = np.random.default_rng(11)


# ---- JAX's own derivatives as a reference ------------------------------------------------------
AGREE = ["lu_factor"]


@pytest.mark.parametrize("name", AGREE)
def test_agrees_with_jax(name: str, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    reg = REGS[f"scipy:linalg.{name}"]
    examples = examples_for(reg)
    assert_agrees_with_jax(reg, examples, rtol=1e-7, atol=1e-9)


def test_lu_solve_with_jax_pivots(pull) -> None:  # type: ignore[no-untyped-def]
    """JAX's lu_solve takes its own int32 pivots: our pullback of it equals jax.vjp."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jsl = pytest.importorskip("jax.scipy.linalg")
    a = jnp.asarray(_general_ex(RNG, 3))
    b = jnp.asarray(RNG.standard_normal((3, 2)))
    lu, piv = jsl.lu_factor(a)
    g = jnp.asarray(RNG.standard_normal((3, 2)))
    for trans in (0, 1, 2):
        y, (_, lp_bar, b_bar) = pull(jsl.lu_solve, (lu, piv), b, y_bar=g, trans=trans)
        ref_y, vjp = jax.vjp(lambda m, r, tr=trans: jsl.lu_solve((m, piv), r, trans=tr), lu, b)
        ref_lu, ref_b = vjp(g)
        np.testing.assert_allclose(y, ref_y, rtol=1e-12)
        np.testing.assert_allclose(lp_bar[0], ref_lu, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(b_bar, ref_b, rtol=1e-9, atol=1e-12)
        assert lp_bar[1] == cr.NoTangent()


# ---- refused calls -----------------------------------------------------------------------------
def test_refused() -> None:
    """A call the rule cannot differentiate raises an error naming the function and argument."""
    with pytest.raises((ValueError, TypeError), match="square"):
        cr.rrule(sl.lu_factor, np.ones((2, 3)))


def test_lu_factor_of_0d_and_empty_inputs_follows_scipy() -> None:
    for a in (np.asarray(2.0), np.zeros((0, 3)), np.zeros((0, 0))):
        (lu, piv), pb = cr.rrule(sl.lu_factor, a)
        want = sl.lu_factor(a)
        assert lu.shape == want[0].shape and lu.dtype == want[0].dtype
        np.testing.assert_array_equal(lu, want[0])
        np.testing.assert_array_equal(piv, want[1])
        lu_bar = np.full(lu.shape, 3.0)
        g = cr.unthunk(pb(cr.Tangent(lu_bar, cr.NoTangent(), primal_type=tuple))[1])
        assert g.shape == a.shape
        np.testing.assert_array_equal(g, lu_bar)  # 0-d: LU = (1, a); empty: nothing
        _, t = cr.frule((cr.NoTangent(), np.ones((2, *a.shape))), sl.lu_factor, a)
        assert t[0].shape == (2, *lu.shape)


def test_lu_of_bool_and_singular_matrices() -> None:
    b = np.array([[True, False, True], [True, False, True], [True, True, False]])  # singular
    for f in (sl.lu_factor, sl.lu):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sl.LinAlgWarning)  # lu_factor: U[2, 2] is 0
            with pytest.warns(cr.IntegerArgumentWarning, match="argument 0 .* dtype bool"):
                y, pb = cr.rrule(f, b)
        bars = [np.ones(v.shape, v.dtype) if v.dtype.kind == "f" else cr.NoTangent() for v in y]
        assert pb(cr.Tangent(*bars, primal_type=tuple))[1] == cr.NoTangent()  # bool: no tangent
    s = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 0.0]])
    with pytest.warns(sl.LinAlgWarning):
        _, pb = cr.rrule(sl.lu_factor, s)
    with pytest.raises(np.linalg.LinAlgError, match="lu_factor: the pullback needs U"):
        cr.unthunk(pb(cr.Tangent(np.ones((3, 3)), cr.NoTangent(), primal_type=tuple))[1])
    y, pb = cr.rrule(sl.lu, s)
    with pytest.raises(np.linalg.LinAlgError, match="lu: the pullback needs U"):
        cr.unthunk(pb(cr.Tangent(cr.ZeroTangent(), *np.ones((2, 3, 3)), primal_type=tuple))[1])


@pytest.mark.parametrize("permute_l", [False, True])
def test_lu_cotangent_of_the_permutation_alone_is_zero(permute_l: bool) -> None:
    """A program that reads only ``P`` of ``lu`` (campaign seeds 4348, 4418) hands the pullback
    zero cotangents for ``L`` and ``U``: ``A``'s cotangent is zero, where the pullback called
    ``solve_triangular`` on ``None``."""
    import scipy.linalg as sl

    a = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.5, 0.2, 4.0]])
    y, pb = cr.rrule(sl.lu, a, permute_l=permute_l)
    zeros = [cr.ZeroTangent()] * (len(y) - 1)
    first = cr.ZeroTangent() if permute_l else np.ones_like(y[0])  # P's cotangent: ignored
    (_, a_bar) = pb(cr.Tangent(first, *zeros, primal_type=tuple))
    assert cr.is_zero(a_bar) or not np.any(cr.unthunk(a_bar))
