"""benchmarks/rule_reading.py follows a rule's calls: what it counts must be what a reader reads."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="module")
def reading(benchmark_script: Any) -> Any:
    return benchmark_script("rule_reading")


_FILES = {
    "__init__.py": "",
    "core/__init__.py": "",
    "core/toolkit.py": """
        def pullback(f):
            return f
    """,
    "rules/__init__.py": "",
    "rules/_util.py": """
        import math

        LIMIT = 3


        def helper(x):
            return deep(x) + LIMIT


        def deep(x):
            return math.floor(x)


        def unused(x):
            return x
    """,
    "rules/b.py": """
        def far(x):
            return x
    """,
    "rules/a.py": """
        from ..core.toolkit import pullback
        from . import b
        from ._util import helper as h


        def decorate(f):
            return f


        @decorate
        def rule(x, *, ord=2):
            unused = 1  # a local: not _util.unused
            if ord != 2:
                return other(x)
            y = h(x) + unused if ord == 2 else b.far(x)
            return pullback(y)


        def other(x):
            return b.far(x)


        def never_called(x):
            return x
    """,
}


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A tiny package ``crtoy`` on ``sys.path``: its root and its module ``rules.a``."""
    root = tmp_path / "crtoy"
    for rel, text in _FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root, importlib.import_module("crtoy.rules.a")
    for name in [m for m in sys.modules if m == "crtoy" or m.startswith("crtoy.")]:
        del sys.modules[name]


def _names(r: Any) -> set[str]:
    return {u.name for u in r.units}


def test_follows_names_through_imports_transitively(reading: Any, package: Any) -> None:
    root, a = package
    r = reading.Reader(root, exclude=("core/toolkit.py",)).read([a.rule])
    # helper is imported under another name; deep and LIMIT are reached through it; b.far through
    # other and through a module attribute; the decorator, toolkit, _util.unused, math: not
    assert _names(r) == {"rule", "other", "helper", "deep", "LIMIT", "far"}
    assert r.files == 3
    assert r.places == 5  # LIMIT is an assignment: lines, not a place
    src = (root / "rules/a.py").read_text().splitlines()
    first = src.index("@decorate") + 1
    last = src.index("    return pullback(y)") + 1
    rule_unit = next(u for u in r.units if u.name == "rule")
    assert (rule_unit.first, rule_unit.last) == (first, last)  # decorators included, whole
    want = (last - first + 1) + 2 + 2 + 1 + 2 + 2  # rule, other, helper, deep, LIMIT, far
    assert r.lines == want


def test_an_excluded_file_is_not_read(reading: Any, package: Any) -> None:
    root, a = package
    r = reading.Reader(root, exclude=()).read([a.rule])
    assert "pullback" in _names(r)
    r = reading.Reader(root, exclude=("rules/b.py", "core")).read([a.rule])
    assert "far" not in _names(r) and "pullback" not in _names(r)


def test_keyword_values_leave_dead_branches_unfollowed(reading: Any, package: Any) -> None:
    root, a = package
    r = reading.Reader(root, exclude=("core/toolkit.py",)).read([a.rule], {"ord": 2})
    # `if ord != 2: return other(x)` and `... else b.far(x)` are dead for ord=2
    assert _names(r) == {"rule", "helper", "deep", "LIMIT"}
    r = reading.Reader(root, exclude=("core/toolkit.py",)).read([a.rule], {"ord": 1})
    assert _names(r) == {"rule", "other", "far"}  # returns before h(x) is reached


def test_a_helper_with_rules_of_its_own_is_read_with_them(reading: Any) -> None:
    """``sum``'s pullback calls ``unsum``, which has an rrule and an frule (second derivatives):
    they are read too; and a specialised rule is read with its library methods."""
    r = reading.Reader().read(reading.rules_of("sum"))
    names = _names(r)
    assert {"unsum", "_unsum_rrule", "_unsum_frule"} <= names
    assert all(not u.file.name.endswith(("toolkit.py", "projection.py")) for u in r.units)


def test_library_methods_are_read_and_shown_apart(reading: Any) -> None:
    """The 2-norm's ``unless_inf`` is read with its NumPy and torch methods, as methods."""
    r = reading.Reader().read(reading.rules_of("linalg.vector_norm"), {"ord": 2})
    methods = {u.name for u in r.units if u.method}
    assert {"_unless_inf_numpy", "_unless_inf_torch"} <= methods
    assert "unless_inf" in _names(r) and "unless_inf" not in methods
    assert r.method_lines == sum(u.lines for u in r.units if u.method) > 0


def test_the_command_prints_and_writes_json(reading: Any, tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "r.json"
    assert reading.main(["reshape", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    data = __import__("json").loads(out.read_text())
    assert data["reshape"]["lines"] > 0 and "reshape" in printed
    assert data["reshape"]["with_vocabulary"]["lines"] >= data["reshape"]["lines"]
