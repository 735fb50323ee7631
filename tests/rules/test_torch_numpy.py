"""torch's functions that array-api-extra and SciPy delegate to on torch tensors (issue 10):
``torch.sinc``, ``torch.kron``, ``torch.nan_to_num``, ``torch.nanmean`` (NumPy's rules, through
``chainrules/rules/torch_numpy.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import test_frule, test_rrule

torch = pytest.importorskip("torch")


def _t(a: object) -> object:
    return torch.asarray(np.asarray(a, dtype=np.float64))


@pytest.mark.parametrize("name", ["sinc", "nan_to_num", "nanmean"])
def test_unary_torch_functions(name: str) -> None:
    f = getattr(torch, name)
    x = _t([0.3, -0.7, 1.2, 2.5])
    test_rrule(f, x)
    test_frule(f, x)


def test_torch_kron() -> None:
    a, b = _t([[0.3, -0.7], [1.2, 0.4]]), _t([1.5, -2.0, 0.1])
    test_rrule(torch.kron, a, b)
    test_frule(torch.kron, a, b)


def test_torch_sinc_at_zero_is_zero() -> None:
    # finite differences cannot judge the removable singularity: d sinc / dx = 0 at 0
    _, pb = cr.rrule(torch.sinc, _t([0.0, 0.5]))
    g = pb(_t([1.0, 1.0]))[1]
    assert float(g[0]) == 0.0


def test_torch_nan_entries_get_no_cotangent() -> None:
    x = _t([0.3, np.nan, 1.2])
    _, pb = cr.rrule(torch.nanmean, x, axis=0)
    np.testing.assert_allclose(pb(_t(1.0))[1].numpy(), [0.5, 0.0, 0.5])
    # torch's positional fill value (NumPy's second parameter is copy): x's cotangent is the same
    y, pb = cr.rrule(torch.nan_to_num, x, 7.0)
    np.testing.assert_allclose(y.numpy(), [0.3, 7.0, 1.2])
    np.testing.assert_allclose(pb(_t([1.0, 1.0, 1.0]))[1].numpy(), [1.0, 0.0, 1.0])


def test_torch_nanmean_dim_spelling_is_refused_clearly() -> None:
    with pytest.raises(TypeError, match=r"nanmean.*'dim'"):
        cr.rrule(torch.nanmean, _t([[0.3, 1.0]]), dim=1)
