from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import numpy as np

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
