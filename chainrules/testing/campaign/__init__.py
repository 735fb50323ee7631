"""The differential campaign: programs generated from the registry, checked against each other.

Each seed gives one program (:func:`generate`): a composition of 1-6 registered functions with
the glue, dtypes, shapes and signatures described in :mod:`.programs`. :func:`run` checks the
relations of :mod:`.oracles` on a range of seeds and returns a :class:`Report`: per engine and
transformation, the programs, the relations checked, and how many agree, raised, were skipped
for a documented reason (:mod:`.known`) or were wrong.
:mod:`.markers`: marker rules (3x the true derivative) prove each engine uses the rule.

Run it as ``python -m chainrules.testing.campaign --seeds 0:10000`` (``--engines``,
``--json OUT``), or ``nox -s fuzz``. ``--source corpus`` checks the corpus of user code
(:mod:`.corpus`: functions of SciPy and scikit-learn, in-place writes, list operands, Python
scalars) with the same native relations, ``--source all`` both. The test suite runs a bounded
slice with fixed seeds (``tests/fuzz/test_campaign.py``) and the whole corpus
(``tests/fuzz/test_corpus.py``).
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .oracles import ENGINES, Outcome, check
from .programs import Program, differentiable_registrations, generate

__all__ = ["ENGINES", "Outcome", "Program", "Report", "check", "generate", "run", "stratify"]

STATUSES = ("agree", "error", "skip", "wrong")


@dataclass
class Report:
    """What a run found: every outcome, with the program's seed."""

    seeds: list[int] = field(default_factory=list)
    programs: dict[int, str] = field(default_factory=dict)  # seed -> Program.describe()
    outcomes: list[tuple[int, Outcome]] = field(default_factory=list)
    features: Counter[str] = field(default_factory=Counter)
    calls: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    source: str = "generated"  # or "corpus" (:mod:`.corpus`: the seed is the entry's index)

    def table(self) -> dict[tuple[str, str], Counter[str]]:
        """``(engine, transform) -> Counter`` of statuses, and of ``"programs"`` and
        ``"relations"``."""
        out: dict[tuple[str, str], Counter[str]] = {}
        programs: dict[tuple[str, str], set[int]] = {}
        for seed, o in self.outcomes:
            key = (o.engine, o.transform)
            c = out.setdefault(key, Counter())
            c[o.status] += 1
            c["relations"] += 1
            programs.setdefault(key, set()).add(seed)
        for key, seeds in programs.items():
            out[key]["programs"] = len(seeds)
        return out

    def wrong(self) -> list[tuple[int, Outcome]]:
        return [(s, o) for s, o in self.outcomes if o.status == "wrong"]

    def errors(self) -> list[tuple[int, Outcome]]:
        return [(s, o) for s, o in self.outcomes if o.status == "error"]

    def markdown(self) -> str:
        rows = [
            "| engine | transformation | programs | relations | agree | clear errors | skipped "
            "| wrong |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for (e, t), c in sorted(self.table().items()):
            rows.append(
                f"| {e} | {t} | {c['programs']} | {c['relations']} | {c['agree']} | "
                f"{c['error']} | {c['skip']} | {c['wrong']} |"
            )
        n = len(self.seeds) or 1
        cov = ", ".join(f"{k} {100 * v / n:.0f}%" for k, v in sorted(self.features.items()))
        rows.append("")
        if self.source == "corpus":
            rows.append(
                f"{len(self.seeds)} corpus entries in {self.seconds:.0f} s. Coverage: {cov}."
            )
            return "\n".join(rows)
        regs = differentiable_registrations()
        seen = sum(1 for r in regs if self.calls[r.name] > 0)
        at10 = sum(1 for r in regs if self.calls[r.name] >= 10)
        rows.append(f"{len(self.seeds)} programs in {self.seconds:.0f} s. Coverage: {cov}.")
        rows.append(
            f"Registrations composed: {seen} of {len(regs)} at least once, {at10} in 10 or "
            "more programs."
        )
        return "\n".join(rows)


def run(
    seeds: range | list[int],
    engines: tuple[str, ...] = ("native",),
    progress: bool = False,
) -> Report:
    """Generate and check the program of every seed in ``seeds``."""
    rep = Report()
    t0 = time.perf_counter()
    seeds = list(seeds)
    for i, seed in enumerate(seeds):
        p = generate(seed)
        rep.seeds.append(seed)
        rep.programs[seed] = p.describe()
        rep.features.update(p.features())
        rep.calls.update(set(p.names))
        rep.outcomes.extend((seed, o) for o in check(p, engines))
        if progress and (i + 1) % 25 == 0:
            el = time.perf_counter() - t0
            eta = el / (i + 1) * (len(seeds) - i - 1)
            wrong = len(rep.wrong())
            print(
                f"\r{i + 1}/{len(seeds)} programs, {wrong} wrong, ETA {eta:.0f} s",
                end="",
                file=sys.stderr,
                flush=True,
            )
    if progress:
        print(file=sys.stderr)
    rep.seconds = time.perf_counter() - t0
    return rep


def _family(module: str | None) -> str:
    """The rule family a registering module belongs to: the package or module right under
    ``chainrules.rules`` (``elementwise`` for ``chainrules.rules.elementwise.trigonometric``;
    ``scipy.special`` under ``chainrules.rules.scipy``), so that moving rules between the files
    of a family leaves the strata as they are; a user's module is its own family."""
    parts = (module or "").split(".")
    if parts[:2] != ["chainrules", "rules"] or len(parts) < 3:
        return module or ""
    rest = parts[2:]
    return ".".join(rest[:2]) if rest[0] == "scipy" else rest[0]


def stratify(
    seeds: range | list[int], n: int, engines: tuple[str, ...] | list[str] = ()
) -> list[int]:
    """``n`` seeds of ``seeds`` spread over the strata of their programs -- the dtype, the
    signature and the rule family of the first function (:func:`_family`: elementwise, linear
    algebra, indexing, FFT, scipy.special, ...) -- taken round-robin over the strata in a fixed
    shuffled order (a small sample mixes them too), each stratum's seeds in increasing order:
    the bridges' sample, whose cells cost too much to run on every seed. Only programs that
    every engine of ``engines`` runs are drawn (:func:`.bridges.runs_on`: the torch engines take
    programs whose every call has a torch function), so the sample is of programs it checks."""
    from .bridges import runs_on

    groups: dict[tuple[str, str, str], list[int]] = {}
    for seed in seeds:
        p = generate(seed)
        if any(runs_on(e, p) is not None for e in engines):
            continue
        groups.setdefault((p.dtype, p.signature, _family(p.steps[0].reg.module)), []).append(seed)
    keys = sorted(groups)
    random.Random(0).shuffle(keys)  # a fixed order that mixes dtypes, signatures and families
    queues = [groups[k] for k in keys]
    out: list[int] = []
    i = 0
    while len(out) < n and any(queues):
        q = queues[i % len(queues)]
        if q:
            out.append(q.pop(0))
        i += 1
    return sorted(out)


def parse_seeds(text: str) -> range:
    """``"0:10000"`` (a range) or ``"42"`` (one seed)."""
    if ":" in text:
        a, b = text.split(":", 1)
        return range(int(a), int(b))
    return range(int(text), int(text) + 1)


def _scipy_array_api() -> bool:
    """Whether SciPy runs (or, not imported yet, will run) in its array-API mode."""
    import os

    if "scipy" in sys.modules:
        from scipy._lib._array_api import SCIPY_ARRAY_API

        return bool(SCIPY_ARRAY_API)
    return os.environ.get("SCIPY_ARRAY_API") == "1"


def _corpus_in_child(show: int, json_path: str | None) -> int:
    """The corpus in a process of its own with ``SCIPY_ARRAY_API=1`` (SciPy reads it once, at
    its import; this process's generated programs run without it)."""
    import os
    import subprocess

    cmd = [sys.executable, "-m", "chainrules.testing.campaign", "--source", "corpus"]
    cmd += ["--show", str(show)] + (["--json", json_path] if json_path else [])
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    return subprocess.run(cmd, env=env, check=False).returncode


def _dump(rep: Report, path: str) -> None:
    import json

    data: list[dict[str, Any]] = [
        {"seed": s, "program": rep.programs[s], **o.__dict__}
        for s, o in rep.outcomes
        if o.status in ("wrong", "error")
    ]
    with open(path, "w") as fh:
        json.dump(data, fh, indent=1)


def _print(rep: Report, show: int) -> None:
    print(rep.markdown())
    for seed, o in rep.wrong()[:show]:
        print(f"wrong: {rep.programs[seed]}\n    {o.engine} {o.transform} {o.relation}: {o.detail}")


def main(argv: list[str] | None = None) -> int:
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(
        prog="python -m chainrules.testing.campaign",
        description="the differential campaign over programs generated from the registry and "
        "over a corpus of user code",
    )
    ap.add_argument("--seeds", default="0:1000", help="a range START:STOP, or one seed")
    ap.add_argument(
        "--source",
        default="generated",
        choices=("generated", "corpus", "all"),
        help="programs generated from the registry (--seeds, --engines), the corpus of user "
        "code (chainrules.testing.campaign.corpus: every entry, native engine), or both",
    )
    ap.add_argument(
        "--engines",
        default="native,device,jax,torch",
        help=f"comma-separated, from {', '.join(ENGINES)} (native always runs)",
    )
    ap.add_argument(
        "--stratified",
        type=int,
        metavar="N",
        help="check only N seeds of the range, spread over dtypes, signatures and rule "
        "families, among the programs every engine of --engines runs",
    )
    ap.add_argument("--json", help="write every wrong and error outcome here")
    ap.add_argument("--show", type=int, default=20, help="print this many wrong outcomes")
    args = ap.parse_args(argv)
    engines = tuple(e for e in args.engines.split(",") if e and e != "native")
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        ap.error(f"unknown engines {unknown}; choose from {', '.join(ENGINES)}")
    rc = 0
    if args.source in ("generated", "all"):
        seeds: range | list[int] = parse_seeds(args.seeds)
        if args.stratified:
            seeds = stratify(seeds, args.stratified, engines)
        rep = run(seeds, engines, progress=True)
        _print(rep, args.show)
        if args.json:
            _dump(rep, args.json)
        rc = 1 if rep.wrong() else 0
    if args.source in ("corpus", "all"):
        out = args.json
        if out and args.source == "all":
            p = Path(out)
            out = str(p.with_name(f"{p.stem}-corpus{p.suffix}"))
        if args.source == "all" or not _scipy_array_api():
            print("\nThe corpus of user code (native engine):", flush=True)
            return max(rc, _corpus_in_child(args.show, out))
        from . import corpus

        crep = corpus.run(progress=True)
        _print(crep, args.show)
        if out:
            _dump(crep, out)
        rc = max(rc, 1 if crep.wrong() else 0)
    return rc
