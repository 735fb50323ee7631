"""NumPy's order statistics, NaN reductions, cov/corrcoef, bincount: the generated tests on every
backend, NumPy as the reference for the primal, the tie convention exactly."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.statistical_numpy")


def _grad(f, *args, **kw):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args, **kw)
    return pb(np.ones(np.shape(y)))


def test_quantile_ties_are_shared_like_max() -> None:
    x = np.array([1.0, 3.0, 3.0, 2.0])
    assert _grad(np.quantile, x, 1.0)[1].tolist() == _grad(np.max, x)[1].tolist()
    assert _grad(np.median, np.array([2.0, 1.0, 2.0]))[1].tolist() == [0.5, 0.0, 0.5]
    # weights 0.8 / 0.2 on two tied order statistics: shared equally by the tied elements
    assert _grad(np.quantile, np.array([3.0, 1.0, 2.0, 2.0, 5.0]), 0.3)[1].tolist() == [
        0.0,
        0.0,
        0.5,
        0.5,
        0.0,
    ]


@pytest.mark.parametrize(
    "method",
    ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull", "median_unbiased"],
)
def test_quantile_methods_agree_with_numpy(method: str) -> None:
    from chainrules.testing import test_frule, test_rrule

    rng = np.random.default_rng(3)
    x = rng.permutation(10) + rng.uniform(0.1, 0.4, 10)
    q = np.array([0.07, 0.33, 0.96])
    y, _ = cr.rrule(np.quantile, x, q, method=method)
    np.testing.assert_array_equal(y, np.quantile(x, q, method=method))
    jit = method in ("linear", "lower", "higher", "nearest", "midpoint")  # jax.numpy's methods
    test_rrule(np.quantile, x, q, method=method, jit=jit)
    test_frule(np.quantile, x, q, method=method, jit=jit)


def test_quantile_q_derivative_and_percentile_scale() -> None:
    x = np.array([4.0, 1.0, 3.0, 2.0])
    _, _, q_bar = _grad(np.quantile, x, 0.5)
    assert float(q_bar) == 3.0 * (3.0 - 2.0)  # (n - 1) (s[hi] - s[lo])
    _, _, p_bar = _grad(np.percentile, x, 50.0)
    assert float(p_bar) == 3.0 / 100
    assert isinstance(_grad(np.quantile, x, 0.5, method="lower")[2], cr.ZeroTangent)


def test_nan_forms_give_nans_zero_cotangent() -> None:
    m = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        g = _grad(np.nanmedian, m, axis=1)[1]
    assert g.tolist() == [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]
    x = np.array([2.0, np.nan, 5.0, 5.0])
    assert _grad(np.nanmax, x)[1].tolist() == [0.0, 0.0, 0.5, 0.5]
    assert _grad(np.nanprod, x)[1].tolist() == [25.0, 0.0, 10.0, 10.0]
    assert _grad(np.nancumsum, x)[1].tolist() == [4.0, 0.0, 2.0, 1.0]
    g = _grad(np.nanvar, x)[1]
    assert g[1] == 0.0 and np.all(np.isfinite(g))


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


def test_bincount_weights_are_a_scatter_add() -> None:
    x = np.array([0, 2, 2, 4])
    w = np.array([1.0, 2.0, 3.0, 4.0])
    y, pb = cr.rrule(np.bincount, x, w)
    np.testing.assert_array_equal(y, np.bincount(x, w))
    assert pb(np.arange(5.0))[2].tolist() == [0.0, 2.0, 2.0, 4.0]
    _, pb = cr.rrule(np.bincount, x)
    assert all(isinstance(t, cr.NoTangent) for t in pb(cr.NoTangent()))


def test_errors_name_the_function() -> None:
    x = np.arange(4.0)
    with pytest.raises(ValueError, match=r"quantile.*method"):
        cr.rrule(np.quantile, x, 0.5, method="inverted_cdf")
    with pytest.raises(TypeError, match="quantile"):
        cr.rrule(np.quantile, x, 0.5, out=np.empty(()))


@pytest.mark.parametrize("f", [np.median, np.nanmedian, np.nanquantile, np.nanpercentile])
def test_quantiles_of_empty_input_have_empty_cotangents(f: Any) -> None:
    # nothing reduced: y is NaN whatever a is, the cotangent of a is empty (it was an IndexError)
    args = (np.zeros((3, 0)),) if "median" in f.__name__ else (np.zeros((3, 0)), 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y, pb = cr.rrule(f, *args, axis=1)
        assert np.array_equal(y, f(*args, axis=1), equal_nan=True)
        a_bar = pb(np.ones(3))[1]
        assert a_bar.shape == (3, 0) and a_bar.dtype == np.float64
        t = (cr.NoTangent(), np.ones((3, 0)), *(cr.ZeroTangent(),) * (len(args) - 1))
        assert isinstance(cr.frule(t, f, *args, axis=1)[1], cr.AbstractZero)


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
    # C = Xc W Xc^H / f for complex X: the shared _Cov cast X to float64 (dropping the imaginary
    # part, ComplexWarning) and transposed without conjugating; corrcoef's scale is 1/sqrt(Re C_ii)
    from chainrules.testing import test_frule, test_rrule

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
