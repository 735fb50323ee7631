"""Marker rules: proof that each engine and transformation uses the registered rule.

A *marker* is a user's ``@chainrules.traceable`` function whose body computes the true value and
whose registered rrule and frule give **3x** the true derivative. Differentiated through an
engine, it tells what the engine did:

* ``rule``: the result is 3x the true derivative -- the registered rule was used;
* ``body``: the result is the true derivative -- the engine differentiated the body and
  bypassed the rule, with no error (a silent failure: a user's custom rule, a numerically stable
  or a GPU-safe one, would be ignored);
* ``wrong``: neither (for instance the rule was used for some arguments and a zero given to
  others); the detail gives the ratio to the truth per input;
* ``error``: the engine raised; the detail is the message.

There is one marker per kind of call (:data:`MARKERS`): an array passed by keyword
(``keyword``: ``f(x, w=w)``; ``keywords-only``: the same function called ``f(x=x, w=w)``), a
dict holding an array and a tuple of arrays (``pytree``), a tuple of two outputs (``outputs``),
and a Python int and an integer array beside a floating array (``integer``). Each is
differentiated with respect to one flat vector ``v``, sliced into its arguments, and each output
is weighted by a fixed vector: ``L(v) = sum_k sum(c_k * y_k)``.
Every derivative path goes through the marker once, so a cell that uses the rule gives exactly
3x the truth.

Second order. The rules' derivatives are written with the standard's functions of the primal
(``3 * cos(x) * g``), never with the marker itself; an engine differentiates them with those
functions' own rules. So a Hessian whose inner (first) derivative came from the rule is the
derivative of 3x the first derivative: **3x the true Hessian** (``rule``); one whose inner
derivative came from the body is **1x** (``body``). The outer level differentiates whatever
code computed the inner derivative and meets no marker call there: whether an engine's outer
level uses the rule is what its first-order cells (``jacfwd``, ``jvp``) check.

The truth is JAX's own differentiation of the bodies (``jax.jacfwd``, ``jax.hessian`` in
float64, no rule involved). Cells (:data:`CELLS`): ``chainrules.ad`` (native), the JAX bridge
in both modes (``jax-bridge`` is ``wrap(f)``, a ``custom_jvp`` from the frule; ``jax-bridge-vjp``
is ``wrap(f, mode="vjp")``, a ``custom_vjp`` from the rrule), the autograd bridge and the torch
bridge, the Keras 3 bridge on its JAX and torch backends (``keras-jax``, ``keras-torch``) and
the PyTensor bridge, in every transformation each offers. Every cell wraps the marker afresh, so
that :func:`rules_disabled` (the mutation: the markers' rules unregistered for the duration of a
``with``) reaches the bridges as well as the native engine.

Keras fixes its backend per process: a Keras engine's cells run in one child process per
backend (:mod:`.keras_cells`), which computes every marker's values once; the parent pairs them
with the truth and classifies them here, like every other cell. The mutation reaches the child
too: it unregisters the markers whose rules the parent has unregistered.

>>> from chainrules.testing.campaign import markers
>>> markers.run_cell("outputs", "native", "grad").status
'rule'

``python -m chainrules.testing.campaign.markers`` prints the table (``--json OUT`` writes the
cells that do not use the rule, in the form of ``tests/fuzz/marker_cells.json``).

The markers and their rules are in :mod:`.marker_rules`, the truth and each engine's cells in
:mod:`.marker_cells`; this module runs and classifies the cells.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.namespaces import qualified_name
from .family_markers import FAMILY_MARKERS
from .keras_cells import ENGINES as KERAS_ENGINES
from .keras_cells import TRANSFORMS as KERAS_TRANSFORMS
from .keras_cells import CellError
from .keras_cells import message as _message
from .marker_cells import _ENGINES, FUNC_TRANSFORMS, PYTENSOR_MODE, Truth, programs, truth
from .marker_rules import MARKERS as CALL_MARKERS
from .marker_rules import Marker
from .marker_rules import rules_disabled as _rules_disabled

#: every marker by kind: the kinds of call (:mod:`.marker_rules`), then the rule families
#: (:mod:`.family_markers`)
MARKERS: dict[str, Marker] = {**CALL_MARKERS, **{m.kind: m for m in FAMILY_MARKERS}}


def rules_disabled(markers: tuple[Marker, ...] | None = None) -> Any:
    """The mutation (:func:`.marker_rules.rules_disabled`), over every marker by default."""
    return _rules_disabled(tuple(MARKERS.values()) if markers is None else markers)


__all__ = [
    "CELLS",
    "KERAS_ENGINES",
    "MARKERS",
    "Cell",
    "Marker",
    "Truth",
    "cells",
    "classify",
    "docs_page",
    "findings",
    "key",
    "markdown",
    "programs",
    "rules_disabled",
    "run",
    "run_cell",
    "truth",
]


# --- the cells ------------------------------------------------------------------------------------


@dataclass
class Cell:
    """One marker through one engine and transformation."""

    marker: str
    engine: str
    transform: str
    status: str  # rule / body / wrong / error
    detail: str = ""


def classify(m: Marker, got: np.ndarray, want: np.ndarray, per_input: bool) -> tuple[str, str]:
    """``("rule", "")`` for 3x the truth ``want``, ``("body", "")`` for 1x, else ``("wrong",
    ratios)``: the least-squares ratio to the truth of each input's slice (``per_input``: ``got``
    and ``want`` are gradients, one entry per element of ``v``) or of the whole value."""
    got = np.asarray(got, dtype=np.float64).ravel()
    want = np.asarray(want, dtype=np.float64).ravel()
    if got.shape != want.shape:
        return "wrong", f"shape {got.shape}, expected {want.shape}"
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    for status, factor in (("rule", 3.0), ("body", 1.0)):
        if np.allclose(got, factor * want, rtol=1e-9, atol=1e-9 * scale):
            return status, ""
    if per_input and got.size == m.n:
        parts, k = [], 0
        for name, s in m.pieces:
            parts.append(f"{name}: {_ratio(got[k : k + s], want[k : k + s])}")
            k += s
        return "wrong", "neither 3x nor 1x the truth; ratio per input " + ", ".join(parts)
    return "wrong", f"neither 3x nor 1x the truth; ratio {_ratio(got, want)}"


def _ratio(got: np.ndarray, want: np.ndarray) -> str:
    den = float(want @ want)
    if den == 0.0:
        return "truth 0"
    r = float(got @ want) / den
    fits = np.allclose(got, r * want, rtol=1e-6, atol=1e-9)
    return f"{r:.3g}x" if fits else f"~{r:.3g}x (not proportional)"


def _rule_warnings() -> tuple[type[Warning], ...]:
    """The warnings by which chainrules tells that a rule was not used: none since issue 27
    (``chainrules.ad`` no longer watches calls of plain functions with a profile hook; its
    ``UntracedRuleWarning`` is deprecated). A cell whose rule was not used shows it in its value,
    which the marker's 3x pullback makes differ from the truth."""
    return ()


#: engine -> the transformations it is checked in
CELLS: dict[str, tuple[str, ...]] = {
    "native": (
        "grad",
        "vjp",
        "jvp",
        "jacobian(rev)",
        "jacobian(fwd)",
        "hessian",
        "jacobian(grad, fwd)",
        "jacobian(grad, rev)",
    ),
    "jax-bridge": ("grad", "jit(grad)", "vmap(grad)", "jacfwd", "jacrev", "hessian"),
    "jax-bridge-vjp": ("grad", "jit(grad)", "vmap(grad)", "jacfwd", "jacrev", "hessian"),
    "autograd-bridge": ("grad", "make_jvp", "jacobian", "hessian"),
    "torch-bridge": (
        "backward",
        "autograd.functional.hessian",
        *(f"func.{t}" for t in FUNC_TRANSFORMS),
        *(f"compile(func.{t})" for t in FUNC_TRANSFORMS),
        *(f"export(func.{t})" for t in FUNC_TRANSFORMS),
        "export+backward",
    ),
    **{engine: tuple(KERAS_TRANSFORMS[backend]) for engine, backend in KERAS_ENGINES.items()},
    "pytensor": ("grad", "Rop", "hessian", "Rop(grad)"),
}


def cells() -> list[tuple[str, str, str]]:
    """Every ``(marker, engine, transform)``."""
    return [(k, e, t) for k in MARKERS for e, ts in CELLS.items() for t in ts]


def run_cell(kind: str, engine: str, transform: str) -> Cell:
    """One cell: the marker ``kind`` through ``engine``'s ``transform``."""
    m = MARKERS[kind]
    fn = _ENGINES[engine]()[transform]
    try:
        with warnings.catch_warnings(record=True) as seen, np.errstate(all="ignore"):
            warnings.simplefilter("always")
            got, want, per_input = fn(m)
    except CellError as e:  # an error a Keras child process reported, as it reported it
        return Cell(kind, engine, transform, "error", e.detail)
    except Exception as e:  # noqa: BLE001  (every engine error is a cell's status, by design)
        return Cell(kind, engine, transform, "error", _message(e))
    status, detail = classify(m, got, want, per_input)
    told = sorted({w.category.__name__ for w in seen if issubclass(w.category, _rule_warnings())})
    if told:  # the user was told that the rule was not used
        detail = f"{detail}; warned: {', '.join(told)}" if detail else f"warned: {', '.join(told)}"
    return Cell(kind, engine, transform, status, detail)


def run(
    markers: tuple[str, ...] | None = None, engines: tuple[str, ...] | None = None
) -> dict[tuple[str, str, str], Cell]:
    """The table ``(marker, engine, transform) -> Cell`` over ``markers`` and ``engines``
    (default: all of :data:`MARKERS` and :data:`CELLS`)."""
    out = {}
    for kind, engine, transform in cells():
        if (markers is None or kind in markers) and (engines is None or engine in engines):
            out[kind, engine, transform] = run_cell(kind, engine, transform)
    return out


def markdown(table: dict[tuple[str, str, str], Cell]) -> str:
    """The table as Markdown: one row per engine and transformation, one column per marker."""
    kinds = [k for k in MARKERS if any(key[0] == k for key in table)]
    rows = [
        "| engine | transformation | " + " | ".join(kinds) + " |",
        "|---|---|" + "---|" * len(kinds),
    ]
    for engine, ts in CELLS.items():
        for t in ts:
            if not any((k, engine, t) in table for k in kinds):
                continue
            vals = [table[k, engine, t].status if (k, engine, t) in table else "" for k in kinds]
            rows.append(f"| {engine} | {t} | " + " | ".join(vals) + " |")
    return "\n".join(rows)


def key(kind: str, engine: str, transform: str) -> str:
    """A cell's key in :func:`findings` (and ``tests/fuzz/marker_cells.json``)."""
    return f"{kind} {engine} {transform}"


def findings(table: dict[tuple[str, str, str], Cell]) -> dict[str, dict[str, str]]:
    """The cells of ``table`` that do not use the rule: ``key -> {"status", "detail"}``."""
    return {
        key(*k): {"status": c.status, "detail": c.detail}
        for k, c in table.items()
        if c.status != "rule"
    }


_ENGINE_TITLES = {
    "native": "chainrules.ad (the native engine)",
    "jax-bridge": "JAX bridge, `wrap(f)` (a `custom_jvp` from the frule)",
    "jax-bridge-vjp": 'JAX bridge, `wrap(f, mode="vjp")` (a `custom_vjp` from the rrule)',
    "autograd-bridge": "autograd bridge",
    "torch-bridge": "PyTorch bridge",
    "keras-jax": "Keras 3 bridge on the JAX backend (`keras.ops.custom_gradient`)",
    "keras-torch": "Keras 3 bridge on the torch backend (`keras.ops.custom_gradient`)",
    "pytensor": "PyTensor bridge (each transformation compiled by `pytensor.function`)",
}
_MARK = {"rule": "✓", "body": "body", "wrong": "wrong", "error": "error"}


def docs_page(known: dict[str, dict[str, str]]) -> str:
    """The page ``docs/interop-matrix.md``: per engine, a table of its transformations against
    the markers, from ``known`` -- the ratchet ``tests/fuzz/marker_cells.json``, which the
    matrix test asserts cell by cell (every cell not in it uses the rule and is right) -- and
    under each table the cells that do not, with what they say. Generated, never edited:
    ``python -m chainrules.testing.campaign.markers --docs docs/interop-matrix.md``."""
    kinds = list(MARKERS)
    out = [
        "# What each engine does with a rule: the matrix",
        "",
        "<!-- generated by `python -m chainrules.testing.campaign.markers --docs "
        "docs/interop-matrix.md` from tests/fuzz/marker_cells.json; do not edit -->",
        "",
        "Every cell runs a *marker*: a function whose registered rules give 3x the true "
        "derivative, so the result tells whether the engine used the rule. ✓: the rule was used "
        "and the value is right (exactly 3x JAX's derivative of the body). `error`: the "
        "transformation raised, with the message listed under the table. No cell returns the "
        "body's derivative (`body`) or another value (`wrong`) silently: the test "
        "(`tests/fuzz/test_markers.py`) fails on any cell that changes. Columns: the kinds of "
        "call (an array by keyword, every array by keyword, a pytree argument, two outputs, "
        "integer arguments) and the rule families (a rule of each family of the registry, "
        "called through a marker that delegates to it, and a user's rule with only an rrule or "
        "only an frule); in a message, `f` is the marker. How the markers work: "
        "`chainrules.testing.campaign.markers`.",
        "",
        "Keras fixes its backend per process, so each Keras backend's cells run in one child "
        "process (`chainrules.testing.campaign.keras_cells`), with the markers in float64; "
        "`compile+backward` is `torch.compile(fullgraph=True)` (a graph break is an error "
        "there; Keras's own `jit_compile=True` compiles without `fullgraph` and runs the part "
        "after a break eagerly). The PyTensor "
        f"cells compile each transformation with `pytensor.function` (mode {PYTENSOR_MODE}), "
        "on an input of static shape.",
        "",
    ]
    for engine, transforms in CELLS.items():
        out += [f"## {_ENGINE_TITLES.get(engine, engine)}", ""]
        out.append("| transformation | " + " | ".join(kinds) + " |")
        out.append("|---|" + "---|" * len(kinds))
        notes: dict[str, dict[str, list[str]]] = {}  # what a cell says -> transform -> markers
        for t in transforms:
            row = []
            for k in kinds:
                cell = known.get(key(k, engine, t))
                if cell is None:
                    row.append(_MARK["rule"])
                    continue
                row.append(_MARK[cell["status"]])
                # the marker's own name reads `f`, so that one message groups its markers
                detail = cell["detail"].replace(qualified_name(MARKERS[k].fn), "`f`")
                said = notes.setdefault(f"{cell['status']}: {detail}", {})
                said.setdefault(t, []).append(k)
            out.append(f"| {t} | " + " | ".join(row) + " |")
        out.append("")
        for note, where in notes.items():
            places = [
                f"{t} (every marker)" if len(ks) == len(kinds) else f"{t} ({', '.join(ks)})"
                for t, ks in where.items()
            ]
            out.append(f"- **{'; '.join(places)}** -- {note}")
        if notes:
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    ap = argparse.ArgumentParser(
        prog="python -m chainrules.testing.campaign.markers",
        description="marker rules through every engine and transformation: rule, body or error",
    )
    ap.add_argument("--engines", default=",".join(CELLS), help="comma-separated")
    ap.add_argument("--json", help="write the cells that do not use the rule here")
    ap.add_argument("--docs", help="write the docs page (docs_page) from --ratchet here")
    ap.add_argument("--ratchet", default="tests/fuzz/marker_cells.json", help="for --docs")
    args = ap.parse_args(argv)
    if args.docs:
        with open(args.ratchet) as fh, open(args.docs, "w") as out:
            out.write(docs_page(json.load(fh)))
        return 0
    table = run(engines=tuple(e for e in args.engines.split(",") if e))
    print(markdown(table))
    found = findings(table)
    for k, v in found.items():
        print(f"{k}: {v['status']} {v['detail']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(found, fh, indent=1, sort_keys=True)
            fh.write("\n")
    return 1 if any(v["status"] in ("body", "wrong") for v in found.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
