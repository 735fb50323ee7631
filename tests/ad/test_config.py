"""The engine's RuleConfig (``chainrules/ad/_config.py``) and the imports among ``chainrules.ad``'s
modules."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import chainrules as cr
from chainrules import ad
from chainrules.ad._config import AD_CONFIG

AD = Path(ad.__file__).parent


def _ad_imports(path: Path) -> set[str]:
    """The modules of ``chainrules.ad`` that ``path`` imports, at its top or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            out.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            out.update(a.name for a in node.names)
    return out


def _graph() -> dict[str, set[str]]:
    mods = {q.stem for q in AD.glob("*.py")} - {"__init__"}
    return {p.stem: _ad_imports(p) & mods for p in AD.glob("*.py") if p.stem in mods}


def _circles() -> list[str]:
    """The modules of ``chainrules.ad`` that import themselves back, directly or not."""
    graph = _graph()

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(graph.get(m, ()))
        return seen

    return sorted(m for m in graph if m in reach(m))


def test_no_import_circle_through_the_config() -> None:
    """Issue 27, item 4: ``_api`` -> ``_user_rules`` -> ``_config`` -> ``_api`` is gone
    (counting imports inside functions): ``_api`` hands the config its ``vjp``/``jvp``."""
    circles = _circles()
    for m in ("_api", "_user_rules", "_config", "_compat"):
        assert m not in circles, circles


def test_no_import_circle_inside_ad() -> None:
    """Issue 27, item 4: no import circle anywhere in ``ad/`` (``_tracer`` calls ``_pytree`` and
    ``_classes`` through the functions they hand to ``_tracer.ABOVE``)."""
    assert not _circles()


def test_rrule_via_ad_and_frule_via_ad_are_the_engine() -> None:
    def g(x: np.ndarray) -> np.ndarray:
        return np.sin(x) * x

    x = np.array([0.3, 1.1])
    y, pb = AD_CONFIG.rrule_via_ad(g, x)
    f_bar, x_bar = pb(np.ones(2))
    assert f_bar == cr.NoTangent()
    np.testing.assert_allclose(y, g(x))
    np.testing.assert_allclose(x_bar, np.cos(x) * x + np.sin(x), rtol=1e-12)
    y2, dy = AD_CONFIG.frule_via_ad((cr.NoTangent(), np.ones(2)), g, x)
    np.testing.assert_allclose(y2, g(x))
    np.testing.assert_allclose(dy, np.cos(x) * x + np.sin(x), rtol=1e-12)
