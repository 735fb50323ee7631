"""sort: ties routed by the stable order (exact values), descending, NumPy's axis=None; argsort;
NumPy's partition (ties routed as sort routes them), argpartition and lexsort."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import sorting
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.runner import check_registration
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == sorting.__name__]
NAMES = {r.name for r in REGS}
DIFF = [r for r in REGS if not r.non_differentiable]


def test_registered() -> None:
    assert {"sort", "numpy:sort", "argsort", "numpy:argsort"} | {
        "numpy:partition",
        "numpy:argpartition",
        "numpy:lexsort",
    } == NAMES
    assert {r.name for r in DIFF} == {"sort", "numpy:sort", "numpy:partition"}


def test_descending_on_backends(backend) -> None:  # type: ignore[no-untyped-def]
    """descending= (not in the registered examples: NumPy's np.sort lacks it)."""
    reg = next(r for r in REGS if r.name == "sort")
    from chainrules.testing.examples import Example

    m = np.random.default_rng(1).permutation(12).reshape(3, 4) + 0.5
    examples = [Example((m,), {"descending": True}), Example((m,), {"axis": 0, "descending": True})]
    cell = check_registration(reg, backend, examples=examples)
    if backend.name == "numpy":  # np.sort itself has no descending=: every call is refused
        assert cell.checks == 0 and cell.undeclared
        assert all("descending" in u for u in cell.undeclared), cell.undeclared
        return
    assert cell.status == "ok", cell.errors
    assert cell.checks > 0 and not cell.unsupported, cell.unsupported


# partition is not compared: jax.numpy.partition orders the elements away from kth its own way
@pytest.mark.parametrize(
    "reg", [r for r in DIFF if r.name != "numpy:partition"], ids=lambda r: r.name
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions: ties by the stable order ------------------------------------------------------
def test_ties_follow_the_stable_order_exactly() -> None:
    x = np.array([2.0, 1.0, 2.0, 1.0, 2.0])
    y, pb = cr.rrule(np.sort, x)
    assert y.tolist() == [1.0, 1.0, 2.0, 2.0, 2.0]
    g = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    # the k-th of the tied elements (in input order) takes the k-th of their cotangents
    assert pb(g)[1].tolist() == [30.0, 10.0, 40.0, 20.0, 50.0]
    _, y_dot = cr.frule((cr.NoTangent(), np.array([1.0, 2.0, 3.0, 4.0, 5.0])), np.sort, x)
    assert y_dot.tolist() == [2.0, 4.0, 1.0, 3.0, 5.0]
    # also when the primal was asked for an unstable sort: the same values, the same rule
    assert cr.rrule(np.sort, x, kind="quicksort")[1](g)[1].tolist() == [
        30.0,
        10.0,
        40.0,
        20.0,
        50.0,
    ]


def test_descending_ties_keep_the_input_order() -> None:
    xs = pytest.importorskip("array_api_strict")
    x = xs.asarray([2.0, 1.0, 2.0, 1.0])
    y, pb = cr.rrule(xs.sort, x, descending=True)
    assert np.asarray(y).tolist() == [2.0, 2.0, 1.0, 1.0]
    g = xs.asarray([10.0, 20.0, 30.0, 40.0])
    assert np.asarray(pb(g)[1]).tolist() == [10.0, 30.0, 20.0, 40.0]


def test_numpy_axis_none_flattens_and_batches() -> None:
    x = np.array([[3.0, 1.0], [2.0, 0.0]])
    y, pb = cr.rrule(np.sort, x, axis=None)
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert pb(np.array([1.0, 2.0, 3.0, 4.0]))[1].tolist() == [[4.0, 2.0], [3.0, 1.0]]
    b = np.array([[[2.0, 1.0, 2.0]], [[0.0, 5.0, 0.0]]])  # batched, with ties
    _, pb = cr.rrule(np.sort, b, -1)
    assert pb(np.array([[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]))[1].tolist() == [
        [[2.0, 1.0, 3.0]],
        [[4.0, 6.0, 5.0]],
    ]
    assert pb(np.ones((2, 1, 3)))[2] is cr.NoTangent()  # the positional axis


def test_zero_size_and_0d() -> None:
    test_rrule(np.sort, np.zeros((0, 3)), axis=0)
    test_frule(np.sort, np.zeros((2, 0)))
    y, pb = cr.rrule(np.sort, np.asarray(2.5), axis=None)
    assert y.shape == (1,) and pb(np.array([7.0]))[1].shape == ()


def test_pullback_is_differentiable_again() -> None:
    # the pullback is take_along_axis of the cotangent by a permutation of the device
    x = np.array([3.0, 1.0, 2.0])
    _, pb = cr.rrule(np.sort, x)
    inv = np.argsort(np.argsort(x))
    test_rrule(np.take_along_axis, np.array([1.0, 2.0, 3.0]), inv, axis=0)
    assert np.array_equal(pb(np.array([1.0, 2.0, 3.0]))[1], np.array([3.0, 1.0, 2.0]))


def test_argsort_and_errors() -> None:
    x = np.array([[3.0, 1.0], [2.0, 0.0]])
    y, pb = cr.rrule(np.argsort, x, 0)  # NumPy's positional axis
    assert y.tolist() == [[1, 1], [0, 0]] and pb(cr.NoTangent())[1:] == (cr.NoTangent(),) * 2
    with pytest.raises(ValueError, match=r"\(3,\).*\(2, 2\)"):
        cr.rrule(np.sort, x)[1](np.ones(3))
    with pytest.raises(TypeError, match="order="):
        cr.rrule(np.sort, x, order="f0")
    with pytest.raises(TypeError, match="out= is not supported"):
        cr.rrule(np.sort, x, out=x)


# ---- NumPy's partition: ties routed as sort routes them ------------------------------------------
def test_partition_routes_through_its_own_output() -> None:
    x = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
    y, pb = cr.rrule(np.partition, x, 2)
    np.testing.assert_array_equal(y, np.partition(x, 2))
    g = np.arange(10.0, 15.0)
    x_bar = pb(g)[1]
    # each input element receives the cotangent of the place it went to
    for i in range(5):
        assert x_bar[i] == g[int(np.flatnonzero(y == x[i])[0])]


def test_partition_ties_follow_the_stable_order() -> None:
    x = np.array([2.0, 1.0, 2.0, 2.0])
    y, pb = cr.rrule(np.partition, x, 0)
    g = np.array([10.0, 20.0, 30.0, 40.0])
    x_bar = pb(g)[1]
    assert x_bar[1] == g[int(np.flatnonzero(y == 1.0)[0])]
    # the k-th 2 in the output takes the k-th 2 of the input
    assert sorted(x_bar[[0, 2, 3]].tolist()) == sorted(g[y == 2.0].tolist())
    assert x_bar[[0, 2, 3]].tolist() == g[y == 2.0].tolist()


def test_argpartition_and_lexsort_non_differentiable() -> None:
    x = np.array([[1.0, np.nan], [3.0, 0.5]])
    for f, args in ((np.argpartition, (x, 0)), (np.lexsort, (x,))):
        y, pb = cr.rrule(f, *args)
        np.testing.assert_array_equal(y, f(*args))
        assert all(isinstance(t, cr.NoTangent) for t in pb(cr.NoTangent()))


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.sorting")
