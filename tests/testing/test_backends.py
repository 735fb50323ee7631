from __future__ import annotations

import os

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import available_backends, get_backend, to_numpy


def test_each_backend_converts_and_finds_functions(backend) -> None:  # type: ignore[no-untyped-def]
    x = backend.asarray(np.arange(3.0), "float32")
    assert np.array_equal(to_numpy(x), [0.0, 1.0, 2.0])
    assert backend.asarray(2.0, "float32") == 2.0  # Python scalars stay Python scalars
    assert to_numpy(backend.asarray(np.arange(3), "float32")).dtype.kind == "i"
    sin = next(r for r in cr.registrations() if r.name == "sin")
    f = backend.function(sin)
    assert f is not None and cr.find_rrule(f) is not None


def test_unknown_backend_and_gpu_backend_without_gpu() -> None:
    with pytest.raises(ValueError, match="unknown backend 'tensorflow'"):
        get_backend("tensorflow")
    names = [b.name for b in available_backends()]
    assert "numpy" in names
    cupy = pytest.importorskip("cupy")
    if not cupy.cuda.is_available():
        assert "cupy" not in names


def test_use_quick_xla_compiles_sets_and_respects_xla_flags(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from chainrules.testing.backends import use_quick_xla_compiles

    monkeypatch.delenv("CHAINRULES_XLA_QUICK", raising=False)
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    assert use_quick_xla_compiles()
    assert os.environ["XLA_FLAGS"].split() == [
        "--xla_force_host_platform_device_count=8",
        "--xla_backend_optimization_level=0",
    ]
    assert use_quick_xla_compiles()  # a second call adds nothing
    assert os.environ["XLA_FLAGS"].count("optimization_level") == 1
    monkeypatch.setenv("XLA_FLAGS", "--xla_backend_optimization_level=3")  # the user's choice
    assert not use_quick_xla_compiles()
    assert os.environ["XLA_FLAGS"] == "--xla_backend_optimization_level=3"
    monkeypatch.setenv("XLA_FLAGS", "")
    monkeypatch.setenv("CHAINRULES_XLA_QUICK", "0")
    assert not use_quick_xla_compiles()
    assert os.environ["XLA_FLAGS"] == ""
