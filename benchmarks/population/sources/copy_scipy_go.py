"""Write ``scipy_go/`` again from a SciPy checkout (how the copies were made):

    python -m benchmarks.population.sources.copy_scipy_go /path/to/scipy [COMMIT]

Each ``go_funcs_*.py`` and ``go_benchmark.py`` of ``benchmarks/benchmarks/go_benchmark_functions``
at ``COMMIT`` (default ``HEAD``), with its docstrings removed (the lines of each module's,
class's and function's docstring, found with ``ast``) and a header naming the origin and the
licence; ``go_benchmark.py``'s ``from ..common import safe_import`` becomes a local definition
(SciPy's ``safe_import`` suppresses ``ImportError``). Nothing else changes.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

D = "benchmarks/benchmarks/go_benchmark_functions"
OUT = Path(__file__).parent / "scipy_go"
SAFE_IMPORT = (
    "from contextlib import suppress as _suppress\n\n\n"
    "def safe_import():  # scipy's benchmarks/common.py: ImportError is skipped\n"
    "    return _suppress(ImportError)\n"
)


def strip_docstrings(src: str) -> str:
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    drop: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.Module)) and len(node.body) > 1:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                drop.update(range(first.lineno - 1, first.end_lineno or first.lineno))
    out, blank = [], 0
    for i, line in enumerate(lines):
        if i in drop:
            continue
        blank = blank + 1 if not line.strip() else 0
        if blank <= 2:
            out.append(line)
    return "".join(out)


def main(repo: str, commit: str = "HEAD") -> None:
    full = subprocess.check_output(["git", "-C", repo, "rev-parse", commit], text=True).strip()

    def show(name: str) -> str:
        return subprocess.check_output(["git", "-C", repo, "show", f"{full}:{D}/{name}"], text=True)

    def header(name: str) -> str:
        return (
            f'"""Copied from scipy/scipy {D}/{name} at commit {full[:12]}\n'
            "(BSD-3-Clause, Copyright (c) 2001-2002 Enthought, Inc. 2003, SciPy Developers).\n\n"
            "The code is unchanged except that docstrings are removed (the originals describe "
            "each\n"
            'function and its references); see benchmarks/population/__init__.py."""\n\n'
            "# ruff: noqa\n# fmt: off\n"
        )

    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        name = f"go_funcs_{letter}.py"
        (OUT / name).write_text(header(name) + strip_docstrings(show(name)))
    src = show("go_benchmark.py").replace(
        "from ..common import safe_import  # noqa:F401\n", SAFE_IMPORT
    )
    (OUT / "go_benchmark.py").write_text(header("go_benchmark.py") + strip_docstrings(src))


if __name__ == "__main__":
    main(*sys.argv[1:])
