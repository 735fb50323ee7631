"""``python -m chainrules coverage``: the standard's functions, read from array_api_strict."""

from __future__ import annotations

import functools
import inspect
import io
import json
import sys
import types
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


# --- coverage --against ANCHOR -------------------------------------------------------------


def _fake_anchor(monkeypatch: pytest.MonkeyPatch) -> tuple[types.ModuleType, types.ModuleType]:
    """A fake library and its fake NumPy counterpart, standing in for the ``numpy`` anchor."""
    own, twin = types.ModuleType("fakelib"), types.ModuleType("fakenp")

    def ident(x):  # type: ignore[no-untyped-def]
        return x

    for name in (
        "smooth",
        "flag",
        "half",
        "borrowed",
        "shape",
        "apply",
        "plain",
        "solo",
    ):
        fn = functools.partial(ident)  # a distinct callable per name and module
        fn.__name__ = name  # type: ignore[attr-defined]
        setattr(own, name, fn)
        if name not in ("solo",):
            setattr(twin, name, functools.partial(ident))

    def apply(func, x):  # type: ignore[no-untyped-def]
        return func(x)

    own.apply = apply  # type: ignore[attr-defined]
    own.NotAFunction = type("NotAFunction", (), {})  # type: ignore[attr-defined]
    own.CONSTANT = 3.0  # type: ignore[attr-defined]
    own._private = ident  # type: ignore[attr-defined]

    def read():  # type: ignore[no-untyped-def]
        names = coverage._listed("fake", own, "fakelib", twin, "fakenp")
        names += coverage._listed("fake extra", twin, "fakenp", twin, "fakenp", "np.")
        return names, {"fakelib": "1.0"}, ["internal_helper"]

    anchor = coverage.Anchor("numpy", (), read, "a fake library")
    monkeypatch.setitem(coverage.ANCHORS, "numpy", anchor)
    return own, twin


def _register_fake(own: types.ModuleType, twin: types.ModuleType) -> None:
    def rule(*args):  # type: ignore[no-untyped-def]
        raise AssertionError("not called")

    cr.register_rrule(own.smooth)(rule)
    cr.register_frule(own.smooth)(rule)
    cr.non_differentiable(own.flag)
    cr.register_rrule(own.half)(rule)
    cr.register_rrule(twin.borrowed)(rule)  # only the counterpart has rules
    cr.register_frule(twin.borrowed)(rule)


def test_anchor_statuses_from_own_function_or_counterpart(clean_registry, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    own, twin = _fake_anchor(monkeypatch)
    _register_fake(own, twin)
    entries, summary = coverage.anchor_coverage("numpy")
    got = {(e.section, e.name): (e.status, e.asked, e.reason) for e in entries}
    fake = {n: v for (s, n), v in got.items() if s == "fake"}
    # classes, constants and private names are not listed
    assert sorted(fake) == sorted(
        ["smooth", "flag", "half", "borrowed", "shape", "apply", "plain", "solo"]
    )
    assert fake["smooth"] == ("rrule+frule", "fakelib.smooth", None)
    assert fake["flag"] == ("non-differentiable", "fakelib.flag", None)
    assert fake["half"] == ("rrule only", "fakelib.half", None)
    assert fake["borrowed"] == ("rrule+frule", "fakenp.borrowed", None)  # via the counterpart
    assert fake["shape"] == ("no array output", "fakelib.shape", "shape and type queries")
    assert fake["apply"] == ("missing", "fakenp.apply", "takes a function")
    assert fake["plain"] == ("missing", "fakenp.plain", "no rule yet")
    assert fake["solo"] == ("missing", "fakelib.solo", "no counterpart")
    assert got[("fake extra", "np.borrowed")][0] == "rrule+frule"
    assert got[("fake extra", "np.smooth")][0] == "missing"  # own's rules do not reach the twin
    s = summary["sections"]["fake"]
    assert s["functions"] == 8 and s["covered"] == 5 and s["percent"] == 62.5
    assert s["counts"]["missing"] == 3 and sum(s["counts"].values()) == 8
    assert summary["functions"] == len(entries)
    assert summary["covered"] == sum(e.covered for e in entries)
    assert summary["left_out"] == ["internal_helper"]
    entry = next(e for e in entries if e.name == "smooth")
    assert entry.rule_module == __name__


def test_anchor_fail_under_applies_to_every_section(clean_registry, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    own, twin = _fake_anchor(monkeypatch)
    _register_fake(own, twin)
    # fake 5/8 = 62.5%, fake extra 2/7 = 28.6% (borrowed, shape)
    assert _run("coverage", "--against", "numpy", "--fail-under", "25")[0] == 0
    code, _, err = _run("coverage", "--against", "numpy", "--fail-under", "50")
    assert code == 1 and "fake extra 28.6%" in err and "fake 62.5%" not in err
    code, _, err = _run("coverage", "--against", "numpy", "--fail-under", "70")
    assert code == 1 and "fake 62.5%" in err


def test_anchor_table_and_json(clean_registry, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    own, twin = _fake_anchor(monkeypatch)
    _register_fake(own, twin)
    code, out, _ = _run("coverage", "--against", "numpy")
    assert code == 0
    lines = out.splitlines()
    assert any(line.split()[:3] == ["borrowed", "rrule+frule", "fakenp.borrowed"] for line in lines)
    assert "fake: 5/8 covered (62.5%)" in out
    assert "missing (3): apply, plain, solo" in out
    assert "names of numpy's lists covered" in lines[-1] and "internal_helper" in lines[-1]
    code, out, _ = _run("coverage", "--against", "numpy", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["anchors"]) == 1
    report = data["anchors"][0]
    summary = report["summary"]
    assert {
        "anchor",
        "description",
        "versions",
        "functions",
        "counts",
        "covered",
        "percent",
    } <= set(summary)
    assert summary["anchor"] == "numpy" and summary["versions"] == {"fakelib": "1.0"}
    assert summary["functions"] == len(report["functions"])
    for s in summary["sections"].values():
        assert set(s) == {"functions", "counts", "covered", "percent"}
        assert set(s["counts"]) == set(coverage.STATUSES)
    keys = {"name", "section", "status", "rule_module", "asked", "reason"}
    assert all(set(f) == keys for f in report["functions"])
    assert {f["status"] for f in report["functions"]} <= set(coverage.STATUSES)


def test_anchor_markdown(clean_registry, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from chainrules.cli import ANCHOR_END, ANCHOR_MARKER

    own, twin = _fake_anchor(monkeypatch)
    _register_fake(own, twin)
    page = tmp_path / "page.md"
    page.write_text(f"intro\n{ANCHOR_MARKER}\nold numbers\n{ANCHOR_END}\n\nafter\n")
    assert _run("coverage", "--against", "numpy", "--markdown", str(page))[0] == 0
    text = page.read_text()
    assert text.startswith(f"intro\n{ANCHOR_MARKER}\n") and text.endswith(
        f"{ANCHOR_END}\n\nafter\n"
    )
    assert "old numbers" not in text
    assert "| numpy | `fake` | 5 | 8 | 62.5% |" in text
    assert "- `fake`, takes a Python function" in text and "`apply`" in text
    assert "`internal_helper`" in text
    (tmp_path / "bare.md").write_text("no marker\n")
    code, _, err = _run("coverage", "--against", "numpy", "--markdown", str(tmp_path / "bare.md"))
    assert code == 2 and ANCHOR_MARKER in err


@pytest.mark.parametrize("anchor", ["numpy", "scipy", "jax", "autograd"])
def test_anchor_absent(monkeypatch, anchor: str) -> None:  # type: ignore[no-untyped-def]
    """A library that is not installed: the message names it and how to install it; status 2."""
    monkeypatch.setitem(sys.modules, anchor, None)  # importing it raises ImportError
    code, out, err = _run("coverage", "--against", anchor)
    assert code == 2 and out == ""
    assert f"--against {anchor}" in err and f"pip install {anchor}" in err


def test_the_names_of_the_no_array_output_categories_are_unique() -> None:
    names = [n for _, ns in coverage.NO_ARRAY_OUTPUT_CATEGORIES.values() for n in ns]
    assert len(names) == len(set(names))


def test_real_numpy_anchor() -> None:
    import numpy as np

    entries, summary = coverage.anchor_coverage("numpy")
    names = {e.name: e for e in entries}
    for n in np.__all__:
        obj = getattr(np, n)
        listed = callable(obj) and not inspect.isclass(obj) and not inspect.ismodule(obj)
        assert (n in names) == (listed and not hasattr(obj, "__getitem__")), n
    assert {f"linalg.{n}" for n in ("solve", "svd", "norm")} <= set(names)
    assert names["sin"].status == "rrule+frule" and names["argmax"].status == "non-differentiable"
    assert names["set_printoptions"].status == "no array output"
    assert list(summary["sections"]) == ["numpy"]
    assert names["linalg.eig"].reason in (None, "no rule yet")  # NumPy's own: it has no twin
    assert all(e.reason != "no counterpart" for e in entries)


def test_real_jax_anchor() -> None:
    jnp = pytest.importorskip("jax.numpy")
    import jax.scipy.special as jss

    entries, summary = coverage.anchor_coverage("jax")
    assert list(summary["sections"]) == ["jax.numpy", "jax.scipy.special", "jax.scipy.linalg"]
    by = {(e.section, e.name): e for e in entries}
    public = {
        n for n in dir(jnp) if not n.startswith("_") and coverage._is_function(getattr(jnp, n))
    }
    listed = {n for s, n in by if s == "jax.numpy" and "." not in n}
    assert listed == public
    assert ("jax.numpy", "fft.rfft") in by and ("jax.numpy", "linalg.cholesky") in by
    assert {n for s, n in by if s == "jax.scipy.special"} == {
        n for n in dir(jss) if not n.startswith("_") and coverage._is_function(getattr(jss, n))
    }
    sin = by[("jax.numpy", "sin")]
    assert sin.status == "rrule+frule" and sin.asked == "jax.numpy.sin"
    assert by[("jax.numpy", "shape")].status == "no array output"
    for s in summary["sections"].values():
        assert s["functions"] > 0 and sum(s["counts"].values()) == s["functions"]


def test_real_autograd_anchor() -> None:
    pytest.importorskip("autograd")
    pytest.importorskip("scipy")
    import autograd.core
    import numpy as np

    entries, summary = coverage.anchor_coverage("autograd")
    by = {(e.section, e.name): e for e in entries}
    assert by[("numpy", "sin")].status == "rrule+frule"
    assert by[("numpy", "sin")].asked == "numpy.sin"
    assert ("numpy", "linalg.cholesky") in by and ("numpy", "fft.fft") in by
    assert ("scipy.special", "gammaln") in by and ("scipy.linalg", "solve_triangular") in by
    # every primitive of autograd's VJP table is either listed (once) or named as left out
    wrapped = {getattr(p, "fun", p) for p in autograd.core.primitive_vjps}
    assert np.sin in wrapped and len(entries) == len(by)
    for fun in wrapped:  # each NumPy function autograd differentiates is listed under its name
        name = getattr(fun, "__name__", "")
        for prefix, ns in (("", np), ("linalg.", np.linalg), ("fft.", np.fft)):
            if getattr(ns, name, None) is fun:
                assert ("numpy", prefix + name) in by, name
    assert len(entries) + len(summary["left_out"]) <= len(wrapped)  # duplicates merge (psi)
    assert "VSpace.add" in summary["left_out"]


def test_the_docs_page_has_every_anchors_numbers() -> None:
    """docs/coverage.md holds the anchors' numbers between its markers (a snapshot: they grow as
    rules land; regenerate with the command the page shows)."""
    from chainrules.cli import ANCHOR_END, ANCHOR_MARKER

    text = DOC.read_text()
    block = text.split(ANCHOR_MARKER, 1)[1].split(ANCHOR_END, 1)[0]
    assert text.index(ANCHOR_END) < text.index(COVERAGE_MARKER)
    for row in (
        "| jax | `jax.numpy` |",
        "| jax | `jax.scipy.special` |",
        "| jax | `jax.scipy.linalg` |",
        "| autograd | `numpy` |",
        "| numpy | `numpy` |",
        "| scipy | `scipy.special` |",
        "| scipy | `scipy.linalg` |",
    ):
        assert row in block, row
    for anchor in coverage.ANCHORS:
        assert f"### Missing against {anchor}" in block
