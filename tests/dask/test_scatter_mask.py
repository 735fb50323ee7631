"""Issue 13 point 1: ``scatter_add`` with a boolean key on dask is lazy and equals NumPy's
(``dest[mask] += values``): the rule, its pullback and its frule run no graph, and a count
mismatch between the mask and the values raises when the result is computed, as NumPy raises."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.runner import _GraphRuns  # the lazy column's graph counter

da = pytest.importorskip("dask.array")


def _cases() -> list[tuple[str, Any, Any, Any]]:
    rng = np.random.default_rng(0)
    m2 = rng.standard_normal((5, 4)) > 0
    return [
        ("1-D mask", rng.standard_normal(6), np.array([1, 0, 1, 1, 0, 0], bool), rng.random(3)),
        ("2-D mask", rng.standard_normal((5, 4)), m2, rng.random(int(m2.sum()))),
        ("2-D mask, one value", rng.standard_normal((5, 4)), m2, rng.random(1)),
        (
            "leading-axis mask",
            rng.standard_normal((5, 4)),
            m2[:, 0],
            rng.random((m2[:, 0].sum(), 4)),
        ),
        ("leading-axis mask, a row", rng.standard_normal((5, 4)), m2[:, 1], rng.random(4)),
    ]


@pytest.mark.parametrize(("name", "dest", "mask", "values"), _cases(), ids=lambda c: str(c))
def test_mask_scatter_is_lazy_and_equals_numpy(
    name: str, dest: Any, mask: Any, values: Any
) -> None:
    d, m, v = (da.from_array(a, chunks=2) for a in (dest, mask, values))
    y_bar = np.random.default_rng(1).standard_normal(dest.shape)
    want, pb = cr.rrule(cr.scatter_add, dest, mask, values)
    want_bar = pb(y_bar)
    v_dot = np.ones((3, *values.shape))  # a chunk of 3 tangents of the values
    want_dot = cr.frule(
        (cr.NoTangent(), cr.ZeroTangent(), cr.NoTangent(), v_dot),
        cr.scatter_add,
        dest,
        mask,
        values,
    )[1]
    with _GraphRuns() as runs:
        y, dpb = cr.rrule(cr.scatter_add, d, m, v)
        bars = dpb(da.from_array(y_bar, chunks=2))
        y_dot = cr.frule(
            (cr.NoTangent(), cr.ZeroTangent(), cr.NoTangent(), da.from_array(v_dot, chunks=2)),
            cr.scatter_add,
            d,
            m,
            v,
        )[1]
    assert runs.count == 0
    np.testing.assert_allclose(y.compute(), want, rtol=1e-12)
    assert bars[3].shape == want_bar[3].shape
    np.testing.assert_allclose(bars[3].compute(), want_bar[3], rtol=1e-12)
    np.testing.assert_allclose(bars[1].compute(), want_bar[1], rtol=1e-12)
    np.testing.assert_allclose(y_dot.compute(), want_dot, rtol=1e-12)


def test_mask_scatter_checks_the_count_when_computed() -> None:
    mask = np.array([1, 0, 1, 1, 0, 0], bool)
    y = cr.scatter_add(da.zeros(6, chunks=2), da.from_array(mask, chunks=2), da.ones(4, chunks=2))
    with pytest.raises(ValueError, match="boolean index selects 3 elements, but 4 values"):
        y.compute()
    with pytest.raises(IndexError, match="does not match the leading axes of dest"):
        cr.scatter_add(da.zeros(6, chunks=2), da.from_array(mask[:5], chunks=2), da.ones(3))
