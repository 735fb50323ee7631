"""unique_*: the values output is differentiable, ties split equally; the rest has no tangent.
isin is non-differentiable (a boolean output)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import sets
from chainrules.testing import examples_for
from chainrules.testing.runner import DEVICE_CHECKS, check_registration

REGS = [r for r in cr.registrations() if r.meta.get("module") == sets.__name__]
_DATA_SHAPED = pytest.mark.xfail(
    strict=True, reason="the output's shape depends on the data: jax.jit cannot trace the function"
)


def test_registered() -> None:
    assert {r.name for r in REGS} == {
        "unique_all",
        "unique_counts",
        "unique_inverse",
        "unique_values",
        "isin",
    }


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_rule_on_backend(reg: cr.Registration, backend) -> None:  # type: ignore[no-untyped-def]
    cell = check_registration(reg, backend, examples=examples_for(reg))
    assert cell.status == "ok", "\n".join(cell.errors)
    if backend.name == "torch" and reg.name == "unique_all":  # array-api-compat: not for torch
        assert cell.checks == 0 and all("NotImplementedError" in u for u in cell.unsupported)
        return
    assert cell.checks > 0 and not cell.unsupported, cell.unsupported


@pytest.mark.parametrize(
    ("reg", "which"),
    [
        pytest.param(
            r, w, id=f"{r.name}-{w}", marks=_DATA_SHAPED if w == "jit" and r.name != "isin" else ()
        )
        for r in REGS
        for w in DEVICE_CHECKS
    ],
)
def test_gpu_safe(reg: cr.Registration, which: str, assert_gpu_safe) -> None:  # type: ignore[no-untyped-def]
    assert_gpu_safe(reg, which)


def test_ties_split_equally_exact() -> None:
    x = np.array([[2.0, 1.0], [2.0, 2.0]])
    y, pb = cr.rrule(np.unique_values, x)
    assert y.tolist() == [1.0, 2.0]
    assert pb(np.array([10.0, 6.0]))[1].tolist() == [[2.0, 10.0], [2.0, 2.0]]
    _, y_dot = cr.frule((cr.NoTangent(), np.array([[3.0, 5.0], [6.0, 9.0]])), np.unique_values, x)
    assert y_dot.tolist() == [5.0, 6.0]  # the mean of the tied tangents
    y, pb = cr.rrule(np.unique_counts, x)
    t = cr.Tangent(np.array([10.0, 6.0]), cr.NoTangent(), primal_type=type(y))
    assert pb(t)[1].tolist() == [[2.0, 10.0], [2.0, 2.0]]
    assert pb(cr.ZeroTangent())[1] is cr.ZeroTangent()


def test_zero_size_and_errors() -> None:
    y, pb = cr.rrule(np.unique_values, np.zeros(0))
    assert y.shape == (0,) and pb(np.zeros(0))[1].shape == (0,)
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        cr.rrule(np.unique_values, np.array([1.0, 2.0, 1.0]))[1](np.ones(3))


def test_isin_has_no_tangent() -> None:
    x = np.array([1.0, 2.0, 3.0])
    y, pb = cr.rrule(np.isin, x, np.array([2.0]))
    assert y.tolist() == [False, True, False]
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3
