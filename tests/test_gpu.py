"""GPU checks (CuPy, PyTorch on CUDA): skipped cleanly without a CUDA device.

The same functions make up ``benchmarks/gpu_check.py``; on a CPU-only machine the checks they stand
for run through the guarded device array (``check_scalar_free``) and ``jax.jit`` (``check_jit``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import gpu_check

needs_cupy = pytest.mark.skipif(not gpu_check.cupy_available(), reason="no CUDA device for CuPy")
needs_torch_cuda = pytest.mark.skipif(
    not gpu_check.torch_cuda_available(), reason="no CUDA device for PyTorch"
)


@pytest.mark.gpu
@needs_cupy
def test_rules_on_cupy_without_synchronisation() -> None:
    n, failures = gpu_check.check_cupy()
    assert n > 0 and not failures, "\n".join(failures)


@pytest.mark.gpu
@needs_cupy
def test_cupy_add_at_accumulates() -> None:
    assert not gpu_check.check_cupy_add_at()


@pytest.mark.gpu
@needs_torch_cuda
def test_rules_on_torch_cuda_without_synchronisation() -> None:
    n, failures = gpu_check.check_torch_cuda()
    assert n > 0 and not failures, "\n".join(failures)


def test_the_gpu_script_runs_and_says_what_it_skipped(capsys) -> None:  # type: ignore[no-untyped-def]
    if gpu_check.cupy_available() or gpu_check.torch_cuda_available():
        pytest.skip("a GPU is present: the GPU tests above cover the script")
    if importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed")
    sys.argv = ["gpu_check.py", "--quick"]
    assert gpu_check.main() == 0
    out = capsys.readouterr().out
    assert "CuPy: no CUDA device (skipped)" in out and "torch: no CUDA device (skipped)" in out
    assert gpu_check.registrations()  # the rule families it would run


def test_the_script_logic_on_the_cpu() -> None:
    """The GPU script's rule loop and timing code, run on CPU arrays (no guard), so that a GPU
    session finds a working script: every rule agrees with NumPy through the same comparison."""
    import contextlib

    import numpy as np

    n, failures = gpu_check._run_rules("numpy", np.asarray, contextlib.nullcontext, lambda: None)
    assert n > 100 and not failures, "\n".join(failures)
    torch = pytest.importorskip("torch")
    n, failures = gpu_check._run_rules(
        "torch", lambda a: torch.asarray(a), contextlib.nullcontext, lambda: None
    )
    assert n > 100 and not failures, "\n".join(failures)
    rows = gpu_check.time_torch(1000, 3, dev="cpu")
    assert {r[0] for r in rows} >= {"inf-norm", "2-norm", "max", "sum"}
