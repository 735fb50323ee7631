"""scipy.special's gamma family (gamma, gammaln, digamma, polygamma, beta, comb, gammainc, zeta,
...): every registration on every backend, rgamma's second derivative, comb's primal at the
edges."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.backends import BACKENDS
from chainrules.testing.suite import COLUMNS, _missing, rule_tests, run_cell

test_rule = rule_tests("chainrules.rules.scipy.special.gamma")

sps = pytest.importorskip("scipy.special")


def test_rgamma_second_derivative() -> None:
    """rgamma' = -rgamma digamma; finite differences of the pullback give rgamma'' =
    rgamma (digamma**2 - trigamma)."""
    x = np.array([0.8, 2.5])
    _, pb = cr.rrule(sps.rgamma, x)
    r, psi, tri = sps.rgamma(x), sps.digamma(x), sps.polygamma(1, x)
    np.testing.assert_allclose(pb(np.ones(2))[1], -r * psi)
    h = 1e-6
    fd = (
        cr.rrule(sps.rgamma, x + h)[1](np.ones(2))[1]
        - cr.rrule(sps.rgamma, x - h)[1](np.ones(2))[1]
    ) / (2 * h)
    np.testing.assert_allclose(fd, r * (psi**2 - tri), rtol=1e-6)


# --- issue 26: comb's primal is SciPy's for every keyword and edge input --------------------------
_COMB_VALUES = [-3.0, -1.5, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 5.5, 10.0, 100.0, 1e3, 1e10]
_COMB_EDGES = [*_COMB_VALUES, np.nan, np.inf, -np.inf]


def _same_value(got, want, what) -> None:  # type: ignore[no-untyped-def]
    assert type(got) is type(want), f"{what}: {type(got).__name__}, SciPy {type(want).__name__}"
    assert getattr(got, "dtype", None) == getattr(want, "dtype", None), what
    assert np.shape(got) == np.shape(want), what
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("repetition", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_comb_primal_is_scipys_on_an_edge_grid(repetition, dtype) -> None:  # type: ignore[no-untyped-def]
    """Arrays of every pair of edge values (negative, non-integer, N < k, large, NaN, inf) and
    each pair as Python floats, NumPy scalars and 0-d arrays: the rule's primal is
    scipy.special.comb's value, type, dtype and shape (repetition=True gave 0 where SciPy's
    binom(N + k - 1, k) is not, e.g. comb(0, 0) = 1 and comb(-1.5, 2) = 0.375; scalars gave a
    0-d array, SciPy a NumPy scalar)."""
    n, k = (g.astype(dtype) for g in np.meshgrid(_COMB_EDGES, _COMB_EDGES, indexing="ij"))
    with np.errstate(all="ignore"):
        want = sps.comb(n, k, repetition=repetition)
        got = cr.rrule(sps.comb, n, k, repetition=repetition)[0]
        _same_value(got, want, "arrays")
        for a, b in zip(n.ravel().tolist(), k.ravel().tolist()):
            for conv in (float, dtype, np.asarray):
                x, y = conv(a), conv(b)
                want = sps.comb(x, y, repetition=repetition)
                got = cr.rrule(sps.comb, x, y, repetition=repetition)[0]
                _same_value(got, want, f"comb({x!r}, {y!r}, repetition={repetition})")


@pytest.mark.parametrize("repetition", [False, True])
def test_comb_exact_primal_is_scipys(repetition) -> None:  # type: ignore[no-untyped-def]
    """exact=True: Python ints, floats and NumPy integers (float operands raised an
    AttributeError in the rule), including N < k, negative and large operands."""
    ints = [-3, -1, 0, 1, 2, 3, 10, 100]
    for a in ints:
        for b in ints:
            for conv in (int, float, np.int64, np.float64):
                x, y = conv(a), conv(b)
                want = sps.comb(x, y, exact=True, repetition=repetition)
                got, pb = cr.rrule(sps.comb, x, y, exact=True, repetition=repetition)
                _same_value(got, want, f"comb({x!r}, {y!r}, exact=True)")
                for bar in pb(1.0)[1:]:  # an integer, piecewise constant: no derivative
                    bar = cr.unthunk(bar)
                    assert isinstance(bar, cr.AbstractZero) or not np.any(bar), (x, y, bar)


def test_comb_repetition_derivative_where_scipy_is_nonzero() -> None:
    """With repetition=True the derivatives are those of binom(N + k - 1, k) wherever SciPy
    returns it (N < 1 too, where the rule gave 0): central differences agree."""
    rng = np.random.default_rng(3)
    n, k = rng.uniform(-3.8, 0.9, 200), rng.uniform(0.1, 4.0, 200)
    n = n[np.abs(n - np.round(n)) > 0.05]  # off the poles of digamma(N)
    k = k[: n.size]
    _, pb = cr.rrule(sps.comb, n, k, repetition=True)
    _, dn, dk = pb(np.ones(n.size))
    h = 1e-6
    fd_n = (sps.comb(n + h, k, repetition=True) - sps.comb(n - h, k, repetition=True)) / (2 * h)
    fd_k = (sps.comb(n, k + h, repetition=True) - sps.comb(n, k - h, repetition=True)) / (2 * h)
    assert np.any(fd_n != 0)
    np.testing.assert_allclose(dn, fd_n, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dk, fd_k, rtol=1e-6, atol=1e-7)


# --- psi, until tests/rules/test_torch_numpy.py runs rule_tests("chainrules.rules.torch_numpy") ---
# psi (torch.special's name for digamma) is registered by chainrules/rules/torch_numpy.py with the
# shared ``elementwise`` (chainrules/rules/_util/special.py), so its module is torch_numpy's; its
# cells ran in this package's rule_tests before the split, and run here (what rule_tests runs)
_PSI = next(r for r in cr.registrations() if r.name == "scipy:special.psi")


@pytest.mark.parametrize(
    "column",
    [
        pytest.param(c, marks=[pytest.mark.skip(reason=w)] if (w := _missing(c)) else [])
        for c in COLUMNS
    ],
)
def test_psi_cells(column: str) -> None:
    assert _PSI.module == "chainrules.rules.torch_numpy"  # not in any rule_tests of this package
    if column == "jit":
        BACKENDS["jax"].namespace()  # float64 references
    cell = run_cell(_PSI, column)
    assert not cell.failed, "\n".join(cell.errors + cell.undeclared)
    if cell.status in ("n/a", "none"):  # as in rule_tests: the column has nothing to run
        assert cell.status == "n/a" or _PSI.non_differentiable, "psi: no examples"
        return
    if cell.status == "skip":
        pytest.skip("; ".join(cell.skip_reasons()))
    assert cell.checks > 0, f"psi on {column}: no check ran"
    if cell.status == "xfail":
        pytest.xfail("; ".join(cell.xfailed))


@pytest.mark.parametrize("fn", ["digamma", "psi"])
def test_digamma_at_a_complex_argument_refuses_its_derivative_by_name(fn: str) -> None:
    """SciPy computes digamma at complex z, and gamma's and loggamma's derivatives use it; digamma's
    own derivative, polygamma(1, z), SciPy computes for real z only: the pullback and the
    pushforward raise a TypeError that says so (they raised SciPy's "ufunc '_zeta' not supported
    for the input types"), and the value stays SciPy's."""
    f = getattr(sps, fn)
    z = np.array([1.0 + 1.0j, 2.0 - 0.5j])
    y, pb = cr.rrule(f, z)
    np.testing.assert_array_equal(y, f(z))
    with pytest.raises(TypeError, match=r"polygamma\(1, z\).*real arguments only"):
        pb(np.ones(2, complex))
    with pytest.raises(TypeError, match=r"polygamma\(1, z\).*real arguments only"):
        cr.frule((cr.NoTangent(), np.ones(2, complex)), f, z)
    _, pb = cr.rrule(sps.loggamma, z)  # digamma at complex z: a derivative SciPy has
    np.testing.assert_allclose(pb(np.ones(2, complex))[1], np.conj(sps.digamma(z)))
