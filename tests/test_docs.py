"""The rule-author guide's code runs as written (each page's blocks in order, in one namespace)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

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
