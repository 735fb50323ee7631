"""The README's quick start runs, starts with the install line that makes it run, and its test
command is the one CI runs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _blocks(lang: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_quick_start_runs(clean_registry) -> None:  # type: ignore[no-untyped-def]
    (code,) = _blocks("python")
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_quick_start_begins_with_its_install_line() -> None:
    text = (ROOT / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1]
    first = re.search(r"```(\w+)\n(.*?)```", quick, flags=re.S)
    assert first and first.group(1) == "bash"  # before the Python block
    assert quick.index("```bash") < quick.index("```python")
    line = first.group(2).strip()
    assert "python3 -m venv .venv" in line  # not the system Python
    assert 'pip install -e ".[all]"' in line
    # the [all] extra holds every library the quick start, the check and the tests import
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    (self_ref,) = [r for r in extras["all"] if r.startswith("chainrules[")]
    named = set(self_ref[len("chainrules[") : -1].split(","))
    assert named >= {"jax", "torch", "autograd", "strict", "scipy", "test", "bench"}
    assert any(r.startswith("nox") for r in extras["all"])


def test_ci_runs_the_readme_test_command() -> None:
    commands = "\n".join(_blocks("bash"))
    test_cmd = [ln for ln in commands.splitlines() if "-s tests" in ln]
    assert len(test_cmd) == 1
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd[0].strip() in ci.splitlines()
