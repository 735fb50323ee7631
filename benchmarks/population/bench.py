"""Check, then time, every program of the population under each engine; report the ratios.

For each program and transformation (``grad`` and ``hessian`` of a scalar program, ``jacobian``
of a vector one) the engines' results are first compared with autograd's (rtol 1e-7): a program
where ``chainrules.ad`` raises or disagrees is listed as such and not timed; one where autograd
raises is listed as "baseline fails" (no ratio). The rest are timed in alternating rounds in this
process (``_timing.interleaved``, CPU time of this thread, BLAS pinned to one thread), and the
ratio is chainrules' time over the peer's: the median over rounds, then over ``--repeats`` runs.
"""

from __future__ import annotations

import contextlib
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from .._timing import KEEP_HEAP, heap_kept, interleaved
from .engines import ENGINES, Engine, chainrules_engine
from .programs import CATEGORIES, Program, population

RTOL = 1e-7
# torch runs its own kernels (exp, pow, solve): a few ulps apart from NumPy's, compounded
PEER_RTOL = 1e-6
OURS, BASE = "chainrules", "autograd"


@contextlib.contextmanager
def quiet() -> Iterator[list[str]]:
    """NumPy's floating-point warnings and the engines' warnings, collected, not raised."""
    seen: list[str] = []
    with warnings.catch_warnings(record=True) as w, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        yield seen
    seen.extend(sorted({f"{type(x.message).__name__}: {x.message}"[:200] for x in w}))


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """BLAS (and OpenMP) pinned to one thread for the duration, where threadpoolctl is here."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # the launcher's environment variables still hold
        yield
        return
    with threadpool_limits(limits=1):
        yield


def transforms_of(p: Program) -> tuple[str, ...]:
    if p.output == "vector":
        return ("jacobian",)
    return ("grad", "hessian") if isinstance(p.args[0], np.ndarray) else ("grad",)


def _leaves(v: Any) -> list[np.ndarray]:
    if isinstance(v, (list, tuple)):
        return [a for e in v for a in _leaves(e)]
    if isinstance(v, dict):
        return [a for k in sorted(v) for a in _leaves(v[k])]
    return [np.asarray(v, dtype=float)]


def disagreement(ours: Any, ref: Any, rtol: float = RTOL) -> str | None:
    """Why ``ours`` differs from ``ref`` (``rtol``, atol 1e-9 of the reference's scale), or
    None when they agree (NaN where the reference has NaN)."""
    a, b = _leaves(ours), _leaves(ref)
    if len(a) != len(b):
        return f"{len(a)} arrays against {len(b)}"
    for u, v in zip(a, b):
        if u.shape != v.shape:
            return f"shape {u.shape} against {v.shape}"
        finite = np.isfinite(v)
        scale = max(1.0, float(np.max(np.abs(v[finite]), initial=0.0)))
        if not np.allclose(u, v, rtol=rtol, atol=1e-9 * scale, equal_nan=True):
            with np.errstate(all="ignore"):
                d = np.abs(u - v)
                err = float(np.max(d[~np.isnan(d)], initial=np.inf)) / scale
            return f"max |difference| / scale = {err:.3g}"
    return None


@dataclass
class Cell:
    """One program under one transformation."""

    program: Program
    transform: str
    status: str = "timed"  # timed | ours fails | disagrees | baseline fails | both fail
    detail: str = ""
    peers: dict[str, str] = field(default_factory=dict)  # peer -> "ok" or why it is not timed
    calls: dict[str, Callable[[], Any]] = field(default_factory=dict, repr=False)
    ratios: dict[str, list[float]] = field(default_factory=dict)  # peer -> one per repeat
    seconds: dict[str, list[float]] = field(default_factory=dict)  # engine -> one per repeat
    warnings: list[str] = field(default_factory=list)

    def ratio(self, peer: str = BASE) -> float | None:
        r = self.ratios.get(peer)
        return statistics.median(r) if r else None


def _call(engine: Engine, p: Program, t: str) -> Callable[[], Any]:
    f = engine.transform(t, p.function(engine.load))
    args = tuple(engine.convert(a) for a in p.args)
    return lambda: f(*args)


def _nondeterministic(p: Program) -> bool:
    """Two calls of the NumPy function at the same point give different values (SciPy's
    ``Stochastic`` and ``XinSheYang01`` draw random numbers inside)."""
    f = p.function("numpy")
    with quiet():
        a, b = f(*p.args), f(*p.args)
    return disagreement(a, b) is not None


def _where(exc: BaseException) -> str:
    """``"[scipy/stats/_multivariate.py:logpdf] "``: the innermost frame of the traceback that
    lies outside the engines and this benchmark (the user's or library's call that failed)."""
    import traceback

    skip = (os.sep + "chainrules" + os.sep, os.sep + "autograd" + os.sep, os.sep + "torch" + os.sep)
    skip += (os.path.dirname(os.path.abspath(__file__)) + os.sep + "bench.py",)
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if not any(k in f.filename for k in skip)
    ]
    if not frames:
        return ""
    f = frames[-1]
    parts = f.filename.split(os.sep)
    return f"[{os.sep.join(parts[-3:])}:{f.lineno} {f.name}] "


def check(p: Program, t: str, engines: dict[str, Engine]) -> Cell:
    """Run each engine once and compare with autograd; the cell's status and its timed calls."""
    cell = Cell(p, t)
    results: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, e in engines.items():
        if name == "numpy" and p.family is None:
            continue
        try:
            with quiet() as seen:
                call = _call(e, p, "grad" if name == "numpy" else t)
                call()  # the first call may differ from the timed ones (ad.jit records it)
                results[name] = e.to_numpy(call())
            cell.calls[name] = call
            if name == OURS:
                cell.warnings = seen
        except Exception as exc:  # noqa: BLE001  (reported in the cell)
            errors[name] = _where(exc) + f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    if OURS in errors and BASE in errors:
        cell.status, cell.detail = "both fail", f"ours: {errors[OURS]}; autograd: {errors[BASE]}"
    elif OURS in errors:
        cell.status, cell.detail = "ours fails", errors[OURS]
    elif BASE in errors:
        cell.status, cell.detail = "baseline fails", errors[BASE]
    elif _nondeterministic(p):
        cell.detail = "draws random numbers on each call: timed, not compared"
    else:
        why = disagreement(results[OURS], results[BASE])
        if why:
            cell.status, cell.detail = "disagrees", why
    # a further peer is compared with autograd's result, or with ours where autograd has none
    ref_name = BASE if BASE in results else OURS
    for name in engines:
        if name in (OURS, BASE, "numpy"):
            continue
        if name in errors:
            cell.peers[name] = errors[name]
        elif ref_name not in results:
            cell.peers[name] = "not compared: neither chainrules nor autograd has a result"
        elif why := disagreement(results[name], results[ref_name], PEER_RTOL):
            cell.peers[name] = f"disagrees with {ref_name}: {why}"
        else:
            cell.peers[name] = "ok"
    return cell


def time_cell(cell: Cell, rounds: int, budget: float) -> None:
    """One repeat: the cell's calls timed in alternating rounds; appends to its ratios."""
    fns = {
        k: v
        for k, v in cell.calls.items()
        if k in (OURS, "numpy")
        or (k == BASE and cell.status == "timed")
        or cell.peers.get(k) == "ok"
    }
    with quiet():
        t = interleaved(fns, rounds=rounds, budget=budget, timer=time.thread_time)
    for k, v in t.items():
        cell.seconds.setdefault(k, []).append(v)
        if k != OURS:
            cell.ratios.setdefault(k, []).append(t[OURS] / v)


# --- the report ----------------------------------------------------------------------------------
def _stats(values: list[tuple[float, str]]) -> dict[str, Any]:
    if not values:
        return {}
    r = np.array([v for v, _ in values])
    worst = max(values)
    return {
        "median": float(np.median(r)),
        "p90": float(np.percentile(r, 90)),
        "worst": worst[0],
        "worst_program": worst[1],
        "geomean": float(np.exp(np.mean(np.log(r)))),
        "faster": int(np.sum(r < 1)),
    }


def summary(cells: list[Cell], peer: str = BASE) -> dict[str, dict[str, dict[str, Any]]]:
    """transform -> category (and "all") -> counts and ratio statistics, with the range of the
    median and p90 over the repeats."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for t in sorted({c.transform for c in cells}, key=["grad", "hessian", "jacobian"].index):
        out[t] = {}
        for cat in [*CATEGORIES, "all"]:
            cs = [c for c in cells if c.transform == t and cat in ("all", c.program.category)]
            if not cs:
                continue
            counts = {s: sum(c.status == s for c in cs) for s in STATUSES}
            timed = [c for c in cs if c.ratio(peer) is not None]
            row: dict[str, Any] = {"programs": len(cs), **counts, "timed_" + peer: len(timed)}
            if peer != BASE:
                row[peer + " fails or disagrees"] = sum(c.peers.get(peer, "ok") != "ok" for c in cs)
            row.update(_stats([(c.ratio(peer), c.program.name) for c in timed]))  # type: ignore[misc]
            runs = min((len(c.ratios[peer]) for c in timed), default=0)
            if runs > 1:
                per_run = [
                    _stats([(c.ratios[peer][k], c.program.name) for c in timed])
                    for k in range(runs)
                ]
                row["median_range"] = [
                    min(s["median"] for s in per_run),
                    max(s["median"] for s in per_run),
                ]
                row["p90_range"] = [min(s["p90"] for s in per_run), max(s["p90"] for s in per_run)]
            out[t][cat] = row
    return out


STATUSES = ("timed", "ours fails", "disagrees", "baseline fails", "both fail")
_LABEL = {"grad": "grad", "hessian": "hessian", "jacobian": "jacobian"}


def _fmt_range(row: dict[str, Any], key: str) -> str:
    v = row.get(key)
    if v is None:
        return "–"
    rng = row.get(key + "_range")
    return f"{v:.2f}" + (f" ({rng[0]:.2f}–{rng[1]:.2f})" if rng else "")


def markdown(summ: dict[str, dict[str, dict[str, Any]]], peer: str) -> str:
    """One table per transformation: counts, then the ratio's median, 90th percentile (each with
    its range over the runs), worst program, geometric mean and the number of programs where
    chainrules.ad is faster. "ours fails" counts cells where only chainrules.ad raises;
    "autograd fails" those where autograd raises (chainrules.ad too or not)."""
    lines = []
    other = peer != BASE
    for t, rows in summ.items():
        mid = f"| {peer} fails or disagrees " if other else "| disagrees | autograd fails "
        lines += [
            f"\n**{t}**: chainrules.ad over {peer} (time ratio; < 1 is faster)\n",
            "| category | programs | timed | ours fails "
            + mid
            + "| median | p90 | worst (program) | geomean | faster |",
            "|---|---|---|---" + "|---" * (1 if other else 2) + "|---|---|---|---|---|",
        ]
        for cat, r in rows.items():
            worst = f"{r['worst']:.2f} ({r['worst_program']})" if "worst" in r else "–"
            geo = f"{r['geomean']:.2f}" if "geomean" in r else "–"
            cells = (
                f"| {r[peer + ' fails or disagrees']} "
                if other
                else f"| {r['disagrees']} | {r['baseline fails'] + r['both fail']} "
            )
            lines.append(
                f"| {cat} | {r['programs']} | {r['timed_' + peer]} | {r['ours fails']} "
                + cells
                + f"| {_fmt_range(r, 'median')} | {_fmt_range(r, 'p90')} | {worst} | {geo} "
                f"| {r.get('faster', 0)} |"
            )
    return "\n".join(lines)


def by_spelling(cells: list[Cell]) -> str:
    """The ratio to autograd's median per spelling tag (a program counts under each tag its
    source uses)."""
    tags = sorted({t for c in cells for t in c.program.spelling.split(",") if t})
    transforms = [
        t for t in ("grad", "hessian", "jacobian") if any(c.transform == t for c in cells)
    ]
    lines = [
        "\n**by spelling** (median ratio to autograd over the programs that use each spelling)\n",
        "| spelling | " + " | ".join(f"{t}: programs, median" for t in transforms) + " |",
        "|---|" + "---|" * len(transforms),
    ]
    for tag in tags:
        row = [tag]
        for t in transforms:
            r = [
                c.ratio()
                for c in cells
                if c.transform == t and tag in c.program.spelling.split(",") and c.ratio()
            ]
            row.append(f"{len(r)}, {statistics.median(r):.2f}" if r else "0, –")  # type: ignore[type-var]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def spelling_report(cells: list[Cell]) -> tuple[list[dict[str, Any]], str]:
    """For each model written in several spellings: each spelling's time over the same spelling's
    bare NumPy forward call, for chainrules and autograd, and the spread within the model (issue
    27's measure); and each spelling's chainrules time over the model's fastest spelling's, on
    the same arguments, with its spread. At n <= 10 the first moves with NumPy's own times (a
    bare ``x.dot(A)`` takes a third of ``x @ A``'s) under an engine cost per operation that
    does not; the second is the cost a user sees of choosing a spelling."""
    rows = []
    for c in cells:
        p = c.program
        if p.family is None or "numpy" not in c.seconds or OURS not in c.seconds:
            continue
        fwd = statistics.median(c.seconds["numpy"])
        row = {
            "family": p.family,
            "transform": c.transform,
            "spelling": p.spelling,
            "program": p.name,
            "ours_over_numpy": statistics.median(c.seconds[OURS]) / fwd,
            "ours_s": statistics.median(c.seconds[OURS]),
        }
        if BASE in c.seconds:
            row["autograd_over_numpy"] = statistics.median(c.seconds[BASE]) / fwd
        rows.append(row)
    lines = [
        "\n**spellings**: each spelling's time over its own bare NumPy forward call\n",
        "| model | transform | spelling | chainrules / NumPy | autograd / NumPy "
        "| spread (max/min of chainrules') | chainrules | over the fastest spelling "
        "| spread |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for fam in sorted({(r["family"], r["transform"]) for r in rows}):
        rs = [r for r in rows if (r["family"], r["transform"]) == fam]
        ours = [r["ours_over_numpy"] for r in rs]
        spread = max(ours) / min(ours)
        fastest = min(r["ours_s"] for r in rs)
        spread_s = max(r["ours_s"] for r in rs) / fastest
        for r in rs:
            ag = r.get("autograd_over_numpy")
            lines.append(
                f"| {fam[0]} | {fam[1]} | {r['spelling']} | {r['ours_over_numpy']:.1f} "
                f"| {'–' if ag is None else f'{ag:.1f}'} | {spread:.2f} "
                f"| {r['ours_s'] * 1e6:.1f} us | {r['ours_s'] / fastest:.2f} | {spread_s:.2f} |"
            )
    return rows, "\n".join(lines)


def _short(text: str, n: int = 140) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def findings(cells: list[Cell]) -> str:
    """The cells where chainrules.ad raises or disagrees (autograd failing too or not), those
    where only autograd raises, and those not compared; the full messages are in the JSON."""
    groups = [
        ("chainrules.ad disagrees with autograd", ("disagrees",)),
        ("chainrules.ad raises, autograd does not", ("ours fails",)),
        ("both raise", ("both fail",)),
        ("autograd raises (chainrules.ad timed alone: no ratio)", ("baseline fails",)),
    ]
    lines = []
    for title, statuses in groups:
        cs = [c for c in cells if c.status in statuses]
        lines.append(f"\n**{title}** ({len(cs)})\n")
        for c in cs:
            p = c.program
            if c.status == "both fail":
                detail = (
                    _short(c.detail.split("; autograd: ")[0], 120)
                    + "; autograd: "
                    + _short(c.detail.split("; autograd: ")[-1], 60)
                )
            else:
                detail = _short(c.detail)
            lines.append(f"- {p.name} [{c.transform}, {p.category}]: {detail}")
    odd = [c for c in cells if c.status == "timed" and c.detail]
    lines.append(f"\n**timed, not compared** ({len(odd)})\n")
    lines += [f"- {c.program.name} [{c.transform}]: {c.detail}" for c in odd]
    return "\n".join(lines)


def select(programs: Sequence[Program], half: str, names: Sequence[str]) -> list[Program]:
    out = [p for p in programs if half == "all" or p.half == half]
    if names:
        out = [p for p in out if any(n in p.name for n in names)]
    return out


def run(
    programs: Sequence[Program],
    engines: Sequence[str],
    *,
    repeats: int,
    rounds: int,
    budget: float,
    err: TextIO,
    jit: bool = False,
) -> list[Cell]:
    eng = {}
    for name in dict.fromkeys([OURS, BASE, *engines, "numpy"]):
        try:
            eng[name] = chainrules_engine(jit) if name == OURS else ENGINES[name]()
        except ImportError as e:
            if name in (OURS, BASE):
                raise
            err.write(f"engine {name} left out: {e}\n")
    cells: list[Cell] = []
    with one_thread():
        for p in programs:
            for t in transforms_of(p):
                cells.append(check(p, t, eng))
        # cells where autograd fails are timed too (chainrules, NumPy, torch): the spelling report
        timed = [c for c in cells if c.status in ("timed", "baseline fails")]
        err.write(f"checked {len(cells)} cells; timing {len(timed)} x {repeats} ...\n")
        for k in range(repeats):
            t0 = time.perf_counter()
            for c in timed:
                time_cell(c, rounds, budget)
            err.write(f"run {k + 1} of {repeats}: {time.perf_counter() - t0:.0f} s\n")
            err.flush()
    return cells


def run_scale(
    engines: dict[str, Engine], names: Sequence[str], rounds: int, budget: float, err: TextIO
) -> list[dict[str, Any]]:
    """The programs at scale (``sources/scale.py``): each engine's ``value_and_grad`` against
    the hand-written value and gradient, checked first (rtol 1e-7), then timed side by side."""
    from ._load import load
    from .sources import scale

    rows = []
    with one_thread():
        for name, (fn, hand, make) in scale.SCALE.items():
            if names and not any(n in name for n in names):
                continue
            args = make()
            hand_f = getattr(scale, hand)
            row: dict[str, Any] = {"name": name, "elements": max(int(np.size(a)) for a in args)}
            with quiet():
                ref = hand_f(*args)
            calls: dict[str, Callable[[], Any]] = {"hand": lambda h=hand_f, a=args: h(*a)}
            for en, e in engines.items():
                if e.value_and_grad is None:
                    continue
                try:
                    vg = e.value_and_grad(getattr(load(scale.__name__, e.load), fn))
                    a = tuple(e.convert(v) for v in args)
                    with quiet():
                        vg(*a)  # the first call may differ from the timed ones (ad.jit)
                        value, grad = vg(*a)
                    why = disagreement(
                        [e.to_numpy(value), e.to_numpy(grad)],
                        list(ref),
                        RTOL if en != "torch" else PEER_RTOL,
                    )
                except Exception as exc:  # noqa: BLE001  (reported in the row)
                    why = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
                if why:
                    row[en + "_status"] = why
                else:
                    row[en + "_status"] = "ok"
                    calls[en] = lambda vg=vg, a=a: vg(*a)
            with quiet():
                t = interleaved(calls, rounds=rounds, budget=budget, timer=time.thread_time)
            row["seconds"] = t
            if OURS in t:
                row["ratio_hand"] = t[OURS] / t["hand"]
                for peer in t:
                    if peer not in (OURS, "hand"):
                        row["ratio_" + peer] = t[OURS] / t[peer]
            rows.append(row)
            err.write(f"scale: {name} done\n")
    return rows


def scale_markdown(rows: list[dict[str, Any]]) -> str:
    peers = sorted({k[6:] for r in rows for k in r if k.startswith("ratio_") and k != "ratio_hand"})
    lines = [
        "\n**scale**: value_and_grad at 1e5-1e6 elements, chainrules.ad over a hand-written "
        "NumPy value and gradient (and over each engine's value_and_grad)\n",
        "| program | elements | chainrules | hand-written | over hand-written | "
        + " | ".join(f"over {p}" for p in peers)
        + " |",
        "|---|---|---|---|---|" + "---|" * len(peers),
    ]
    for r in rows:
        sec = r["seconds"]
        ours = f"{sec[OURS] * 1e3:.2f} ms" if OURS in sec else r.get(OURS + "_status", "–")
        cells = [
            r["name"],
            str(r["elements"]),
            ours,
            f"{sec['hand'] * 1e3:.2f} ms",
            f"{r['ratio_hand']:.2f}" if "ratio_hand" in r else "–",
        ]
        for p in peers:
            v = r.get("ratio_" + p)
            cells.append(f"{v:.2f}" if v is not None else _short(r.get(p + "_status", "–"), 50))
        lines.append("| " + " | ".join(cells) + " |")
    ratios = [r["ratio_hand"] for r in rows if "ratio_hand" in r]
    if ratios:
        lines.append(f"\nmedian over hand-written: {statistics.median(ratios):.2f}")
    return "\n".join(lines)


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def machine() -> dict[str, Any]:
    info = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "autograd": _version("autograd"),
        "torch": _version("torch"),
        "cpus": os.cpu_count(),
    }
    try:
        import subprocess

        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        info["commit"] = subprocess.run(
            ["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        # the engine measured: the last commit that changed chainrules/ (and whether it is dirty)
        git = ["git", "-C", root]
        info["chainrules_commit"] = subprocess.run(
            [*git, "log", "-1", "--format=%h", "--", "chainrules"], capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--", "chainrules"], capture_output=True, text=True
        ).stdout.strip()
        info["chainrules_dirty"] = bool(dirty)
    except OSError:
        pass
    return info


def cell_json(c: Cell) -> dict[str, Any]:
    return {
        "transform": c.transform,
        "status": c.status,
        "detail": c.detail,
        "peers": c.peers,
        "ratios": c.ratios,
        "seconds": c.seconds,
        "warnings": c.warnings,
    }


def program_json(p: Program) -> dict[str, Any]:
    return {
        "name": p.name,
        "category": p.category,
        "source": p.source,
        "licence": p.licence,
        "half": p.half,
        "spelling": p.spelling,
        "family": p.family,
        "output": p.output,
        "note": p.note,
        "x_shape": list(np.shape(p.args[0])) if isinstance(p.args[0], np.ndarray) else None,
    }


def report(
    cells: list[Cell], engines: Sequence[str], meta: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    peers = [BASE, *[e for e in engines if e not in (OURS, BASE, "numpy")]]
    text = [
        f"Population benchmark: {len({c.program.name for c in cells})} programs "
        f"(half: {meta['half']}), {meta['repeats']} run(s){' --quick' if meta['quick'] else ''}; "
        f"load average {meta['load_before'][0]:.2f} before, {meta['load_after'][0]:.2f} after; "
        f"commit {meta['machine'].get('commit', '')} (chainrules/ as of "
        f"{meta['machine'].get('chainrules_commit', '?')}"
        f"{', modified' if meta['machine'].get('chainrules_dirty') else ''}), "
        f"NumPy {np.__version__}"
        + ("; glibc keeping freed memory (--keep-heap)." if meta.get("keep_heap") else ".")
    ]
    summaries = {peer: summary(cells, peer) for peer in peers}
    for peer in peers:
        text.append(markdown(summaries[peer], peer))
    rows, sp = spelling_report(cells)
    text.append(sp)
    text.append(by_spelling(cells))
    text.append(findings(cells))
    by_program: dict[str, dict[str, Any]] = {}
    for c in cells:
        entry = by_program.setdefault(c.program.name, {**program_json(c.program), "cells": {}})
        entry["cells"][c.transform] = cell_json(c)
    data = {
        "meta": meta,
        "categories": CATEGORIES,
        "summary": summaries,
        "spellings": rows,
        "programs": list(by_program.values()),
    }
    return "\n".join(text) + "\n", data


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    import argparse

    out = out or sys.stdout
    err = err or sys.stderr
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.population", description=__doc__.split("\n")[0]
    )
    p.add_argument("--quick", action="store_true", help="fewer rounds, shorter budgets (noisier)")
    p.add_argument("--half", choices=("dev", "held-out", "all"), default="dev")
    p.add_argument(
        "--engines",
        default="chainrules,autograd,torch",
        help="comma-separated: chainrules and autograd always run; torch (torch.func) if installed",
    )
    p.add_argument("--repeats", type=int, default=1, help="timed runs (ranges over runs)")
    p.add_argument(
        "--programs", nargs="*", default=[], help="only programs whose name contains one of these"
    )
    p.add_argument("--json", type=str, metavar="OUT", help="write everything as JSON")
    p.add_argument("--no-scale", action="store_true", help="leave out the programs at scale")
    p.add_argument(
        "--jit",
        action="store_true",
        help="chainrules.ad's transformations under chainrules.ad.jit (recorded at the first "
        "call, replayed at the timed ones)",
    )
    p.add_argument(
        "--keep-heap",
        action="store_true",
        help="glibc keeps the memory it frees (_timing.KEEP_HEAP; the launcher restarts the "
        "process with it): fresh large buffers are then reused, not faulted in anew",
    )
    args = p.parse_args(argv)
    if args.keep_heap and not heap_kept():
        p.error("--keep-heap takes effect at process start: run python -m benchmarks.population")
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        p.error(f"unknown engine(s) {unknown}; choose from {list(ENGINES)}")
    rounds, budget = (2, 0.004) if args.quick else (3, 0.008)
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    progs = select(population(), args.half, args.programs)
    cells = run(
        progs, engines, repeats=args.repeats, rounds=rounds, budget=budget, err=err, jit=args.jit
    )
    scale_rows: list[dict[str, Any]] = []
    if not args.no_scale:
        eng = {}
        for name in dict.fromkeys([OURS, BASE, *engines]):
            try:
                eng[name] = chainrules_engine(args.jit) if name == OURS else ENGINES[name]()
            except ImportError:
                continue
        scale_rows = run_scale(eng, args.programs, rounds, budget, err)
    meta = {
        "half": args.half,
        "quick": args.quick,
        "repeats": args.repeats,
        "rounds": rounds,
        "budget_s": budget,
        "engines": engines,
        "jit": args.jit,
        "heap": {k: os.environ.get(k) for k in KEEP_HEAP},
        "timer": "time.thread_time (CPU time of this thread), BLAS at one thread",
        "keep_heap": args.keep_heap,
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "wall_s": time.perf_counter() - t0,
        "machine": machine(),
    }
    text, data = report(cells, engines, meta)
    if scale_rows:
        text += scale_markdown(scale_rows) + "\n"
    data["scale"] = scale_rows
    out.write(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(json_text(data))
    return 0


def json_text(data: dict[str, Any]) -> str:
    """``data`` as JSON, one program (and one spelling row, one scale row) per line: a baseline
    of some hundred lines that diffs by program."""
    import json

    def dumps(v: Any, **kw: Any) -> str:
        return json.dumps(v, ensure_ascii=False, default=str, **kw)

    rows = []
    for k, v in data.items():
        if isinstance(v, list):
            inner = ",\n".join("  " + dumps(e) for e in v)
            rows.append(f" {dumps(k)}: [\n{inner}\n ]")
        else:
            rows.append(f" {dumps(k)}: {dumps(v)}")
    return "{\n" + ",\n".join(rows) + "\n}\n"
