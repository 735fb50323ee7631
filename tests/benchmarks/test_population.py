"""``benchmarks/population``: the population's make-up (size, sources, category shares, the
fixed split) and, on a fixed handful of programs, chainrules.ad's gradient against autograd's.
No timing is asserted."""

from __future__ import annotations

import collections
import hashlib
import importlib
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("autograd")
ROOT = Path(__file__).resolve().parents[2]


def _import(name: str) -> Any:
    """A module of benchmarks/ (the repository root on sys.path for the import only)."""
    added = str(ROOT) not in sys.path
    if added:
        sys.path.insert(0, str(ROOT))
    try:
        return importlib.import_module(name)
    finally:
        if added:
            sys.path.remove(str(ROOT))


@pytest.fixture(scope="module")
def programs_module() -> Any:
    return _import("benchmarks.population.programs")


@pytest.fixture(scope="module")
def population(programs_module: Any) -> list[Any]:
    return programs_module.population()


def test_at_least_200_programs_with_unique_names(population: list[Any]) -> None:
    assert len(population) >= 200
    assert len({p.name for p in population}) == len(population)


def test_every_program_names_its_source_and_licence(programs_module: Any, population) -> None:
    for p in population:
        assert p.licence, p.name
        if p.source in (programs_module.WRITTEN_HERE, programs_module.GENERATED):
            continue
        repo, _, path = p.source.partition(":")
        assert repo.count("/") == 1 and path, (p.name, p.source)


def test_at_least_half_come_from_public_code(programs_module: Any, population) -> None:
    public = [p for p in population if p.public]
    assert len(public) / len(population) >= programs_module.MIN_PUBLIC
    # public means someone else's file: neither written here nor generated
    assert all(p.source not in ("written here",) and ":" in p.source for p in public)


def test_category_shares_meet_their_minimums(programs_module: Any, population) -> None:
    counts = collections.Counter(p.category for p in population)
    assert set(counts) == set(programs_module.CATEGORIES)
    for cat, share in programs_module.CATEGORIES.items():
        assert counts[cat] / len(population) >= share, (cat, counts[cat], len(population))


def test_the_split_is_a_fixed_hash_and_both_halves_hold_every_category(population) -> None:
    halves = collections.defaultdict(set)
    for p in population:
        even = hashlib.sha256(p.name.encode()).digest()[0] % 2 == 0
        assert p.half == ("dev" if even else "held-out"), p.name
        halves[p.half].add(p.category)
    cats = {p.category for p in population}
    assert halves["dev"] == cats and halves["held-out"] == cats


def test_spelling_families_hold_several_spellings(population) -> None:
    fams = collections.defaultdict(set)
    for p in population:
        if p.family:
            fams[p.family].add(p.spelling)
    assert {"@", "np.dot", "einsum"} <= fams["mlp"]
    assert {"x**2", "x*x", "np.square", "method"} <= fams["sumsq"]


def test_the_loader_gives_autograd_its_numpy_and_leaves_the_module_alone() -> None:
    import autograd.numpy as anp

    load = _import("benchmarks.population._load").load
    mod = "benchmarks.population.sources.written_here"
    plain, ag = load(mod, "numpy"), load(mod, "autograd")
    assert plain.np is np and ag.np.sin is anp.sin
    assert ag.sumsq_pow is not plain.sumsq_pow
    assert plain.sumsq_pow.__globals__["np"] is np


# a fixed handful, from every source and category, none depending on SciPy's array-API mode
CHECKED = [
    "scipy_go.Ackley01",
    "scipy_go.Rastrigin",
    "scipy_go.Griewank",
    "scipy_go.Schwefel01",
    "scipy_go.Trid",
    "scipy_go.Zacharov",
    "autograd.logistic_regression",
    "autograd.rosenbrock",
    "autograd.fluidsim_project",
    "here.mlp_matmul",
    "here.mlp_dot",
    "here.mlp_einsum",
    "here.softmax_matmul",
    "here.gauss_slogdet",
    "here.bayes_linreg_evidence",
    "here.huber",
    "here.roughness",
    "here.laplacian_2d",
    "here.gather",
    "here.recurrence_loop",
]


@pytest.mark.parametrize("name", CHECKED)
def test_chainrules_gradient_equals_autograds(name: str, population) -> None:
    import autograd

    from chainrules import ad

    bench = _import("benchmarks.population.bench")
    (p,) = [q for q in population if q.name == name]
    with bench.quiet():
        ours = ad.grad(p.function("numpy"))(*p.args)
        ref = autograd.grad(p.function("autograd"))(*p.args)
    assert np.all(np.isfinite(ref))
    assert bench.disagreement(ours, ref) is None


def test_disagreement_reports_a_difference() -> None:
    bench = _import("benchmarks.population.bench")
    assert bench.disagreement(np.ones(3), np.ones(3)) is None
    assert "difference" in bench.disagreement(np.ones(3) + 1e-5, np.ones(3))
    assert "shape" in bench.disagreement(np.ones(3), np.ones(4))


def test_the_command_reports_a_small_selection(tmp_path) -> None:
    """The whole path (check, time, report, JSON) on two programs; the numbers are not judged."""
    import io
    import json

    bench = _import("benchmarks.population.bench")
    out, err = io.StringIO(), io.StringIO()
    # nevergrad's sphere1 returns float(...): both engines refuse float() of a traced value
    argv = ["--quick", "--half", "all", "--programs", "here.sumsq_pow", "nevergrad.sphere1"]
    argv += ["--engines", "chainrules,autograd", "--no-scale", "--json", str(tmp_path / "r.json")]
    assert bench.main(argv, out=out, err=err) == 0
    text = out.getvalue()
    assert "**grad**: chainrules.ad over autograd" in text
    assert "nevergrad.sphere1 [grad, test function]" in text  # listed, not dropped
    data = json.loads((tmp_path / "r.json").read_text())
    cells = {p["name"]: p["cells"] for p in data["programs"]}
    assert cells["here.sumsq_pow"]["grad"]["status"] == "timed"
    assert len(cells["here.sumsq_pow"]["grad"]["ratios"]["autograd"]) == 1
    assert cells["nevergrad.sphere1"]["grad"]["status"] == "both fail"
    assert (
        data["meta"]["load_before"] and data["summary"]["autograd"]["grad"]["all"]["programs"] == 2
    )


def test_the_command_times_the_jitted_transformations(tmp_path) -> None:
    """``--jit``: chainrules.ad's transformations under ad.jit, checked at the call after the
    recording (a replay) against autograd, and said so in the report's metadata."""
    import io
    import json

    bench = _import("benchmarks.population.bench")
    out, err = io.StringIO(), io.StringIO()
    argv = ["--quick", "--half", "all", "--programs", "here.sumsq_pow", "--jit", "--no-scale"]
    argv += ["--engines", "chainrules,autograd", "--json", str(tmp_path / "r.json")]
    assert bench.main(argv, out=out, err=err) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["meta"]["jit"] is True
    cells = {p["name"]: p["cells"] for p in data["programs"]}
    assert cells["here.sumsq_pow"]["grad"]["status"] == "timed"
    assert cells["here.sumsq_pow"]["hessian"]["status"] == "timed"


def test_keep_heap_restarts_the_process_with_glibc_keeping_freed_memory(tmp_path) -> None:
    """``--keep-heap``: the launcher starts the process again with glibc's thresholds fixed
    (read only at process start), says so in the report and its metadata; ``main`` in a
    process without them refuses the option instead of measuring something else."""
    import io
    import json
    import os
    import subprocess

    bench = _import("benchmarks.population.bench")
    timing = _import("benchmarks._timing")
    root = Path(bench.__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in timing.KEEP_HEAP}
    argv = ["--quick", "--half", "all", "--programs", "here.sumsq_pow", "--no-scale"]
    argv += ["--engines", "chainrules,autograd", "--keep-heap", "--json", str(tmp_path / "r.json")]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.population", *argv],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "glibc keeping freed memory (--keep-heap)" in done.stdout
    meta = json.loads((tmp_path / "r.json").read_text())["meta"]
    assert meta["keep_heap"] is True and meta["heap"] == timing.KEEP_HEAP
    if not timing.heap_kept():
        with pytest.raises(SystemExit):
            bench.main(["--keep-heap", "--no-scale"], out=io.StringIO(), err=io.StringIO())


def test_the_methods_report_times_a_method_on_the_cells_it_runs_in(tmp_path) -> None:
    """``benchmarks.population.methods``: the 2-norm's NumPy method runs in ``here.sumsq_norm``'s
    gradient and is timed there against its generic path; a method the program never reaches
    has no cells. The numbers are not judged."""
    import io
    import json

    methods = _import("benchmarks.population.methods")
    out, err = io.StringIO(), io.StringIO()
    argv = ["--quick", "--programs", "here.sumsq_norm", "--only", "norms._norm"]
    assert methods.main([*argv, "--json", str(tmp_path / "m.json")], out=out, err=err) == 0
    rows = {r["function"]: r for r in json.loads((tmp_path / "m.json").read_text())["rows"]}
    bar = rows["rules.linalg.norms._norm2_bar"]
    assert bar["cells"] >= 1 and "here.sumsq_norm:grad" in bar["ratios"] and not bar["disagree"]
    assert bar["median"] > 0 and "`rules.linalg.norms._norm2_bar` (numpy, torch)" in out.getvalue()


def test_the_methods_report_says_where_a_method_disagrees_with_its_generic_path() -> None:
    """A method that gives another value is listed as disagreeing and is not timed."""
    from chainrules.core.specialise import specialise

    methods = _import("benchmarks.population.methods")

    @specialise
    def double(x: Any) -> Any:
        return x * 2

    @double.method("numpy")
    def _double_numpy(x: Any) -> Any:
        return x * 3  # wrong

    row = methods.measure([double], {"c": (lambda: double(np.ones(3)), True)}, 1, 1, 0.001)
    assert list(row["disagree"]) == ["c"] and row["ratios"] == {} and "median" not in row
    row = methods.measure([double], {"c": (lambda: double(np.ones(3)), False)}, 1, 1, 0.001)
    assert not row["disagree"] and list(row["ratios"]) == ["c"]  # not compared: timed


def test_the_spelling_report_gives_both_spreads() -> None:
    """Each spelling's time over its own bare NumPy call (the issue's measure) and over the
    model's fastest spelling (what choosing a spelling costs), each with its spread."""
    bench = _import("benchmarks.population.bench")
    programs = _import("benchmarks.population.programs")

    def cell(name: str, spelling: str, ours: float, bare: float) -> Any:
        p = programs.Program(name, "test function", "written here", "x", (np.ones(2),))
        p = programs.Program(**{**p.__dict__, "spelling": spelling, "family": "fam"})
        c = bench.Cell(p, "grad")
        c.seconds = {"chainrules": [ours], "numpy": [bare]}
        return c

    rows, text = bench.spelling_report([cell("a", "@", 2e-5, 1e-6), cell("b", "dot", 3e-5, 3e-6)])
    assert [round(r["ours_over_numpy"]) for r in rows] == [20, 10]
    assert "| fam | grad | @ | 20.0 | – | 2.00 | 20.0 us | 1.00 | 1.50 |" in text
    assert "| fam | grad | dot | 10.0 | – | 2.00 | 30.0 us | 1.50 | 1.50 |" in text
