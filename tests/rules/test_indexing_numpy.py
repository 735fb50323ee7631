"""NumPy's indexing functions: the generated tests, plus the in-place calls refused, select's
first-true choice and ties of put's repeated writes."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.indexing_numpy")


@pytest.mark.parametrize("name", ["put", "place", "put_along_axis", "fill_diagonal"])
def test_in_place_calls_are_refused(name: str) -> None:
    args = {
        "put": (np.ones(3), [0], np.ones(1)),
        "place": (np.ones(3), np.array([True, False, False]), np.ones(1)),
        "put_along_axis": (np.ones((2, 2)), np.array([[0], [1]]), np.ones((2, 1)), 1),
        "fill_diagonal": (np.ones((2, 2)), np.ones(())),
    }[name]
    with pytest.raises(TypeError, match=f"{name}: the call writes into"):
        cr.rrule(getattr(np, name), *args)


def test_numpy_put_functional_writes_a_copy() -> None:
    a = np.arange(4.0)
    y, pb = cr.rrule(np.put, a, np.array([1, 1]), np.array([5.0, 7.0]), inplace=False)
    np.testing.assert_array_equal(a, np.arange(4.0))  # not mutated
    np.testing.assert_array_equal(y, [0.0, 7.0, 2.0, 3.0])
    _, a_bar, _, v_bar = pb(np.ones(4))
    np.testing.assert_array_equal(a_bar, [1.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(v_bar, [0.0, 1.0])  # the write NumPy keeps gets it


def test_select_first_true_and_keyword_default() -> None:
    x = np.array([-1.0, 0.2, 2.0])
    c1, c2 = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    conds = [x < 0.5, x < 1]
    y, pb = cr.rrule(np.select, conds, [c1, c2], default=9.0)
    np.testing.assert_array_equal(y, np.select(conds, [c1, c2], default=9.0))
    bar = pb(np.ones(3))[2]
    np.testing.assert_array_equal(bar[0], [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(bar[1], [0.0, 0.0, 0.0])


def test_compress_agrees_with_numpy() -> None:
    m = np.arange(6.0).reshape(3, 2)
    cond = np.array([True, False, True])
    y, pb = cr.rrule(np.compress, cond, m, axis=0)
    np.testing.assert_array_equal(y, np.compress(cond, m, axis=0))
    np.testing.assert_array_equal(pb(np.ones((2, 2)))[2], [[1, 1], [0, 0], [1, 1]])


@pytest.mark.parametrize("f", [np.compress, np.extract])
def test_compress_and_extract_keep_a_big_endian_dtype(f: object) -> None:
    # NumPy keeps ">f8"; the rule's primal (gathered from a concatenation) must too
    x = np.arange(1.0, 5.0).astype(">f8")
    cond = np.array([True, False, True, True])
    y, pb = cr.rrule(f, cond, x)
    want = f(cond, x)
    assert y.dtype == want.dtype == np.dtype(">f8")
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(pb(np.array([1.0, 2.0, 3.0]))[2], [1, 0, 2, 3])


@pytest.mark.parametrize("kwargs", [{}, {"mode": "wrap"}, {"mode": ("clip", "wrap"), "order": "F"}])
def test_ravel_multi_index_as_numpys(kwargs: dict) -> None:
    idx = (np.array([0, 2, 4]), np.array([1, 3, -1]))
    if not kwargs:
        idx = (idx[0] % 3, idx[1] % 4)  # mode='raise' takes in-bounds indices only
    y, pb = cr.rrule(np.ravel_multi_index, idx, (3, 4), **kwargs)
    np.testing.assert_array_equal(y, np.ravel_multi_index(idx, (3, 4), **kwargs))
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3
    _, y_dot = cr.frule((cr.NoTangent(),) * 3, np.ravel_multi_index, idx, (3, 4), **kwargs)
    assert y_dot == cr.NoTangent()
    with pytest.raises(ValueError, match="invalid entry"):
        cr.rrule(np.ravel_multi_index, (np.array([3]), np.array([0])), (3, 4))
