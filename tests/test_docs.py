"""The rule-author guide's code runs as written (each page's blocks in order, in one namespace)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest

import chainrules as cr
from chainrules.cli import _select

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("page", ["writing-rules.md"])
def test_guide_code_runs(page: str, clean_registry) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("jax")  # one block differentiates a lambda through JAX
    text = (ROOT / "docs" / page).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    ns: dict[str, object] = {"__name__": "docs"}
    for i, block in enumerate(blocks):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, f"docs/{page} block {i}", "exec"), ns)


def _section(page: str, heading: str) -> str:
    text = (ROOT / "docs" / page).read_text()
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_error_messages_are_quoted_as_raised() -> None:
    """Each block of "Errors you will meet" raises the error its comment quotes, word for word."""
    blocks = re.findall(
        r"```python\n(.*?)```", _section("getting-started.md", "## Errors you will meet"), re.S
    )
    assert len(blocks) >= 5
    for block in blocks:
        lines = block.splitlines()
        code = "\n".join(ln for ln in lines if not ln.startswith("#"))
        quoted = " ".join(ln[2:] for ln in lines if ln.startswith("# "))
        ns: dict[str, object] = {"__name__": "__main__", "np": np, "cr": cr}
        if "torch." in code:
            ns["torch"] = pytest.importorskip("torch")
        with pytest.raises(Exception) as info:  # the message is compared below
            exec(compile(code, "docs/getting-started.md", "exec"), ns)
        raised = f"{info.type.__name__}: {info.value}"
        assert " ".join(raised.split()) == " ".join(quoted.split())


def test_quoted_registration_counts() -> None:
    """The numbers of registrations (and cells) the README and the check page quote are the check
    command's: a rule added or removed must update them."""
    n = len(_select(None))
    readme = (ROOT / "README.md").read_text()
    check = (ROOT / "docs" / "check.md").read_text()
    (r,) = re.findall(r"for (\d+) registrations", readme)
    (c,) = re.findall(r"the whole table \((\d+)\s+registrations", check)
    (cells,) = re.findall(r"device columns: (\d+)\s+cells", check)
    assert (int(r), int(c)) == (n, n)
    assert int(cells) == n * 6  # NumPy, array-api-strict, JAX, PyTorch, scalar-free, jit
