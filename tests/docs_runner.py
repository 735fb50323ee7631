"""Run the python blocks of one documentation page, in order, in one namespace, in this (fresh)
interpreter, and check what they show: ``python tests/docs_runner.py docs/ad.md`` prints one JSON
object (a result per block) on its last line.

The convention the pages follow (doctest-style, written as comments so that a block stays
runnable when copied):

* The comment that directly follows a ``print(...)`` call -- at the end of the call's last line, or
  on the comment lines right below it -- is exactly what that call prints (all of its calls, if the
  line runs more than once). Runs of whitespace compare equal and ``...`` stands for any text, as
  doctest's NORMALIZE_WHITESPACE and ELLIPSIS; every ``print`` of a page shows its output so.
* A statement followed by a comment ``# SomeError: message`` (same placement) raises that
  exception with that message; any other exception fails the block.
* Explanations go on their own comment lines, never after an output.

A block is skipped only when it imports a missing backend named in ``BACKENDS`` (and a later block
that then misses a name that block defined is skipped with it); every skip is reported.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import json
import re
import sys
import tokenize
import traceback
from pathlib import Path
from typing import Any

BACKENDS = (
    *("jax", "torch", "cupy", "dask", "autograd", "array_api_strict", "scipy", "hypothesis"),
    *("keras", "pytensor", "pymc"),
)
"""The optional libraries a page may need: a block that imports a missing one is skipped."""

_BLOCK = re.compile(r"^([ \t]*)```python[ \t]*\n(.*?)^\1```[ \t]*$", re.S | re.M)
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)):\s")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(line of the block's first code line, dedented code)`` of each ```python block."""
    out = []
    for m in _BLOCK.finditer(text):
        indent, code = m.group(1), m.group(2)
        lines = [ln[len(indent) :] if ln.startswith(indent) else ln for ln in code.split("\n")]
        out.append((text.count("\n", 0, m.start(2)) + 1, "\n".join(lines)))
    return out


def _comments(code: str) -> dict[int, tuple[str, bool]]:
    """``{line: (comment text without '#', whether the line holds only the comment)}``."""
    out: dict[int, tuple[str, bool]] = {}
    lines = code.split("\n")
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            alone = not lines[row - 1][:col].strip()
            text = tok.string[1:]
            out[row] = (text[1:] if text.startswith(" ") else text, alone)
    return out


def _shown_after(end: int, comments: dict[int, tuple[str, bool]]) -> str | None:
    """The comment that follows a statement ending on line ``end``: on that line, else the
    comment-only lines right below it; ``None`` when there is none."""
    if end in comments and not comments[end][1]:
        return comments[end][0]
    lines, row = [], end + 1
    while row in comments and comments[row][1]:
        lines.append(comments[row][0])
        row += 1
    return "\n".join(lines) if lines else None


def matches(want: str, got: str) -> bool:
    """doctest's NORMALIZE_WHITESPACE and ELLIPSIS: whitespace runs are equal, ``...`` is any
    text."""
    parts = [re.escape(w).replace(re.escape("..."), ".*") for w in want.split()]
    return re.fullmatch(r"\s+".join(parts), got.strip(), flags=re.S) is not None


def _is_print(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "print"
    )


def _missing_backend(exc: BaseException) -> str | None:
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.split(".")[0]
        if top in BACKENDS:
            return top
    return None


def run_page(path: str, root: Path) -> dict[str, Any]:
    text = (root / path).read_text()
    results: list[dict[str, Any]] = []
    ns: dict[str, Any] = {"__name__": "__main__"}
    printed: dict[int, list[str]] = {}  # line of a print call in the page -> what it printed
    real_print = builtins.print

    def doc_print(*args: Any, **kwargs: Any) -> None:
        target = kwargs.get("file")
        if target is not None and target is not sys.stdout:
            real_print(*args, **kwargs)
            return
        buf = io.StringIO()
        real_print(*args, **{**kwargs, "file": buf})
        frame = sys._getframe(1)
        if frame.f_code.co_filename == path:
            printed.setdefault(frame.f_lineno, []).append(buf.getvalue())
        sys.stdout.write(buf.getvalue())

    ns["print"] = doc_print
    skipped_for: dict[str, str] = {}  # a name a skipped block would have defined -> backend

    for first_line, code in python_blocks(text):
        result: dict[str, Any] = {"line": first_line, "status": "ok", "problems": []}
        results.append(result)
        problems: list[str] = result["problems"]
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            result["status"] = "fail"
            problems.append(f"line {first_line - 1 + (exc.lineno or 1)}: {exc.msg}")
            continue
        ast.increment_lineno(tree, first_line - 1)
        comments = {first_line - 1 + k: v for k, v in _comments(code).items()}  # page line numbers
        prints = [n for n in ast.walk(tree) if isinstance(n, ast.Expr) and _is_print(n)]
        for node in prints:
            if _shown_after(node.end_lineno or node.lineno, comments) is None:
                problems.append(f"line {node.lineno}: a print without its output in a comment")
        for stmt in tree.body:
            want = None if _is_print(stmt) else _shown_after(stmt.end_lineno or 0, comments)
            want_exc = want if want is not None and _EXCEPTION.match(want) else None
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(ast.Module([stmt], []), path, "exec"), ns)
            except Exception as exc:  # noqa: BLE001  (compared with what the page quotes)
                backend = _missing_backend(exc)
                missing = exc.name if isinstance(exc, NameError) else None
                if backend is None and missing in skipped_for:
                    backend = skipped_for[missing]
                if backend is not None:
                    result["status"] = "skip"
                    result["reason"] = f"{backend} is not installed"
                    for defined in ast.walk(tree):
                        if isinstance(defined, ast.Name) and isinstance(defined.ctx, ast.Store):
                            skipped_for[defined.id] = backend
                        elif isinstance(defined, (ast.FunctionDef, ast.ClassDef)):
                            skipped_for[defined.name] = backend
                        elif isinstance(defined, ast.alias):
                            skipped_for[(defined.asname or defined.name).split(".")[0]] = backend
                    break
                got = f"{type(exc).__name__}: {exc}"
                if want_exc is None:
                    tb = "".join(traceback.format_exception(exc)[-6:])
                    problems.append(f"line {stmt.lineno}: raised {got}\n{tb}")
                    break
                if not matches(want_exc, got):
                    problems.append(
                        f"line {stmt.lineno}: raised\n  {got}\nbut the page shows\n  {want_exc}"
                    )
                continue
            if want_exc is not None:
                problems.append(f"line {stmt.lineno}: the page shows {want_exc!r}; nothing raised")
        if result["status"] == "skip":
            problems.clear()
            continue
        for node in prints:
            want = _shown_after(node.end_lineno or node.lineno, comments)
            got = "".join(
                "".join(printed.get(ln, []))
                for ln in range(node.lineno, (node.end_lineno or 0) + 1)
            )
            if want is not None and not matches(want, got):
                problems.append(
                    f"line {node.lineno}: printed\n{got.rstrip()}\nbut the page shows\n{want}"
                )
        if problems:
            result["status"] = "fail"
    return {"page": path, "blocks": results}


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1]
    sys.path[0] = str(root)  # the checkout's chainrules, not this directory's modules
    report = run_page(argv[0], root)
    sys.stdout.write("\n" + json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
