"""conj, real, imag, angle, real_if_close, sort_complex: kinks, ties, and the generated cells."""

from __future__ import annotations

import numpy as np

import chainrules as cr
from chainrules.rules.elementwise import complex_parts
from chainrules.testing.suite import rule_tests


def test_angle_at_zero_and_degrees() -> None:
    z = np.array([0j, 1 + 1j])
    _, pb = cr.rrule(np.angle, z)
    bar = pb(np.ones(2))[1]
    assert bar[0] == 0  # the kink at 0: the minimum-norm subgradient
    np.testing.assert_allclose(bar[1], 1j * (1 + 1j) / 2)
    _, pb_deg = cr.rrule(np.angle, z, True)
    np.testing.assert_allclose(pb_deg(np.ones(2))[1], bar * 180 / np.pi)


def test_sort_complex_tie_routes_by_imaginary_part() -> None:
    a = np.array([1 + 2j, 1 - 1j, 0 + 5j])
    y, pb = cr.rrule(np.sort_complex, a)
    np.testing.assert_array_equal(y, np.sort_complex(a))
    assert pb(np.array([10.0, 20.0, 30.0]) + 0j)[1].tolist() == [30, 20, 10]


test_rule = rule_tests(complex_parts)
