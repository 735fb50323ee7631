"""``benchmarks/compare.py``'s pure parts: parsing a row's cells and comparing two trees' rounds
(no suite is run; the subprocess part is exercised by running the script)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def compare() -> Any:
    """The script as a module (it puts benchmarks/ on sys.path: undone here)."""
    saved, mods = list(sys.path), set(sys.modules)
    try:
        spec = importlib.util.spec_from_file_location(
            "bench_compare", ROOT / "benchmarks" / "compare.py"
        )
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_compare"] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved
        for name in set(sys.modules) - mods:
            if name in ("run", "_timing"):  # benchmarks/' modules, by their bare names
                del sys.modules[name]


def _row(name: str, value: str, ratio: str) -> dict[str, Any]:
    return {"name": name, "value": value, "baseline": "", "ratio": ratio, "target": "", "ok": None}


def test_ratio_cells(compare: Any) -> None:
    p = compare.parse_ratio
    assert p("1.25x") == 1.25
    assert p("0.98x (0.90-1.10)") == 0.98
    assert p("4.0x faster") == pytest.approx(0.25)
    assert p("1.20x cpu, 1.10x wall") == 1.2
    assert p("1.84x faster; engine adds 3 µs") == pytest.approx(1 / 1.84)
    assert p("+12 ms") is None and p("") is None and p("0x") is None


def test_same_process_ratios_are_compared_round_by_round(compare: Any) -> None:
    main = [
        compare.samples([_row("a", "2.00 µs", "1.30x"), _row("imp", "80.0 ms", "+5 ms")]),
        compare.samples([_row("a", "9.00 µs", "1.10x"), _row("imp", "90.0 ms", "+6 ms")]),
        compare.samples([_row("a", "2.00 µs", "1.20x"), _row("imp", "70.0 ms", "+5 ms")]),
    ]
    base = [
        compare.samples([_row("a", "1.00 µs", "1.00x"), _row("imp", "40.0 ms", "+1 ms")]),
        compare.samples([_row("a", "1.00 µs", "1.00x"), _row("imp", "90.0 ms", "+1 ms")]),
        compare.samples([_row("a", "1.00 µs", "1.00x"), _row("imp", "70.0 ms", "+1 ms")]),
    ]
    a, imp = compare.compare(main, base)
    # the absolute times move 9x between processes; the row's own ratio is what is compared
    assert (a.kind, a.rounds) == ("ratio", 3)
    assert (a.med, a.lo, a.hi) == pytest.approx((1.2, 1.1, 1.3))
    assert a.main_s == pytest.approx(2e-6) and a.base_s == pytest.approx(1e-6)
    assert a.flagged(1.10) and not a.flagged(1.25)
    assert imp.kind == "abs" and imp.med == pytest.approx(1.0) and imp.hi == pytest.approx(2.0)
    text = compare.table([a, imp], 1.10, {"a": "base ran its own suite file"})
    line = "| a [base ran its own suite file] | 2.00 µs | 1.00 µs | 1.200 (1.10-1.30, 3 rounds)"
    assert line in text
    assert "| > 1.10 |" in text and "1.000 (1.00-2.00, 3 rounds) abs |  |" in text


def test_memory_rows_and_rows_of_one_tree_only(compare: Any) -> None:
    main = [compare.samples([_row("mem", "2.00x input", ""), _row("new", "1.00 µs", "1.0x")])]
    base = [compare.samples([_row("mem", "1.00x input", ""), _row("old", "1.00 µs", "1.0x")])]
    mem, new = compare.compare(main, base)
    assert (mem.kind, mem.med) == ("value", 2.0)
    assert new.med is None and not new.flagged(1.10)  # no pair: reported, not flagged
    assert "- (no pair)" in compare.table([new], 1.10)


# --- benchmarks/run.py's output: the table, then the summary of what missed -------------------
@pytest.fixture(scope="module")
def bench_run(benchmark_script: Any) -> Any:
    """``benchmarks/run.py`` as a module."""
    return benchmark_script("run")


def test_summary_lists_the_missed_targets_and_failed_suites(bench_run: Any) -> None:
    row = bench_run.Row
    rows = [
        row("a, n=10", "2.00 µs", "1.00 µs hand", "2.00x", "<= 1.5x", False),
        row("  b, n=1e6", "1.00 ms", "1.00 ms hand", "1.00x", "<= 1.1x", True),
        row("c", "3.00 ms", "", "", "(reported)", None),
        row("d, memory", "2.5x input", "", "", "<= 2x input", False),
    ]
    text = bench_run.summary(rows, {"jax_bridge": "ModuleNotFoundError: No module named 'jax'"})
    assert text.splitlines() == [
        "1 of 3 targets met; missed:",
        "",
        "- a, n=10: 2.00x (target <= 1.5x)",
        "- d, memory: 2.5x input (target <= 2x input)",  # no ratio: the value
        "",
        "1 suite(s) failed (their rows are missing above):",
        "",
        "- jax_bridge: ModuleNotFoundError: No module named 'jax'",
    ]
    assert bench_run.summary(rows[1:3], {}) == "All 1 targets met."
    assert bench_run.summary(rows[2:3], {}) == "No targets were judged."


def test_bench_output_is_the_table_and_the_summary_only(bench_run: Any) -> None:
    import io

    row = bench_run.Row

    def chatty(quick: bool) -> list[Any]:
        rows = [row("chatty, n=10", "3.00 µs", "1.00 µs hand", "3.00x", "<= 2x", False)]
        print(rows[-1], flush=True)  # a suite's debug print (jax_bridge had 24 of them)
        print("progress: 1 of 1")
        return rows

    def quiet(quick: bool) -> list[Any]:
        return [row("quiet, n=10", "1.00 µs", "1.00 µs hand", "1.00x", "<= 2x", True)]

    out, err = io.StringIO(), io.StringIO()
    assert bench_run.main(["--quick"], out, err, suites={"chatty": chatty, "quiet": quiet}) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Measured on ") and lines[1] == ""
    table = [ln for ln in lines[2:] if ln.startswith("|")]
    assert len(table) == 4 and table[2].startswith("| chatty, n=10 | 3.00 µs |")
    assert lines[2 : 2 + len(table)] == table  # the table, in one block
    rest = lines[2 + len(table) :]
    assert rest == ["", "1 of 2 targets met; missed:", "", "- chatty, n=10: 3.00x (target <= 2x)"]
    assert "Row(name='chatty, n=10'" in err.getvalue() and "progress: 1 of 1" in err.getvalue()
