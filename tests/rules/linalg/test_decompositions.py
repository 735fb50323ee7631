"""Decompositions: every registration on every backend, JAX as a reference, Hermitian inputs,
complex gauges, degenerate spectra, non-unique complements, second derivatives of cholesky."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.linalg import decompositions as dec
from chainrules.testing import examples_for, tester
from chainrules.testing.runner import DEVICE_CHECKS, check_registration

REGS = [
    r for r in cr.registrations() if r.meta.get("module") == dec.__name__ and r.family != "callable"
]
# functions that read one triangle of a Hermitian matrix: judged along Hermitian perturbations
HERMITIAN = {
    "linalg.cholesky",
    "linalg.eigh",
    "numpy:linalg.eigh",
    "linalg.eigvalsh",
    "numpy:linalg.eigvalsh",
}


@contextlib.contextmanager
def hermitian_perturbations() -> Iterator[None]:
    """Make the testers perturb square inputs (and draw square cotangents) Hermitian, and judge
    every cotangent by the dot-product test along such a direction.

    The design asks the testers to perturb inputs of functions that read one triangle
    symmetrically; they do not yet, so this test module patches their random draws locally.
    """
    orig_random, orig_max = tester._Case.random_like, tester.FD_FULL_MAX

    def random_like(self, v, kind, lead=()):  # type: ignore[no-untyped-def]
        r = orig_random(self, v, kind, lead)
        if np.ndim(r) >= 2 and r.shape[-1] == r.shape[-2]:
            r = (r + np.conj(np.swapaxes(r, -1, -2))) / 2
        return r

    tester._Case.random_like = random_like  # type: ignore[method-assign]
    tester.FD_FULL_MAX = 0
    try:
        yield
    finally:
        tester._Case.random_like = orig_random  # type: ignore[method-assign]
        tester.FD_FULL_MAX = orig_max


def test_registered() -> None:
    assert {r.name for r in REGS} == {
        "linalg.cholesky",
        "linalg.eigh",
        "numpy:linalg.eigh",
        "linalg.eigvalsh",
        "numpy:linalg.eigvalsh",
        "linalg.svd",
        "numpy:linalg.svd",
        "linalg.svdvals",
        "linalg.qr",
        "numpy:linalg.qr",
        "linalg.matrix_rank",
    }


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_rule_on_backend(reg: cr.Registration, backend) -> None:  # type: ignore[no-untyped-def]
    examples = examples_for(reg)
    if backend.name in ("jax", "torch"):
        examples = examples[::2]
    ctx = hermitian_perturbations() if reg.name in HERMITIAN else contextlib.nullcontext()
    with ctx:
        cell = check_registration(reg, backend, examples=examples)
    if cell.status == "n/a":
        assert reg.family == "numpy" and backend.name in ("array_api_strict", "torch")
        return
    assert cell.status == "ok", "\n".join(cell.errors)
    assert not cell.unsupported, cell.unsupported


@pytest.mark.parametrize("which", DEVICE_CHECKS)
@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_gpu_safe(reg: cr.Registration, which: str, assert_gpu_safe) -> None:  # type: ignore[no-untyped-def]
    assert_gpu_safe(reg, which, examples=examples_for(reg)[:3], no_jax=())


def _jax_examples(reg: cr.Registration) -> list:  # type: ignore[type-arg]
    out = []
    for ex in examples_for(reg):
        x = ex.args[0]
        m, n = x.shape[-2:]
        full = ex.kwargs.get("full_matrices", ex.args[1] if len(ex.args) > 1 else True)
        if reg.name.endswith("svd") and full and m != n:
            continue  # JAX raises: not implemented for full matrices
        if x.size == 0:
            continue
        out.append(ex)
    return out


DIFFERENTIABLE = [r for r in REGS if r.name != "linalg.matrix_rank"]


@pytest.mark.parametrize("reg", DIFFERENTIABLE, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, _jax_examples(reg), rtol=1e-8, atol=1e-10)
