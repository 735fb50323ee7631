"""The Keras 3 bridge (``chainrules.interop.keras``) on Keras's JAX and torch backends.

Keras fixes its backend once per process (``KERAS_BACKEND``, read at its import), so each backend
runs the checks of ``keras_checks.py`` in a process of its own, once per session; each test here
reads one check's result. What they cover: a marker rule (3x the true derivative) reaching the
backend's gradient, eagerly, under ``jit`` and through a Keras layer's weight; pytree, keyword,
integer and zero-cotangent arguments; a model trained with ``model.fit`` whose loss halves in 100
steps; its gradients against the same model built from Keras's own ops; second order; what each
backend's transformations do (work, or raise); tuple outputs; complex inputs; the refusals.
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


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """``report(backend)``: the checks' results on that backend, run once per module."""
    done: dict[str, dict[str, Any]] = {}

    def get(backend: str) -> dict[str, Any]:
        if backend not in done:
            if importlib.util.find_spec(backend) is None:
                pytest.skip(f"{backend} is not installed")
            proc = _run([str(SCRIPT)], backend, tmp_path_factory.mktemp(f"keras-{backend}"))
            last = proc.stdout.rstrip().rpartition("\n")[2]
            if proc.returncode != 0 or not last.startswith("{"):
                raise AssertionError(f"keras_checks.py on {backend} failed:\n{proc.stderr[-3000:]}")
            done[backend] = json.loads(last)
        return done[backend]

    return get


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_checks_ran_on_the_backend(backend: str, report: Any) -> None:
    """The child process ran on the backend asked for, and ran every check listed here."""
    got = report(backend)
    assert got["backend"] == backend
    assert sorted(got["checks"]) == sorted(CHECKS)


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_keras_bridge(backend: str, check: str, report: Any) -> None:
    failure = report(backend)["checks"][check]
    assert failure is None, f"{check} on Keras's {backend} backend:\n{failure}"


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
