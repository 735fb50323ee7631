"""Issue 26, item 1, "a marker rule": every engine and transformation that consumes the registry
uses the registered rule, checked with marker rules whose derivatives are 3x the true ones
(``chainrules.testing.campaign.markers``): a cell is ``rule`` (3x), ``body`` (1x: the engine
differentiated the body and bypassed the rule), ``wrong`` (neither) or ``error``.

The markers are the kinds of call (``marker_rules``) and one rule of each family of the registry
with a user's rule of one mode (``family_markers``, issue 28 item 1); the torch bridge's
``torch.func`` transformations run eagerly, under ``torch.compile(fullgraph=True)`` and through
``torch.export``; the Keras 3 bridge runs on its JAX and torch backends, each in one child
process (``keras_cells``); the PyTensor bridge's transformations are compiled by
``pytensor.function``.

``marker_cells.json`` is the ratchet: the cells that do not use the rule today, each with its
status and detail (the error's message; ``warned: ...`` where the user was told), asserted
exactly. Every other cell must say ``rule``. A fix changes a listed cell, and then this test
fails until its entry is removed from the file (regenerate it with ``python -m
chainrules.testing.campaign.markers --json tests/fuzz/marker_cells.json``): the list only
shrinks. A ``body`` entry without ``warned`` is a silent wrong value.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from chainrules.testing.campaign import keras_cells, markers
from chainrules.testing.finite_differences import central_difference

RATCHET = Path(__file__).parent / "marker_cells.json"
KNOWN: dict[str, dict[str, str]] = json.loads(RATCHET.read_text())

#: the packages each engine needs beyond JAX (the truth), all in the ``all`` extra
_MODULE: dict[str, tuple[str, ...]] = {
    "jax-bridge": ("jax",),
    "jax-bridge-vjp": ("jax",),
    "autograd-bridge": ("autograd",),
    "torch-bridge": ("torch",),
    "keras-jax": ("keras", "jax"),
    "keras-torch": ("keras", "torch"),
    "pytensor": ("pytensor",),
}
CELLS = markers.cells()
#: the cells computed in this process, one test each; a Keras engine's cells are computed by one
#: child process per backend (``keras_cells``), so each Keras engine is one test (one child per
#: test process, however ``pytest -n`` splits the tests)
LOCAL_CELLS = [c for c in CELLS if c[1] not in markers.KERAS_ENGINES]


def _needs(engine: str) -> None:
    """Skip unless the packages ``engine`` needs are installed: looked up, not imported (Keras,
    imported here, would fix its backend for this process; its cells run in child processes)."""
    for module in ("jax", *_MODULE.get(engine, ())):  # jax: the truth, JAX on the bodies
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")


def _expected(kind: str, engine: str, transform: str) -> dict[str, str]:
    return KNOWN.get(markers.key(kind, engine, transform), {"status": "rule", "detail": ""})


@pytest.mark.parametrize(
    ("kind", "engine", "transform"), LOCAL_CELLS, ids=map(" ".join, LOCAL_CELLS)
)
def test_marker_cell(kind: str, engine: str, transform: str) -> None:
    _needs(engine)
    cell = markers.run_cell(kind, engine, transform)
    assert {"status": cell.status, "detail": cell.detail} == _expected(kind, engine, transform)


@pytest.mark.parametrize("engine", list(markers.KERAS_ENGINES))
def test_keras_cells(engine: str) -> None:
    """Every cell of a Keras engine (every marker, every transformation), from one child process
    on that Keras backend; the message lists each cell that differs from the ratchet."""
    _needs(engine)
    keras_cells.results(markers.KERAS_ENGINES[engine], ())  # a failed child raises its stderr
    cells = [c for c in CELLS if c[1] == engine]
    assert len(cells) == len(markers.MARKERS) * len(markers.CELLS[engine])
    differ = []
    for c in cells:
        cell = markers.run_cell(*c)
        got = {"status": cell.status, "detail": cell.detail}
        if got != _expected(*c):
            differ.append(f"{markers.key(*c)}: got {got}, expected {_expected(*c)}")
    assert differ == []


def test_docs_matrix_page_is_generated_from_the_ratchet() -> None:
    """docs/interop-matrix.md is the ratchet as tables (issue 28 item 6: generated from the
    matrix test, never written by hand); regenerate it with ``python -m
    chainrules.testing.campaign.markers --docs docs/interop-matrix.md``."""
    page = Path(__file__).parents[2] / "docs" / "interop-matrix.md"
    assert page.read_text() == markers.docs_page(KNOWN)


def test_ratchet_lists_only_cells_that_exist() -> None:
    keys = {markers.key(*c) for c in CELLS}
    assert sorted(set(KNOWN) - keys) == []
    assert {v["status"] for v in KNOWN.values()} <= {"body", "wrong", "error"}


def test_disabling_rule_lookup_turns_every_rule_cell_red() -> None:
    """The mutation: with the markers' rules unregistered, no cell that said ``rule`` may still
    say it (each gives the body's derivative or raises), and the rules are back afterwards."""
    for engine in _MODULE:
        _needs(engine)
    rule_cells = [c for c in CELLS if _expected(*c)["status"] == "rule"]
    assert len(rule_cells) >= len(CELLS) // 2
    with markers.rules_disabled():
        after = {c: markers.run_cell(*c) for c in rule_cells}
    still = [" ".join(c) for c, cell in after.items() if cell.status not in ("body", "error")]
    assert still == []
    assert {e for _, e, _ in rule_cells} == set(markers.CELLS)  # every engine was mutated
    # the Keras children saw the parent's registry: their wrap found no rule (not a child that
    # failed as a whole, which would say error too)
    keras = [c for c in rule_cells if c[1] in markers.KERAS_ENGINES]
    assert keras
    assert [" ".join(c) for c in keras if not after[c].detail.startswith("NoRuleError")] == []
    assert markers.run_cell("outputs", "native", "grad").status == "rule"


@pytest.mark.parametrize("kind", list(markers.MARKERS))
def test_the_truth_is_the_bodys_derivative(kind: str) -> None:
    """The reference (JAX on the body) against finite differences of the body in NumPy."""
    pytest.importorskip("jax")
    m = markers.MARKERS[kind]
    F, L = markers.programs(m, m.body, np.asarray, np.sum)
    t = markers.truth(m)
    v, h, eye = m.point(), 1e-3, np.eye(m.n)
    grad = np.array([central_difference(lambda s, e=e: L(v + s * e), h).real for e in eye])
    np.testing.assert_allclose(t.grad, grad, rtol=1e-8, atol=1e-10)
    jvp = central_difference(lambda s: list(F(v + s * m.tangent())), h)
    np.testing.assert_allclose(t.jvp, np.concatenate(jvp).real, rtol=1e-8, atol=1e-10)
    hess = np.array(
        [
            [
                central_difference(
                    lambda r, a=a, b=b: central_difference(lambda s: L(v + r * a + s * b), h),
                    h,
                ).real
                for b in eye
            ]
            for a in eye
        ]
    )
    np.testing.assert_allclose(t.hess, hess, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kind", list(markers.MARKERS))
def test_classify_tells_rule_body_and_partial_use_apart(kind: str) -> None:
    pytest.importorskip("jax")
    m = markers.MARKERS[kind]
    g = markers.truth(m).grad
    assert markers.classify(m, 3 * g, g, True) == ("rule", "")
    assert markers.classify(m, g, g, True) == ("body", "")
    partial = 3 * g
    partial[: m.pieces[0][1]] = 0.0  # the first input given a zero: neither
    status, detail = markers.classify(m, partial, g, True)
    assert status == "wrong"
    assert f"{m.pieces[0][0]}: 0x" in detail
