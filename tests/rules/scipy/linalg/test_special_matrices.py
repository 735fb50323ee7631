"""scipy.linalg's special matrices (toeplitz, hankel, circulant, block_diag, leslie, companion,
fiedler, fiedler_companion, convolution_matrix; hadamard, pascal, ... non-differentiable): every
registration on every backend, JAX's own derivatives as a reference, ties, modes and sizes."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.scipy.linalg import special_matrices as rules
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

sl = pytest.importorskip("scipy.linalg")

test_rule = rule_tests("chainrules.rules.scipy.linalg.special_matrices")

REGS = {r.name: r for r in cr.registrations() if r.meta.get("module") == rules.__name__}
RNG = np.random.default_rng(11)


# ---- JAX's own derivatives as a reference ------------------------------------------------------
AGREE = ["toeplitz", "hankel", "circulant", "block_diag", "leslie", "companion"]


@pytest.mark.parametrize("name", AGREE)
def test_agrees_with_jax(name: str, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    reg = REGS[f"scipy:linalg.{name}"]
    examples = examples_for(reg)
    assert_agrees_with_jax(reg, examples, rtol=1e-7, atol=1e-9)


def test_fiedler_tie_gives_the_minimum_norm_subgradient(pull) -> None:  # type: ignore[no-untyped-def]
    a = np.array([1.0, 1.0, 3.0])
    _, (_, a_bar) = pull(sl.fiedler, a, y_bar=np.ones((3, 3)))
    np.testing.assert_allclose(a_bar, [-2.0, -2.0, 4.0])  # sign(0) = 0 at the tie


def test_structured_primals_match_scipy() -> None:
    c, r = RNG.standard_normal(4), RNG.standard_normal(3)
    for f, args in (
        (sl.toeplitz, (c, r)),
        (sl.hankel, (c, r)),
        (sl.circulant, (c,)),
        (sl.convolution_matrix, (c, 5)),
    ):
        _, y_dot = cr.frule((cr.NoTangent(), *args), f, *args)
        np.testing.assert_allclose(y_dot, f(*args), err_msg=f.__name__)  # linear maps


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize(("m", "n"), [(3, 5), (5, 3), (4, 4), (1, 3)])
def test_convolution_matrix_modes(mode: str, m: int, n: int) -> None:
    a = RNG.standard_normal(m)
    test_rrule(sl.convolution_matrix, a, n, mode=mode, scalar_free=False)
    test_frule(sl.convolution_matrix, a, n, mode=mode, scalar_free=False)


def test_fiedler_companion_sizes() -> None:
    for size in (2, 3, 6, 7):
        a = RNG.standard_normal(size)
        a[0] = 2.0
        test_rrule(sl.fiedler_companion, a, scalar_free=False)
        test_frule(sl.fiedler_companion, a, scalar_free=False)


@pytest.mark.parametrize("name", ["circulant", "fiedler", "fiedler_companion"])
@pytest.mark.parametrize("n", [0, 1])
def test_an_empty_structured_matrix_is_constant(assert_same, name: str, n: int) -> None:  # type: ignore[no-untyped-def]
    f, x = getattr(sl, name), np.ones(n)
    y, pb = cr.rrule(f, x)
    assert_same(y, f(x))
    if y.size == 0:
        assert pb(np.ones_like(y))[1].shape == (n,)
        assert isinstance(cr.frule((cr.NoTangent(), np.ones(n)), f, x)[1], cr.ZeroTangent)
