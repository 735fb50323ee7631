"""Shared fixtures: the backends every rule is checked on, and Hypothesis settings."""

from __future__ import annotations

import importlib.util
import os

import pytest
from hypothesis import HealthCheck, settings

from chainrules.testing.backends import BACKENDS, Backend

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

# The fast profile runs every rule at every example on NumPy and array-api-strict (float64 and
# float32, complex too) and on guarded device arrays (scalar-free), but at most 3 examples per rule
# on PyTorch and under jax.jit (a compile per example), 2 on JAX (eager dispatch): the suite stays
# under 10 minutes on 2 cores. `nox -s tests-thorough` (HYPOTHESIS_PROFILE=thorough) runs all.
if os.environ.get("HYPOTHESIS_PROFILE", "ci") != "thorough":
    from chainrules.testing.runner import EXAMPLE_LIMITS

    EXAMPLE_LIMITS.update({"jax": 2, "torch": 3, "jit": 3})


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# CPU backends of the suite; each is skipped (with its reason) where it is not installed.
CPU_BACKENDS = ["numpy", "array_api_strict", "jax", "torch"]


def backend_param(name: str) -> object:
    module = BACKENDS[name].module.split(".")[0]
    return pytest.param(
        name,
        id=name,
        marks=pytest.mark.skipif(not _installed(module), reason=f"{module} is not installed"),
    )


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
def clean_registry():  # type: ignore[no-untyped-def]
    """Restore the rule registry (tables, names and which namespaces were resolved) after a test
    that registers rules."""
    import copy

    from chainrules.core import registry as r

    tables = (r._NAMED, r._CALLABLES, r._RRULES, r._FRULES, r._PRIO, r._NAMES, r._KEYS)
    saved = [{k: copy.copy(v) for k, v in t.items()} for t in tables]
    resolved = [p.resolved for p in r._PROVIDERS]
    yield r
    for table, old in zip(tables, saved):
        table.clear()
        table.update(old)
    for p, flag in zip(r._PROVIDERS, resolved):
        p.resolved = flag


@pytest.fixture
def assert_gpu_safe():  # type: ignore[no-untyped-def]
    """``assert_gpu_safe(reg, which, examples=None, no_jax=(), skippable=None)``: the
    ``scalar-free`` or ``jit`` column of the check command for one registration must pass, run
    at least one check, and skip only what ``skippable(message)`` accepts (nothing by default);
    ``n/a`` only for the names in ``no_jax`` (no ``jax.numpy`` counterpart)."""
    from chainrules.testing.runner import check_device

    def check(reg, which, examples=None, no_jax=(), skippable=None):  # type: ignore[no-untyped-def]
        if which == "jit":
            pytest.importorskip("jax")
            BACKENDS["jax"].namespace()  # float64 references
        cell = check_device(reg, which, examples=examples)
        if cell.status == "n/a":
            assert which == "jit" and reg.name in no_jax, reg.name
            return
        assert cell.status == "ok", "\n".join(cell.errors)
        assert cell.checks > 0
        for msg in cell.unsupported:
            assert skippable is not None and skippable(msg), msg

    return check


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
        for ex in _limited(examples, EXAMPLE_LIMITS.get("jax")):
            check_agrees_with_jax(npf, *ex.args, f_jax=jf, rtol=rtol, atol=atol, fkwargs=ex.kwargs)

    return check
