"""The rule-author guide's code runs as written (each page's blocks in order, in one namespace)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

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


def _bench_runner() -> Any:
    """``benchmarks/run.py`` as a module (it puts benchmarks/ on sys.path: undone here)."""
    saved = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved


def test_bench_streams_rows_and_survives_a_failing_suite(tmp_path: Path) -> None:
    run = _bench_runner()
    row = run.Row

    def broken(quick: bool) -> list[Any]:
        row("measured before the crash", "1.00 µs", "2.00 µs hand", "0.50x", "(reported)", None)
        raise ModuleNotFoundError("No module named 'jax'")

    def fine(quick: bool) -> list[Any]:
        assert quick
        return [row("fine, n=10", "3.00 µs", "1.00 µs hand", "3.00x", "≤ 4x", True)]

    out, err = io.StringIO(), io.StringIO()
    argv = ["--quick", "--repeats", "2", "--json", str(tmp_path / "run.json")]
    code = run.main(argv, out, err, suites={"broken": broken, "fine": fine})
    assert code == 1  # a failed suite fails the run, after the others ran
    assert "suite broken FAILED: ModuleNotFoundError: No module named 'jax'" in err.getvalue()
    text = out.getvalue()
    assert "| measured before the crash | 1.00 µs |" in text  # streamed, not lost
    assert text.count("| fine, n=10 |") == 3  # each of 2 runs as measured, then the table
    assert "3.00x (3.00-3.00 over 2 runs)" in text
    data = json.loads((tmp_path / "run.json").read_text())
    assert list(data["failed_suites"]) == ["broken"]
    assert data["ranges"]["fine, n=10"] == [3.0, 3.0, 3.0]
    assert data["runs"][0][1]["seconds"] == pytest.approx(3e-6)
    assert run.parse_ratio("19.4x faster") == pytest.approx(1 / 19.4)


def test_doctests_outside_examples_sections_become_code_blocks() -> None:
    spec = importlib.util.spec_from_file_location(
        "griffe_doctest", ROOT / "docs" / "griffe_doctest.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = "Summary.\n\n>>> f(1)\n2\n\nExamples\n--------\n>>> g()\n"
    out = mod.fence_doctests(text)
    assert out.startswith("Summary.\n\n```pycon\n>>> f(1)\n2\n```\n")
    assert out.endswith("Examples\n--------\n>>> g()\n")  # numpydoc's own section is left to it


def _doc_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize(
    ("page", "block", "name"),
    [
        ("README.md", 0, "softplus"),
        ("docs/writing-rules.md", 0, "softplus"),
        ("docs/interop.md", 0, "logsumexp"),
    ],
)
def test_doc_rules_are_right_on_complex_input(page: str, block: int, name: str, clean_registry):  # type: ignore[no-untyped-def]
    """The rules the docs write pull back y_bar * conj(f'(x)) on complex input (they gave
    y_bar * f'(x): wrong phase), checked by the tester against finite differences in the real and
    imaginary directions. softplus's logaddexp takes complex tensors in torch (not in NumPy)."""
    from chainrules.testing import test_frule, test_rrule

    torch = pytest.importorskip("torch")
    ns: dict[str, object] = {"__name__": "docs_complex"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(_doc_blocks(ROOT / page)[block], f"{page} block {block}", "exec"), ns)
    f = ns[name]
    rng = np.random.default_rng(8)
    z = rng.uniform(-1.5, 1.5, (2, 3)) + 1j * rng.uniform(-1.0, 1.0, (2, 3))
    if name == "softplus":
        x = torch.tensor(z)
        test_rrule(f, x, scalar_free=False, jit=False)
        if cr.find_frule(f) is not None:
            test_frule(f, x, scalar_free=False, jit=False)
        return
    # interop.md's logsumexp is a bare pullback (no ZeroTangent handling, which test_rrule asks
    # for): its cotangent is judged against torch.logsumexp's, which shares the convention
    y_bar = rng.standard_normal(2) + 1j * rng.standard_normal(2)
    t = torch.tensor(z, requires_grad=True)
    torch.sum(torch.real(torch.conj(torch.tensor(y_bar)) * torch.logsumexp(t, dim=-1))).backward()
    _, pullback = cr.rrule(f, z)
    assert t.grad is not None
    np.testing.assert_allclose(pullback(y_bar)[1], t.grad.numpy(), rtol=1e-12)


def _printing_blocks(text: str) -> list[tuple[str, str]]:
    """Each python block followed (after one line of prose at most) by a text block: the code and
    the output it prints."""
    pattern = r"```python\n((?:(?!```).)*)```\n\n(?:(?!```)[^\n]*\n\n)?```text\n(.*?)```"
    return re.findall(pattern, text, flags=re.S)


def test_conventions_complex_example_prints_what_the_page_shows() -> None:
    """docs/conventions.md, "Complex numbers": the worked example of the convention (|z|^2 at
    3 + 4i: 6 + 8i from chainrules and PyTorch, 6 - 8i from JAX) prints the output the page
    shows below it."""
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    pairs = _printing_blocks(_section("conventions.md", "## Complex numbers"))
    assert pairs, "the Complex numbers section has no python block with its printed output"
    for code, want in pairs:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "docs/conventions.md", "exec"), {"__name__": "docs"})
        assert out.getvalue().split() == want.split()


@pytest.mark.parametrize(
    "heading", ["## Derivatives at ±inf", "## Zero cotangents through masks (strong zero)"]
)
def test_conventions_examples_print_what_they_say(heading: str) -> None:
    """Each block of these sections of ``docs/conventions.md`` runs, and prints exactly the lines
    its ``# Output:`` comment quotes."""
    blocks = re.findall(r"```python\n(.*?)```", _section("conventions.md", heading), re.S)
    assert blocks
    for block in blocks:
        code, _, quoted = block.partition("# Output:\n")
        want = [ln[2:] if ln.startswith("# ") else ln[1:] for ln in quoted.splitlines()]
        assert want, f"{heading}: a block without '# Output:'"
        ns: dict[str, object] = {"__name__": "docs", "np": np, "cr": cr}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"docs/conventions.md {heading}", "exec"), ns)
        assert out.getvalue().splitlines() == want
