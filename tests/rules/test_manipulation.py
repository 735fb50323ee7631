"""Manipulation functions: the tester on every backend, JAX as a reference, GPU safety, exact
conventions (segment sums of repeat, block sums of tile and broadcast_to, structural cotangents of
concat/stack/unstack/broadcast_arrays), and the pullback of concat differentiated again."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import manipulation
from chainrules.rules._util import along
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == manipulation.__name__]
BY_NAME = {r.name: r for r in REGS}

STANDARD = (
    "broadcast_arrays",
    "broadcast_to",
    "concat",
    "expand_dims",
    "flip",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "tile",
    "unstack",
)
NUMPY = (
    "broadcast_arrays",
    "broadcast_to",
    "concatenate",
    "expand_dims",
    "flip",
    "moveaxis",
    "ravel",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "swapaxes",
    "tile",
    "transpose",
)


def test_every_function_is_registered() -> None:
    assert set(BY_NAME) == set(STANDARD) | {f"numpy:{n}" for n in NUMPY}
    for reg in REGS:
        assert reg.rrule is not None and reg.frule is not None, reg.name
        assert examples_for(reg), reg.name


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- GPU safety -------------------------------------------------------------------------------
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


# ---- exact values -----------------------------------------------------------------------------
def _pull(f, *args, y_bar=None, **kw):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args, **kw)
    if y_bar is None:
        y_bar = np.ones(np.shape(y))
    return pb(y_bar)


def test_repeat_pulls_back_segment_sums() -> None:
    x = np.array([10.0, 20.0, 30.0])
    y_bar = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    # element 0 repeated twice, element 1 dropped, element 2 three times
    g = _pull(np.repeat, x, np.array([2, 0, 3]), y_bar=y_bar)
    assert g[1].tolist() == [3.0, 0.0, 12.0] and g[2] is cr.NoTangent()
    assert _pull(np.repeat, x, 2, y_bar=np.arange(6.0))[1].tolist() == [1.0, 5.0, 9.0]
    # a one-element array of counts broadcasts (host-known from the shapes)
    assert _pull(np.repeat, x, np.array([2]), y_bar=np.arange(6.0))[1].tolist() == [1.0, 5.0, 9.0]
    m = np.zeros((2, 2))
    g2 = _pull(np.repeat, m, np.array([1, 2]), axis=0, y_bar=np.arange(6.0).reshape(3, 2))[1]
    assert g2.tolist() == [[0.0, 1.0], [6.0, 8.0]]
    # the pushforward gathers the tangent at the same positions, a chunk in one call
    _, y_dot = cr.frule(
        (cr.NoTangent(), np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), cr.NoTangent()),
        np.repeat,
        x,
        np.array([2, 0, 1]),
    )
    assert y_dot.tolist() == [[1.0, 1.0, 3.0], [4.0, 4.0, 6.0]]


def test_tile_and_broadcast_to_sum_the_copies() -> None:
    g = _pull(np.tile, np.array([1.0, 2.0]), (2, 3), y_bar=np.arange(12.0).reshape(2, 6))[1]
    # y[i, 2k + j] = x[j]: x_bar[j] = sum over i, k of y_bar[i, 2k + j]
    assert g.tolist() == [0 + 2 + 4 + 6 + 8 + 10.0, 1 + 3 + 5 + 7 + 9 + 11.0]
    g = _pull(np.broadcast_to, np.array([[1.0], [2.0]]), (3, 2, 4))[1]
    assert g.tolist() == [[12.0], [12.0]]
    g = _pull(np.broadcast_to, np.array(5.0), (0, 3))[1]
    assert g.shape == () and float(g) == 0.0  # nothing was read: a zero of x's shape


def test_structural_cotangents() -> None:
    a, b = np.array([1.0, 2.0]), np.array([[3.0, 4.0], [5.0, 6.0]])
    _, pb = cr.rrule(np.concatenate, [a, b], axis=None)
    res = pb(np.arange(6.0))
    assert isinstance(res[1], cr.Tangent) and res[1].primal_type is list
    assert res[1][0].tolist() == [0.0, 1.0] and res[1][1].tolist() == [[2.0, 3.0], [4.0, 5.0]]
    zero = pb(cr.ZeroTangent())[1]
    assert isinstance(zero, cr.Tangent) and all(e is cr.ZeroTangent() for e in zero)

    # unstack and broadcast_arrays take ZeroTangent() entries for outputs not used
    _, pb = cr.rrule(np.unstack, b, axis=1)
    assert pb(cr.Tangent(np.array([1.0, 2.0]), cr.ZeroTangent()))[1].tolist() == [
        [1.0, 0.0],
        [2.0, 0.0],
    ]
    _, pb = cr.rrule(np.broadcast_arrays, a, np.array([[1.0], [2.0]]))
    res = pb((np.ones((2, 2)), cr.ZeroTangent()))
    assert res[1].tolist() == [2.0, 2.0] and res[2] is cr.ZeroTangent()

    _, pb = cr.rrule(np.stack, (a, a), axis=1)
    res = pb(np.array([[1.0, 2.0], [3.0, 4.0]]))[1]
    assert res.primal_type is tuple and res[0].tolist() == [1.0, 3.0] and res[1].tolist() == [2, 4]


def test_zero_size_and_0d() -> None:
    g = _pull(np.reshape, np.array(2.0), (1, 1, 1), y_bar=np.full((1, 1, 1), 3.0))[1]
    assert g.shape == () and float(g) == 3.0
    res = _pull(np.concatenate, (np.zeros((0, 2)), np.ones((1, 2))), y_bar=np.array([[7.0, 8.0]]))
    assert res[1][0].shape == (0, 2) and res[1][1].tolist() == [[7.0, 8.0]]
    g = _pull(np.repeat, np.ones((2, 3)), 0, axis=1)[1]
    assert g.tolist() == [[0.0] * 3] * 2
    g = _pull(np.tile, np.ones(2), (0,))[1]
    assert g.tolist() == [0.0, 0.0]
    assert _pull(np.roll, np.array(4.0), 3)[1].shape == ()


def test_float32_stays_float32_and_complex_cotangent_of_real_input() -> None:
    x = np.ones((2, 3), dtype=np.float32)
    for f, args, kw in [
        (np.reshape, ((3, 2),), {}),
        (np.flip, (), {"axis": 0}),
        (np.tile, ((2,),), {}),
        (np.repeat, (np.array([1, 2, 0]),), {"axis": 1}),
    ]:
        y, pb = cr.rrule(f, x, *args, **kw)
        g = pb(np.ones(y.shape, dtype=np.complex64) * (1 + 2j))[1]
        assert g.dtype == np.float32 and np.all(g.imag == 0), f


def test_signatures_and_errors() -> None:
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="order='C' only"):
        cr.rrule(np.reshape, x, (3, 2), order="F")
    with pytest.raises(ValueError, match="order='C' only"):
        cr.rrule(np.ravel, x, "F")
    with pytest.raises(TypeError, match="out= is not supported"):
        cr.rrule(np.concatenate, (x, x), out=np.empty((4, 3)))
    with pytest.raises(TypeError, match="does not support dtype="):
        cr.rrule(np.stack, (x, x), dtype=np.float32)
    with pytest.raises(TypeError, match="subok=True"):
        cr.rrule(np.broadcast_to, x, (2, 2, 3), subok=True)
    with pytest.raises(ValueError, match="axis 0 of an array of shape \\(2, 3\\) has length 2"):
        cr.rrule(np.squeeze, x, 0)
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        cr.rrule(np.flip, x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        cr.rrule(np.transpose, x, (0, 0))
    with pytest.raises(ValueError, match="do not match an array of rank 2"):
        cr.rrule(np.transpose, x, (1, 0, 2))
    with pytest.raises(ValueError, match=r"cotangent of shape \(2,\) does not match .* \(3, 2\)"):
        cr.rrule(np.reshape, x, (3, 2))[1](np.ones(2))
    with pytest.raises(ValueError, match=r"cotangent of shape \(5,\) does not match .* \(12,\)"):
        cr.rrule(np.concatenate, (x, x), axis=None)[1](np.ones(5))
    # NumPy's names take NumPy's signatures
    y, _ = cr.rrule(np.moveaxis, x, source=0, destination=1)
    assert y.shape == (3, 2)
    assert cr.rrule(np.transpose, x)[0].shape == (3, 2)
    assert cr.rrule(np.expand_dims, x, (0, 3))[0].shape == (1, 2, 3, 1)
    xs = pytest.importorskip("array_api_strict")
    a = xs.asarray(x)
    with pytest.raises(TypeError, match="positional"):  # the standard's concat(arrays, /, *, axis)
        cr.rrule(xs.concat, (a, a), 1)
    with pytest.raises(TypeError, match="missing required argument 'axis'"):
        cr.rrule(xs.squeeze, a)


# ---- second derivatives: pullbacks are built from functions with rules --------------------------
def test_concat_pullback_is_differentiable_again() -> None:
    """concat's pullback slices the cotangent (operator.getitem with slices) and, for
    axis=None, reshapes: both have rules, checked here at the arguments the pullback uses."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 4))
    y, pb = cr.rrule(np.concatenate, (a, b), axis=1)
    y_bar = rng.standard_normal(y.shape)
    res = pb(y_bar)[1]
    keys = [along(1, slice(0, 3)), along(1, slice(3, 7))]
    for part, key in zip(res, keys):
        assert np.array_equal(part, operator.getitem(y_bar, key))
        test_rrule(operator.getitem, y_bar, key)
        test_frule(operator.getitem, y_bar, key)
    # axis=None: a slice of the flat cotangent, reshaped
    y, pb = cr.rrule(np.concatenate, (a, b), axis=None)
    flat = rng.standard_normal(y.shape)
    res = pb(flat)[1]
    assert np.array_equal(res[1], np.reshape(flat[6:14], (2, 4)))
    test_rrule(operator.getitem, flat, slice(6, 14))
    test_frule(operator.getitem, flat, slice(6, 14))
    test_rrule(np.reshape, flat[6:14], (2, 4))
    test_frule(np.reshape, flat[6:14], (2, 4))


def test_other_pullbacks_are_differentiable_again() -> None:
    """stack's pullback is unstack (and back); repeat by device counts is a scatter_add."""
    rng = np.random.default_rng(1)
    g = rng.standard_normal((2, 3))
    _, pb = cr.rrule(np.stack, (g[0], g[1]), axis=0)
    assert all(np.array_equal(p, q) for p, q in zip(pb(g)[1], np.unstack(g)))
    test_rrule(np.unstack, g, axis=0)
    test_rrule(np.stack, (g[0], g[1]), axis=0)
    # repeat by [2, 0, 1]: scatter_add(zeros(3), src, y_bar) with src = [0, 0, 2]
    y_bar = rng.standard_normal(3)
    _, pb = cr.rrule(np.repeat, np.ones(3), np.array([2, 0, 1]))
    src = np.array([0, 0, 2])
    assert np.allclose(pb(y_bar)[1], cr.scatter_add(np.zeros(3), (src,), y_bar))
    test_rrule(cr.scatter_add, np.zeros(3), (src,), y_bar)
    test_frule(cr.scatter_add, np.zeros(3), (src,), y_bar)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.manipulation")


@pytest.mark.parametrize("axis", [0, -1])
def test_squeeze_of_a_0d_array_at_axis_0_as_numpy(axis: int) -> None:
    x = np.asarray(1.5)
    y, pb = cr.rrule(np.squeeze, x, axis=axis)
    assert y.shape == np.squeeze(x, axis=axis).shape == ()
    assert pb(np.asarray(2.0))[1] == 2.0
    with pytest.raises(ValueError, match="squeeze: axis 0 is out of bounds"):
        cr.rrule(np.squeeze, x, axis=(0,))  # NumPy refuses a tuple there too
