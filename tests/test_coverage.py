"""``python -m chainrules coverage``: the standard's functions, read from array_api_strict."""

from __future__ import annotations

import inspect
import io
import json
from pathlib import Path

import pytest

import chainrules as cr
from chainrules import coverage
from chainrules.cli import COVERAGE_MARKER, main

xs = pytest.importorskip("array_api_strict")
DOC = Path(__file__).parents[1] / "docs" / "coverage.md"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def test_the_list_is_array_api_strict_namespace() -> None:
    entries, summary = coverage.coverage()
    names = {e.name for e in entries}
    for n in xs.__all__:
        fn = getattr(xs, n)
        if callable(fn) and not inspect.isclass(fn) and not inspect.ismodule(fn):
            assert (n in names) == ("array_api_strict" not in n), n  # its flags are left out
    for ext in ("linalg", "fft"):
        for n in getattr(xs, ext).__all__:
            assert f"{ext}.{n}" in names
    assert summary["functions"] == len(entries) == len(names)
    assert summary["standard_version"] == xs.__array_api_version__
    assert sum(summary["counts"].values()) == len(entries)


def test_the_whole_standard_is_covered() -> None:
    entries, summary = coverage.coverage()
    missing = [e.name for e in entries if e.status == "missing"]
    partial = [e.name for e in entries if e.status in ("rrule only", "frule only")]
    assert missing == [] and partial == []
    assert summary["percent"] == 100.0


def test_statuses(clean_registry) -> None:  # type: ignore[no-untyped-def]
    status = {e.name: e.status for e in coverage.coverage()[0]}
    assert status["sin"] == "rrule+frule"
    assert status["linalg.vector_norm"] == "rrule+frule"
    assert status["argmax"] == "non-differentiable"
    assert status["finfo"] == "no array output"
    # a function whose rules are taken away is reported missing
    clean_registry.unregister("sin")
    assert cr.find_rrule(xs.sin) is None and cr.find_frule(xs.sin) is None
    status = {e.name: e.status for e in coverage.coverage()[0]}
    assert status["sin"] == "missing"


def test_command_table_and_json() -> None:
    code, out, _ = _run("coverage")
    assert code == 0
    assert any(
        line.split()[:3] == ["sin", "elementwise", "rrule+frule"] for line in out.splitlines()
    )
    assert "functions of the Array API standard" in out.splitlines()[-1]
    code, out, _ = _run("coverage", "--json")
    data = json.loads(out)
    assert code == 0 and data["summary"]["functions"] == len(data["functions"])
    assert {"name", "section", "status", "rule_module"} <= set(data["functions"][0])


def test_fail_under() -> None:
    assert _run("coverage", "--fail-under", "0")[0] == 0
    code, _, err = _run("coverage", "--fail-under", "100.1")
    assert code == 1 and "is under 100.1%" in err


def test_the_docs_page_is_the_commands_output(tmp_path: Path) -> None:
    """docs/coverage.md holds the table the command writes (regenerate it with
    ``python -m chainrules coverage --markdown docs/coverage.md``)."""
    page = tmp_path / "coverage.md"
    page.write_text(DOC.read_text())
    assert _run("coverage", "--markdown", str(page))[0] == 0
    assert page.read_text() == DOC.read_text(), "docs/coverage.md is out of date"
    (tmp_path / "bare.md").write_text("no marker\n")
    code, _, err = _run("coverage", "--markdown", str(tmp_path / "bare.md"))
    assert code == 2 and COVERAGE_MARKER in err
