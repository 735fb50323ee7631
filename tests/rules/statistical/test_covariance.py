"""NumPy's ``cov`` and ``corrcoef``: the generated tests on every backend, NumPy as the reference
for the primal, complex inputs."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.suite import rule_tests

# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.statistical.covariance")


def test_cov_matches_numpy_and_is_symmetric_in_its_cotangent() -> None:
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3, 6))
    aw = rng.uniform(0.5, 1.5, 6)
    y, pb = cr.rrule(np.cov, m, aweights=aw, ddof=2)
    np.testing.assert_allclose(y, np.cov(m, aweights=aw, ddof=2), rtol=1e-13)
    c_bar = rng.standard_normal((3, 3))
    np.testing.assert_allclose(pb(c_bar)[1], pb(c_bar.T)[1], rtol=1e-12)
    r, pb = cr.rrule(np.corrcoef, m)
    np.testing.assert_allclose(r, np.corrcoef(m), rtol=1e-13)
    assert np.allclose(pb(np.eye(3))[1], 0.0)  # the diagonal is 1 whatever m is


_COV_COMPLEX = (
    ((3, 6), {}),
    ((6, 3), {"rowvar": False}),
    ((3, 6), {"aweights": (0.5, 1.5, 1.0, 0.7, 1.2, 0.9), "ddof": 2}),
    ((3, 6), {"second": (2, 6)}),
)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize(
    ("name", "shape", "kw"),
    [
        (name, shape, kw)
        for name in ("cov", "corrcoef")
        for shape, kw in _COV_COMPLEX
        if name == "cov" or "aweights" not in kw  # corrcoef takes no weights
    ],
)
def test_cov_corrcoef_complex_input(
    name: str, shape: tuple[int, int], kw: dict[str, Any], dtype: type
) -> None:
    # C = Xc W Xc^H / f for complex X: the shared Cov cast X to float64 (dropping the imaginary
    # part, ComplexWarning) and transposed without conjugating; corrcoef's scale is 1/sqrt(Re C_ii)

    rng = np.random.default_rng(9)

    def c(*s: int) -> Any:
        return (rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(dtype)

    kw = dict(kw)
    args: tuple[Any, ...] = (c(*shape),)
    if "second" in kw:
        args = (args[0], c(*kw.pop("second")))
    if "aweights" in kw:
        kw["aweights"] = np.asarray(kw["aweights"])
    f = getattr(np, name)
    # the device check moves positional arrays only: np.cov refuses host weights beside them
    host = "aweights" not in kw
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: nothing is dropped
        test_rrule(f, *args, scalar_free=host, **kw)
        test_frule(f, *args, scalar_free=host, **kw)
