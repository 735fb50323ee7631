"""The Keras 3 bridge (``chainrules.interop.keras``) on Keras's JAX and torch backends.

Keras fixes its backend once per process (``KERAS_BACKEND``, read at its import), so each backend
runs the checks of ``keras_checks.py`` in a process of its own. What they cover: a marker rule
(3x the true derivative) reaching the backend's gradient, eagerly, under ``jit``, through a Keras
layer's weight and in ``model.fit``; pytree, keyword, integer and zero-cotangent arguments; a
model trained with ``model.fit`` whose loss halves in 100 steps; its gradients against the same
model built from Keras's own ops; second order; what each backend's transformations do (work, or
raise); tuple outputs; complex inputs; the refusals.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("keras_checks.py")
BACKENDS = ("jax", "torch")
CHECKS = (
    "complex_input",
    "fit_halves_the_loss",
    "gradients_match_native",
    "integer_leaf",
    "keyword_only",
    "marker",
    "marker_in_fit",
    "pytree_arguments",
    "refusals",
    "second_order",
    "transformations",
    "tuple_output",
    "zero_cotangent_is_zeros",
)

if importlib.util.find_spec("keras") is None:
    pytest.skip("keras is not installed", allow_module_level=True)


def _env(backend: str, home: Path) -> dict[str, str]:
    """The environment of a child process on Keras's ``backend``: this tree first on the path
    (the script's own folder would otherwise come first), Keras's config in ``home``."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "KERAS_BACKEND": backend, "KERAS_HOME": str(home), "PYTHONPATH": path}


def _run(args: list[str], backend: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        env=_env(backend, home),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_keras_bridge(backend: str, tmp_path: Path) -> None:
    """Every check of ``keras_checks.py`` passes in a process on Keras's ``backend``: one test
    (one process) per backend, so that ``pytest -n`` never runs a backend's checks twice; the
    message lists each failed check with its traceback."""
    if importlib.util.find_spec(backend) is None:
        pytest.skip(f"{backend} is not installed")
    proc = _run([str(SCRIPT)], backend, tmp_path)
    last = proc.stdout.rstrip().rpartition("\n")[2]
    assert proc.returncode == 0 and last.startswith("{"), proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(last)
    assert report["backend"] == backend
    assert sorted(report["checks"]) == sorted(CHECKS)
    failed = {name: tb for name, tb in report["checks"].items() if tb is not None}
    assert not failed, "\n\n".join(f"{name} on {backend}:\n{tb}" for name, tb in failed.items())


def test_an_unsupported_backend_raises_naming_it(tmp_path: Path) -> None:
    """On Keras's NumPy backend (no gradients; TensorFlow is not installed here) a wrapped call
    raises ``NotImplementedError`` naming the backend and the function."""
    code = (
        "import keras, numpy as np\n"
        "from chainrules.interop import keras as crk\n"
        "f = crk.wrap(np.linalg.norm)\n"
        "try:\n"
        "    f(keras.ops.ones(3))\n"
        "except NotImplementedError as e:\n"
        "    print(e)\n"
    )
    proc = _run(["-c", code], "numpy", tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "'numpy' backend" in proc.stdout and "numpy.linalg.norm" in proc.stdout, proc.stdout


def test_importing_the_bridge_imports_no_keras(tmp_path: Path) -> None:
    """``import chainrules.interop.keras`` works without ``KERAS_BACKEND`` (Keras's default
    backend, TensorFlow, is not installed) and leaves Keras unimported: ``wrap`` imports it."""
    env = {k: v for k, v in _env("jax", tmp_path).items() if k != "KERAS_BACKEND"}
    code = "import sys, chainrules.interop.keras; print('keras' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "False"
