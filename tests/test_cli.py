from __future__ import annotations

import io
import json
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
    assert "checked" in err and "(100%)" in err  # progress on a non-terminal stream


def test_check_json() -> None:
    code, out, _ = _run("check", "-k", "hypot", "--backend", "numpy", "--json")
    data = json.loads(out)
    assert code == 0 and data["backends"] == ["numpy", "scalar-free", "jit"]
    assert data["rules"]["hypot"]["numpy"]["status"] == "ok"
    assert data["rules"]["hypot"]["scalar-free"]["status"] == "ok"
    code, out, _ = _run(
        "check", "-k", "hypot", "--backend", "numpy", "--json", "--no-device-checks"
    )
    assert json.loads(out)["backends"] == ["numpy"]
    assert data["summary"]["failed"] == 0 and data["summary"]["checks"] > 0


def test_check_fails_with_a_broken_rule(clean_registry) -> None:  # type: ignore[no-untyped-def]
    # a deliberately wrong rule for the standard's expm1: the table and the exit code say so
    @cr.register_rrule("expm1", domain=((-1.0, 1.0),))
    def bad_expm1(x):  # type: ignore[no-untyped-def]
        y = np.expm1(x)
        return y, lambda y_bar: (cr.NoTangent(), cr.unthunk(y_bar) * y)  # forgot the + 1

    code, out, _ = _run("check", "-k", "expm1", "--backend", "numpy")
    assert code == 1
    assert "FAIL expm1 on numpy: test_rrule" in out and "2 failed" in out
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
