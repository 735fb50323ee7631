"""Every rule on dask arrays (two chunks per axis) at its examples: lazy (no graph runs during the
rrule, the pullback or the frule) and equal to the same rule on NumPy.

The default suite runs the registrations in ``FAST``, one per kind of rule and every one a
defect was fixed in; ``CHAINRULES_DASK_ALL=1`` runs all of them (about a minute here).
dask's own limits and the known defects are declared in ``chainrules.testing.runner``
(``DASK_LIMITS``, ``DASK_XFAILS``): the tables the check command's lazy column reads.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import chainrules as cr

pytest.importorskip("dask.array")
pytest.importorskip("array_api_compat.dask.array")

from chainrules.testing.backends import get_backend
from chainrules.testing.runner import (
    DASK_EXPECTS,
    DASK_LIMITS,
    DASK_XFAILS,
    _GraphRuns,
    check_lazy,
    check_registration,
    dask_expectations,
)

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
    """The check command's lazy column, judged by the dask tables of chainrules.testing.runner
    (DASK_LIMITS: dask's own refusals, skipped; DASK_XFAILS: strict declared failures)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask's own meta warnings
        cell = check_lazy(reg)
    assert not cell.failed, f"{reg.name} on dask: {cell.errors + cell.undeclared}"
    if cell.status == "xfail":
        pytest.xfail("; ".join(cell.xfail_reasons()))
    if cell.status == "skip":
        pytest.skip("; ".join(cell.skip_reasons()))
    assert cell.status == "ok", cell.status


# The check command's dask column (the testers on dask arrays, ``--backend dask``) at the rules
# whose cells there failed undeclared: each must now be clean, every failure declared. (getitem
# and scatter_add, 30 s and 100 s here, are left to the check command.)
DASK_COLUMN = ["nonzero", "unique_values", "eye", "linspace", "linalg.cholesky", "linalg.solve"]


@pytest.mark.parametrize("name", DASK_COLUMN)
def test_the_dask_column_declares_its_failures(name: str) -> None:
    (reg,) = [r for r in cr.registrations() if r.name == name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask's own meta warnings
        cell = check_registration(reg, get_backend("dask"), expects=dask_expectations(reg))
    assert not cell.failed, f"{name} on the dask column: {cell.errors + cell.undeclared}"
    assert cell.status in ("ok", "xfail"), cell.status


def test_the_tables_name_registrations() -> None:
    names = {r.name for r in cr.registrations()}
    assert set(DASK_LIMITS) <= names and set(DASK_XFAILS) <= names
    assert set(DASK_EXPECTS) <= names
    columns = {e.column for es in DASK_EXPECTS.values() for e in es}
    assert columns <= {"dask", "lazy"}, columns


def test_the_counter_sees_every_way_of_reading_values() -> None:
    import dask.array as da

    x = da.ones(4, chunks=2)
    with _GraphRuns() as counter:
        y = x * 2 + 1  # building a graph runs nothing
    assert counter.count == 0
    for read in (
        lambda: y.compute(),
        lambda: np.asarray(y),
        lambda: bool(y[0]),
        lambda: float(y[0]),
        lambda: int(y[0]),
    ):
        with _GraphRuns() as counter:
            read()
        assert counter.count == 1
