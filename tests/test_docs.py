"""The rule-author guide's code runs as written (each page's blocks in order, in one namespace)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import html
import importlib
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.cli import _select

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


docs_runner = _load("docs_runner", ROOT / "tests" / "docs_runner.py")  # also run per page


def _pages() -> list[str]:
    """README.md and every page under docs/ that has a python block."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [str(p.relative_to(ROOT)) for p in paths if docs_runner.python_blocks(p.read_text())]


KNOWN_TO_DIFFER: dict[tuple[str, str], str] = {
    # (page, a line of the block): why the block does not print what the page shows today
}


def _known_lines(page: str) -> dict[int, str]:
    """``{first line: reason}`` of the page's blocks listed in ``KNOWN_TO_DIFFER``."""
    blocks = docs_runner.python_blocks((ROOT / page).read_text())
    return {
        line: reason
        for line, code in blocks
        for (p, snippet), reason in KNOWN_TO_DIFFER.items()
        if p == page and snippet in code
    }


def _run_page(page: str) -> dict[str, Any]:
    """One page's blocks in a fresh interpreter (``tests/docs_runner.py``): its JSON report."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "docs_runner.py"), page, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    last = proc.stdout.rstrip().rpartition("\n")[2]
    if proc.returncode != 0 or not last.startswith("{"):
        raise AssertionError(
            f"{page}: the runner failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
        )
    report: dict[str, Any] = json.loads(last)
    return report


@pytest.fixture(scope="module")
def page_report(request):  # type: ignore[no-untyped-def]
    """``page_report(page)``: the page's run, shared by the tests that read it. Without xdist the
    pages this session selected start at once, one interpreter per core, the longest first; under
    xdist each worker runs the pages of the tests it is given."""
    futures: dict[str, concurrent.futures.Future[dict[str, Any]]] = {}
    pool = None
    if "PYTEST_XDIST_WORKER" not in os.environ:
        wanted = {
            item.callspec.params["page"]
            for item in request.session.items
            if item.module is sys.modules[__name__]
            and hasattr(item, "callspec")
            and "page" in item.callspec.params
            # an empty parametrisation (KNOWN_TO_DIFFER empty) holds a NOTSET value, no page
            and isinstance(item.callspec.params["page"], str)
        }
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
        for page in sorted(wanted, key=lambda p: -(ROOT / p).stat().st_size):
            futures[page] = pool.submit(_run_page, page)

    def get(page: str) -> dict[str, Any]:
        if page not in futures:
            done: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()
            done.set_result(_run_page(page))
            futures[page] = done
        return futures[page].result()

    yield get
    if pool is not None:
        pool.shutdown(cancel_futures=True)


@pytest.mark.parametrize("page", _pages())
def test_doc_page_runs_and_prints_what_it_shows(page: str, page_report) -> None:  # type: ignore[no-untyped-def]
    """Each python block of the README and the docs runs, in order, in one fresh interpreter per
    page, and prints (or raises) exactly what its comments show -- the convention is in
    ``tests/docs_runner.py``. A block is skipped only for a missing backend, by name; a page with
    a skipped block is reported as skipped (after its other blocks passed), with the count."""
    report = page_report(page)
    known = _known_lines(page)
    failed = [
        f"{page}:{b['line']}:\n" + "\n".join(b["problems"])
        for b in report["blocks"]
        if b["status"] == "fail" and b["line"] not in known
    ]
    assert not failed, "\n\n".join(failed)
    skipped = [
        f"line {b['line']} ({b['reason']})" for b in report["blocks"] if b["status"] == "skip"
    ]
    if skipped:
        n = len(report["blocks"])
        pytest.skip(f"{page}: {len(skipped)} of {n} blocks skipped: {', '.join(skipped)}")


@pytest.mark.parametrize(
    ("page", "snippet"),
    [
        pytest.param(p, snippet, marks=pytest.mark.xfail(strict=True, reason=reason))
        for (p, snippet), reason in KNOWN_TO_DIFFER.items()
    ],
)
def test_doc_block_known_to_differ(page: str, snippet: str, page_report) -> None:  # type: ignore[no-untyped-def]
    """The blocks the page test leaves out, each strict: when one prints what its page shows, this
    test passes, which fails the run, so that it is taken off ``KNOWN_TO_DIFFER``."""
    report = page_report(page)
    lines = [
        ln
        for ln, reason in _known_lines(page).items()
        if reason == KNOWN_TO_DIFFER[(page, snippet)]
    ]
    assert len(lines) == 1, f"{page}: {snippet!r} is in {len(lines)} blocks, not one"
    (block,) = [b for b in report["blocks"] if b["line"] == lines[0]]
    assert block["status"] == "ok", "\n".join(block["problems"])


def test_the_docs_convention_catches_a_wrong_output_and_a_wrong_error(tmp_path: Path) -> None:
    """The runner fails a print whose shown output differs, a print that shows none, an error
    that differs from the one quoted and a quoted error that is not raised; it skips a block that
    imports a missing backend, and the blocks that need what it defines."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nprint(1 + 1)  # 3\nprint(2)\n```\n\n"
        "```python\nprint(len([1, 2]))\n# 2\nint('x')\n# ValueError: invalid literal ...\n```\n\n"
        "```python\nint('1')\n# ValueError: ...\n```\n\n"
        "```python\n1 / 0\n# ValueError: ...\n```\n\n"
        "```python\nimport cupy\nc = cupy.ones(2)\n```\n\n"
        "```python\nprint(c)  # [1. 1.]\n```\n"
    )
    report = docs_runner.run_page("page.md", tmp_path)
    status = [b["status"] for b in report["blocks"]]
    assert status[1] == "ok"
    assert [status[i] for i in (0, 2, 3)] == ["fail"] * 3
    assert "printed\n2\nbut the page shows\n3" in report["blocks"][0]["problems"][1]
    assert "a print without its output" in report["blocks"][0]["problems"][0]
    assert "nothing raised" in report["blocks"][2]["problems"][0]
    assert "raised\n  ZeroDivisionError" in report["blocks"][3]["problems"][0]
    if importlib.util.find_spec("cupy") is None:
        assert status[4:] == ["skip", "skip"]
        assert report["blocks"][5]["reason"] == "cupy is not installed"


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


def test_bench_streams_rows_and_survives_a_failing_suite(
    tmp_path: Path, benchmark_script: Any
) -> None:
    run = benchmark_script("run")
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
    mod = _load("griffe_ext", ROOT / "docs_tools" / "griffe_ext.py")
    text = "Summary.\n\n>>> f(1)\n2\n\nExamples\n--------\n>>> g()\n"
    out = mod.fence_doctests(text)
    assert out.startswith("Summary.\n\n```pycon\n>>> f(1)\n2\n```\n")
    assert out.endswith("Examples\n--------\n>>> g()\n")  # numpydoc's own section is left to it


def test_sphinx_roles_become_code_links() -> None:
    mod = _load("griffe_ext", ROOT / "docs_tools" / "griffe_ext.py")
    out = mod.render_roles(
        "see :func:`check_cotangent`, :class:`~chainrules.testing.device.DeviceArray` and "
        ":data:`META_KEYS`.",
        lambda name: {"check_cotangent": "chainrules.core.toolkit.check_cotangent"}.get(name),
    )
    assert out == (
        'see <autoref identifier="chainrules.core.toolkit.check_cotangent" optional>'
        "<code>check_cotangent</code></autoref>, "
        '<autoref identifier="chainrules.testing.device.DeviceArray" optional>'
        "<code>DeviceArray</code></autoref> and "
        '<autoref identifier="META_KEYS" optional><code>META_KEYS</code></autoref>.'
    )


def test_every_role_in_the_docstrings_is_one_the_extension_renders() -> None:
    """No docstring of the package uses a role form that ``docs_tools/griffe_ext.py`` would leave
    as raw text (``:any:`x```, ``:py:func:`x```, ...)."""
    mod = _load("griffe_ext", ROOT / "docs_tools" / "griffe_ext.py")
    left = []
    for path in sorted((ROOT / "chainrules").rglob("*.py")):
        text = path.read_text()
        for m in re.finditer(r"(?::[a-z]+)+:`[^`]+`", mod.ROLE.sub("", text)):
            left.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert not left


def _mkdocs() -> list[str] | None:
    if importlib.util.find_spec("mkdocs") is not None:
        return [sys.executable, "-m", "mkdocs"]
    found = shutil.which("mkdocs") or next(
        (str(p) for p in [ROOT / ".nox" / "docs" / "bin" / "mkdocs"] if p.is_file()), None
    )
    return [found] if found else None


RAW_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|obj|exc|const|any):`?\w")


def test_the_built_site_shows_no_raw_role(tmp_path: Path) -> None:
    """``mkdocs build --strict`` succeeds, ships no stray file of the docs tooling, and no page's
    visible text holds a Sphinx role (``:func:check_cotangent``)."""
    mkdocs = _mkdocs()
    if mkdocs is None:
        pytest.skip("mkdocs is not installed (the docs extra; nox -s docs has it)")
    site = tmp_path / "site"
    proc = subprocess.run(
        [*mkdocs, "build", "--strict", "-q", "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not list(site.rglob("*.py"))
    raw = []
    for page in sorted(site.rglob("*.html")):
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
        raw += [f"{page.relative_to(site)}: {m.group(0)}" for m in RAW_ROLE.finditer(text)]
    assert not raw
    assert 'id="chainrules.scalar_rule"' in (site / "api" / "index.html").read_text()


def _api_entries() -> list[tuple[str, str]]:
    """``(module, member)`` in the order docs/api.md lists them."""
    text = (ROOT / "docs" / "api.md").read_text()
    out = []
    for m in re.finditer(r"^::: (\S+)\n((?:    .*\n)+)", text, flags=re.M):
        members = re.search(r"members:\n((?:\s+- \S+\n)+)", m.group(2))
        for name in re.findall(r"- (\S+)", members.group(1) if members else ""):
            out.append((m.group(1), name))
    return out


def test_the_api_reference_starts_with_the_core_calls_and_covers_every_public_name() -> None:
    """docs/api.md: the core calls first in the issue's order, then the tangent types,
    chainrules.ad, chainrules.interop, chainrules.testing, and the internals last; every name of
    each module's ``__all__`` has an entry."""
    import chainrules.ad
    import chainrules.testing

    entries = _api_entries()
    core = [
        "rrule", "frule", "register_rrule", "register_frule", "traceable", "pullback",
        "ProjectTo", "namespace_of", "scalar_rule", "non_differentiable", "allowscalar",
        "scatter_add",
    ]  # fmt: skip
    assert entries[: len(core)] == [("chainrules", n) for n in core]
    tangents = {"NoTangent", "ZeroTangent", "AbstractZero", "Tangent", "Thunk", "InplaceableThunk"}
    after_core = [n for _, n in entries[len(core) : len(core) + len(tangents)]]
    assert set(after_core) == tangents
    modules = [mod for mod, _ in entries]
    firsts = [modules.index(m) for m in ("chainrules.ad", "chainrules.interop.jax")]
    firsts.append(modules.index("chainrules.testing"))
    assert firsts == sorted(firsts) and firsts[0] > len(core)
    last_testing = max(i for i, m in enumerate(modules) if m.startswith("chainrules.testing"))
    assert all(m == "chainrules" for m in modules[last_testing + 1 :])  # the internals last
    for module in (cr, chainrules.ad, chainrules.testing):
        listed = {n for mod, n in entries if mod == module.__name__}
        # a name exported twice (chainrules.Example is chainrules.testing.Example) is listed once
        elsewhere = {
            n
            for mod, n in entries
            if getattr(_import_unless_missing_engine(mod), n, None) is getattr(module, n, object())
        }
        missing = [n for n in module.__all__ if n not in listed and n not in elsewhere]
        assert not missing, f"{module.__name__}: no API entry for {missing}"


def _import_unless_missing_engine(module: str) -> Any:
    """The module, or None where it imports an optional engine that is not installed (a bridge,
    ``chainrules.interop.pytensor`` without the pytensor extra)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in docs_runner.BACKENDS:
            return None
        raise


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
