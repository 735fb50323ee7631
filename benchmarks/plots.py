"""The benchmark plots: measured series and the SVGs drawn from a run's JSON (``run.py --plots``).

``measure`` times the series the plots need (each point ``repeats`` times, so every point carries
its range); ``write_svgs`` draws them with matplotlib into ``docs/img/`` (shown on
docs/benchmarks-method.md; the population plots are ``plots_population.py``'s):

* ``scaling.svg`` -- ``rrule(np.sin)`` + pullback against the hand-written two NumPy calls, time
  against n;
* ``inf_norm.svg`` -- the inf-norm pullback: the GPU-safe one (a tie mask and its count) against
  ChainRules.jl's ``argmax`` on the host and a scalar write, time against n;
* ``jacobian_chunks.svg`` -- ``ad.jacobian(mode="fwd")``: forward passes (counted) and time
  against the chunk size.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

try:
    from ._timing import interleaved
except ImportError:  # run as a script
    from _timing import interleaved  # type: ignore[no-redef]

import chainrules as cr
from chainrules import ad


def _spread(samples: list[float]) -> list[float]:
    return [min(samples), statistics.median(samples), max(samples)]


def _series(
    make: Callable[[int], dict[str, Callable[[], object]]],
    ns: list[int],
    repeats: int,
    budget: float,
) -> dict[str, Any]:
    """For each n, each function's time (min, median, max over ``repeats`` interleaved runs)."""
    out: dict[str, Any] = {"n": ns}
    for n in ns:
        fns = make(n)
        samples: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(repeats):
            for k, t in interleaved(fns, rounds=3, budget=budget).items():
                samples[k].append(t)
        for k, v in samples.items():
            out.setdefault(k, []).append(_spread(v))
    return out


def _sin(n: int) -> dict[str, Callable[[], object]]:
    x = np.linspace(-3.0, 3.0, n)
    g = np.ones(n)

    def rule() -> object:
        y, pullback = cr.rrule(np.sin, x)
        return y, pullback(g)[1]

    def hand() -> object:
        return np.sin(x), g * np.cos(x)

    return {"rrule + pullback": rule, "hand-written": hand}


def _inf_norm(n: int) -> dict[str, Callable[[], object]]:
    x = np.random.default_rng(0).standard_normal(n)
    _, pullback = cr.rrule(np.linalg.norm, x, ord=np.inf)

    def scalar_write() -> object:  # ChainRules.jl's: the index on the host, one element written
        i = int(np.argmax(np.abs(x)))
        g = np.zeros_like(x)
        g[i] = np.sign(x[i])
        return g

    return {
        "GPU-safe (mask and count)": lambda: pullback(1.0)[1],
        "argmax + scalar write": scalar_write,
    }


def _jacobian_point(x: np.ndarray, k: int, repeats: int, budget: float) -> tuple[int, list[float]]:
    """Forward passes (counted) and time of ``ad.jacobian`` at chunk size ``k``."""
    calls: list[int] = []

    def f(v: Any) -> Any:
        calls.append(1)
        return np.sin(v) * v

    jac = ad.jacobian(f, chunk_size=k)
    jac(x)
    passes = len(calls)
    fns = {"jacobian": lambda: jac(x)}
    samples = [interleaved(fns, rounds=3, budget=budget)["jacobian"] for _ in range(repeats)]
    return passes, _spread(samples)


def _jacobian_chunks(n: int, chunks: list[int], repeats: int, budget: float) -> dict[str, Any]:
    x = np.linspace(0.1, 1.0, n)
    points = [_jacobian_point(x, k, repeats, budget) for k in chunks]
    return {
        "n": n,
        "chunk": chunks,
        "passes": [p for p, _ in points],
        "seconds": [t for _, t in points],
    }


def measure(quick: bool = False, repeats: int = 3, err: TextIO = sys.stderr) -> dict[str, Any]:
    """The plots' series, every point ``repeats`` times (at least 3: the range needs them)."""
    repeats = max(repeats, 3)
    budget = 0.02 if quick else 0.1
    ns = [10, 1_000, 100_000, 1_000_000] if quick else [10, 100, 1_000, 10_000, 100_000, 1_000_000]
    err.write("  scaling: rrule(np.sin) + pullback against hand-written\n")
    scaling = _series(_sin, ns, repeats, budget)
    err.write("  inf-norm pullback: GPU-safe against a scalar write\n")
    inf_ns = [1_000, 100_000, 1_000_000] if quick else [1_000, 10_000, 100_000, 1_000_000]
    inf = _series(_inf_norm, inf_ns, repeats, budget)
    err.write("  jacobian(fwd): passes against chunk size\n")
    jac = _jacobian_chunks(64, [1, 2, 4, 8, 16, 32, 64], repeats, budget)
    return {"repeats": repeats, "scaling": scaling, "inf_norm": inf, "jacobian_chunks": jac}


# --- drawing ------------------------------------------------------------------------------------


# set for the drawing only (matplotlib.rc_context), on figures made without pyplot: nothing of
# matplotlib's global state (backend, rcParams, pyplot's figure list) outlives write_svgs
RC: Any = {  # matplotlib.rc_context types its keys as Literal names
    "svg.fonttype": "none",  # text stays text: small files, searchable
    "svg.hashsalt": "chainrules",  # stable element ids, so regenerated files diff cleanly
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
}


def _figure() -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 3.4))
    return fig, fig.subplots()


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
    return path


def _errorbars(ax: Any, xs: list[float], pts: list[list[float]], label: str, fmt: str) -> None:
    lo, med, hi = (np.array([p[i] for p in pts]) for i in range(3))
    ax.errorbar(xs, med, yerr=[med - lo, hi - med], fmt=fmt, capsize=3, label=label)


def _time_vs_n(s: dict[str, Any], title: str, path: Path) -> Path:
    fig, ax = _figure()
    for (k, pts), fmt in zip(((k, v) for k, v in s.items() if k != "n"), ("o-", "s--", "^:")):
        _errorbars(ax, s["n"], [[t * 1e6 for t in p] for p in pts], k, fmt)
    ax.set(xscale="log", yscale="log", xlabel="n (elements)", ylabel="time per call (µs)")
    ax.set_title(title)
    ax.legend()
    return _save(fig, path)


def write_svgs(data: dict[str, Any], img: Path) -> list[Path]:
    """Draw every plot the run's JSON has data for into ``img``; return the files written."""
    import matplotlib

    img.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context(RC):
        return _draw(data, img)


def _draw(data: dict[str, Any], img: Path) -> list[Path]:
    written = []
    note = " (quick run)" if data.get("quick") else ""
    series = data.get("series") or {}
    if "scaling" in series:
        title = "rrule(np.sin) + pullback against hand-written NumPy" + note
        written.append(_time_vs_n(series["scaling"], title, img / "scaling.svg"))
    if "inf_norm" in series:
        title = "inf-norm pullback: GPU-safe against a scalar write" + note
        written.append(_time_vs_n(series["inf_norm"], title, img / "inf_norm.svg"))
    if "jacobian_chunks" in series:
        j = series["jacobian_chunks"]
        fig, ax = _figure()
        ax.plot(j["chunk"], j["passes"], "o-", label="forward passes (counted)")
        ax.plot(j["chunk"], [math.ceil(j["n"] / k) for k in j["chunk"]], "k:", label="⌈n / chunk⌉")
        ax.set(xscale="log", yscale="log", xlabel="chunk size", ylabel="forward passes")
        ax.set_xticks(j["chunk"], [str(k) for k in j["chunk"]])
        ax2 = ax.twinx()
        _errorbars(ax2, j["chunk"], [[t * 1e3 for t in p] for p in j["seconds"]], "time", "s--C1")
        ax2.set(yscale="log", ylabel="time of jacobian (ms)")
        ax2.grid(False)
        lines = ax.get_legend_handles_labels()
        more = ax2.get_legend_handles_labels()
        ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper right")
        ax.set_title(f"jacobian(mode='fwd'), n = m = {j['n']}" + note)
        written.append(_save(fig, img / "jacobian_chunks.svg"))
    return written
