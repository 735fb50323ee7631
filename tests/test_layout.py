"""The package's boundaries: no private name is imported across its subpackages, and nothing in
``core`` or ``rules`` imports from ``testing``, ``ad``, ``interop`` or the CLI."""

from __future__ import annotations

import ast
from pathlib import Path

import chainrules

ROOT = Path(chainrules.__file__).parent
LOWER = ("core", "rules")
UPPER = ("testing", "ad", "interop", "cli")


def _package(parts: list[str], root: Path) -> str:
    """The subpackage (``core``, ``rules``, ...) a module path inside chainrules belongs to."""
    if not parts:
        return "<top>"
    if len(parts) == 1 and not (root / parts[0]).is_dir():
        return parts[0] if parts[0] in UPPER else "<top>"
    return parts[0]


def _imports(path: Path, root: Path) -> list[tuple[int, list[str], list[str]]]:
    """``(line, target module parts inside chainrules, imported names)`` of each import."""
    mod = list(path.relative_to(root).with_suffix("").parts)
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = mod[: len(mod) - node.level]
            target = base + (node.module.split(".") if node.module else [])
        elif node.module and node.module.split(".")[0] == "chainrules":
            target = node.module.split(".")[1:]
        else:
            continue
        out.append((node.lineno, target, [a.name for a in node.names]))
    return out


def _violations(root: Path = ROOT) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = list(path.relative_to(root).parts)
        here = rel[0] if len(rel) > 1 else "<top>"
        for line, target, names in _imports(path, root):
            there = _package(target, root)
            if there == here:
                continue
            where = f"{path.relative_to(root)}:{line}"
            private = [n for n in names if n.startswith("_")]
            if private or any(p.startswith("_") for p in target[1:]):
                bad.append(f"{where}: private {'.'.join(target)} {private}")
            if here in LOWER and there in UPPER:
                bad.append(f"{where}: {here} imports {there}")
    return bad


def test_no_private_imports_across_packages_and_no_upward_imports():
    assert _violations() == []


def test_the_scan_sees_a_violation(tmp_path):
    """The check can fail: a private import from core into rules is reported."""
    pkg = tmp_path / "chainrules"
    (pkg / "core").mkdir(parents=True)
    (pkg / "rules").mkdir()
    (pkg / "testing").mkdir()
    (pkg / "core" / "a.py").write_text("_x = 1\n")
    (pkg / "rules" / "b.py").write_text("from ..core.a import _x\nfrom ..testing import y\n")
    found = _violations(pkg)
    assert any("private core.a ['_x']" in v for v in found), found
    assert any("rules imports testing" in v for v in found), found


# --- rules/ is a row of siblings over core/ (issue 27) ------------------------------------------
def _rule_import_violations(root: Path = ROOT) -> list[str]:
    """Each import by a module of ``rules/`` of anything in chainrules but ``core`` and the shared
    maths ``rules/_util``. A package's ``__init__`` may import its own submodules (that is what
    registers their rules), nothing else."""
    bad = []
    rules = root / "rules"
    for path in sorted(rules.rglob("*.py")):
        mod = list(path.relative_to(root).with_suffix("").parts)
        is_init = mod[-1] == "__init__"
        for line, target, names in _imports(path, root):
            if not target or target[0] == "core" or target[:2] == ["rules", "_util"]:
                continue
            if (
                is_init
                and target == mod[:-1]
                and all(
                    (path.parent / f"{n}.py").exists() or (path.parent / n).is_dir() for n in names
                )
            ):
                continue  # the package's own submodules
            if is_init and target[:-1] == mod[:-1] and len(target) == len(mod):
                continue  # from .sub import name, inside the package's __init__
            bad.append(f"{path.relative_to(root)}:{line}: imports {'.'.join(target)} {names}")
    return bad


def test_rule_modules_import_only_core_and_the_shared_maths():
    assert _rule_import_violations() == []


def test_the_rule_import_scan_sees_a_violation(tmp_path):
    pkg = tmp_path / "chainrules"
    (pkg / "rules" / "_util").mkdir(parents=True)
    (pkg / "core").mkdir()
    (pkg / "rules" / "__init__.py").write_text("from . import a, b\n")
    (pkg / "rules" / "_util" / "__init__.py").write_text("from ...core import x\n")
    (pkg / "rules" / "a.py").write_text("from ..core import x\nfrom ._util import y\n")
    (pkg / "rules" / "b.py").write_text("from .a import helper\n")
    assert _rule_import_violations(pkg) == ["rules/b.py:1: imports rules.a ['helper']"]


# --- no file is over 800 lines (issue 27, item 4) ------------------------------------------------
def _long_files(root: Path = ROOT, limit: int = 800) -> list[str]:
    """The modules of the package over ``limit`` lines, with their length."""
    out = []
    for path in sorted(root.rglob("*.py")):
        n = len(path.read_text().splitlines())
        if n > limit:
            out.append(f"{path.relative_to(root)}: {n} lines")
    return out


def test_no_module_is_over_800_lines():
    assert _long_files() == []


def test_the_length_scan_sees_a_long_file(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n" * 801)
    (tmp_path / "b.py").write_text("x = 1\n" * 800)
    assert _long_files(tmp_path) == ["a.py: 801 lines"]
