"""The markers through the Keras 3 bridge (``chainrules.interop.keras``), one process per Keras
backend.

Keras fixes its backend once per process (``KERAS_BACKEND``, read when ``keras`` is first
imported), so a backend's cells run in a child process:
``KERAS_BACKEND=jax python -m chainrules.testing.campaign.keras_cells --json OUT`` runs every
marker (:data:`.markers.MARKERS`) through every transformation of :data:`TRANSFORMS` on that
backend and writes what each gave: the value the backend computed as a flat float64 list, or the
error's message. The child computes no truth and classifies nothing: the parent pairs each value
with the truth (JAX on the marker's body, :func:`.marker_cells.truth`) named by
:data:`TRANSFORMS` and classifies it with :func:`.markers.classify`, as every other cell.

The parent runs each backend's child once per set of disabled markers
(:func:`results`, cached in the process): the whole Keras part costs two process starts, and
the mutation (:func:`.markers.rules_disabled`) reaches the child by ``--disable``, the markers
whose rules the parent has unregistered, which the child unregisters too.

The transformations are those Keras users have on each backend through
``keras.ops.custom_gradient`` (see docs/interop-keras.md): JAX's reverse mode (``grad`` eagerly,
where the backward pass sees concrete values, and ``jit(grad)``, ``jit(vmap(grad))``,
``jit(jacrev)``) and forward over reverse (``jit(hessian)``; the other JAX cells run under ``jit``
to compile each program once rather than op by op), PyTorch's ``backward`` (eager and under
``torch.compile(fullgraph=True)``), and double backward (``torch.autograd.functional.hessian``);
and the forward modes the bridge refuses (``jit(jacfwd)``; ``torch.func.grad`` and forward-mode
AD), whose errors the matrix records.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .marker_rules import Marker

#: Keras backend -> transformation -> (the truth it is compared with, ``per_input``). The truths:
#: ``grad`` (dL/dv), ``grads`` (dL/dv at two points, stacked), ``jac``, ``jvp``, ``hess``
#: (:class:`.marker_cells.Truth`).
TRANSFORMS: dict[str, dict[str, tuple[str, bool]]] = {
    "jax": {
        "grad": ("grad", True),
        "jit(grad)": ("grad", True),
        "jit(vmap(grad))": ("grads", False),
        "jit(jacrev)": ("jac", False),
        "jit(hessian)": ("hess", False),
        "jit(jacfwd)": ("jac", False),
    },
    "torch": {
        "backward": ("grad", True),
        "compile+backward": ("grad", True),
        "autograd.functional.hessian": ("hess", False),
        "func.grad": ("grad", True),
        "forward_ad": ("jvp", False),
    },
}

#: the engines of the matrix, by Keras backend
ENGINES = {f"keras-{b}": b for b in TRANSFORMS}


def message(e: BaseException) -> str:
    """An error as a cell's detail: its type and the first line of its message."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:240] if text else ''}"


class CellError(Exception):
    """An error a child process reported for a cell; ``detail`` is its :func:`message`."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


# --- the parent: one child per backend and set of disabled markers -------------------------------

_RESULTS: dict[tuple[str, tuple[str, ...]], dict[str, dict[str, Any]] | RuntimeError] = {}


def results(backend: str, disabled: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """``kind -> transform -> {"got": [...]} or {"error": detail}`` on Keras's ``backend``, with
    the markers ``disabled`` (kinds) unregistered: computed by one child process, then cached
    (a child that failed as a whole too: its ``RuntimeError`` is raised again, not rerun)."""
    key = (backend, tuple(sorted(disabled)))
    if key not in _RESULTS:
        try:
            _RESULTS[key] = _run_child(backend, key[1])
        except RuntimeError as e:
            _RESULTS[key] = e
    got = _RESULTS[key]
    if isinstance(got, RuntimeError):
        raise got
    return got


def _run_child(backend: str, disabled: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    root = Path(__file__).resolve().parents[3]  # the folder holding this chainrules package
    with tempfile.TemporaryDirectory(prefix="chainrules-keras-cells-") as tmp:
        out = Path(tmp) / "cells.json"
        path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
        env = {
            **os.environ,
            "KERAS_BACKEND": backend,
            "KERAS_HOME": tmp,  # Keras writes its config there, not in the user's home
            "PYTHONPATH": path,
        }
        cmd = [sys.executable, "-m", __name__, "--json", str(out)]
        if disabled:
            cmd += ["--disable", json.dumps(list(disabled))]
        proc = subprocess.run(
            cmd, env=env, cwd=root, capture_output=True, text=True, timeout=900, check=False
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(
                f"keras_cells on the {backend} backend failed (exit {proc.returncode}):\n"
                f"{proc.stderr[-3000:]}"
            )
        report: dict[str, Any] = json.loads(out.read_text())
    if report["backend"] != backend:
        raise RuntimeError(f"keras_cells ran on {report['backend']!r}, not {backend!r}")
    cells: dict[str, dict[str, Any]] = report["cells"]
    return cells


def _disabled_now(markers: dict[str, Marker]) -> tuple[str, ...]:
    """The markers whose function has neither rule registered now (the mutation's state)."""
    import chainrules as cr

    return tuple(
        k for k, m in markers.items() if cr.find_rrule(m.fn) is None and cr.find_frule(m.fn) is None
    )


def parent_cells(backend: str, truth: Callable[[Marker], Any]) -> dict[str, Any]:
    """The cell functions of engine ``keras-{backend}`` (``marker -> (got, want, per_input)``):
    each reads its value from the backend's child (:func:`results`) and pairs it with the truth;
    a child's error is raised as :class:`CellError`."""
    from .markers import MARKERS

    def cell(transform: str) -> Callable[[Marker], tuple[np.ndarray, np.ndarray, bool]]:
        which, per_input = TRANSFORMS[backend][transform]

        def run(m: Marker) -> tuple[np.ndarray, np.ndarray, bool]:
            got = results(backend, _disabled_now(MARKERS))[m.kind][transform]
            if "error" in got:
                raise CellError(got["error"])
            t = truth(m)
            want = np.concatenate([t.grad, t.grad2]) if which == "grads" else getattr(t, which)
            return np.asarray(got["got"], dtype=np.float64), want, per_input

        return run

    return {t: cell(t) for t in TRANSFORMS[backend]}


# --- the child: every marker through every transformation of the running backend -----------------


def _setup(crk: Any, asarray: Any, total: Any) -> Callable[[Marker], tuple[Any, Any, Any]]:
    """``setup(m) -> (F, L, v)``: marker ``m``'s programs through the wrapped function and its
    point, in the library of ``asarray`` and ``total`` (its sum)."""
    from .marker_cells import programs

    def setup(m: Marker) -> tuple[Any, Any, Any]:
        F, L = programs(m, crk.wrap(m.fn), asarray, total)
        return F, L, asarray(m.point())

    return setup


def _jax_cells(crk: Any) -> dict[str, Callable[[Marker], Any]]:
    import jax
    import jax.numpy as jnp

    setup = _setup(crk, jnp.asarray, jnp.sum)

    def grad(m: Marker) -> Any:
        _, L, v = setup(m)
        return jax.grad(L)(v)

    def jit_grad(m: Marker) -> Any:
        _, L, v = setup(m)
        return jax.jit(jax.grad(L))(v)

    def jit_vmap_grad(m: Marker) -> Any:
        _, L, _ = setup(m)
        return jax.jit(jax.vmap(jax.grad(L)))(jnp.asarray(np.stack([m.point(), m.point(0.1)])))

    def jac(which: str) -> Callable[[Marker], Any]:
        def cell(m: Marker) -> Any:
            F, _, v = setup(m)
            return jax.jit(getattr(jax, which)(F))(v)

        return cell

    def jit_hessian(m: Marker) -> Any:
        _, L, v = setup(m)
        return jax.jit(jax.hessian(L))(v)

    return {
        "grad": grad,
        "jit(grad)": jit_grad,
        "jit(vmap(grad))": jit_vmap_grad,
        "jit(jacrev)": jac("jacrev"),
        "jit(hessian)": jit_hessian,
        "jit(jacfwd)": jac("jacfwd"),
    }


def _torch_cells(crk: Any) -> dict[str, Callable[[Marker], Any]]:
    import torch

    from .marker_cells import _torch_state_restored

    setup = _setup(crk, torch.as_tensor, torch.sum)

    def backward(m: Marker) -> Any:
        _, L, v = setup(m)
        v.requires_grad_()
        L(v).backward()
        return v.grad if v.grad is not None else torch.zeros_like(v)

    def compiled_backward(m: Marker) -> Any:
        # fullgraph: a graph break would run the frame eagerly and hide what the compiled graph
        # does; reset: every marker's L shares one code object (Dynamo's recompilation limit)
        _, L, v = setup(m)
        torch._dynamo.reset()
        v.requires_grad_()
        torch.compile(L, backend="aot_eager", fullgraph=True)(v).backward()
        return v.grad if v.grad is not None else torch.zeros_like(v)

    def hessian(m: Marker) -> Any:
        _, L, v = setup(m)
        return torch.autograd.functional.hessian(L, v)

    def func_grad(m: Marker) -> Any:
        _, L, v = setup(m)
        return torch.func.grad(L)(v)

    def forward_ad(m: Marker) -> Any:
        import torch.autograd.forward_ad as fwad

        F, _, v = setup(m)
        with fwad.dual_level():
            ys = F(fwad.make_dual(v, torch.as_tensor(m.tangent())))
            return [fwad.unpack_dual(y).tangent for y in ys]

    cells = {
        "backward": backward,
        "compile+backward": compiled_backward,
        "autograd.functional.hessian": hessian,
        "func.grad": func_grad,
        "forward_ad": forward_ad,
    }

    def restoring(cell: Callable[[Marker], Any]) -> Callable[[Marker], Any]:
        def run(m: Marker) -> Any:
            with _torch_state_restored(torch):
                return cell(m)

        return run

    return {name: restoring(cell) for name, cell in cells.items()}


def child(disabled: tuple[str, ...]) -> dict[str, Any]:
    """Every marker through every transformation of the running Keras backend, with the markers
    ``disabled`` unregistered: ``{"backend", "disabled", "cells": {kind: {transform: ...}}}``."""
    import warnings

    import keras

    from ...interop import keras as crk
    from .marker_cells import _flat
    from .markers import MARKERS, rules_disabled

    backend = keras.backend.backend()
    if backend not in TRANSFORMS:
        raise SystemExit(f"keras_cells: Keras runs on {backend!r}; expected one of {TRANSFORMS}")
    fns = (_jax_cells if backend == "jax" else _torch_cells)(crk)
    cells: dict[str, dict[str, Any]] = {}
    with rules_disabled(tuple(MARKERS[k] for k in disabled)):
        for kind, m in MARKERS.items():
            row = cells[kind] = {}
            for transform in TRANSFORMS[backend]:
                try:
                    with warnings.catch_warnings(), np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        got = _flat(fns[transform](m))
                    row[transform] = {"got": [float(x) for x in got]}
                except Exception as e:  # noqa: BLE001  (every error is a cell's status)
                    row[transform] = {"error": message(e)}
    return {"backend": backend, "disabled": list(disabled), "cells": cells}


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m chainrules.testing.campaign.keras_cells",
        description="the markers through the Keras bridge on the backend KERAS_BACKEND names",
    )
    ap.add_argument("--json", required=True, help="write the cells' values and errors here")
    ap.add_argument("--disable", default="[]", help="JSON list of marker kinds to unregister")
    args = ap.parse_args(argv)
    if os.environ.get("KERAS_BACKEND") == "jax":
        from ..backends import BACKENDS

        BACKENDS["jax"].namespace()  # float64 (x64), as the truth, before Keras imports JAX
    report = child(tuple(json.loads(args.disable)))
    Path(args.json).write_text(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
