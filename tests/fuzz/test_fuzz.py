"""The bad-input fuzz suite (NumPy only; see ``fuzz_worker.py`` for the categories and the
outcomes). It runs in a subprocess, so a hang -- a call past the worker's per-call watchdog, or
the whole run past ``RUN_TIMEOUT`` -- fails the test with the case named instead of hanging CI.

``residuals.json`` declares each case that does not pass today: ``{"outcome": ..., "reason":
...}``, the outcome it gives (the rule's error, or how its primal differs from ``f``) and why it
is left (SciPy's own behaviour, a declared limit). The test fails on any new failing case, on a
changed outcome, on a declared one that passes now (remove it from the file) and on a declared
one without a reason, so the list only shrinks. About 15 s (the run is one subprocess).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
RUN_TIMEOUT = 120


def test_bad_inputs_on_every_registration(tmp_path: Path) -> None:
    out = tmp_path / "fuzz.json"
    try:
        res = subprocess.run(
            [sys.executable, str(HERE / "fuzz_worker.py"), str(out)],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else str(exc.stderr or "")
        started = [line for line in err.splitlines() if line.startswith("start")]
        pytest.fail(f"the fuzz run hung ({RUN_TIMEOUT} s) at: {started[-1:] or 'import'}")
    if res.returncode != 0:
        started = [line for line in res.stderr.splitlines() if line.startswith("start")]
        pytest.fail(f"the fuzz run ended with {res.returncode} at {started[-1:]}: a call hung")
    outcomes: dict[str, str] = json.loads(out.read_text())["outcomes"]
    entries: dict[str, dict[str, str]] = json.loads((HERE / "residuals.json").read_text())
    unexplained = [k for k, e in entries.items() if not str(e.get("reason", "")).strip()]
    assert not unexplained, f"declared residuals without a reason: {unexplained}"
    declared = {k: e["outcome"] for k, e in entries.items()}
    new = {k: v for k, v in outcomes.items() if declared.get(k) != v}
    fixed = sorted(set(declared) - set(outcomes))
    assert not new, f"{len(new)} new failing cases (or a changed outcome): {new}"
    assert not fixed, f"declared in residuals.json but passing now (remove them): {fixed}"
    bare = [k for k, v in outcomes.items() if v.startswith("bare")]
    assert not bare, bare  # an IndexError/ZeroDivisionError from a pullback: never
