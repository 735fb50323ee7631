"""The binding every reduction shares (``bind`` in ``rules/_util/statistical.py``): NumPy's
signatures (positional axis, ddof), the rejected keywords, and NumPy's 0-d axis."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr


def _grad(f, *args, **kw):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args, **kw)
    return pb(np.ones(np.shape(y)))[1]


def test_numpy_signatures_and_rejected_keywords() -> None:
    x = np.arange(6.0).reshape(2, 3)
    _, pb = cr.rrule(np.sum, x, 0)  # axis positional, as NumPy allows
    assert len(pb(np.ones(3))) == 3 and pb(np.ones(3))[2] is cr.NoTangent()
    _, pb = cr.rrule(np.var, x, 1, None, None, 1)  # ddof positional
    assert np.allclose(pb(np.ones(2))[1], 2 * (x - x.mean(1, keepdims=True)) / 2)
    with pytest.raises(TypeError, match="does not support where="):
        cr.rrule(np.sum, x, where=x > 1)
    with pytest.raises(TypeError, match="out= is not supported"):
        cr.rrule(np.sum, x, out=np.empty(()))
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="keyword-only"):  # the standard's sum(x, /, *, axis)
        cr.rrule(xs.sum, xs.asarray(x), 0)
    with pytest.raises(ValueError, match=r"cotangent of shape \(2,\) does not match .* \(3,\)"):
        cr.rrule(np.sum, x, axis=0)[1](np.ones(2))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        cr.rrule(np.sum, x, axis=2)


@pytest.mark.parametrize(
    "f", [np.sum, np.prod, np.amax, np.amin, np.max, np.min, np.nansum, np.nanmean]
)
@pytest.mark.parametrize("axis", [0, -1])
def test_numpy_reductions_take_axis_0_of_a_0d_array(f, axis) -> None:  # type: ignore[no-untyped-def]
    """NumPy reduces a 0-d array along axis 0 or -1 to itself (the rule used to raise)."""
    x = np.asarray(2.5)
    y, pb = cr.rrule(f, x, axis=axis)
    assert y == f(x, axis=axis)
    np.testing.assert_allclose(pb(np.asarray(1.0))[1], 1.0)
    _, t = cr.frule((cr.NoTangent(), np.asarray(3.0)), f, x, axis=axis)
    np.testing.assert_allclose(t, 3.0)
    with pytest.raises(ValueError, match="out of bounds"):
        cr.rrule(f, x, axis=1)


def test_mean_keeps_numpys_refusal_of_axis_0_on_a_0d_array() -> None:
    with pytest.raises(np.exceptions.AxisError):
        np.mean(np.asarray(2.0), axis=0)
    with pytest.raises(np.exceptions.AxisError):
        cr.rrule(np.mean, np.asarray(2.0), axis=0)
