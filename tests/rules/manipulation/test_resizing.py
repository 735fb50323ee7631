"""NumPy's functions that add or remove elements (append, insert, delete, pad, resize,
trim_zeros): the generated tests, plus hand checks where finite differences cannot judge
(trim_zeros moves its zeros), pad's refused modes and delete's dtypes and device indices."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.manipulation import resizing
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == resizing.__name__]
GATHERS = ("append", "delete", "insert", "pad", "resize", "trim_zeros")  # NumPy's own


def test_every_function_is_registered(assert_registered) -> None:  # type: ignore[no-untyped-def]
    assert_registered(REGS, {f"numpy:{n}" for n in GATHERS})


test_rule = rule_tests(resizing)


def test_trim_zeros_pulls_back_into_the_kept_slice() -> None:
    x = np.array([0.0, 0.0, 1.5, 0.0, 2.0, 0.0])
    y, pb = cr.rrule(np.trim_zeros, x)
    np.testing.assert_array_equal(y, np.trim_zeros(x))
    np.testing.assert_array_equal(pb(np.array([1.0, 2.0, 3.0]))[1], [0, 0, 1, 2, 3, 0])
    m = np.pad(np.arange(1.0, 5.0).reshape(2, 2), 1)
    y, pb = cr.rrule(np.trim_zeros, m)
    np.testing.assert_array_equal(y, np.trim_zeros(m))
    want = np.zeros((4, 4))
    want[1:3, 1:3] = [[5, 6], [7, 8]]
    np.testing.assert_array_equal(pb(np.array([[5.0, 6.0], [7.0, 8.0]]))[1], want)
    _, t = cr.frule((cr.NoTangent(), np.arange(6.0), cr.NoTangent()), np.trim_zeros, x, "f")
    np.testing.assert_array_equal(t, np.arange(2.0, 6.0))


def test_pad_edge_accumulates_and_unsupported_modes_are_refused() -> None:
    _, pb = cr.rrule(np.pad, np.array([1.0, 2.0]), 2, "edge")
    np.testing.assert_array_equal(pb(np.ones(6))[1], [3.0, 3.0])
    with pytest.raises(NotImplementedError, match="pad: the rule supports mode="):
        cr.rrule(np.pad, np.ones(3), 1, "mean")
    with pytest.raises(NotImplementedError, match="reflect_type"):
        cr.rrule(np.pad, np.ones(3), 1, "reflect", reflect_type="odd")


def test_delete_by_device_indices_is_scalar_free() -> None:
    from chainrules.testing.checks import check_scalar_free

    check_scalar_free(np.delete, np.arange(6.0), np.array([0, 4]))


def test_delete_keeps_a_big_endian_dtype() -> None:
    # NumPy's delete keeps ">f8"; the rule's primal (gathered from a concatenation) must too
    x = np.arange(1.0, 6.0).astype(">f8")
    y, pb = cr.rrule(np.delete, x, np.array([1, 3]))
    want = np.delete(x, np.array([1, 3]))
    assert y.dtype == want.dtype == np.dtype(">f8")
    np.testing.assert_array_equal(y, want)
    _, t = cr.frule((cr.NoTangent(), np.ones(5), cr.NoTangent()), np.delete, x, 1)
    np.testing.assert_array_equal(t, np.ones(4))
    np.testing.assert_array_equal(pb(np.array([1.0, 2.0, 3.0]))[1], [1, 0, 2, 0, 3])
