"""Joining (concat, concatenate, stack, and NumPy's vstack, hstack, dstack, column_stack,
row_stack, block): the tester on every backend, JAX as a reference, structural cotangents,
zero-size arrays, NumPy's signatures, nested block lists, and the pullbacks of concat and stack
differentiated again."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util import along
from chainrules.rules.manipulation import joining
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == joining.__name__]

STANDARD = ("concat", "stack")
NUMPY = ("concatenate", "stack")  # NumPy's names of the standard's
GATHERS = ("block", "column_stack", "dstack", "hstack", "row_stack", "vstack")  # NumPy's own
LINEAR = [r for r in REGS if r.name in {*STANDARD, *(f"numpy:{n}" for n in NUMPY)}]


def test_every_function_is_registered(assert_registered) -> None:  # type: ignore[no-untyped-def]
    assert_registered(REGS, set(STANDARD) | {f"numpy:{n}" for n in NUMPY + GATHERS})


@pytest.mark.parametrize("reg", LINEAR, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_structural_cotangents() -> None:
    a, b = np.array([1.0, 2.0]), np.array([[3.0, 4.0], [5.0, 6.0]])
    _, pb = cr.rrule(np.concatenate, [a, b], axis=None)
    res = pb(np.arange(6.0))
    assert isinstance(res[1], cr.Tangent) and res[1].primal_type is list
    assert res[1][0].tolist() == [0.0, 1.0] and res[1][1].tolist() == [[2.0, 3.0], [4.0, 5.0]]
    zero = pb(cr.ZeroTangent())[1]
    assert isinstance(zero, cr.Tangent) and all(e is cr.ZeroTangent() for e in zero)

    _, pb = cr.rrule(np.stack, (a, a), axis=1)
    res = pb(np.array([[1.0, 2.0], [3.0, 4.0]]))[1]
    assert res.primal_type is tuple and res[0].tolist() == [1.0, 3.0] and res[1].tolist() == [2, 4]


def test_zero_size_and_0d(pull) -> None:  # type: ignore[no-untyped-def]
    res = pull(np.concatenate, (np.zeros((0, 2)), np.ones((1, 2))), y_bar=np.array([[7.0, 8.0]]))
    assert res[1][0].shape == (0, 2) and res[1][1].tolist() == [[7.0, 8.0]]


def test_signatures_and_errors() -> None:
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError, match="out= is not supported"):
        cr.rrule(np.concatenate, (x, x), out=np.empty((4, 3)))
    with pytest.raises(TypeError, match="does not support dtype="):
        cr.rrule(np.stack, (x, x), dtype=np.float32)
    with pytest.raises(ValueError, match=r"cotangent of shape \(5,\) does not match .* \(12,\)"):
        cr.rrule(np.concatenate, (x, x), axis=None)[1](np.ones(5))
    xs = pytest.importorskip("array_api_strict")
    a = xs.asarray(x)
    with pytest.raises(TypeError, match="positional"):  # the standard's concat(arrays, /, *, axis)
        cr.rrule(xs.concat, (a, a), 1)


def test_dtype_and_out_are_refused() -> None:
    with pytest.raises(TypeError, match="vstack: the rule does not support dtype="):
        cr.rrule(np.vstack, (np.ones(2), np.ones(2)), dtype=np.float32)


def test_block_of_nested_lists() -> None:
    a, b, c = np.ones((2, 2)), np.ones((2, 1)), np.ones((1, 3))
    y, pb = cr.rrule(np.block, [[a, b], [c]])
    np.testing.assert_array_equal(y, np.block([[a, b], [c]]))
    g = np.arange(9.0).reshape(3, 3)
    bar = pb(g)[1]
    np.testing.assert_array_equal(bar[0][0], g[:2, :2])
    np.testing.assert_array_equal(bar[0][1], g[:2, 2:])
    np.testing.assert_array_equal(bar[1][0], g[2:])


# ---- second derivatives: pullbacks are built from functions with rules ---------------------------
def test_concat_pullback_is_differentiable_again() -> None:
    """concat's pullback slices the cotangent (operator.getitem with slices) and, for
    axis=None, reshapes: both have rules, checked here at the arguments the pullback uses."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 4))
    y, pb = cr.rrule(np.concatenate, (a, b), axis=1)
    y_bar = rng.standard_normal(y.shape)
    res = pb(y_bar)[1]
    keys = [along(1, slice(0, 3)), along(1, slice(3, 7))]
    for part, key in zip(res, keys):
        assert np.array_equal(part, operator.getitem(y_bar, key))
        test_rrule(operator.getitem, y_bar, key)
        test_frule(operator.getitem, y_bar, key)
    # axis=None: a slice of the flat cotangent, reshaped
    y, pb = cr.rrule(np.concatenate, (a, b), axis=None)
    flat = rng.standard_normal(y.shape)
    res = pb(flat)[1]
    assert np.array_equal(res[1], np.reshape(flat[6:14], (2, 4)))
    test_rrule(operator.getitem, flat, slice(6, 14))
    test_frule(operator.getitem, flat, slice(6, 14))
    test_rrule(np.reshape, flat[6:14], (2, 4))
    test_frule(np.reshape, flat[6:14], (2, 4))


def test_stack_pullback_is_differentiable_again() -> None:
    """stack's pullback is unstack (and back)."""
    rng = np.random.default_rng(1)
    g = rng.standard_normal((2, 3))
    _, pb = cr.rrule(np.stack, (g[0], g[1]), axis=0)
    assert all(np.array_equal(p, q) for p, q in zip(pb(g)[1], np.unstack(g)))
    test_rrule(np.unstack, g, axis=0)
    test_rrule(np.stack, (g[0], g[1]), axis=0)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests(joining)
