"""Ownership is explicit (issue 27): a pullback writes into nothing it did not allocate -- not
the output, the operands, the cotangent it is given, nor an array a partial returns unchanged
(``exp``'s ``out``) -- and nothing in the library reads a reference count to decide otherwise."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for

from .test_deferred_operands import _big
from .test_scalar_rule_pullbacks import FORMULAS, is_real


@pytest.mark.parametrize("reg", FORMULAS, ids=lambda r: r.name)
def test_no_pullback_writes_what_another_holds(reg: cr.Registration) -> None:
    f = BACKENDS["numpy"].function(reg)
    taken = 0
    for ex in examples_for(reg):
        if ex.complex or not all(is_real(a) for a in ex.args):
            continue
        for args in (ex.args, _big(ex.args)):  # inline and deferred (thunk) cotangents
            y, pb = cr.rrule(f, *args)
            g = np.random.default_rng(5).standard_normal(np.shape(y)).astype(np.asarray(y).dtype)
            if not isinstance(g, np.ndarray):
                continue
            kept = [np.copy(a) for a in (y, g, *args)]
            first = [cr.unthunk(c) for c in pb(g)[1:]]
            again = [cr.unthunk(c) for c in pb(g)[1:]]  # a pullback called twice: same result
            for a, b in zip(first, again):
                np.testing.assert_array_equal(a, b)
            for now, before in zip((y, g, *args), kept):
                np.testing.assert_array_equal(now, before)
            taken += 1
    assert taken, reg.name


_LIBRARY = pathlib.Path(cr.__file__).parent
# ways of asking the interpreter who else holds an object: none decides anything in the library
_INTROSPECTION = {
    "getrefcount",
    "get_referrers",
    "get_referents",
    "setprofile",
    "settrace",
    "co_varnames",
    "get_instructions",
}


def _introspection(tree: ast.AST) -> list[int]:
    """Lines that read a reference count, a code object or a profile hook, or import ``gc`` or
    ``dis``."""
    bad = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute | ast.Name | ast.alias):
            name = n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None)
            name = name or getattr(n, "name", None)
            if name in _INTROSPECTION:
                bad.append(n.lineno)
        if isinstance(n, ast.Import) and any(a.name in ("gc", "dis") for a in n.names):
            bad.append(n.lineno)
    return sorted(set(bad))


@pytest.mark.parametrize(
    "path",
    sorted(_LIBRARY.rglob("*.py")),
    ids=lambda p: str(p.relative_to(_LIBRARY)),
)
def test_no_reference_counts_decide_ownership(path: pathlib.Path) -> None:
    src = path.read_text()
    lines = _introspection(ast.parse(src))
    assert not lines, [f"{path.name}:{i}: {src.splitlines()[i - 1].strip()}" for i in lines]


def test_static_check_finds_reference_counts() -> None:
    """The check above flags what the engine used to do (so it would catch it again)."""
    old = """
import gc
from sys import getrefcount

def receive(self, g):
    if getrefcount(self.ct) <= 2:
        pass
    return sys.getrefcount(g)
"""
    assert _introspection(ast.parse(old)) == [2, 3, 6, 8]
