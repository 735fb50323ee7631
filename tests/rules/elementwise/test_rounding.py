"""Rounding and the floating-point routines: nan_to_num's masks, modf, frexp, spacing, and the
generated cells."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.elementwise import rounding
from chainrules.testing.suite import rule_tests


def test_nan_to_num_masks() -> None:
    x = np.array([1.0, np.nan, np.inf, -np.inf, 2.0])
    y, pb = cr.rrule(np.nan_to_num, x, True, 5.0, 6.0, 7.0)
    np.testing.assert_array_equal(y, np.nan_to_num(x, True, 5.0, 6.0, 7.0))
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    _, x_bar, _, nan_bar, pos_bar, neg_bar = pb(g)
    assert x_bar.tolist() == [1.0, 0.0, 0.0, 0.0, 5.0]
    assert (float(nan_bar), float(pos_bar), float(neg_bar)) == (2.0, 3.0, 4.0)
    z = np.array([complex(np.nan, 1.0), 2 + 3j])
    _, pb = cr.rrule(np.nan_to_num, z)
    assert pb(np.array([1 + 1j, 1 + 1j]))[1].tolist() == [1j, 1 + 1j]


def test_modf_at_integer_and_frexp_exponent() -> None:
    _, pb = cr.rrule(np.modf, np.array([2.0, -1.5]))
    assert pb((np.ones(2), np.ones(2)))[1].tolist() == [1.0, 1.0]
    (_m, _e), pb = cr.rrule(np.frexp, np.array([8.0, 0.0]))
    assert pb((np.ones(2), cr.NoTangent()))[1].tolist() == [1 / 16, 1.0]


@pytest.mark.parametrize("f", [np.modf, np.frexp])
def test_modf_and_frexp_errors_name_their_function(f) -> None:  # type: ignore[no-untyped-def]
    """Both are made by one rule factory: each one's errors name it."""
    for rule in (
        lambda: cr.rrule(f, *[np.ones(2)] * 3),
        lambda: cr.frule((cr.NoTangent(),) * 4, f, *[np.ones(2)] * 3),
    ):
        with pytest.raises(TypeError, match=f"^{f.__name__}: too many positional arguments"):
            rule()


def test_spacing_has_zero_derivative() -> None:
    _, pb = cr.rrule(np.spacing, np.array([1.0, 2.0]))
    assert isinstance(pb(np.ones(2))[1], cr.ZeroTangent)


test_rule = rule_tests(rounding)
