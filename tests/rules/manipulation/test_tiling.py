"""Tiling (repeat, tile): the tester on every backend, JAX as a reference, GPU safety of repeat
by device counts, exact segment sums and block sums, 0-d and zero repeats, dtypes, and the
pullback of repeat by device counts differentiated again."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.manipulation import tiling
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == tiling.__name__]

STANDARD = ("repeat", "tile")
NUMPY = ("repeat", "tile")  # NumPy's signatures of the standard's


def test_every_function_is_registered(assert_registered) -> None:  # type: ignore[no-untyped-def]
    assert_registered(REGS, set(STANDARD) | {f"numpy:{n}" for n in NUMPY})


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- GPU safety ----------------------------------------------------------------------------------
# jax.numpy.repeat cannot be traced with a traced array of counts (its output shape depends on
# them): check_jit says so for those examples, whatever the rule does


def test_repeat_by_device_counts_reads_no_element() -> None:
    """The counts of repeat stay on the device: pullback and pushforward are scalar-free."""
    from chainrules.testing.checks import check_scalar_free
    from chainrules.testing.device import device_array

    x = np.arange(6.0).reshape(2, 3)
    counts = np.array([3, 0, 2])
    check_scalar_free(np.repeat, x, counts, axis=1)
    check_scalar_free(np.repeat, x, np.array([1, 2, 0, 1, 1, 2]))  # flattened
    # and on the array-api-strict backing
    check_scalar_free(np.repeat, x, counts, axis=1, backing="array_api_strict")
    d = device_array(counts)
    assert type(d).__name__.endswith("DeviceArray")


# ---- exact values --------------------------------------------------------------------------------
def test_repeat_pulls_back_segment_sums(pull) -> None:  # type: ignore[no-untyped-def]
    x = np.array([10.0, 20.0, 30.0])
    y_bar = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    # element 0 repeated twice, element 1 dropped, element 2 three times
    g = pull(np.repeat, x, np.array([2, 0, 3]), y_bar=y_bar)
    assert g[1].tolist() == [3.0, 0.0, 12.0] and g[2] is cr.NoTangent()
    assert pull(np.repeat, x, 2, y_bar=np.arange(6.0))[1].tolist() == [1.0, 5.0, 9.0]
    # a one-element array of counts broadcasts (host-known from the shapes)
    assert pull(np.repeat, x, np.array([2]), y_bar=np.arange(6.0))[1].tolist() == [1.0, 5.0, 9.0]
    m = np.zeros((2, 2))
    g2 = pull(np.repeat, m, np.array([1, 2]), axis=0, y_bar=np.arange(6.0).reshape(3, 2))[1]
    assert g2.tolist() == [[0.0, 1.0], [6.0, 8.0]]
    # the pushforward gathers the tangent at the same positions, a chunk in one call
    _, y_dot = cr.frule(
        (cr.NoTangent(), np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), cr.NoTangent()),
        np.repeat,
        x,
        np.array([2, 0, 1]),
    )
    assert y_dot.tolist() == [[1.0, 1.0, 3.0], [4.0, 4.0, 6.0]]


def test_tile_sums_the_copies(pull) -> None:  # type: ignore[no-untyped-def]
    g = pull(np.tile, np.array([1.0, 2.0]), (2, 3), y_bar=np.arange(12.0).reshape(2, 6))[1]
    # y[i, 2k + j] = x[j]: x_bar[j] = sum over i, k of y_bar[i, 2k + j]
    assert g.tolist() == [0 + 2 + 4 + 6 + 8 + 10.0, 1 + 3 + 5 + 7 + 9 + 11.0]


def test_zero_size_and_0d(pull) -> None:  # type: ignore[no-untyped-def]
    g = pull(np.repeat, np.ones((2, 3)), 0, axis=1)[1]
    assert g.tolist() == [[0.0] * 3] * 2
    g = pull(np.tile, np.ones(2), (0,))[1]
    assert g.tolist() == [0.0, 0.0]


def test_float32_stays_float32_and_complex_cotangent_of_real_input() -> None:
    x = np.ones((2, 3), dtype=np.float32)
    for f, args, kw in [
        (np.tile, ((2,),), {}),
        (np.repeat, (np.array([1, 2, 0]),), {"axis": 1}),
    ]:
        y, pb = cr.rrule(f, x, *args, **kw)
        g = pb(np.ones(y.shape, dtype=np.complex64) * (1 + 2j))[1]
        assert g.dtype == np.float32 and np.all(g.imag == 0), f


# ---- second derivatives: pullbacks are built from functions with rules ---------------------------
def test_repeat_pullback_is_differentiable_again() -> None:
    """repeat by device counts is a scatter_add."""
    rng = np.random.default_rng(1)
    # repeat by [2, 0, 1]: scatter_add(zeros(3), src, y_bar) with src = [0, 0, 2]
    y_bar = rng.standard_normal(3)
    _, pb = cr.rrule(np.repeat, np.ones(3), np.array([2, 0, 1]))
    src = np.array([0, 0, 2])
    assert np.allclose(pb(y_bar)[1], cr.scatter_add(np.zeros(3), (src,), y_bar))
    test_rrule(cr.scatter_add, np.zeros(3), (src,), y_bar)
    test_frule(cr.scatter_add, np.zeros(3), (src,), y_bar)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests(tiling)
