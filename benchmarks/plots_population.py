"""The benchmarks page's plots and headline tables, drawn from a committed population run.

    python benchmarks/plots_population.py                     # the committed baseline
    python benchmarks/plots_population.py RUN.json --img docs/img --tables

reads the JSON that ``python -m benchmarks.population --json OUT`` writes (by default the
committed ``benchmarks/population/baseline-bde0f43.json``), writes into ``--img``:

* ``population_grad.svg``, ``population_hessian.svg`` -- chainrules.ad's time over autograd's
  and over torch.func's, one dot per program, one row per category: the median (black bar) and
  the 90th percentile (red bar) of each row, points beyond ``OUTLIER`` (3x) in red, the worst
  of them named;
* ``population_scale.svg`` -- ``value_and_grad`` at 1e5-1e6 elements over a hand-written NumPy
  value and gradient, and over autograd's and torch.func's;

and with ``--tables`` prints the Markdown tables the page shows (``headline_table``,
``halves_table``), so every number on the page can be regenerated from the file. Only NumPy,
matplotlib and the standard library: no engine is imported, nothing is timed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "benchmarks" / "population" / "run-18d34bc.json"
IMG = ROOT / "docs" / "img"
OUTLIER = 3.0  # a program this many times slower than the peer is marked
NAMED = 2  # the worst outliers named per category
PEERS = {"autograd": "autograd", "torch": "torch.func"}
TRANSFORMS = ("grad", "hessian", "jacobian")


def load(path: Path = BASELINE) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def categories(data: dict[str, Any]) -> list[str]:
    """The run's categories in its own order (``programs.CATEGORIES``)."""
    return list(data["categories"])


def ratios(data: dict[str, Any], transform: str, peer: str) -> dict[str, list[tuple[float, str]]]:
    """category -> (ratio, program) for every program timed against ``peer``; a program's ratio
    is the median over the run's repeats, as in the run's own summary."""
    out: dict[str, list[tuple[float, str]]] = {c: [] for c in categories(data)}
    for p in data["programs"]:
        cell = p["cells"].get(transform)
        runs = (cell or {}).get("ratios", {}).get(peer)
        if runs:
            out[p["category"]].append((statistics.median(runs), p["name"]))
    return out


def stats(values: list[tuple[float, str]]) -> dict[str, Any]:
    """median, 90th percentile, worst and the count of faster programs (``bench._stats``)."""
    r = np.array([v for v, _ in values])
    worst = max(values)
    return {
        "timed": len(values),
        "median": float(np.median(r)),
        "p90": float(np.percentile(r, 90)),
        "worst": worst[0],
        "worst_program": worst[1],
        "faster": int(np.sum(r < 1)),
    }


def overall(data: dict[str, Any], transform: str, peer: str, half: str = "all") -> dict[str, Any]:
    """``stats`` over every category (and, for ``half`` "dev" or "held-out", that half only)."""
    halves = {p["name"]: p["half"] for p in data["programs"]}
    values = [
        v
        for vs in ratios(data, transform, peer).values()
        for v in vs
        if half == "all" or halves[v[1]] == half
    ]
    return stats(values) if values else {}


def _fmt(s: dict[str, Any]) -> str:
    return f"{s['median']:.2f} / {s['p90']:.2f}" if s else "–"


def run_line(data: dict[str, Any]) -> str:
    """Which tree, machine and load the run measured, from its ``meta``."""
    m = data["meta"]
    mach = m["machine"]
    load = f"{m['load_before'][0]:.1f}-{m['load_after'][0]:.1f}"
    return (
        f"chainrules at {mach['chainrules_commit']}, `--half {m['half']} --repeats "
        f"{m['repeats']}`, Python {mach['python']}, NumPy {mach['numpy']}, {mach['cpus']} shared "
        f"cores (load average {load}), {m['wall_s'] / 60:.1f} min"
    )


def headline_table(data: dict[str, Any]) -> str:
    """One row per transformation: programs timed (against autograd / torch.func), chainrules.ad's
    time over each peer's (median / 90th percentile over programs) and the programs it is faster
    on than autograd; then a sentence on the programs at scale (over hand-written NumPy)."""
    lines = [
        "| | programs timed | over autograd | over torch.func | faster than autograd on |",
        "|---|---|---|---|---|",
    ]
    for t in TRANSFORMS:
        a = overall(data, t, "autograd")
        if not a:
            continue
        tt = overall(data, t, "torch")
        timed = f"{a['timed']} / {tt['timed'] if tt else 0}"
        lines.append(
            f"| `{t}` | {timed} | {_fmt(a)} | {_fmt(tt)} | {a['faster']} of {a['timed']} |"
        )
    scale = data.get("scale") or []
    hand = [r["ratio_hand"] for r in scale if r.get("ratio_hand") is not None]
    if hand:
        lines.append(
            f"\nAt 1e5-1e6 elements ({len(hand)} programs), `value_and_grad` takes "
            f"{statistics.median(hand):.2f}x the time of a hand-written NumPy value and gradient "
            f"(median; worst {max(hand):.2f}x)."
        )
    return "\n".join(lines)


def halves_table(data: dict[str, Any]) -> str:
    """The same statistics per half: the targets are judged on the held-out half."""
    lines = [
        "| | half | programs timed | over autograd | over torch.func | worst over autograd |",
        "|---|---|---|---|---|---|",
    ]
    for t in TRANSFORMS:
        for half in ("dev", "held-out"):
            a = overall(data, t, "autograd", half)
            if not a:
                continue
            tt = overall(data, t, "torch", half)
            lines.append(
                f"| `{t}` | {half} | {a['timed']} / {tt['timed'] if tt else 0} | {_fmt(a)} "
                f"| {_fmt(tt)} | {a['worst']:.2f} ({a['worst_program']}) |"
            )
    return "\n".join(lines)


# --- drawing ------------------------------------------------------------------------------------


# set for the drawing only (matplotlib.rc_context), on figures made without pyplot: nothing of
# matplotlib's global state (backend, rcParams, pyplot's figure list) outlives write_plots
RC: Any = {  # matplotlib.rc_context types its keys as Literal names
    "svg.fonttype": "path",  # text drawn as outlines: the same in every browser
    "svg.hashsalt": "chainrules",  # stable element ids, so regenerated files diff cleanly
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
}


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def _save(fig: Any, path: Path) -> Path:
    fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
    return path


def _strip(ax: Any, rows: list[tuple[str, list[tuple[float, str]]]], peer: str) -> None:
    """One row per category: the programs as dots, median and p90 as bars, outliers marked."""
    rng = np.random.default_rng(0)  # fixed jitter: the same picture from the same file
    lo = min((v for _, vs in rows for v, _ in vs), default=1.0)
    hi = max((v for _, vs in rows for v, _ in vs), default=1.0)
    for i, (_, vs) in enumerate(rows):
        y = len(rows) - 1 - i
        if not vs:
            ax.text(1.0, y, " not timed", va="center", fontsize=8, color="0.4")
            continue
        r = np.array([v for v, _ in vs])
        jitter = y + rng.uniform(-0.18, 0.18, len(r))
        far = r > OUTLIER
        ax.scatter(r[~far], jitter[~far], s=9, color="C0", alpha=0.45, lw=0)
        ax.scatter(r[far], jitter[far], s=16, color="C3", marker="D", lw=0)
        s = stats(vs)
        ax.plot([s["median"]] * 2, [y - 0.25, y + 0.25], color="black", lw=2.2)
        ax.plot([s["p90"]] * 2, [y - 0.25, y + 0.25], color="C3", lw=1.6)
        worst = sorted(((v, n) for v, n in vs if v > OUTLIER), reverse=True)
        if worst:  # one line above the row: how many, and the worst few by name
            named = ", ".join(f"{n.split('.', 1)[-1]} {v:.1f}" for v, n in worst[:NAMED])
            more = f", +{len(worst) - NAMED}" if len(worst) > NAMED else ""
            ax.text(
                0.99,
                y + 0.27,
                f"> {OUTLIER:g}x: {named}{more}",
                fontsize=7.5,
                color="C3",
                ha="right",
                va="bottom",
                transform=ax.get_yaxis_transform(),
            )
    ax.axvline(1.0, color="0.3", lw=1, ls="--")
    ax.set_xscale("log")
    ax.set_xlim(min(lo, 0.9) / 1.3, max(hi, 1.1) * 2.4)
    ax.set_ylim(-0.5, len(rows) - 0.35)
    ax.set_xlabel(f"time / {PEERS[peer]}'s\n(< 1: chainrules.ad faster)")
    ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 3, 5, 10) if lo / 1.3 <= t <= hi * 2.4]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()


def _population(data: dict[str, Any], transform: str, path: Path) -> Path:
    from matplotlib.lines import Line2D

    cats = categories(data)
    fig = _figure(7.0, 4.8)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, peer in zip(axes, PEERS):
        per = ratios(data, transform, peer)
        rows = [(c, per[c]) for c in cats]
        _strip(ax, rows, peer)
        ax.set_title(f"over {PEERS[peer]}", fontsize=10)
    a = ratios(data, transform, "autograd")
    labels = [f"{c}\n({len(a[c])} programs)" for c in cats]
    axes[0].set_yticks(range(len(cats))[::-1], labels)
    handles = [
        Line2D([], [], color="black", lw=2.2, label="median"),
        Line2D([], [], color="C3", lw=1.6, label="90th percentile"),
        Line2D([], [], color="C0", marker="o", ls="", alpha=0.6, label="one program"),
        Line2D(
            [], [], color="C3", marker="D", ls="", label=f"over {OUTLIER:g}x (named: the worst)"
        ),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=2, frameon=False, fontsize=9)
    fig.suptitle(
        f"{transform}: chainrules.ad's time per program "
        f"(population benchmark at {data['meta']['machine']['chainrules_commit']})",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return _save(fig, path)


def _scale(data: dict[str, Any], path: Path) -> Path | None:
    rows = [r for r in data.get("scale") or [] if r.get("ratio_hand") is not None]
    if not rows:
        return None
    fig = _figure(7.0, 3.8)
    ax = fig.subplots()
    ys = np.arange(len(rows))[::-1]
    keys = [
        ("ratio_hand", "hand-written NumPy", "o", "black"),
        ("ratio_autograd", "autograd", "s", "C0"),
        ("ratio_torch", "torch.func", "^", "C1"),
    ]
    for key, label, marker, color in keys:
        xs = [r.get(key) for r in rows]
        pts = [(x, y) for x, y in zip(xs, ys) if x is not None]
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker, color=color, label=label, ms=7)
    ax.axvline(1.0, color="0.3", lw=1, ls="--")
    names = [
        f"{r['name'].split('.', 1)[-1]}  ({r['elements']:.0e})".replace("e+0", "e") for r in rows
    ]
    ax.set_yticks(ys, names)
    ax.set_xscale("log")
    ticks = [0.5, 0.7, 1, 1.5, 2, 3]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_xlim(0.45, 3.3)
    ax.set_xlabel("time / the other's  (< 1: chainrules.ad faster)")
    fig.legend(loc="lower center", ncol=3, frameon=False, fontsize=9, title="over")
    ax.set_title("At scale: value_and_grad, 1e5-1e6 elements", fontsize=11)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    return _save(fig, path)


def write_plots(data: dict[str, Any], img: Path = IMG) -> list[Path]:
    """Draw the population plots into ``img``; return the files written."""
    import matplotlib

    img.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context(RC):
        written = [_population(data, t, img / f"population_{t}.svg") for t in ("grad", "hessian")]
        scale = _scale(data, img / "population_scale.svg")
    return written + ([scale] if scale else [])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="benchmarks/plots_population.py", description=__doc__.split("\n")[0]
    )
    p.add_argument("json", nargs="?", type=Path, default=BASELINE, help="a population run's JSON")
    p.add_argument("--img", type=Path, default=IMG, help="folder for the SVGs")
    p.add_argument("--tables", action="store_true", help="print the page's Markdown tables")
    args = p.parse_args(argv)
    data = load(args.json)
    written = write_plots(data, args.img)
    print("wrote " + ", ".join(str(w) for w in written), file=sys.stderr)
    if args.tables:
        print(run_line(data) + "\n\n" + headline_table(data) + "\n\n" + halves_table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
