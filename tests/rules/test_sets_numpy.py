"""NumPy's set functions: values differentiable, ties split equally over the equal elements
(of both inputs), integer outputs without a tangent; semantics against NumPy's own functions;
the generated cells of every registration."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import sets_numpy
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.suite import rule_tests

_NO = cr.NoTangent()


def test_registered() -> None:
    names = {r.name for r in cr.registrations() if r.module == sets_numpy.__name__}
    assert names == {
        f"numpy:{n}" for n in ("unique", "union1d", "intersect1d", "setdiff1d", "setxor1d")
    }


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"return_index": True},
        {"return_inverse": True, "return_counts": True},
        {"return_index": True, "return_inverse": True, "return_counts": True, "axis": 0},
        {"axis": 1, "return_inverse": True},
    ],
)
def test_unique_primal_is_numpys(kwargs: dict) -> None:
    x = np.array([[2.0, 1.0, 2.0], [2.0, 1.0, 2.0], [0.5, 3.0, 0.5]])
    y, _ = cr.rrule(np.unique, x, **kwargs)
    want = np.unique(x, **kwargs)
    for got, w in zip(
        y if isinstance(y, tuple) else (y,), want if isinstance(want, tuple) else (want,)
    ):
        np.testing.assert_array_equal(got, w)


def test_unique_ties_split_equally_exact() -> None:
    x = np.array([[2.0, 1.0], [2.0, 2.0]])
    y, pb = cr.rrule(np.unique, x)
    assert y.tolist() == [1.0, 2.0]
    assert pb(np.array([10.0, 6.0]))[1].tolist() == [[2.0, 10.0], [2.0, 2.0]]
    _, y_dot = cr.frule((_NO, np.array([[3.0, 5.0], [6.0, 9.0]])), np.unique, x)
    assert y_dot.tolist() == [5.0, 6.0]  # the mean of the tied tangents
    # several outputs: only the values carry a cotangent
    y, pb = cr.rrule(np.unique, x, return_index=True, return_inverse=True, return_counts=True)
    assert [v.tolist() for v in y[1:]] == [[1, 0], [[1, 0], [1, 1]], [1, 3]]
    assert pb((np.array([10.0, 6.0]), _NO, _NO, _NO))[1].tolist() == [[2.0, 10.0], [2.0, 2.0]]
    assert pb((cr.ZeroTangent(), _NO, _NO, _NO))[1] is cr.ZeroTangent()
    _, t = cr.frule((_NO, np.ones((2, 2))), np.unique, x, return_counts=True)
    assert t[0].tolist() == [1.0, 1.0] and t[1] == _NO


def test_unique_axis_groups_slices() -> None:
    x = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])
    _, pb = cr.rrule(np.unique, x, axis=0)
    assert pb(np.array([[4.0, 6.0], [2.0, 8.0]]))[1].tolist() == [
        [1.0, 4.0],
        [1.0, 4.0],
        [4.0, 6.0],
    ]
    _, y_dot = cr.frule((_NO, np.arange(12.0).reshape(2, 3, 2)), np.unique, x, axis=-2)
    assert y_dot.tolist() == [[[4.0, 5.0], [1.0, 2.0]], [[10.0, 11.0], [7.0, 8.0]]]  # a chunk
    test_rrule(np.unique, np.array([[1.0, 2.0, 0.5], [3.0, 0.25, 4.0]]), axis=1, jit=False)
    test_frule(np.unique, np.array([[1.0, 2.0, 0.5], [3.0, 0.25, 4.0]]), axis=1, jit=False)


def test_unique_equal_nan() -> None:
    x = np.array([1.0, np.nan, np.nan])
    for equal_nan, want in ((True, [1.0, 0.5, 0.5]), (False, [1.0, 1.0, 1.0])):
        y, pb = cr.rrule(np.unique, x, equal_nan=equal_nan)
        np.testing.assert_array_equal(y, np.unique(x, equal_nan=equal_nan))
        assert pb(np.ones(y.shape))[1].tolist() == want


def test_binary_ties_split_over_both_inputs() -> None:
    a, b = np.array([1.0, 2.0, 2.0, 5.0]), np.array([2.0, 3.0, 5.0])
    y, pb = cr.rrule(np.intersect1d, a, b, return_indices=True)
    want = np.intersect1d(a, b, return_indices=True)
    assert all(np.array_equal(g, w) for g, w in zip(y, want))
    _, a_bar, b_bar = pb((np.array([6.0, 4.0]), _NO, _NO))
    assert a_bar.tolist() == [0.0, 2.0, 2.0, 2.0] and b_bar.tolist() == [2.0, 0.0, 2.0]
    _, y_dot = cr.frule(
        (_NO, np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, 6.0, 7.0])), np.intersect1d, a, b
    )
    np.testing.assert_allclose(y_dot, [10.0 / 3.0, 5.5])
    # removed values get nothing; the others split with their equals
    y, pb = cr.rrule(np.setdiff1d, a, b)
    assert y.tolist() == [1.0]
    _, a_bar, b_bar = pb(np.array([6.0]))
    assert a_bar.tolist() == [6.0, 0.0, 0.0, 0.0] and b_bar.tolist() == [0.0, 0.0, 0.0]
    y, pb = cr.rrule(np.setxor1d, a, b)
    assert y.tolist() == [1.0, 3.0]
    _, a_bar, b_bar = pb(np.array([6.0, 4.0]))
    assert a_bar.tolist() == [6.0, 0.0, 0.0, 0.0] and b_bar.tolist() == [0.0, 4.0, 0.0]
    y, pb = cr.rrule(np.union1d, a, b)
    _, a_bar, b_bar = pb(np.arange(1.0, 5.0))  # values 1, 2, 3, 5
    assert a_bar.tolist() == [1.0, 2.0 / 3.0, 2.0 / 3.0, 2.0] and b_bar.tolist() == [
        2.0 / 3.0,
        3.0,
        2.0,
    ]


def test_intersect1d_along_tie_keeping_moves() -> None:
    # the derivative where it exists: moving the tied elements together (finite differences)
    a, b = np.array([0.5, 2.0, 2.0, 1.5]), np.array([2.0, 3.0, 0.5])
    da, db = np.array([0.3, -0.2, -0.2, 1.0]), np.array([-0.2, 0.7, 0.3])
    h = 1e-6
    fd = (np.intersect1d(a + h * da, b + h * db) - np.intersect1d(a - h * da, b - h * db)) / (2 * h)
    _, y_dot = cr.frule((_NO, da, db), np.intersect1d, a, b)
    np.testing.assert_allclose(y_dot, fd, rtol=1e-6)
    # and the pullback is the frule's transpose
    g = np.array([1.5, -2.0])
    _, a_bar, b_bar = cr.rrule(np.intersect1d, a, b)[1](g)
    np.testing.assert_allclose(a_bar @ da + b_bar @ db, g @ y_dot)


@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_binary_primal_is_numpys_and_checked(name: str) -> None:
    f = getattr(np, name)
    a, b = np.array([[0.5, 4.0], [2.5, -1.0]]), np.array([3.0, 1.25, 7.0])
    np.testing.assert_array_equal(cr.rrule(f, a, b)[0], f(a, b))
    test_rrule(f, a, b, jit=False)
    test_frule(f, a, b, jit=False)
    # integer inputs: no tangent space
    y, pb = cr.rrule(f, np.array([1, 2, 2]), np.array([2, 3]))
    np.testing.assert_array_equal(y, f(np.array([1, 2, 2]), np.array([2, 3])))
    assert pb(np.ones(y.shape))[1:] == (_NO, _NO)


def test_jax_and_errors() -> None:
    jnp = pytest.importorskip("jax.numpy")
    y, pb = cr.rrule(jnp.unique, jnp.asarray([3.0, 1.0, 3.0]), return_inverse=True)
    assert np.asarray(y[1]).tolist() == [1, 0, 1]
    assert np.asarray(pb((jnp.asarray([1.0, 2.0]), _NO))[1]).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(TypeError, match=r"unique: .*size="):
        cr.rrule(jnp.unique, jnp.asarray([3.0, 1.0]), size=3)
    with pytest.raises(TypeError, match="union1d"):
        cr.rrule(np.union1d, np.ones(2), np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        cr.rrule(np.unique, np.array([1.0, 2.0, 1.0]))[1](np.ones(3))


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.sets_numpy")
