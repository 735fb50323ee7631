"""scipy.linalg's other decompositions (eigh, eigh_tridiagonal, qr, qr_multiply, svd, polar):
every registration on every backend, JAX's own derivatives as a reference, what each library
computes, and the calls they refuse."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util.linalg import hermitian
from chainrules.rules.scipy.linalg import decompositions as rules
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

sl = pytest.importorskip("scipy.linalg")

test_rule = rule_tests("chainrules.rules.scipy.linalg.decompositions")

REGS = {r.name: r for r in cr.registrations() if r.meta.get("module") == rules.__name__}
RNG = np.random.default_rng(11)


# ---- JAX's own derivatives as a reference ------------------------------------------------------
AGREE = ["qr", "svd"]


@pytest.mark.parametrize("name", AGREE)
def test_agrees_with_jax(name: str, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    reg = REGS[f"scipy:linalg.{name}"]
    examples = examples_for(reg)
    if name == "svd":  # full U and V are gauge-dependent: the reduced and values-only examples
        examples = [ex for ex in examples if ex.kwargs]
    assert_agrees_with_jax(reg, examples, rtol=1e-7, atol=1e-9)


# ---- what each library computes ----------------------------------------------------------------
def test_eigh_default_driver_gauge_invariant_loss(pull) -> None:  # type: ignore[no-untyped-def]
    """With SciPy's default driver the vectors' signs are unstable; a sign-free loss
    (sum of |v|^4 and the eigenvalues) is checked against finite differences instead."""
    a = hermitian(RNG, (3, 3))
    e = RNG.standard_normal((3, 3))
    e = e + e.T

    def loss(x):  # type: ignore[no-untyped-def]
        w, v = sl.eigh(x)
        return np.sum(w**2) + np.sum(v**4)

    w, v = sl.eigh(a)
    _, (_, a_bar) = pull(sl.eigh, a, y_bar=(2 * w, 4 * v**3))
    h = 1e-5
    fd = (loss(a + h * e) - loss(a - h * e)) / (2 * h)
    np.testing.assert_allclose(np.sum(a_bar * e), fd, rtol=1e-6)


# ---- refused calls -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((np.eye(2),), {"subset_by_index": [0, 0]}, "subset_by_index"),
        ((np.eye(2), np.eye(2)), {}, "b="),
        ((np.eye(2),), {"mode": "raw"}, "mode"),
    ],
)
def test_refused(args, kwargs, match) -> None:  # type: ignore[no-untyped-def]
    """Calls the rules cannot differentiate raise an error naming the function and argument."""
    target = {
        "subset_by_index": sl.eigh,
        "b=": sl.eigh,
        "mode": sl.qr,
    }[match]
    with pytest.raises((ValueError, TypeError), match=match):
        cr.rrule(target, *args, **kwargs)


def test_polar_of_an_empty_matrix() -> None:
    a = np.zeros((0, 3))
    (u, p), pb = cr.rrule(sl.polar, a)
    want = sl.polar(a)
    np.testing.assert_array_equal(u, want[0])
    np.testing.assert_array_equal(p, want[1])
    g = pb(cr.Tangent(np.ones((0, 3)), np.ones((3, 3)), primal_type=tuple))[1]
    assert cr.unthunk(g).shape == (0, 3)


def test_polar_of_float16_upcast_as_scipy() -> None:
    # SciPy's polar takes float16 (computing in a wider type); NumPy's linalg refuses it: the
    # rule's factorisations upcast, the cotangents are float16
    a = np.array([[2.0, 1.0], [0.5, 3.0]], dtype=np.float16)
    y, pb = cr.rrule(sl.polar, a)
    want = sl.polar(a)
    for got, w in zip(y, want):
        assert got.dtype == w.dtype
        np.testing.assert_array_equal(got, w)
    bars = (np.ones((2, 2), np.float32), np.eye(2, dtype=np.float32))
    g = pb(cr.Tangent(*bars))[1]
    g32 = cr.rrule(sl.polar, a.astype(np.float32))[1](cr.Tangent(*bars))[1]
    assert g.dtype == np.float16
    np.testing.assert_array_equal(g, g32.astype(np.float16))
