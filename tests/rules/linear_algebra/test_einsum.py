"""NumPy's ``einsum`` and ``kron``: the tester on every backend, JAX as a reference, exact
conventions (repeated indices, the interleaved form), and second derivatives (the pullback is
built from functions with rules)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.linear_algebra import einsum
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == einsum.__name__]
NAMES = {r.name for r in REGS}
RNG = np.random.default_rng(7)


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def _c(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def test_registered() -> None:
    assert {"numpy:einsum", "numpy:kron"} == NAMES


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions, exact values -----------------------------------------------------------------
def test_einsum_repeated_indices_put_the_cotangent_on_the_diagonal(forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    x = _r(3, 3)
    yb = np.array([1.0, 2.0, 3.0])
    (_, _, g) = forced_cotangents(np.einsum, "ii->i", x, y_bar=yb)
    assert g.tolist() == np.diag(yb).tolist()
    (_, _, g) = forced_cotangents(np.einsum, "ii", x, y_bar=np.float64(2.0))
    assert g.tolist() == (2 * np.eye(3)).tolist()
    x3 = _r(2, 2, 3)
    (_, _, g) = forced_cotangents(np.einsum, "iij->j", x3, y_bar=np.array([1.0, 2.0, 3.0]))
    want = np.zeros((2, 2, 3))
    want[0, 0] = want[1, 1] = [1.0, 2.0, 3.0]
    assert g.tolist() == want.tolist()
    # an index of one operand only is broadcast back
    (_, _, g) = forced_cotangents(np.einsum, "ij->i", _r(2, 3), y_bar=np.array([1.0, 2.0]))
    assert g.tolist() == [[1.0] * 3, [2.0] * 3]


def test_einsum_matches_matmul_with_three_operands_and_ellipses(forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    a, b, c = _r(2, 3), _r(3, 4), _r(4, 2)
    yb = _r(2, 2)
    _, _, ga, gb, gc = forced_cotangents(np.einsum, "ij,jk,kl->il", a, b, c, y_bar=yb)
    np.testing.assert_allclose(ga, yb @ (b @ c).T)
    np.testing.assert_allclose(gb, a.T @ yb @ c.T)
    np.testing.assert_allclose(gc, (a @ b).T @ yb)
    a, b, yb = _r(5, 2, 3), _r(3, 4), _r(5, 2, 4)
    _, _, ga, gb = forced_cotangents(np.einsum, "...ij,jk->...ik", a, b, y_bar=yb)
    np.testing.assert_allclose(ga, yb @ b.T)
    np.testing.assert_allclose(gb, np.einsum("bij,bik->jk", a, yb))


def test_einsum_pullback_building_blocks() -> None:
    """The einsum pullback is einsum (with the conjugated other operands), broadcast_to for an
    index of one operand only, and einsum with a constant eye for a repeated index."""
    a, b, c, yb = _c(2, 3), _c(3, 2), _r(2, 2), _c(2, 2)
    opt = einsum.einsum_optimize(np)
    test_rrule(np.einsum, "il,jk,kl->ij", yb, b.conj(), c, **opt)
    test_frule(np.einsum, "il,jk,kl->ij", yb, b.conj(), c, **opt)
    test_rrule(np.einsum, "il,ij,kl->jk", yb, a.conj(), c, **opt)
    g = _r(3)  # 'ii->i': g = y_bar, then onto the diagonal with eye
    test_rrule(np.einsum, "i,ia->ia", g, np.eye(3), **opt)
    test_frule(np.einsum, "i,ia->ia", g, np.eye(3), **opt)
    test_rrule(np.broadcast_to, _r(2, 1), (2, 3))


def test_einsum_interleaved_form_matches_the_string_form(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    y, pb = forced_rrule(np.einsum, a, [0, 1], b, [1, 2], [0, 2])
    y_ref, pb_ref = forced_rrule(np.einsum, "ij,jk->ik", a, b)
    np.testing.assert_allclose(y, y_ref)
    y_bar = rng.standard_normal(y.shape)
    res, ref = pb(y_bar), pb_ref(y_bar)
    assert len(res) == 6 and all(isinstance(res[i], cr.NoTangent) for i in (2, 4, 5))
    np.testing.assert_allclose(res[1], ref[2])
    np.testing.assert_allclose(res[3], ref[3])
    _, y_dot = cr.frule(
        (cr.NoTangent(), a, cr.NoTangent(), b, cr.NoTangent(), cr.NoTangent()),
        np.einsum,
        a,
        [0, 1],
        b,
        [1, 2],
        [0, 2],
    )
    np.testing.assert_allclose(y_dot, 2 * y)


def test_einsum_interleaved_form_errors(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="sublist"):
        forced_rrule(np.einsum, np.ones(2), [60])
    with pytest.raises(TypeError, match="sublist"):
        forced_rrule(np.einsum, np.ones(2), "i")


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.linear_algebra.einsum")


@pytest.mark.parametrize(("n", "searched"), [(5, False), (3000, True)])
def test_pullback_searches_a_contraction_path_only_where_it_pays(n, searched) -> None:  # type: ignore[no-untyped-def]
    """NumPy's pullback contractions take ``optimize="greedy"`` (a path through BLAS) from
    about 4096 operand elements on, and the plain loop below, where the path's search costs
    5x the contraction; the cotangents are right either way. A second call with the same
    subscripts and shapes reuses the parsed subscripts."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((n, 2)), rng.standard_normal(2)
    g = np.ones(n)
    assert bool(einsum.einsum_optimize(np, g.size + x.size)) is searched  # w's: y_bar, x
    einsum._einsum_spec.cache_clear()
    for _ in range(2):
        _, pb = cr.rrule(np.einsum, "ij,j->i", x, w)
        _, x_bar, w_bar = (cr.unthunk(c) for c in pb(g)[1:])
    np.testing.assert_allclose(w_bar, x.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(x_bar, np.broadcast_to(w, (n, 2)), rtol=1e-15)
    assert einsum._einsum_spec.cache_info().hits == 1
