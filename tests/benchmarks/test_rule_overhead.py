"""benchmarks/rule_overhead.py times each rule above its function: it times the rule itself."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="module")
def overhead(benchmark_script: Any) -> Any:
    return benchmark_script("rule_overhead")


def test_rows_time_the_named_rules_and_leave_out_what_has_no_numpy_case(overhead: Any) -> None:
    names = ["sin", "numpy:hstack", "matmul", "argmax"]
    rows, left_out = overhead.run(names, rounds=1, budget=0.0005)
    assert sorted(r["name"] for r in rows) == ["matmul", "numpy:hstack", "sin"]
    assert left_out == 1  # argmax: an integer output, nothing to pull back
    for r in rows:
        assert min(r["f"], r["rrule"], r["pullback"]) > 0
        assert r["overhead"] == pytest.approx(r["rrule"] + r["pullback"] - r["f"])
    assert [r["overhead"] for r in rows] == sorted((r["overhead"] for r in rows), reverse=True)
    text = overhead.report(rows, left_out, top=2)
    assert "3 rules timed on NumPy (1 left out" in text
    assert text.count("\n| ") == 3  # the header and the two rows asked for


def test_a_rule_that_raises_on_its_example_is_left_out(overhead: Any, monkeypatch: Any) -> None:
    import chainrules as cr

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no")

    monkeypatch.setattr(cr, "rrule", broken)
    rows, left_out = overhead.run(["sin"], rounds=1, budget=0.0005)
    assert rows == [] and left_out == 1
