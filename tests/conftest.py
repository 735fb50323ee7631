"""Shared fixtures: the backends every rule is checked on, and Hypothesis settings."""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from chainrules.testing.backends import (
    BACKENDS,
    Backend,
    use_jax_compilation_cache,
    use_quick_xla_compiles,
)
from chainrules.testing.pytest_backends import (
    pytest_collection_modifyitems,
    pytest_sessionfinish,
    pytest_terminal_summary,
    pytest_testnodedown,
)
from chainrules.testing.runner import set_profile
from chainrules.testing.suite import BackendMissing

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.register_profile(  # nox -s tests-thorough
    "thorough",
    deadline=None,
    max_examples=500,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The checker's profiles (chainrules.testing.runner.PROFILES), the same as the check command's:
# "fast" runs every rule at every example on NumPy, array-api-strict and guarded device arrays,
# but at most 3 examples per rule on PyTorch, 1 real and 1 complex under jax.jit (a compile per
# example) and 1 on JAX (eager: XLA compiles per shape); `nox -s tests-thorough`
# (HYPOTHESIS_PROFILE=thorough) runs all, as `python -m chainrules check --thorough` does.
set_profile("thorough" if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "thorough" else "fast")
# JAX's compiled programs on disk, shared by the xdist workers (the JAX and jit columns are
# mostly XLA compile time; see use_jax_compilation_cache)
use_jax_compilation_cache()
use_quick_xla_compiles()  # XLA's compiler at level 0: the programs are small and run once


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# CPU backends of the suite; each is skipped (with its reason) where it is not installed.
CPU_BACKENDS = ["numpy", "array_api_strict", "jax", "torch"]


def backend_param(name: str) -> object:
    module = BACKENDS[name].module.split(".")[0]
    why = BackendMissing(module, f"{module} is not installed")
    return pytest.param(name, id=name, marks=pytest.mark.skipif(not _installed(module), reason=why))


# Tests that need an absent backend (a skip whose reason is a BackendMissing: rule_tests' columns,
# backend_param above) are deselected and counted, one summary line per backend: see
# chainrules.testing.pytest_backends, whose hooks this conftest takes on.
__all__ = [
    "pytest_collection_modifyitems",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "pytest_testnodedown",
]


@pytest.fixture(params=[backend_param(n) for n in CPU_BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each CPU backend in turn (JAX with float64 enabled)."""
    return BACKENDS[request.param]


@pytest.fixture
def jax_numpy():  # type: ignore[no-untyped-def]
    """``jax.numpy`` with float64 enabled, or a skip."""
    pytest.importorskip("jax")
    return BACKENDS["jax"].namespace()


@pytest.fixture
def seeded_numpy():  # type: ignore[no-untyped-def]
    """The checks draw from NumPy's global random state, as autograd's do. Under pytest-xdist
    that state is whatever the worker's earlier tests left, and a wrong derivative can hide in a
    rare direction (seeded 826, of the first 1000 seeds, the wrong second order's 0.1% error in
    tests/testing/test_check_grads.py falls below the tolerance: CI failed so once), so a test
    that uses it starts from one seed, and the state is put back after it."""
    state = np.random.get_state()
    np.random.seed(0)
    yield
    np.random.set_state(state)


@pytest.fixture
def clean_registry():  # type: ignore[no-untyped-def]
    """Restore the rule registry (its registrations, their rules and metadata) after a test that
    registers rules."""
    from chainrules.core import registry

    state = registry.snapshot()
    yield registry
    registry.restore(state)


@pytest.fixture
def assert_agrees_with_jax(jax_numpy):  # type: ignore[no-untyped-def]
    """``assert_agrees_with_jax(reg, examples, rtol, atol)``: at each example, our NumPy pullback
    of a random cotangent equals ``jax.vjp`` of the registration's ``jax.numpy`` function for
    every differentiable argument (floating arrays, also inside tuples and lists) and every
    floating output (tuple outputs too), with JAX's conjugate complex convention converted (see
    ``chainrules.testing.check_agrees_with_jax``)."""
    from chainrules.testing import check_agrees_with_jax

    def check(reg, examples, rtol=1e-10, atol=1e-12):  # type: ignore[no-untyped-def]
        from chainrules.testing.runner import EXAMPLE_LIMITS, _limited

        jf, npf = BACKENDS["jax"].function(reg), BACKENDS["numpy"].function(reg)
        assert examples, f"no examples for {reg.name}"
        for _, ex in _limited(examples, EXAMPLE_LIMITS.get("jax")):
            check_agrees_with_jax(npf, *ex.args, f_jax=jf, rtol=rtol, atol=atol, fkwargs=ex.kwargs)

    return check


@pytest.fixture
def grad_while_another_thread():  # type: ignore[no-untyped-def]
    """``run(loss, x, work)``: ``ad.grad(loss)(x)``, with ``work()`` run by another thread while
    this one is inside the transformation (its scope entered, ``loss`` not yet returned);
    ``(the gradient, work's result)``. An exception in ``work`` is raised here."""
    from chainrules import ad

    def run(loss: Callable[[Any], Any], x: Any, work: Callable[[], Any]) -> tuple[Any, Any]:
        inside, done = threading.Event(), threading.Event()
        out: dict[str, Any] = {}

        def f(v: Any) -> Any:
            inside.set()
            assert done.wait(30)
            return loss(v)

        def worker() -> None:
            assert inside.wait(30)
            try:
                out["result"] = work()
            except BaseException as e:  # noqa: BLE001  (raised by the calling thread)
                out["error"] = e
            finally:
                done.set()

        th = threading.Thread(target=worker)
        th.start()
        g = ad.grad(f)(x)
        th.join()
        if "error" in out:
            raise out["error"]
        return g, out["result"]

    return run


@pytest.fixture(scope="session")
def benchmark_script():  # type: ignore[no-untyped-def]
    """``load(name)``: ``benchmarks/<name>.py`` as a module, with ``sys.path`` as it was before
    (``run.py`` puts benchmarks/ on it) and no ``_timing`` module left behind by it."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]

    def load(name):  # type: ignore[no-untyped-def]
        saved, mods = list(sys.path), set(sys.modules)
        try:
            path = root / "benchmarks" / f"{name}.py"
            spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
        finally:
            sys.path[:] = saved
            if "_timing" in set(sys.modules) - mods:
                del sys.modules["_timing"]

    return load
