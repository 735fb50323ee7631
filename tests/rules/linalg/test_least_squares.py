"""The least-squares rules (chainrules/rules/linalg/least_squares.py): ``pinv`` (the standard's
and NumPy's) and NumPy's ``lstsq`` -- the generated tests on every backend, agreement with JAX,
rank-preserving ``pinv``, rank-deficient ``lstsq``, and NumPy semantics."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.linalg import least_squares
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == least_squares.__name__]
NAMES = {"linalg.pinv", "numpy:linalg.pinv"}  # compared with JAX (lstsq: below)
RNG = np.random.default_rng(11)


def test_lstsq_rank_deficient_solution(fd_grad) -> None:  # type: ignore[no-untyped-def]
    a = RNG.standard_normal((4, 2)) @ RNG.standard_normal((2, 3))  # rank 2
    b = RNG.standard_normal(4)
    y, pb = cr.rrule(np.linalg.lstsq, a, b, rcond=1e-3)
    assert y[2] == 2
    x_bar = RNG.standard_normal(3)
    _, a_bar, b_bar = map(
        cr.unthunk, pb((x_bar, cr.ZeroTangent(), cr.NoTangent(), cr.ZeroTangent()))
    )

    def loss_a(m: np.ndarray) -> float:
        return float(x_bar @ np.linalg.lstsq(m, b, rcond=1e-3)[0])

    def loss_b(v: np.ndarray) -> float:
        return float(x_bar @ np.linalg.lstsq(a, v, rcond=1e-3)[0])

    np.testing.assert_allclose(a_bar, fd_grad(loss_a, a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b_bar, fd_grad(loss_b, b), rtol=1e-6, atol=1e-7)


def test_lstsq_positional_rcond_and_empty_residuals() -> None:
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(2)  # wide: no residuals
    y, pb = cr.rrule(np.linalg.lstsq, a, b, 1e-12)
    assert y[1].shape == (0,)
    res = pb((np.ones(3), np.zeros(0), cr.NoTangent(), np.zeros(2)))
    assert isinstance(res[3], cr.ZeroTangent)
    with pytest.raises(ValueError, match="lstsq: a must be a matrix"):
        cr.rrule(np.linalg.lstsq, np.ones((2, 2, 2)), np.ones(2))


test_rule = rule_tests("chainrules.rules.linalg.least_squares")


def test_registered() -> None:
    assert {r.name for r in REGS} == NAMES | {"numpy:linalg.lstsq"}


@pytest.mark.parametrize("reg", [r for r in REGS if r.name in NAMES], ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg), rtol=1e-8, atol=1e-10)


# ---- pinv: fixed rank, hermitian, the cutoff ----------------------------------------------------
def test_pinv_rank_deficient_along_rank_preserving_paths(pull) -> None:  # type: ignore[no-untyped-def]
    """Where the rank is locally constant the formula is exact: A(t) = L(t) R(t), rank 2."""
    lft, rgt = RNG.standard_normal((5, 2)), RNG.standard_normal((2, 4))
    dl, dr = RNG.standard_normal((5, 2)), RNG.standard_normal((2, 4))
    a, da = lft @ rgt, dl @ rgt + lft @ dr
    h = 1e-6

    def path(t: float) -> np.ndarray:
        return np.linalg.pinv((lft + t * dl) @ (rgt + t * dr), rtol=1e-10)

    fd = (path(h) - path(-h)) / (2 * h)
    _, x_dot = cr.frule((cr.NoTangent(), da), np.linalg.pinv, a, rtol=1e-10)
    np.testing.assert_allclose(x_dot, fd, rtol=1e-6, atol=1e-8)
    x_bar = RNG.standard_normal((4, 5))
    _, (_, a_bar) = pull(np.linalg.pinv, a, y_bar=x_bar, rtol=1e-10)
    np.testing.assert_allclose(np.sum(a_bar * da), np.sum(x_bar * fd), rtol=1e-6)


def test_numpy_pinv_hermitian_gives_the_symmetrised_cotangent(pull) -> None:  # type: ignore[no-untyped-def]
    m = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    a = m + m.conj().T
    hd = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    hd = hd + hd.conj().T  # a Hermitian direction
    h = 1e-6
    fd = (
        np.linalg.pinv(a + h * hd, hermitian=True) - np.linalg.pinv(a - h * hd, hermitian=True)
    ) / (2 * h)
    y, x_dot = cr.frule((cr.NoTangent(), hd), np.linalg.pinv, a, hermitian=True)
    np.testing.assert_allclose(y, np.linalg.pinv(a, hermitian=True), rtol=1e-12)
    np.testing.assert_allclose(x_dot, fd, rtol=1e-6, atol=1e-8)
    x_bar = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    _, (_, a_bar, _, _) = pull(np.linalg.pinv, a, None, True, y_bar=x_bar)
    np.testing.assert_allclose(a_bar, a_bar.conj().T, rtol=1e-12)
    lhs = np.real(np.sum(np.conj(a_bar) * hd))
    np.testing.assert_allclose(lhs, np.real(np.sum(np.conj(x_bar) * fd)), rtol=1e-6)


def test_numpy_pinv_signature(forced_rrule, pull) -> None:  # type: ignore[no-untyped-def]
    a = RNG.standard_normal((4, 3))
    y, (_, _, rc_bar) = pull(np.linalg.pinv, a, 1e-12)
    np.testing.assert_allclose(y, np.linalg.pinv(a, 1e-12), rtol=1e-13)
    assert isinstance(rc_bar, cr.ZeroTangent)  # the cutoff: zero where the rank is constant
    with pytest.raises(TypeError, match="hermitian must be a Python bool"):
        forced_rrule(np.linalg.pinv, a, None, np.bool_(True))
    with pytest.raises(TypeError, match="out"):
        forced_rrule(np.linalg.pinv, a, out=np.empty((3, 4)))
    import array_api_strict as xs

    with pytest.raises(TypeError, match="keyword-only"):
        forced_rrule(xs.linalg.pinv, xs.asarray(a), 1e-12)
