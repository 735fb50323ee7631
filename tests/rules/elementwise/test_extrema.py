"""maximum, minimum, fmax, fmin and clip: ties split equally, and the generated cells."""

from __future__ import annotations

import numpy as np

import chainrules as cr
from chainrules.rules.elementwise import extrema
from chainrules.testing.suite import rule_tests


def _grads(f, *args):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args)
    return pb(np.ones(np.shape(y)))[1:]


def test_maximum_minimum_split_ties_equally() -> None:
    x, y = np.array([1.0, 3.0, 2.0]), np.array([2.0, 3.0, 1.0])
    gx, gy = _grads(np.maximum, x, y)
    assert np.array_equal(gx, [0.0, 0.5, 1.0]) and np.array_equal(gy, [1.0, 0.5, 0.0])
    gx, gy = _grads(np.minimum, x, y)
    assert np.array_equal(gx, [1.0, 0.5, 0.0]) and np.array_equal(gy, [0.0, 0.5, 1.0])
    _, ydot = cr.frule((cr.NoTangent(), np.ones(3), np.zeros(3)), np.maximum, x, y)
    assert np.array_equal(ydot, [0.0, 0.5, 1.0])


def test_clip_ties_at_the_bounds() -> None:
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    gx, glo, ghi = _grads(np.clip, x, np.zeros(5), np.ones(5))
    assert np.array_equal(gx, [0.0, 0.5, 1.0, 0.5, 0.0])
    assert np.array_equal(glo, [1.0, 0.5, 0.0, 0.0, 0.0])
    assert np.array_equal(ghi, [0.0, 0.0, 0.0, 0.5, 1.0])
    # keyword bounds are never differentiated; a missing bound is fine
    _, pb = cr.rrule(np.clip, x, None, 1.0)
    assert np.array_equal(pb(np.ones(5))[1], [1.0, 1.0, 1.0, 0.5, 0.0])
    assert pb(np.ones(5))[2] is cr.NoTangent()


test_rule = rule_tests(extrema)
