"""Creation: linspace, arange, full(_like), meshgrid, asarray, tril/triu; zero derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import creation
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == creation.__name__]
# no array argument: the rules are bound to each library's own function (register_rrule's
# bind=), so zeros(3) of jax.numpy, torch or array-api-strict is that library's array
NO_ARRAY = {
    "zeros",
    "ones",
    "empty",
    "eye",
    "numpy:zeros",
    "numpy:ones",
    "numpy:empty",
    "numpy:eye",
}


def test_registered() -> None:
    names = {r.name for r in REGS}
    assert names >= {"linspace", "full", "full_like", "meshgrid", "asarray", "tril", "triu"}
    assert names >= {"numpy:linspace", "numpy:full", "numpy:meshgrid", "numpy:array", "arange"}
    assert names >= {"zeros_like", "ones_like", "empty_like", "from_dlpack"} | NO_ARRAY
    assert all(r.non_differentiable for r in REGS if r.name in NO_ARRAY)


_JAX_ARANGE = pytest.mark.xfail(
    strict=True,
    reason="convention: y_i = start + i*step gives start and step cotangents; JAX's arange has "
    "no derivative (zero)",
)


@pytest.mark.parametrize(
    "reg",
    [
        pytest.param(r, marks=_JAX_ARANGE if "arange" in r.name else (), id=r.name)
        for r in REGS
        if not r.non_differentiable and r.name != "from_dlpack"
    ],
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    # floating outputs only (full_like of an integer array has no tangent space)
    examples = [
        ex
        for ex in examples_for(reg)
        if not (reg.name.endswith("full_like") and ex.args[0].dtype.kind == "i")
    ]
    assert_agrees_with_jax(reg, examples)


# ---- conventions ---------------------------------------------------------------------------
def test_linspace_exact() -> None:
    y, pb = cr.rrule(np.linspace, 1.0, 3.0, 3)
    assert y.tolist() == [1.0, 2.0, 3.0]
    s, e = pb(np.array([1.0, 10.0, 100.0]))[1:3]
    assert float(s) == 1.0 + 5.0 and float(e) == 5.0 + 100.0  # weights 1 - w and w
    _, pb = cr.rrule(np.linspace, 0.0, 1.0, 4, False)
    assert float(pb(np.ones(4))[2]) == 0.0 + 0.25 + 0.5 + 0.75
    _, y_dot = cr.frule(
        (cr.NoTangent(), np.array([1.0, 0.0]), 0.0, cr.NoTangent()), np.linspace, 1.0, 3.0, 3
    )
    assert y_dot.tolist() == [[1.0, 0.5, 0.0], [0.0, 0.0, 0.0]]  # a chunk of two


def test_full_and_full_like() -> None:
    _y, pb = cr.rrule(np.full, (2, 3), 1.5)
    assert float(pb(np.ones((2, 3)))[2]) == 6.0 and pb(np.ones((2, 3)))[1] is cr.NoTangent()
    x = np.ones((2, 2))
    _, pb = cr.rrule(np.full_like, x, 0.5)
    assert pb(np.ones((2, 2)))[1] is cr.ZeroTangent() and float(pb(np.ones((2, 2)))[2]) == 4.0
    _, pb = cr.rrule(np.full, (2, 3), np.array([1.0, 2.0, 3.0]))  # NumPy: a broadcast fill
    assert pb(np.ones((2, 3)))[2].tolist() == [2.0, 2.0, 2.0]
    _, pb = cr.rrule(np.full, (2,), 1.5, np.int64)  # an integer output: no tangent space
    assert pb(cr.NoTangent())[2] is cr.NoTangent()


def test_meshgrid_xy_ij_exact() -> None:
    a, b = np.array([1.0, 2.0]), np.array([10.0, 20.0, 30.0])
    for indexing, shape in (("xy", (3, 2)), ("ij", (2, 3))):
        ys, pb = cr.rrule(np.meshgrid, a, b, indexing=indexing)
        assert ys[0].shape == shape
        g = np.arange(6.0).reshape(shape)
        _, a_bar, b_bar = pb(cr.Tangent(g, cr.ZeroTangent(), primal_type=tuple))
        axis = 0 if indexing == "xy" else 1  # a runs along the other axis
        assert a_bar.tolist() == g.sum(axis=axis).tolist() and b_bar is cr.ZeroTangent()


def test_tril_triu_batched_exact() -> None:
    x = np.arange(18.0).reshape(2, 3, 3)
    _, pb = cr.rrule(np.tril, x, k=-1)
    assert np.array_equal(pb(np.ones((2, 3, 3)))[1], np.tril(np.ones((2, 3, 3)), -1))
    _, pb = cr.rrule(np.triu, x, 1)
    assert np.array_equal(pb(np.ones((2, 3, 3)))[1], np.triu(np.ones((2, 3, 3)), 1))
    assert pb(np.ones((2, 3, 3)))[2] is cr.NoTangent()


def test_asarray_identity_and_sequences() -> None:
    x = np.array([1.0, 2.0], dtype=np.float32)
    _, pb = cr.rrule(np.asarray, x, dtype=np.float64)
    assert pb(np.ones(2))[1].dtype == np.float32
    _, pb = cr.rrule(np.asarray, [[1.0, 2.0], [3.0, 4.0]])
    t = pb(np.array([[1.0, 2.0], [3.0, 4.0]]))[1]
    assert isinstance(t, cr.Tangent) and float(t[1][0]) == 3.0
    test_rrule(np.array, np.ones(3), ndmin=2)
    test_frule(np.asarray, [1.0, 2.0])


def test_zero_derivative_likes_and_zero_size() -> None:
    for f in (np.zeros_like, np.ones_like, np.empty_like):
        _, pb = cr.rrule(f, np.ones(3))
        assert pb(np.ones(3))[1] is cr.ZeroTangent()
    test_rrule(np.linspace, np.asarray(0.0), np.asarray(1.0), 0)
    test_rrule(np.tril, np.zeros((0, 3)))
    _, pb = cr.rrule(np.arange, 0.5, 3.0, 0.5)  # y_i = start + i step; stop sets the length
    start_bar, stop_bar, step_bar = pb(np.ones(5))[1:]
    assert float(start_bar) == 5.0 and stop_bar is cr.ZeroTangent() and float(step_bar) == 10.0


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.creation")
