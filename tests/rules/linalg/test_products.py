"""The linalg extension's products (outer, cross, trace, diagonal) and NumPy's outer, trace,
diagonal and linalg.multi_dot: the tester on every backend, JAX as a
reference, exact conventions, and the pullbacks' building blocks."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.linalg import products
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == products.__name__]
NAMES = {r.name for r in REGS}
RNG = np.random.default_rng(11)


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def _c(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def test_registered() -> None:
    for name in ("outer", "cross", "trace", "diagonal"):
        assert f"linalg.{name}" in NAMES
    assert {"numpy:outer", "numpy:trace", "numpy:diagonal", "numpy:linalg.multi_dot"} <= NAMES


def _few(examples: list, n: int = 2) -> list:  # type: ignore[type-arg]
    """The first ``n`` examples and the first complex one (jax and torch are slow here)."""
    return examples[:n] + [ex for ex in examples if ex.complex][:1]


# NumPy's multi_dot: tested below
@pytest.mark.parametrize(
    "reg", [r for r in REGS if r.name != "numpy:linalg.multi_dot"], ids=lambda r: r.name
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions, exact values -----------------------------------------------------------------
def test_outer_and_numpy_outer_flattening(forced_rrule, forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    a, b, yb = _c(3), _c(2), _c(3, 2)
    _, ga, gb = forced_cotangents(np.linalg.outer, a, b, y_bar=yb)
    np.testing.assert_allclose(ga, yb @ b.conj())
    np.testing.assert_allclose(gb, a.conj() @ yb)
    a2 = _r(2, 3)
    _, ga, gb = forced_cotangents(np.outer, a2, _r(2), y_bar=np.ones((6, 2)))
    assert ga.shape == (2, 3)
    with pytest.raises(ValueError, match=r"linalg\.outer: operands must be vectors"):
        forced_rrule(np.linalg.outer, a2, b)


def test_cross_pullback_and_broadcasting(forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    a, b, yb = _r(4, 3), _r(3), _r(4, 3)
    _, ga, gb = forced_cotangents(np.linalg.cross, a, b, y_bar=yb)
    np.testing.assert_allclose(ga, np.cross(b, yb))
    np.testing.assert_allclose(gb, np.cross(yb, a).sum(0))  # summed over the broadcast axis
    # e_x x e_y = e_z: the cotangent of x1 for y_bar = e_z is e_y x e_z = e_x
    ex, ey, ez = np.eye(3)
    _, ga, gb = forced_cotangents(np.linalg.cross, ex, ey, y_bar=ez)
    assert ga.tolist() == ex.tolist() and gb.tolist() == ey.tolist()


def test_trace_and_diagonal_offsets_and_degenerate_cases(forced_rrule, forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    x = _r(3, 4)
    _, g = forced_cotangents(np.linalg.trace, x, offset=1, y_bar=np.float64(2.0))
    assert g.tolist() == (2 * np.eye(3, 4, k=1)).tolist()
    # off the matrix: zero
    _, g = forced_cotangents(np.linalg.trace, x, offset=7, y_bar=np.float64(2.0))
    assert g.tolist() == np.zeros((3, 4)).tolist()
    _, g = forced_cotangents(np.linalg.diagonal, x, offset=-1, y_bar=np.array([1.0, 2.0]))
    want = np.zeros((3, 4))
    want[1, 0], want[2, 1] = 1.0, 2.0
    assert g.tolist() == want.tolist()
    _, g = forced_cotangents(np.linalg.diagonal, x, offset=5, y_bar=np.zeros(0))
    assert g.tolist() == np.zeros((3, 4)).tolist()
    # NumPy's axis1/axis2 (and offset, dtype positional)
    x3 = _r(3, 2, 4)
    _, g, *rest = forced_cotangents(np.trace, x3, 1, 0, 2, y_bar=np.array([1.0, 2.0]))
    want = np.zeros((3, 2, 4))
    for j in range(2):
        for i in range(3):
            want[i, j, i + 1] = j + 1.0
    assert g.tolist() == want.tolist() and all(r is cr.NoTangent() for r in rest)
    y, pb = forced_rrule(np.diagonal, x3, axis1=2, axis2=0, offset=-1)
    yb = _r(*y.shape)
    g = pb(yb)[1]
    want = np.zeros((3, 2, 4))
    for j in range(2):
        for i in range(y.shape[-1]):
            want[i, j, i + 1] = yb[j, i]  # diagonal entry i is x[a2 = i, j, a1 = i + 1]
    np.testing.assert_allclose(g, want)
    # trace's dtype= changes the output, not the cotangent
    x32 = _r(3, 3).astype(np.float32)
    y, pb = forced_rrule(np.linalg.trace, x32, dtype=np.float64)
    assert y.dtype == np.float64 and pb(np.float64(1.0))[1].dtype == np.float32


def test_batched_trace_and_diagonal(forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    x = _r(2, 3, 3)
    _, g = forced_cotangents(np.linalg.trace, x, y_bar=np.array([1.0, -1.0]))
    np.testing.assert_allclose(g, np.stack([np.eye(3), -np.eye(3)]))
    _, yd = cr.frule((cr.NoTangent(), _r(5, 2, 3, 3)), np.linalg.diagonal, x)
    assert yd.shape == (5, 2, 3)


def test_errors(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="trace: x must have rank >= 2"):
        forced_rrule(np.linalg.trace, _r(3))
    with pytest.raises(ValueError, match="axis1 and axis2 cannot be the same"):
        forced_rrule(np.trace, _r(3, 3), 0, 1, 1)
    with pytest.raises(TypeError, match="out= is not supported"):
        forced_rrule(np.outer, _r(2), _r(2), out=np.empty((2, 2)))
    with pytest.raises(ValueError, match=r"cotangent of shape \(2,\) does not match .*\(3,\)"):
        forced_rrule(np.linalg.cross, _r(3), _r(3))[1](np.ones(2))


# ---- second derivatives: the building blocks have rules -----------------------------------------
def test_pullback_building_blocks() -> None:
    yb = _c(4, 3)
    b = _c(3)
    test_rrule(np.linalg.cross, b.conj(), yb)  # cross's pullback is cross
    test_frule(np.linalg.cross, b.conj(), yb)
    # diagonal's pullback: y_bar @ S, then times eye
    v, sel, eye = _r(2), np.eye(2, 3, k=1), np.eye(3, 4, k=-1)
    test_rrule(np.matmul, v, sel)
    test_rrule(np.multiply, (v @ sel)[:, None], eye)
    test_rrule(np.permute_dims, _r(2, 3, 4), (1, 2, 0))


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.linalg.products")


# ---- NumPy's multi_dot -----------------------------------------------------------------------
NP_RNG = np.random.default_rng(11)


def test_multi_dot_primal_and_errors() -> None:
    arrs = [NP_RNG.standard_normal(s) for s in ((5,), (5, 2), (2, 6), (6, 3))]
    y, pb = cr.rrule(np.linalg.multi_dot, arrs)
    np.testing.assert_allclose(y, np.linalg.multi_dot(arrs), rtol=1e-12)
    bars = pb(np.ones(3))[1]
    assert isinstance(bars, cr.Tangent) and bars[0].shape == (5,)
    with pytest.raises(ValueError, match="multi_dot: shapes"):
        cr.rrule(np.linalg.multi_dot, [np.ones((2, 3)), np.ones((2, 3))])
