"""The benchmarks pages' plots and tables: drawn from the committed JSON, and the numbers the
pages show are the ones the files give. No timing is asserted, nothing is measured."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")
ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmarks.md"
METHOD = ROOT / "docs" / "benchmarks-method.md"


@pytest.fixture(scope="module")
def pop(benchmark_script: Any) -> Any:
    return benchmark_script("plots_population")


@pytest.fixture(scope="module")
def data(pop: Any) -> dict[str, Any]:
    return pop.load()  # the committed baseline


def _svg_size(path: Path) -> tuple[float, float]:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg"), path
    return float(root.get("width", "0").rstrip("pt")), float(root.get("height", "0").rstrip("pt"))


def _rc() -> dict[str, str]:
    import matplotlib

    return {k: repr(v) for k, v in matplotlib.rcParams.items()}


def test_population_plots_are_drawn_from_the_committed_run(
    pop: Any, data: Any, tmp_path: Path
) -> None:
    before = _rc()
    written = pop.write_plots(data, tmp_path)
    assert _rc() == before  # the drawing's settings did not outlive it
    names = sorted(p.name for p in written)
    assert names == ["population_grad.svg", "population_hessian.svg", "population_scale.svg"]
    for path in written:
        width, height = _svg_size(path)
        assert 0 < width <= 72 * 7.5, f"{path.name} is {width}pt wide: wider than the page"
        assert 0 < height < width, path.name
    # the committed images are the ones the page shows, and the script writes the same names
    page = PAGE.read_text()
    for name in names:
        assert f"](img/{name})" in page
        assert (ROOT / "docs" / "img" / name).is_file()


def test_population_plots_script_runs_on_the_committed_json(
    pop: Any, data: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pop.main(["--img", str(tmp_path), "--tables"]) == 0
    printed = capsys.readouterr().out
    for part in (pop.run_line(data), pop.headline_table(data), pop.halves_table(data)):
        assert part in printed
    assert len(list(tmp_path.glob("population_*.svg"))) == 3


@pytest.mark.parametrize("peer", ["autograd", "torch"])
@pytest.mark.parametrize("transform", ["grad", "hessian", "jacobian"])
def test_per_program_ratios_give_the_runs_own_summary(
    pop: Any, data: Any, transform: str, peer: str
) -> None:
    """The plots' dots (each program's median over the repeats) aggregate to the statistics the
    population run wrote itself, per category and over all: the plots show the run's numbers."""
    summary = data["summary"][peer][transform]
    per = pop.ratios(data, transform, peer)
    for cat, row in summary.items():
        values = [v for vs in per.values() for v in vs] if cat == "all" else per[cat]
        if not values:
            assert "median" not in row, (transform, peer, cat)
            continue
        got = pop.stats(values)
        assert got["timed"] == row[f"timed_{peer}"], (transform, peer, cat)
        assert (got["worst_program"], got["faster"]) == (row["worst_program"], row["faster"])
        for key in ("median", "p90", "worst"):
            assert got[key] == pytest.approx(row[key], rel=1e-12), (transform, peer, cat, key)


def test_pages_show_the_tables_the_script_prints(pop: Any, data: Any) -> None:
    page, method = PAGE.read_text(), METHOD.read_text()
    assert pop.headline_table(data) in page
    assert pop.run_line(data) in page
    assert pop.halves_table(data) in method


def _suite_rows() -> list[str]:
    table = METHOD.read_text().split("<!-- BENCHMARK TABLE -->")[1]
    return [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]


def test_benchmarks_page_counts_the_suites_targets_as_the_table_does() -> None:
    """The summary's count of rows with a target, met and missed, is the appendix table's; the
    rows the summary sets apart as timing nothing are the ones that read 0.00x."""
    rows = _suite_rows()
    met = [r for r in rows if r.endswith("✓ |")]
    missed = [r for r in rows if r.endswith("✗ |")]
    nothing = [r for r in met if re.search(r"\| 0\.00x ", r)]
    page = PAGE.read_text()
    expected = (
        f"of {len(met) + len(missed)} rows with a target, {len(met) - len(nothing)} meet it and "
        f"{len(missed)} miss it"
    )
    assert expected in " ".join(page.split()), expected
    assert f"{len(nothing)} rows time nothing" in " ".join(page.split())


def test_suite_plots_are_drawn_from_a_runs_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, benchmark_script: Any
) -> None:
    run = benchmark_script("run")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # run.py imports plots from there
    spread = [[1e-6, 1.1e-6, 1.3e-6], [1e-3, 1.1e-3, 1.2e-3]]
    data = {
        "repeats": 3,
        "runs": [
            [{"name": "a, n=10", "seconds": 1e-6, "baseline_seconds": 2e-6, "ratio_value": 0.5}]
        ],
        "series": {
            "scaling": {"n": [10, 10**6], "rrule + pullback": spread, "hand-written": spread},
            "inf_norm": {"n": [10, 10**6], "GPU-safe": spread, "scalar write": spread},
            "jacobian_chunks": {"n": 4, "chunk": [1, 4], "passes": [4, 1], "seconds": spread},
        },
    }
    (tmp_path / "run.json").write_text(json.dumps(data))
    argv = ["--plots-from", str(tmp_path / "run.json"), "--img", str(tmp_path)]
    before = _rc()
    assert run.main(argv, io.StringIO(), io.StringIO()) == 0
    assert _rc() == before  # the drawing's settings did not outlive it
    drawn = sorted(p.stem for p in tmp_path.glob("*.svg"))
    assert drawn == ["inf_norm", "jacobian_chunks", "scaling"]  # no 60-row ratio chart any more
    for name in drawn:
        _svg_size(tmp_path / f"{name}.svg")
    method = METHOD.read_text()
    for name in drawn:
        assert f"](img/{name}.svg)" in method
        assert (ROOT / "docs" / "img" / f"{name}.svg").is_file()


def test_the_pages_sentences_quote_the_committed_run(pop: Any, data: Any) -> None:
    """The numbers written into the page's prose, recomputed from the file."""
    page = " ".join(PAGE.read_text().split())
    hess = pop.ratios(data, "hessian", "autograd")
    over = [(v, c, n) for c, vs in hess.items() for v, n in vs if v > pop.OUTLIER]
    registry = sum(c == "registry" for _, c, _ in over)
    if len(over) == 1:
        assert f"One program is over 3x (`{over[0][2]}`" in page
    else:
        assert f"{len(over)} programs over 3x, {registry} of them registry-generated" in page
    worst = max(v for vs in pop.ratios(data, "grad", "autograd").values() for v, _ in vs)
    assert f"up to {worst:.1f}x autograd's time" in page
    rows = {r["name"].split(".", 1)[1]: r for r in data["scale"]}
    hand = {k: r["ratio_hand"] for k, r in rows.items()}
    assert f"level on the MLP ({hand['mlp_1024x512']:.2f})" in page
    four = [hand[k] for k in hand if k.split("_")[0] in ("logistic", "chain", "least", "softmax")]
    assert len(four) == 4
    assert f"takes {min(four):.2f}-{max(four):.2f}x on logistic regression" in page
    assert f"{hand['huber_1e6']:.2f}x on the Huber loss" in page
    behind = [k for k, r in rows.items() if r["ratio_autograd"] >= 1]
    assert behind == ["logistic_1e5x10"] and "ahead of autograd on five of the six" in page
    assert f"(logistic regression {rows['logistic_1e5x10']['ratio_autograd']:.2f}x:" in page
