"""NumPy's functions that insert data into an array (put, place, put_along_axis,
fill_diagonal): the generated tests, plus the in-place calls refused and ties of put's repeated
writes. (Their device-array check runs with selecting's, in test_selecting.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.indexing.inserting")


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
