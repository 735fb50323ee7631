"""Unchanged functions of SciPy, array-api-extra and scikit-learn on chainrules.ad (issue 10).

For each function of ``cases.py`` and each backend (numpy, array-api-strict, torch and the
guarded ``chainrules.testing.device_array``), take ``ad.grad`` of the scalar (``sum(y * y)`` for
an array output), ``ad.jacobian(mode="fwd")`` of the function and ``ad.hessian`` of the scalar,
and compare with ``jax.grad`` / ``jax.jacfwd`` / ``jax.hessian`` of the same code on JAX arrays,
or with finite differences of the NumPy call where JAX cannot run it.

A cell is ``pass``, ``wrong`` (a value that disagrees), ``refused`` (an exception),
``n/a`` (the function does not run on that backend even without AD) or ``exempt`` (device
column only: the function reads single elements on the host with no AD involved).

    python tests/external/user_code/run.py [--json out.json] [--failures] [-k substring]
"""

from __future__ import annotations

import os

os.environ["SCIPY_ARRAY_API"] = "1"  # before SciPy is imported, here and in cases.py

import argparse
import json
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import CASES, QUICK, Case

from chainrules import (
    ScalarIndexingError,
    ad,
)
from chainrules.testing import device_array, to_numpy
from chainrules.testing.finite_differences import central_difference

BACKENDS = ("numpy", "array_api_strict", "torch", "device")
TRANSFORMS = ("grad", "jacobian(fwd)", "hessian")
# the same code on JAX arrays agrees to rounding; finite differences (a 5-point stencil,
# h = 1e-3, nested once for Hessians) to about 1e-9 of the largest entry. The absolute tolerance
# is relative to max(1, max |reference|): a nested stencil's rounding error scales with the values
# (rosen_der's Hessian entries are ~1e5, so its structural zeros come out as ~1e-3).
TOL = {"jax": (1e-7, 1e-9), "fd": (1e-6, 1e-8)}
H = 1e-3


def _convert(backend: str) -> Callable[[Any], Any]:
    if backend == "numpy":
        return lambda a: np.array(a, copy=True)
    if backend == "array_api_strict":
        import array_api_strict as xps

        return lambda a: xps.asarray(np.array(a, copy=True))
    if backend == "torch":
        import torch

        return lambda a: torch.asarray(np.array(a, copy=True))
    if backend == "device":
        return lambda a: device_array(a)
    if backend == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        return lambda a: jnp.asarray(a)
    raise ValueError(f"run.py: unknown backend {backend!r}")


def _args(case: Case, backend: str) -> tuple[Any, ...]:
    conv = _convert(backend)
    return (conv(case.x), *(conv(c) if isinstance(c, np.ndarray) else c for c in case.consts))


def scalar(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The loss of the grad and hessian columns: ``y`` itself if 0-d, else ``sum(y * y)``."""
    from array_api_compat import array_namespace

    def loss(*args: Any) -> Any:
        y = fn(*args)
        if getattr(y, "ndim", 0) == 0:
            return y
        return array_namespace(y).sum(y * y)

    return loss


def _transforms(fn: Callable[..., Any], lib: str) -> dict[str, Callable[..., Any]]:
    if lib == "jax":
        import jax

        return {"grad": jax.grad(scalar(fn)), "jacobian(fwd)": jax.jacfwd(fn),
                "hessian": jax.hessian(scalar(fn))}  # fmt: skip
    return {"grad": ad.grad(scalar(fn)), "jacobian(fwd)": ad.jacobian(fn, mode="fwd"),
            "hessian": ad.hessian(scalar(fn))}  # fmt: skip


def _numpy_call(case: Case) -> Callable[[np.ndarray], np.ndarray]:
    def g(x: np.ndarray) -> np.ndarray:
        return np.asarray(case.fn(np.array(x, copy=True), *_args(case, "numpy")[1:]), float)

    return g


def _fd_jacobian(g: Callable[[np.ndarray], Any], x: np.ndarray) -> np.ndarray:
    """``(*out, *in)`` Jacobian of ``g`` at ``x`` by central differences, column by column."""
    cols = []
    for e in np.eye(x.size).reshape((x.size, *x.shape)):

        def along(t: float, e: np.ndarray = e) -> Any:
            return g(x + t * e)

        cols.append(np.real(central_difference(along, H)))
    jac = np.stack(cols, axis=-1)
    return jac.reshape(np.shape(cols[0]) + x.shape)


def fd_reference(case: Case) -> dict[str, np.ndarray]:
    g = _numpy_call(case)

    def loss(x: np.ndarray) -> Any:
        y = g(x)
        return y if y.ndim == 0 else np.sum(y * y)

    def grad(x: np.ndarray) -> np.ndarray:
        return _fd_jacobian(loss, x)

    return {"grad": grad(case.x), "jacobian(fwd)": _fd_jacobian(g, case.x),
            "hessian": _fd_jacobian(grad, case.x)}  # fmt: skip


def jax_reference(case: Case) -> dict[str, np.ndarray] | None:
    """JAX's derivatives of the same code on JAX arrays, or None where JAX cannot run it (or
    its value differs from NumPy's)."""
    try:
        args = _args(case, "jax")
        value = np.asarray(case.fn(*args))
        if not np.allclose(value, _numpy_call(case)(case.x), rtol=1e-12, atol=1e-14):
            return None
        return {k: np.asarray(t(*args)) for k, t in _transforms(case.fn, "jax").items()}
    except Exception:  # noqa: BLE001  (JAX cannot run it: finite differences instead)
        return None


def _cause(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {msg[0][:160] if msg else ''}"


def run_case(case: Case, backends: tuple[str, ...]) -> dict[str, Any]:
    t0 = time.perf_counter()
    ref = jax_reference(case)
    ref_kind = "jax"
    if ref is None:
        ref, ref_kind = fd_reference(case), "fd"
    rtol, atol = TOL[ref_kind]
    out: dict[str, Any] = {"reference": ref_kind, "cells": {}}
    for backend in backends:
        cells: dict[str, list[str]] = {}
        try:  # the function on its own, no AD
            case.fn(*_args(case, backend))
            plain = None
        except ScalarIndexingError as exc:
            plain = ["exempt", _cause(exc)]
        except Exception as exc:  # noqa: BLE001
            plain = ["n/a", _cause(exc)]
        for name, transform in _transforms(case.fn, "ad").items():
            if plain is not None:
                cells[name] = plain
                continue
            try:
                got = to_numpy(transform(*_args(case, backend)))
            except Exception as exc:  # noqa: BLE001
                cells[name] = ["refused", _cause(exc)]
                continue
            want = ref[name]
            scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
            if np.shape(got) == np.shape(want) and np.allclose(
                got, want, rtol=rtol, atol=atol * scale
            ):
                cells[name] = ["pass", ""]
            else:
                err = (np.max(np.abs(got - want)) if np.shape(got) == np.shape(want)
                       else f"shape {np.shape(got)} != {np.shape(want)}")  # fmt: skip
                cells[name] = ["wrong", f"max error {err} against {ref_kind}"]
        out["cells"][backend] = cells
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def tally(results: dict[str, Any], backends: tuple[str, ...]) -> dict[str, Any]:
    counts: dict[str, dict[str, Counter[str]]] = {
        b: {t: Counter() for t in TRANSFORMS} for b in backends
    }
    for res in results.values():
        for b in backends:
            for t in TRANSFORMS:
                counts[b][t][res["cells"][b][t][0]] += 1
    return {b: {t: dict(c) for t, c in per.items()} for b, per in counts.items()}


def causes(results: dict[str, Any]) -> list[tuple[str, int]]:
    c: Counter[str] = Counter()
    for res in results.values():
        for per in res["cells"].values():
            for outcome, msg in per.values():
                if outcome in ("refused", "wrong"):
                    c[msg if outcome == "refused" else "wrong value"] += 1
    return c.most_common()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the outcomes to this file")
    parser.add_argument("--failures", action="store_true", help="list every failed cell")
    parser.add_argument("-k", default="", help="only the cases whose name contains this")
    parser.add_argument("--quick", action="store_true", help="only the QUICK subset (CI)")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    args = parser.parse_args()
    backends = tuple(args.backends.split(","))
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    chosen = [c for c in CASES if args.k in c.name and (not args.quick or c.name in QUICK)]
    results = {c.name: run_case(c, backends) for c in chosen}
    counts = tally(results, backends)
    elapsed = time.perf_counter() - t0
    if args.failures:
        for name, res in results.items():
            for b, per in res["cells"].items():
                for t, (outcome, msg) in per.items():
                    if outcome in ("refused", "wrong"):
                        print(f"{outcome.upper()} {name} [{b}, {t}]: {msg}")
    refs = Counter(r["reference"] for r in results.values())
    print(
        f"{len(results)} functions; reference: {refs['jax']} JAX, {refs['fd']} finite differences"
    )
    print(f"| backend | {' | '.join(TRANSFORMS)} | not run (n/a) | device exempt |")
    print("|---|" + "---|" * (len(TRANSFORMS) + 2))
    for b in backends:
        row = []
        for t in TRANSFORMS:
            c = counts[b][t]
            applicable = c.get("pass", 0) + c.get("wrong", 0) + c.get("refused", 0)
            row.append(f"{c.get('pass', 0)}/{applicable}")
        na = counts[b]["grad"].get("n/a", 0)
        ex = counts[b]["grad"].get("exempt", 0)
        print(f"| {b} | {' | '.join(row)} | {na} | {ex} |")
    print("causes of failed cells:")
    for msg, n in causes(results):
        print(f"  {n:4d}  {msg}")
    print(f"({elapsed:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps({"counts": counts, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
