"""``tensordot`` and ``vecdot`` (the standard's and the ``linalg`` extension's) and NumPy's
``tensordot``, ``dot``, ``inner``, ``vdot``: the tester on every backend, JAX as a reference and
exact conventions."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.linear_algebra import tensordot
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == tensordot.__name__]
NAMES = {r.name for r in REGS}
RNG = np.random.default_rng(7)


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def _c(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def test_registered() -> None:
    assert {
        "tensordot",
        "vecdot",
        "linalg.tensordot",
        "linalg.vecdot",
        "numpy:tensordot",
        "numpy:dot",
        "numpy:inner",
        "numpy:vdot",
    } == NAMES


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions, exact values -----------------------------------------------------------------
def test_vecdot_conjugates_its_first_operand(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    x1, x2, yb = _c(2, 3), _c(2, 3), _c(2)
    y, pb = forced_rrule(np.vecdot, x1, x2)
    np.testing.assert_allclose(y, (x1.conj() * x2).sum(-1))
    _, g1, g2 = pb(yb)
    np.testing.assert_allclose(g1, x2 * yb.conj()[:, None])
    np.testing.assert_allclose(g2, x1 * yb[:, None])
    _, ydot = cr.frule((cr.NoTangent(), x1, cr.ZeroTangent()), np.vecdot, x1, x2)
    np.testing.assert_allclose(ydot, (x1.conj() * x2).sum(-1))
    # NumPy's vdot flattens and conjugates its first operand too
    y, pb = forced_rrule(np.vdot, x1, x2)
    _, g1, g2 = pb(np.complex128(2 - 1j))
    np.testing.assert_allclose(g1, x2 * (2 + 1j))
    np.testing.assert_allclose(g2, x1 * (2 - 1j))


def test_tensordot_axes_conventions(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    a, b = _r(2, 3, 4), _r(4, 2, 3)
    axes = ((1, 2), (2, 0))
    y, pb = forced_rrule(np.tensordot, a, b, axes=axes)
    yb = _r(*y.shape)
    _, ga, gb = pb(yb)
    # y[i, l] = sum_jk a[i, j, k] b[k, l, j]
    np.testing.assert_allclose(ga, np.einsum("il,klj->ijk", yb, b))
    np.testing.assert_allclose(gb, np.einsum("ijk,il->klj", a, yb))
    # NumPy's axes positional; a pair of ints
    _, pb = forced_rrule(np.tensordot, a[0], _r(4, 5), 1)
    assert pb(np.ones((3, 5)))[3] is cr.NoTangent()
    y, pb = forced_rrule(np.tensordot, _r(2, 3), _r(2, 4), axes=(0, 0))
    assert y.shape == (3, 4)
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(
        TypeError, match="keyword-only"
    ):  # the standard's tensordot(x1, x2, /, *, axes)
        forced_rrule(xs.tensordot, xs.asarray(a), xs.asarray(b), 1)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.linear_algebra.tensordot")
