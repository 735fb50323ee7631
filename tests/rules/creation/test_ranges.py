"""Ranges and grids: linspace, arange, meshgrid (the standard's and NumPy's); NumPy's logspace and
geomspace against their closed-form derivatives; the index grids."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.creation import ranges
from chainrules.testing import examples_for, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == ranges.__name__]


def test_registered() -> None:
    names = {r.name for r in REGS}
    assert names >= {"linspace", "meshgrid", "numpy:linspace", "numpy:meshgrid", "arange"}
    assert names >= {"numpy:arange", "numpy:logspace", "numpy:geomspace"}


# their examples' endpoints are Python numbers, which check_agrees_with_jax cannot take (it
# needs a floating array): their closed forms are tested below instead
_SCALAR_ENDPOINTS = {"numpy:logspace", "numpy:geomspace"}
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
        if not r.non_differentiable and r.name not in _SCALAR_ENDPOINTS
    ],
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


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


def test_meshgrid_xy_ij_exact() -> None:
    a, b = np.array([1.0, 2.0]), np.array([10.0, 20.0, 30.0])
    for indexing, shape in (("xy", (3, 2)), ("ij", (2, 3))):
        ys, pb = cr.rrule(np.meshgrid, a, b, indexing=indexing)
        assert ys[0].shape == shape
        g = np.arange(6.0).reshape(shape)
        _, a_bar, b_bar = pb(cr.Tangent(g, cr.ZeroTangent(), primal_type=tuple))
        axis = 0 if indexing == "xy" else 1  # a runs along the other axis
        assert a_bar.tolist() == g.sum(axis=axis).tolist() and b_bar is cr.ZeroTangent()


def test_linspace_zero_size_and_arange_exact() -> None:
    test_rrule(np.linspace, np.asarray(0.0), np.asarray(1.0), 0)
    _, pb = cr.rrule(np.arange, 0.5, 3.0, 0.5)  # y_i = start + i step; stop sets the length
    start_bar, stop_bar, step_bar = pb(np.ones(5))[1:]
    assert float(start_bar) == 5.0 and stop_bar is cr.ZeroTangent() and float(step_bar) == 10.0


def test_logspace_derivative() -> None:
    y, pb = cr.rrule(np.logspace, 0.0, 1.0, num=3, base=2.0)
    np.testing.assert_allclose(y, np.logspace(0.0, 1.0, num=3, base=2.0))
    _, s, e = pb(np.ones(3))
    w = np.array([0.0, 0.5, 1.0])
    np.testing.assert_allclose(s, np.sum(np.log(2.0) * y * (1 - w)))
    np.testing.assert_allclose(e, np.sum(np.log(2.0) * y * w))


def test_geomspace_endpoints() -> None:
    y, pb = cr.rrule(np.geomspace, 1.0, 4.0, num=3)
    np.testing.assert_allclose(y, [1.0, 2.0, 4.0])
    _, s, e = pb(np.array([1.0, 0.0, 0.0]))  # y_0 = start exactly
    np.testing.assert_allclose([s, e], [1.0, 0.0], atol=1e-12)


def test_index_grids_are_non_differentiable() -> None:
    reg = cr.find_rrule(np.ix_)
    assert reg is not None


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.creation.ranges")
