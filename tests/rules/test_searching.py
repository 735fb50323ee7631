"""where (broadcasting, Python scalars, second derivatives) and the non-differentiable finders
(the standard's and NumPy's)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import searching
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == searching.__name__]
NAMES = {r.name for r in REGS}
DIFF = [r for r in REGS if not r.non_differentiable]


def test_registered() -> None:
    assert {"where", "numpy:where", "argmax", "argmin", "nonzero", "searchsorted"} <= NAMES
    assert "count_nonzero" in NAMES
    nondiff = {r.name for r in REGS if r.non_differentiable}
    assert nondiff == {"argmax", "argmin", "nonzero", "searchsorted", "count_nonzero"} | {
        "numpy:argwhere",
        "numpy:flatnonzero",
        "numpy:nanargmax",
        "numpy:nanargmin",
    }


_DATA_SHAPED = pytest.mark.xfail(
    strict=True, reason="the output's shape depends on the data: jax.jit cannot trace the function"
)


@pytest.mark.parametrize("reg", DIFF, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions ---------------------------------------------------------------------------
def test_where_broadcasting_and_python_scalars_exact() -> None:
    c = np.array([[True, False, True], [False, False, True]])
    x1 = np.array([1.0, 2.0, 3.0])
    x2 = 5.0
    y, pb = cr.rrule(np.where, c, x1, x2)
    assert y.tolist() == [[1.0, 5.0, 3.0], [5.0, 5.0, 3.0]]
    g = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _, c_bar, x1_bar, x2_bar = pb(g)
    assert c_bar is cr.NoTangent()
    assert x1_bar.tolist() == [1.0, 0.0, 9.0]  # summed over the broadcast rows
    assert np.shape(x2_bar) == () and float(x2_bar) == 2.0 + 4.0 + 5.0
    _, y_dot = cr.frule((cr.NoTangent(), cr.NoTangent(), np.ones(3), 10.0), np.where, c, x1, x2)
    assert y_dot.tolist() == [[1.0, 10.0, 1.0], [10.0, 10.0, 1.0]]
    # a chunk of two tangents of the Python scalar and none for x1
    _, y_dot = cr.frule(
        (cr.NoTangent(), cr.NoTangent(), cr.ZeroTangent(), np.array([1.0, 2.0])),
        np.where,
        c,
        x1,
        x2,
    )
    assert y_dot.shape == (2, 2, 3) and y_dot[1].tolist() == [[0.0, 2.0, 0.0], [2.0, 2.0, 0.0]]


def test_where_standard_signature_on_strict() -> None:
    xs = pytest.importorskip("array_api_strict")
    c = xs.asarray([True, False])
    _y, pb = cr.rrule(xs.where, c, xs.asarray([1.0, 2.0]), 0.5)
    _, _, a, b = pb(xs.asarray([3.0, 4.0]))
    assert np.asarray(a).tolist() == [3.0, 0.0] and float(b) == 4.0


def test_where_zero_size_and_0d() -> None:
    test_rrule(np.where, np.zeros((0, 2), dtype=bool), np.ones((0, 2)), np.ones(2))
    test_frule(np.where, np.asarray(False), np.asarray(1.0), np.asarray(2.0))


def test_where_pullback_is_differentiable_again() -> None:
    # the pullback is where(cond, g, zeros_like(g)) and a sum: each has a rule
    c = np.array([True, False, True])
    _, pb = cr.rrule(np.where, c, np.arange(3.0), np.ones(3))
    assert np.array_equal(pb(np.ones(3))[2], np.where(c, np.ones(3), 0.0))
    assert cr.find_rrule(np.zeros_like) is not None and cr.find_rrule(np.sum) is not None


def test_numpy_where_one_argument_is_nonzero() -> None:
    c = np.array([0.0, 2.0, 0.0, 1.0])
    y, pb = cr.rrule(np.where, c)
    assert [a.tolist() for a in y] == [[1, 3]]
    assert pb(cr.NoTangent()) == (cr.NoTangent(), cr.NoTangent())
    assert cr.frule((cr.NoTangent(), cr.NoTangent()), np.where, c)[1] is cr.NoTangent()


def test_finders_give_no_tangent() -> None:
    x = np.array([[1.0, 3.0], [2.0, 0.0]])
    for f in (np.argmax, np.argmin, np.count_nonzero):
        _y, pb = cr.rrule(f, x, axis=0)
        assert pb(cr.NoTangent()) == (cr.NoTangent(), cr.NoTangent())
    _, pb = cr.rrule(np.searchsorted, np.array([1.0, 2.0]), np.array([1.5]))
    assert pb(cr.NoTangent())[1:] == (cr.NoTangent(), cr.NoTangent())


def test_numpy_finders_non_differentiable() -> None:
    x = np.array([[1.0, np.nan], [3.0, 0.5]])
    for f, args in (
        (np.nanargmax, (x,)),
        (np.nanargmin, (x,)),
        (np.argwhere, (x > 1,)),
        (np.flatnonzero, (x,)),
    ):
        y, pb = cr.rrule(f, *args)
        np.testing.assert_array_equal(y, f(*args))
        assert all(isinstance(t, cr.NoTangent) for t in pb(cr.NoTangent()))


def test_where_errors() -> None:
    c = np.array([True, False])
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        cr.rrule(np.where, c, np.ones(2), np.zeros(2))[1](np.ones(3))
    with pytest.raises(TypeError, match="3 positional"):
        cr.rrule(np.where, c, np.ones(2))


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.searching")
