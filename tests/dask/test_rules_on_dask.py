"""Every rule on dask arrays (two chunks per axis) at its examples: lazy (no graph runs during the
rrule, the pullback or the frule) and equal to the same rule on NumPy.

The default suite runs the registrations in ``FAST``, one per kind of rule and every one a
defect was fixed in; ``CHAINRULES_DASK_ALL=1`` runs all of them (about a minute here). Limits
that are dask's own are declared in ``DASK_LIMITS`` with the upstream issue where one is known.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import chainrules as cr

pytest.importorskip("dask.array")
pytest.importorskip("array_api_compat.dask.array")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lazy_probe import ComputeCounter, probe

from chainrules.testing.backends import get_backend

# Functions dask itself does not provide at the examples' inputs (its own function raises, or
# computes while building the graph). Upstream issue numbers where known; "unknown" otherwise.
DASK_LIMITS: dict[str, str] = {
    "linspace": "da.linspace computes a 0-d array argument while it builds the graph (unknown)",
    "arange": "da.arange refuses 0-d array bounds (unknown)",
    **{
        f"fft.{n}": "dask's FFTs need the transformed axis in one chunk (by design, no issue)"
        for n in (
            "fft",
            "ifft",
            "fftn",
            "ifftn",
            "rfft",
            "rfftn",
            "ihfft",
            "irfft",
            "irfftn",
            "hfft",
        )
    },
    "linalg.svd": "dask's svd has no full_matrices=True (unknown)",
    "linalg.svdvals": "array-api-compat's dask svdvals calls da.svd(full_matrices=True) (unknown)",
    "linalg.qr": "dask's qr needs one column chunk (tsqr; by design, no issue)",
    "linalg.matrix_rank": "array-api-compat's dask matrix_rank calls svd(compute_uv=) (unknown)",
    # unknown chunk sizes: the output's shape is (nan,) until computed, so no cotangent of a
    # known shape can be given (dask's design: unknown chunks, no issue)
    **{
        f"unique_{n}": "the output has unknown chunk sizes (nan) in dask"
        for n in ("all", "counts", "inverse", "values")
    },
}

# Defects of this library's rules on dask, not yet fixed (strict xfails: a fix is noticed).
KNOWN_DEFECTS: dict[str, str] = {
    "eye": "builds da.eye(N, M > N), a broken graph (dask issue 11937)",
    "linalg.trace": "its pullback builds an eye(N, M > N) constant (dask issue 11937)",
    "linalg.diagonal": "its pullback builds an eye(N, M > N) constant (dask issue 11937)",
    "repeat": "fails at zero size",
    "tile": "fails at zero size",
    "sort": "the pullback calls take_along_axis, which dask lacks",
    "diff": "the pullback computes, through da.diff's prepend=/append=",
    # integer-array keys now scatter chunk by chunk (core.scatter._scatter_dask); what is left:
    # mask keys give outputs of unknown size (nan), which no cotangent of a known shape matches
    "operator.getitem": "mask keys: the output's shape is unknown (nan) in dask",
    "chainrules.core.scatter.scatter_add": "mask keys (unknown sizes) and the n-d gathers of its "
    "pullback and frule (dask has no n-d fancy indexing)",
}

FAST = [
    "sin",
    "add",
    "sum",
    "matmul",
    "concat",
    "where",
    "reshape",
    "cumulative_sum",
    "argsort",
    "sort",
    "take",
    "eye",
    "linalg.trace",
    "linalg.diagonal",
    "linalg.cholesky",
    "repeat",
    "tile",
    "diff",
    "operator.getitem",
    "chainrules.core.scatter.scatter_add",
    "astype",
    "linspace",
]


def _registrations() -> list[cr.Registration]:
    f = get_backend("dask").function
    regs = [r for r in cr.registrations() if f(r) is not None]
    if os.environ.get("CHAINRULES_DASK_ALL", "") not in ("", "0"):
        return regs
    chosen = [r for r in regs if r.name in FAST]
    assert {r.name for r in chosen} == set(FAST), "a FAST name is not a registration"
    return chosen


@pytest.mark.parametrize("reg", _registrations(), ids=lambda r: r.name)
def test_rule_is_lazy_and_right_on_dask(reg: cr.Registration) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask's own meta warnings
        out = probe(reg)
    if out is None:
        pytest.skip("no examples")
    limit = DASK_LIMITS.get(reg.name)
    if limit is not None:
        assert out.status == "refused", f"declared as dask's limit ({limit}) but: {out}"
        pytest.xfail(limit)
    defect = KNOWN_DEFECTS.get(reg.name)
    if defect is not None and out.status != "ok":
        pytest.xfail(f"{out.status}: {defect}")
    assert defect is None, f"{reg.name} is now lazy and right on dask: drop its KNOWN_DEFECTS entry"
    assert out.status == "ok", f"{reg.name} on dask: {out.status}: {out.detail}"


def test_the_counter_sees_every_way_of_reading_values() -> None:
    import dask.array as da

    x = da.ones(4, chunks=2)
    counter = ComputeCounter()
    with counter.watching():
        y = x * 2 + 1  # building a graph runs nothing
    assert counter.count == 0
    for read in (
        lambda: y.compute(),
        lambda: np.asarray(y),
        lambda: bool(y[0]),
        lambda: float(y[0]),
        lambda: int(y[0]),
    ):
        before = counter.count
        with counter.watching():
            read()
        assert counter.count == before + 1
