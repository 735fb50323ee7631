"""HIPS autograd's own tests on chainrules.ad (through the stand-in package): the pass count
must not fall, and the stand-in's scipy.stats formulas give SciPy's values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent

# measured on main (suite at bff107b of HIPS/autograd): 581 of 594 applicable
MIN_PASSED = 581


def test_autograd_suite_pass_count(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    subprocess.run(
        [sys.executable, str(HERE / "run_autograd_suite.py"), "--json", str(out)],
        check=True,
        capture_output=True,
    )
    counts = json.loads(out.read_text())["counts"]
    assert counts["passed"] >= MIN_PASSED, counts
    assert counts["passed"] / (counts["passed"] + counts["failed"]) >= 0.97, counts


@pytest.fixture
def standin_stats():  # type: ignore[no-untyped-def]
    """The stand-in's formulas, loaded from their file (``autograd`` may be the real package in
    this process: tests/interop imports it)."""
    import importlib.util

    path = HERE / "autograd_standin" / "autograd" / "scipy" / "stats" / "_dists.py"
    spec = importlib.util.spec_from_file_location("_standin_dists", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_standin_distributions_match_scipy(standin_stats) -> None:  # type: ignore[no-untyped-def]
    import scipy.stats as st

    d = standin_stats
    x = np.array([0.2, 0.5, 0.9])
    for name in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        np.testing.assert_allclose(
            getattr(d.norm, name)(x, 0.3, 1.7), getattr(st.norm, name)(x, 0.3, 1.7)
        )
    for name in ("logpdf", "pdf", "cdf"):
        np.testing.assert_allclose(
            getattr(d.t, name)(x - 0.5, 3.5), getattr(st.t, name)(x - 0.5, 3.5)
        )
        np.testing.assert_allclose(getattr(d.chi2, name)(x, 3), getattr(st.chi2, name)(x, 3))
        np.testing.assert_allclose(getattr(d.gamma, name)(x, 2.5), getattr(st.gamma, name)(x, 2.5))
        np.testing.assert_allclose(
            getattr(d.beta, name)(x, 2.0, 3.0), getattr(st.beta, name)(x, 2.0, 3.0)
        )
    k = np.array([0.0, 2.0, 5.0])
    for name in ("logpmf", "pmf", "cdf"):
        np.testing.assert_allclose(
            getattr(d.poisson, name)(k, 2.5), getattr(st.poisson, name)(k, 2.5)
        )
    alpha = np.array([1.5, 2.0, 3.0])
    p = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(d.dirichlet.logpdf(p, alpha), st.dirichlet.logpdf(p, alpha))
    cov = np.array([[2.0, 0.3], [0.3, 1.0]])
    xs = np.array([[0.1, 0.4], [1.0, -0.5]])
    mean = np.array([0.2, 0.1])
    np.testing.assert_allclose(
        d.multivariate_normal.logpdf(xs, mean, cov), st.multivariate_normal.logpdf(xs, mean, cov)
    )
    np.testing.assert_allclose(
        d.multivariate_normal.entropy(mean, cov), st.multivariate_normal.entropy(mean, cov)
    )
