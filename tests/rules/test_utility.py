"""diff (n, axis, prepend/append, exact adjoint) and the non-differentiable all/any."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import utility
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.examples import Example
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == utility.__name__]
NAMES = {r.name for r in REGS}
DIFF = [r for r in REGS if not r.non_differentiable]


def test_registered() -> None:
    assert {"diff", "numpy:diff", "all", "any"} == NAMES
    assert {r.name for r in DIFF} == {"diff", "numpy:diff"}


def test_keyword_prepend_append_on_backends(backend) -> None:  # type: ignore[no-untyped-def]
    """Array prepend=/append= keywords: constants, converted to each backend here."""
    reg = next(r for r in REGS if r.name == "diff")
    rng = np.random.default_rng(2)
    ns = backend.array_namespace()
    for dtype in ("float64", "float32"):
        m = backend.asarray(rng.standard_normal((3, 5)), dtype)
        p = backend.asarray(rng.standard_normal((3, 1)), dtype)
        a = backend.asarray(rng.standard_normal((3, 2)), dtype)
        f = backend.function(reg)
        test_rrule(f, m, prepend=p, append=a, scalar_free=False, jit=False)
        test_frule(f, m, n=2, prepend=p, append=a, scalar_free=False, jit=False)
        assert ns is not None


@pytest.mark.parametrize("reg", DIFF, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions ---------------------------------------------------------------------------
def test_diff_pullback_exact() -> None:
    x = np.array([1.0, 4.0, 9.0, 16.0])
    _, pb = cr.rrule(np.diff, x)
    assert pb(np.array([1.0, 2.0, 3.0]))[1].tolist() == [-1.0, -1.0, -1.0, 3.0]
    _, pb = cr.rrule(np.diff, x, 2)
    # D^T D^T [1, 2] = [1, -2 + -1, 2 + 2, -2] ... computed: (-1)^2 diff([0,0,1,2,0,0], n=2)
    assert pb(np.array([1.0, 2.0]))[1].tolist() == [1.0, 0.0, -3.0, 2.0]


def test_diff_positional_prepend_append_get_cotangents() -> None:
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    p, a = np.array([[0.5], [1.0]]), 7.0  # a Python-scalar append, broadcast along the axis
    y, pb = cr.rrule(np.diff, x, 1, 1, p, a)
    assert y.tolist() == [[0.5, 1.0, 5.0], [2.0, 2.0, 2.0]]
    g = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _f_bar, x_bar, n_bar, axis_bar, p_bar, a_bar = pb(g)
    assert x_bar.tolist() == [[-1.0, -1.0], [-1.0, -1.0]]
    assert p_bar.tolist() == [[-1.0], [-4.0]]
    assert float(a_bar) == 3.0 + 6.0
    assert n_bar is cr.NoTangent() and axis_bar is cr.NoTangent()
    # as keywords they are constants: no slot in the pullback
    _, pb = cr.rrule(np.diff, x, prepend=p)
    assert len(pb(np.ones((2, 2)))) == 2


def test_diff_degenerate_cases() -> None:
    x = np.arange(6.0).reshape(2, 3)
    _, pb = cr.rrule(np.diff, x, 3)  # n = the length: an empty output, zero cotangent
    assert pb(np.zeros((2, 0)))[1].tolist() == [[0.0] * 3] * 2
    _, pb = cr.rrule(np.diff, x, 0)  # the identity
    assert np.array_equal(pb(x)[1], x)
    test_rrule(np.diff, np.zeros((3, 0)))
    test_frule(np.diff, np.zeros((0, 4)), axis=0)
    with pytest.raises(ValueError, match="out of bounds"):
        cr.rrule(np.diff, np.asarray(1.0))


def test_diff_chunked_frule_with_prepend_tangent() -> None:
    x, p = np.array([1.0, 2.0, 4.0]), np.array([0.0])
    t = np.stack([np.eye(3)[i] for i in range(3)])  # a chunk of 3 tangents
    _, y_dot = cr.frule(
        (cr.NoTangent(), t, cr.NoTangent(), cr.NoTangent(), np.ones((3, 1))), np.diff, x, 1, 0, p
    )
    # y = [x0 - p, x1 - x0, x2 - x1] with p moving by 1 in every direction
    assert y_dot.tolist() == [[0.0, -1.0, 0.0], [-1.0, 1.0, -1.0], [-1.0, 0.0, 1.0]]


def test_all_any_no_tangent() -> None:
    _y, pb = cr.rrule(np.all, np.array([1.0, 0.0]))
    assert pb(cr.NoTangent()) == (cr.NoTangent(), cr.NoTangent())


def test_example_type_is_used() -> None:
    assert isinstance(examples_for(DIFF[0])[0], Example)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.utility")


def test_diff_with_n_0_ignores_prepend_and_append() -> None:
    """NumPy's diff with n=0 returns x and ignores prepend/append: their cotangents are zero
    (the pullback used to fail projecting an empty slice onto them)."""
    x, p = np.arange(3.0), np.array([1.0, 2.0])
    y, pb = cr.rrule(np.diff, x, 0, -1, p)
    np.testing.assert_array_equal(y, np.diff(x, 0, -1, p))
    _, x_bar, _, _, p_bar = pb(np.ones(3))
    np.testing.assert_array_equal(x_bar, np.ones(3))
    assert isinstance(p_bar, cr.ZeroTangent)
    test_rrule(np.diff, x, 0, -1, p)
    test_frule(np.diff, x, 0, -1, p)
