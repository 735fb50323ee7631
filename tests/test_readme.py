"""The README's quick start runs, and its test command is the one CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _blocks(lang: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_quick_start_runs(clean_registry) -> None:  # type: ignore[no-untyped-def]
    (code,) = _blocks("python")
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_ci_runs_the_readme_test_command() -> None:
    (commands,) = _blocks("bash")
    test_cmd = [ln for ln in commands.splitlines() if "-s tests" in ln]
    assert len(test_cmd) == 1
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd[0].strip() in ci.splitlines()
