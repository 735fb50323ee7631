from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import chainrules as cr
from chainrules.cli import main


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_check_prints_a_table_progress_and_summary() -> None:
    code, out, err = _run("check", "-k", "sin", "--backend", "numpy")
    assert code == 0, out
    assert "function" in out and "numpy" in out
    assert any(line.startswith("sin ") and line.split()[1] == "ok" for line in out.splitlines())
    assert "passed, 0 failed" in out
    summary = out.strip().splitlines()[-1]
    assert re.search(r"; [1-9]\d* checks run; 0 examples skipped \(declared\); ", summary), summary
    assert "{" not in summary and "fast profile" in summary
    assert "checked" in err and "(100%)" in err  # progress on a non-terminal stream
    assert "rules" in err and "ETA" in err


def test_check_json() -> None:
    code, out, _ = _run("check", "-k", "hypot", "--backend", "numpy", "--json")
    data = json.loads(out)
    assert code == 0 and data["columns"] == ["numpy", "scalar-free", "jit"]
    assert data["rules"]["hypot"]["numpy"]["status"] == "ok"
    assert data["rules"]["hypot"]["scalar-free"]["status"] == "ok"
    code, out, _ = _run(
        "check", "-k", "hypot", "--backend", "numpy", "--json", "--no-device-checks"
    )
    assert json.loads(out)["columns"] == ["numpy"]
    summary = data["summary"]
    assert summary["failed"] == 0 and summary["checks"] > 0
    counts = ("passed", "failed", "xfail", "skipped", "not_applicable", "no_examples")
    assert sum(summary[k] for k in counts) == summary["cells"] == 3
    more = ("skipped_examples", "xfailed_checks", "unexpected_passes", "undeclared_refusals")
    for key in (*counts, *more, "warnings"):
        assert isinstance(summary[key], int), key
    cell = data["rules"]["hypot"]["numpy"]
    assert set(cell) >= {"checks", "errors", "xfailed", "skipped_examples", "warnings", "seconds"}


def test_check_fails_with_a_broken_rule(clean_registry) -> None:  # type: ignore[no-untyped-def]
    # a deliberately wrong rule for the standard's expm1: the table and the exit code say so
    @cr.register_rrule("expm1", domain=((-1.0, 1.0),))
    def bad_expm1(x):  # type: ignore[no-untyped-def]
        y = np.expm1(x)
        return y, lambda y_bar: (cr.NoTangent(), cr.unthunk(y_bar) * y)  # forgot the + 1

    code, out, _ = _run("check", "-k", "expm1", "--backend", "numpy")
    assert code == 1
    assert "FAIL expm1 on numpy: test_rrule" in out and "2 failed" in out
    fails = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert len(fails) == len(set(fails)) > 1  # distinct: each names its example and dtype
    assert "FAIL expm1 on numpy: test_rrule [#0 (), float64]" in out
    assert out.index("FAIL") < out.index("function ")  # failures come first
    # the rule calls np.expm1 itself: not generic, and jax.jit says so
    assert "FAIL expm1 on jit: jit" in out and "not traceable" in out


def test_check_usage_errors() -> None:
    code, _, err = _run("check", "-k", "no_such_function_anywhere")
    assert code == 2 and "no registered rule matches" in err


def test_module_entry_point() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "chainrules", "check", "-k", "negative", "--backend", "numpy"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "1 function x 3 columns: 3 passed" in res.stdout


_USER_RULES = """
import chainrules as cr


def softclip(x):
    xp = cr.namespace_of(x)
    return xp.tanh(x) * 2.0


def _examples(rng):
    return [((rng.uniform(-2, 2, (3,)),), {})]


@cr.register_rrule(softclip, generic=True, examples=_examples)
def _softclip_rrule(x):
    xp = cr.namespace_of(x)
    t = xp.tanh(x)

    def softclip_pullback(y_bar):
        y_bar = cr.unthunk(y_bar)
        if cr.is_zero(y_bar):
            return cr.NoTangent(), cr.ZeroTangent()
        cr.check_cotangent("softclip", y_bar, t)
        return cr.NoTangent(), y_bar * 2.0 * (1.0 - t * t)

    return t * 2.0, softclip_pullback
"""


def test_check_module_checks_only_a_users_rules(  # type: ignore[no-untyped-def]
    tmp_path, monkeypatch, clean_registry
) -> None:
    (tmp_path / "my_rules_pkg").mkdir()
    (tmp_path / "my_rules_pkg" / "__init__.py").write_text("")
    (tmp_path / "my_rules_pkg" / "rules.py").write_text(_USER_RULES)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = _run(
        "check", "--module", "my_rules_pkg", "--backend", "numpy", "--no-device-checks"
    )
    assert code == 2 and "no rule is registered in module my_rules_pkg" in err  # not imported
    code, out, err = _run("check", "--module", "my_rules_pkg.rules", "--backend", "numpy")
    rows = [line.split() for line in out.splitlines() if line.startswith("my_rules_pkg")]
    assert code == 0, out
    assert rows == [["my_rules_pkg.rules.softclip", "ok", "ok", "ok"]]
    assert "1 function x 3 columns" in out


def test_check_module_that_cannot_be_imported() -> None:
    code, _, err = _run("check", "--module", "no_such_module_here")
    assert code == 2
    assert "--module no_such_module_here: cannot import it (ModuleNotFoundError" in err


def test_check_module_that_registers_nothing() -> None:
    code, _, err = _run("check", "--module", "json")
    assert code == 2 and "no rule is registered in module json" in err


def test_version_and_program_name(capsys) -> None:  # type: ignore[no-untyped-def]
    import pytest

    with pytest.raises(SystemExit) as exc:
        main(["--version"], prog="chainrules")
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"chainrules {cr.__version__}"


def _softsign(x):  # type: ignore[no-untyped-def]
    return x / (1 + abs(x))


def _register_softsign(expect, wrong=False):  # type: ignore[no-untyped-def]
    """A generic rule with two examples; ``wrong`` gives it a wrong derivative."""

    def examples(rng):  # type: ignore[no-untyped-def]
        return [cr.Example((rng.uniform(-2, 2, (3,)),), note="vector"), cr.Example((0.5,))]

    @cr.register_rrule(_softsign, generic=True, examples=examples, expect=expect)
    def _softsign_rrule(x):  # type: ignore[no-untyped-def]
        y = _softsign(x)
        d = 1 / (1 + abs(x)) ** 2

        @cr.pullback(y, (x,))
        def softsign_pullback(y_bar):  # type: ignore[no-untyped-def]
            return y_bar * (2 * d if wrong else d)

        return y, softsign_pullback


def _check_softsign() -> tuple[int, dict]:  # type: ignore[type-arg]
    name = f"{__name__}._softsign"
    code, out, _ = _run("check", "-k", name, "--backend", "numpy", "--no-device-checks", "--json")
    return code, json.loads(out)["rules"][name]["numpy"]


def test_declared_xfail_and_unexpected_pass(clean_registry) -> None:  # type: ignore[no-untyped-def]
    _register_softsign(cr.Expect("numpy", "a known bug", example="vector"), wrong=True)
    code, cell = _check_softsign()
    # the vector example fails as declared; the scalar example is not covered and fails too
    assert code == 1 and cell["status"] == "FAIL"
    assert cell["xfailed"] and all("xfail: a known bug" in x for x in cell["xfailed"])
    assert cell["errors"] and all("[#1" in e for e in cell["errors"])
    _register_softsign(cr.Expect("numpy", "a known bug"), wrong=True)
    code, cell = _check_softsign()
    assert code == 0 and cell["status"] == "xfail" and not cell["errors"]
    _register_softsign(cr.Expect("numpy", "a known bug"), wrong=False)  # fixed: reported
    code, cell = _check_softsign()
    assert code == 1 and cell["errors"]
    assert all("expected to fail (a known bug) but passed" in e for e in cell["errors"])


def test_refused_examples_must_be_declared(clean_registry) -> None:  # type: ignore[no-untyped-def]
    def picky(x):  # type: ignore[no-untyped-def]
        if not hasattr(x, "shape"):
            raise TypeError("picky takes arrays only")
        return x * 2.0

    def examples(rng):  # type: ignore[no-untyped-def]
        return [cr.Example((np.ones(2),), note="array"), cr.Example((0.5,), note="scalar")]

    for expect, status in (
        ((), "FAIL"),
        (cr.Expect("numpy", "picky takes arrays", kind="skip", example="scalar"), "ok"),
        (cr.Expect("numpy", "picky takes arrays", kind="skip"), "FAIL"),  # stale for "array"
    ):

        @cr.register_rrule(picky, generic=True, examples=examples, expect=expect)
        def _picky_rrule(x):  # type: ignore[no-untyped-def]
            y = picky(x)

            @cr.pullback(y, (x,))
            def picky_pullback(y_bar):  # type: ignore[no-untyped-def]
                return y_bar * 2.0

            return y, picky_pullback

        name = f"{__name__}.picky"
        _code, out, _ = _run(
            "check", "-k", name, "--backend", "numpy", "--no-device-checks", "--json"
        )
        cell = json.loads(out)["rules"][name]["numpy"]
        assert cell["status"] == status, (expect, cell)
        if status == "ok":
            assert len(cell["skipped_examples"]) == 2  # float64 and float32
            assert "declared: picky takes arrays" in cell["skipped_examples"][0]


def test_expect_is_validated() -> None:
    import pytest

    with pytest.raises(ValueError, match="kind must be one of"):
        cr.Expect("numpy", "why", kind="maybe")
    with pytest.raises(ValueError, match="give the reason"):
        cr.Expect("numpy", "")
    with pytest.raises(TypeError, match=r"expect= takes chainrules\.Expect"):
        cr.register_rrule(_softsign, expect=("not an Expect",))(lambda x: (x, None))


def test_check_in_worker_processes(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # two workers (spawned processes), the same table as in one process
    argv = ("check", "-k", "numpy:arc*", "--backend", "numpy", "--json")
    code, out, _ = _run(*argv, "-j", "2")
    data = json.loads(out)
    assert code == 0 and data["summary"]["jobs"] == 2
    assert len(data["rules"]) >= 6 and data["summary"]["failed"] == 0
    assert 0 < data["summary"]["worker_peak_rss_mb"] < 1536
    assert data["summary"]["worker_starts"] >= 2
    _, out1, _ = _run(*argv, "-j", "1")
    statuses = {n: {c: v["status"] for c, v in row.items()} for n, row in data["rules"].items()}
    assert statuses == {
        n: {c: v["status"] for c, v in row.items()} for n, row in json.loads(out1)["rules"].items()
    }


def test_workers_retire_past_their_memory_limit(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import chainrules.cli as cli

    monkeypatch.setattr(cli, "_WORKER_MEMORY_MB", 1.0)  # every worker retires after one cell
    code, out, _ = _run("check", "-k", "numpy:arccos", "--backend", "numpy", "-j", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["summary"]["cells"] == 3 and data["summary"]["passed"] == 3
    assert data["summary"]["worker_starts"] >= 3  # a fresh worker for each cell after the first two


def test_warnings_are_attributed_to_their_rule(clean_registry) -> None:  # type: ignore[no-untyped-def]
    import warnings

    def noisy(x):  # type: ignore[no-untyped-def]
        warnings.warn("noisy is deprecated", DeprecationWarning, stacklevel=2)
        return x * 1.0

    @cr.register_rrule(noisy, generic=True, examples=lambda rng: [((np.ones(2),), {})])
    def _noisy_rrule(x):  # type: ignore[no-untyped-def]
        y = noisy(x)

        @cr.pullback(y, (x,))
        def noisy_pullback(y_bar):  # type: ignore[no-untyped-def]
            return y_bar

        return y, noisy_pullback

    name = f"{__name__}.noisy"
    code, out, _ = _run("check", "-k", name, "--backend", "numpy", "--no-device-checks")
    assert code == 0
    assert f"warning {name} on numpy: DeprecationWarning: noisy is deprecated" in out


_OVERRIDE = """
import numpy as np
import pytest
import chainrules as cr


@cr.register_rrule("expm1")  # the library's rule for the standard's expm1, replaced by name
def my_expm1_rrule(x):
    y = np.expm1(x)

    def my_expm1_pullback(y_bar):
        y_bar = cr.unthunk(y_bar)
        if cr.is_zero(y_bar):
            return cr.NoTangent(), cr.ZeroTangent()
        cr.check_cotangent("expm1", y_bar, y)
        return cr.NoTangent(), y_bar * np.conj(y + SHIFT)

    return y, my_expm1_pullback
"""


def test_check_module_that_overrides_a_library_rule_by_name(  # type: ignore[no-untyped-def]
    tmp_path, monkeypatch, clean_registry
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    for name, shift, code_want, status in (
        ("my_good_expm1", 1, 0, "ok"),
        ("my_bad_expm1", 0, 1, "FAIL"),
    ):
        (tmp_path / f"{name}.py").write_text(_OVERRIDE.replace("SHIFT", str(shift)))
        try:
            code, out, err = _run(
                "check", "--module", name, "--backend", "numpy", "--no-device-checks", "-j", "1"
            )
        finally:
            sys.modules.pop(name, None)
        rows = [line.split()[:2] for line in out.splitlines() if line.startswith("expm1 ")]
        assert code == code_want, (out, err)
        assert rows == [["expm1", status]], out  # the user's rule is the one checked
        assert "1 function x 1 column" in out, out


def test_check_module_that_raises_on_import_is_one_line(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "my_broken_rules.py").write_text("raise RuntimeError('boom at import')\n")
    try:
        code, out, err = _run("check", "--module", "my_broken_rules")
    finally:
        sys.modules.pop("my_broken_rules", None)
    assert code == 2 and out == ""
    assert err == "--module my_broken_rules: cannot import it (RuntimeError: boom at import)\n"


def test_the_lazy_column_fails_a_rule_that_computes(clean_registry) -> None:  # type: ignore[no-untyped-def]
    # a correct rule for expm1 whose pullback reads a value (bool(...)): on dask, that runs a
    # graph, and the lazy column says so; the default columns do not include it
    import pytest

    pytest.importorskip("array_api_compat.dask.array")

    @cr.register_rrule("expm1", domain=((-1.0, 1.0),))
    def eager_expm1(x):  # type: ignore[no-untyped-def]
        from array_api_compat import array_namespace

        from chainrules.core.toolkit import pullback

        xp = array_namespace(x)
        y = xp.expm1(x)

        @pullback(y, (x,))
        def expm1_pullback(g):  # type: ignore[no-untyped-def]
            scale = 1.0 if bool(xp.all(xp.isfinite(y))) else 0.0  # a host read of a value
            return (g * xp.conj(y + 1) * scale,)

        return y, expm1_pullback

    code, out, _ = _run("check", "-k", "expm1", "--backend", "numpy", "--no-device-checks")
    assert "lazy" not in out and "FAIL expm1 on numpy" not in out, out
    code, out, _ = _run(
        "check", "-k", "expm1", "--backend", "numpy", "--lazy", "--no-device-checks"
    )
    assert code == 1
    assert "FAIL expm1 on lazy: lazy [#0" in out and "pullback 1" in out
    assert re.search(r"^expm1\s+ok\s+FAIL", out, re.M)


# --- -k: the function's own name, or whole dotted parts ------------------------------------------
@pytest.mark.parametrize(
    ("pattern", "name", "selected"),
    [
        # one part: the function's own name (after the last "." or ":"), as a substring
        ("norm", "linalg.vector_norm", True),
        ("norm", "numpy:linalg.norm", True),
        ("norm", "scipy:stats.norm.pdf", False),  # the distribution norm's pdf, not a norm
        ("norm", "scipy:stats.multivariate_normal.pdf", False),
        ("exp", "expm1", True),
        # one part with a wildcard: a glob on the function's own name
        ("logical_*", "logical_and", True),
        ("*_norm", "linalg.matrix_norm", True),
        ("*_norm", "numpy:linalg.norm", False),
        # several parts: consecutive whole parts of the full name, each a glob
        ("stats.norm", "scipy:stats.norm.pdf", True),
        ("stats.norm", "scipy:stats.multivariate_normal.pdf", False),
        ("linalg.norm", "numpy:linalg.norm", True),
        ("linalg.norm", "linalg.vector_norm", False),
        ("numpy:arc*", "numpy:arccos", True),
        ("numpy:arc*", "arccos", False),
        ("numpy:arc*", "numpy:linalg.norm", False),
        ("scipy:*", "scipy:special.gammaln", True),
    ],
)
def test_k_pattern_matches_the_function_name_or_whole_dotted_parts(
    pattern: str, name: str, selected: bool
) -> None:
    from chainrules.cli import name_matches

    assert name_matches(pattern, name) is selected


def test_k_norm_selects_the_norms_not_the_normal_distribution() -> None:
    from chainrules.cli import _select

    chosen = {r.name for r in _select("norm")}
    assert chosen, "no norm is registered"
    assert all(n.rsplit(".", 1)[-1].endswith("norm") for n in chosen), chosen
    stats_norm = {r.name for r in _select("stats.norm")}
    assert stats_norm and not stats_norm & chosen
    assert all(".norm." in n for n in stats_norm), stats_norm
    # an exact full name selects that registration alone
    (only,) = _select(sorted(chosen)[0])
    assert only.name == sorted(chosen)[0]


# --- progress: cells from the start, an ETA from the rate since the first cell ----------------
def test_progress_counts_cells_and_estimates_from_the_rate_since_the_first_cell(  # type: ignore[no-untyped-def]
    monkeypatch,
) -> None:
    import chainrules.cli as cli

    clock = [100.0]
    monkeypatch.setattr(cli.time, "perf_counter", lambda: clock[0])
    err = io.StringIO()
    progress = cli._Progress(cells=200, rules=40, stream=err)
    clock[0] += 30.0  # worker start-up: before the first cell, not part of the rate
    progress.step("a on numpy", 0)
    assert "checked 1/200 cells (0%), 0/40 rules complete" in err.getvalue()
    assert "ETA ..." in err.getvalue()  # no estimate from one cell
    for i in range(2, 21):  # then a cell every 0.5 s
        clock[0] += 0.5
        progress.step("b on numpy", i // 5)
    last = err.getvalue().splitlines()[-1]
    assert last.startswith("checked 20/200 cells (10%), 4/40 rules complete")
    # 19 cells in 9.5 s since the first: 0.5 s a cell, 180 cells left
    assert last.endswith(f"ETA {cli._duration(0.5 * 180)}"), last


def test_cell_order_is_a_fair_sample_at_every_stretch() -> None:
    from chainrules.cli import _select, cell_order

    regs = _select(None)
    columns = ["numpy", "torch", "jit"]
    order = cell_order(regs, columns)
    assert order == cell_order(regs, columns)  # the same order on every run
    assert sorted((r.name, c) for r, c in order) == sorted(
        (r.name, c) for r in regs for c in columns
    )
    # each rule's columns together: rules complete at a steady pace
    for i in range(0, len(order), len(columns)):
        assert {r.name for r, _ in order[i : i + len(columns)]} == {order[i][0].name}
        assert [c for _, c in order[i : i + len(columns)]] == columns
    # not grouped by module: the linalg rules' share of the first tenth is near their share of all
    # (registration order puts them together, in one stretch)
    tenth = [r for r, _ in order[: len(order) // 10]]
    share = sum("linalg" in (r.module or "") for r in tenth) / len(tenth)
    overall = sum("linalg" in (r.module or "") for r in regs) / len(regs)
    assert overall > 0 and abs(share - overall) < 0.5 * overall + 0.02, (share, overall)


# --- tests for an absent backend: deselected, one line per backend ------------------------------
_SUITE = """
import pytest
from chainrules.testing.suite import BackendMissing

def test_here():
    pass

@pytest.mark.parametrize("x", range(5))
@pytest.mark.skip(reason=BackendMissing("nothere", "nothere is not installed"))
def test_needs_nothere(x):
    raise AssertionError("never runs")

@pytest.mark.skipif(False, reason=BackendMissing("present", "present is not installed"))
def test_backend_present():
    pass

@pytest.mark.skip(reason="an ordinary skip")
def test_other_skip():
    pass
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_missing_backend_tests_are_deselected_and_counted_per_backend(
    tmp_path, workers: list[str]
) -> None:  # type: ignore[no-untyped-def]
    import os
    from pathlib import Path

    (tmp_path / "test_suite.py").write_text(_SUITE)
    here = str(Path(cr.__file__).resolve().parents[1])  # this chainrules, not an installed one
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "chainrules.testing.pytest_backends",
         "-p", "no:cacheprovider", "-rs", *workers, str(tmp_path / "test_suite.py")],
        capture_output=True, text=True, check=False, cwd=tmp_path, env=env,
    )  # fmt: skip
    out = res.stdout
    assert res.returncode == 0, out + res.stderr
    assert "not run here: missing backends" in out
    assert "5 tests need nothere: nothere is not installed (deselected" in out
    assert "present" not in out.split("not run here")[1]
    # not passes, not skips: 2 passed (test_here, test_backend_present), the ordinary skip alone
    assert re.search(r"\b2 passed, 1 skipped\b", out), out
    assert "never runs" not in out
    # tests that -k leaves out are not counted as left out for their backend
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "chainrules.testing.pytest_backends",
         "-p", "no:cacheprovider", "-k", "test_here", *workers, str(tmp_path / "test_suite.py")],
        capture_output=True, text=True, check=False, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert res.returncode == 0 and "1 passed" in res.stdout, res.stdout + res.stderr
    assert "not run here" not in res.stdout, res.stdout
