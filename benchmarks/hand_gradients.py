"""Small models that ship hand-written gradients (issue 27, stage 2): ``chainrules.ad``'s value
and gradient against the hand-written value and gradient, at 1-10 parameters.

Samplers (HMC/NUTS) and optimisers call a gradient millions of times on such models, so what the
engine adds to a call is the whole cost. Each model is a log-density or objective with its
gradient written out: SciPy's ``rosen`` with ``rosen_der`` (shipped by SciPy), and log-densities
and priors written here with their textbook gradients. Every gradient is checked against the
engine's before it is timed.

Reported per model, as the median over interleaved rounds in one process (this thread's CPU
time, BLAS on one thread): ``ad.value_and_grad(f)`` and ``ad.jit(ad.value_and_grad(f))`` over
the hand-written value and gradient. Target: the median over the models <= 3x.

    python benchmarks/hand_gradients.py [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # BLAS on one thread, set before NumPy loads
    for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_v, "1")
    # SciPy's rosen differentiates unchanged in SciPy's array-API mode (docs/ad.md)
    os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))  # benchmarks/, as run.py does

from _timing import interleaved

from chainrules import ad

RNG = np.random.default_rng(0)
DATA = RNG.standard_normal(20) * 1.5 + 0.3
X_LOG = RNG.standard_normal((30, 5))
Y_LOG = (RNG.random(30) < 0.5).astype(np.float64)
X_POI = RNG.standard_normal((25, 3)) * 0.3
Y_POI = RNG.poisson(2.0, 25).astype(np.float64)
NU = 4.0


def normal_loglik(t: Any) -> Any:
    """Normal log-likelihood of DATA in (mu, log sigma)."""
    mu, log_s = t[0], t[1]
    z = (DATA - mu) / np.exp(log_s)
    return -0.5 * np.sum(z**2) - DATA.size * log_s


def normal_loglik_hand(t: Any) -> tuple[Any, Any]:
    mu, log_s = t[0], t[1]
    s = np.exp(log_s)
    z = (DATA - mu) / s
    v = -0.5 * np.sum(z**2) - DATA.size * log_s
    return v, np.array([np.sum(z) / s, np.sum(z**2) - DATA.size])


def logistic_posterior(w: Any) -> Any:
    """Logistic regression log-likelihood with a standard normal prior, 5 weights."""
    eta = X_LOG @ w
    return np.sum(Y_LOG * eta - np.logaddexp(0.0, eta)) - 0.5 * np.sum(w**2)


def logistic_posterior_hand(w: Any) -> tuple[Any, Any]:
    eta = X_LOG @ w
    v = np.sum(Y_LOG * eta - np.logaddexp(0.0, eta)) - 0.5 * np.sum(w**2)
    p = 1.0 / (1.0 + np.exp(-eta))
    return v, X_LOG.T @ (Y_LOG - p) - w


def poisson_glm(b: Any) -> Any:
    """Poisson regression log-likelihood (log link), 3 coefficients."""
    eta = X_POI @ b
    return np.sum(Y_POI * eta - np.exp(eta))


def poisson_glm_hand(b: Any) -> tuple[Any, Any]:
    eta = X_POI @ b
    mu = np.exp(eta)
    return np.sum(Y_POI * eta - mu), X_POI.T @ (Y_POI - mu)


def student_t(t: Any) -> Any:
    """Student-t log-likelihood of DATA (fixed nu) in (location, log scale)."""
    z = (DATA - t[0]) / np.exp(t[1])
    return -0.5 * (NU + 1.0) * np.sum(np.log1p(z**2 / NU)) - DATA.size * t[1]


def student_t_hand(t: Any) -> tuple[Any, Any]:
    s = np.exp(t[1])
    z = (DATA - t[0]) / s
    v = -0.5 * (NU + 1.0) * np.sum(np.log1p(z**2 / NU)) - DATA.size * t[1]
    w = (NU + 1.0) * z / (NU + z**2)  # d/dz of -0.5 (nu + 1) log1p(z^2 / nu), negated
    return v, np.array([np.sum(w) / s, np.sum(w * z) - DATA.size])


def diag_mvn(x: Any) -> Any:
    """Log-density of N(m, diag(s^2)) in 10 dimensions."""
    m, s = np.linspace(-1.0, 1.0, 10), np.linspace(0.5, 2.0, 10)
    return -0.5 * np.sum(((x - m) / s) ** 2)


def diag_mvn_hand(x: Any) -> tuple[Any, Any]:
    m, s = np.linspace(-1.0, 1.0, 10), np.linspace(0.5, 2.0, 10)
    r = (x - m) / s
    return -0.5 * np.sum(r**2), -r / s


def gamma_prior_log(u: Any) -> Any:
    """A Gamma(2, 3) prior on exp(u) with the log-Jacobian, 4 independent scales."""
    return np.sum(2.0 * u - 3.0 * np.exp(u))


def gamma_prior_log_hand(u: Any) -> tuple[Any, Any]:
    e = np.exp(u)
    return np.sum(2.0 * u - 3.0 * e), 2.0 - 3.0 * e


def _rosen() -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    from scipy.optimize import rosen, rosen_der

    return rosen, lambda x: (rosen(x), rosen_der(x))


MODELS: dict[str, tuple[Callable[[], tuple[Any, Any]], np.ndarray]] = {
    "scipy rosen (n=2)": (_rosen, np.array([0.5, 1.5])),
    "scipy rosen (n=10)": (_rosen, np.linspace(0.1, 1.9, 10)),
    "normal log-likelihood": (lambda: (normal_loglik, normal_loglik_hand), np.array([0.2, 0.1])),
    "logistic posterior": (
        lambda: (logistic_posterior, logistic_posterior_hand),
        np.linspace(-0.5, 0.5, 5),
    ),
    "poisson glm": (lambda: (poisson_glm, poisson_glm_hand), np.array([0.3, -0.2, 0.1])),
    "student-t log-likelihood": (lambda: (student_t, student_t_hand), np.array([0.1, 0.3])),
    "diagonal normal (n=10)": (lambda: (diag_mvn, diag_mvn_hand), np.linspace(0.0, 1.0, 10)),
    "gamma prior on log scales": (
        lambda: (gamma_prior_log, gamma_prior_log_hand),
        np.array([0.1, -0.3, 0.5, 0.0]),
    ),
}


def calls(name: str) -> dict[str, Callable[[], Any]]:
    """The model's timed calls -- ``hand``, ``ad``, ``ad.jit`` -- each checked first."""
    make, x = MODELS[name]
    f, hand = make()
    want_v, want_g = hand(x)
    vg, jvg = ad.value_and_grad(f), ad.jit(ad.value_and_grad(f))
    jvg(x)  # recorded
    for got_v, got_g in (vg(x), jvg(x)):
        np.testing.assert_allclose(got_v, want_v, rtol=1e-12)
        np.testing.assert_allclose(got_g, want_g, rtol=1e-10, atol=1e-12)
    return {"hand": lambda: hand(x), "ad": lambda: vg(x), "ad.jit": lambda: jvg(x)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="3 rounds per measurement, not 7")
    a = p.parse_args()
    rounds = 3 if a.quick else 7
    ratios: dict[str, dict[str, list[float]]] = {"ad": {}, "ad.jit": {}}
    for _ in range(a.runs):
        for name in MODELS:
            t = interleaved(calls(name), rounds=rounds, budget=0.05, timer=time.thread_time)
            for k in ratios:
                ratios[k].setdefault(name, []).append(t[k] / t["hand"])
    print("| model | ad.value_and_grad / hand | ad.jit(ad.value_and_grad) / hand |")
    print("|---|---:|---:|")
    for name in MODELS:
        cells = []
        for k in ratios:
            r = ratios[k][name]
            cells.append(f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f})")
        print(f"| {name} | {' | '.join(cells)} |")
    for k, per in ratios.items():
        meds = [statistics.median(r) for r in per.values()]
        runs = [statistics.median(r[i] for r in per.values()) for i in range(a.runs)]
        print(
            f"{k}: median over the models {statistics.median(meds):.2f}x the hand-written value "
            f"and gradient (per run {', '.join(f'{m:.2f}' for m in runs)}); target <= 3x"
        )


if __name__ == "__main__":
    main()
