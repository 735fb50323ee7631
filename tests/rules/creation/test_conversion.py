"""Arrays from existing data: asarray, array, from_dlpack (the identity on arrays, a Tangent per
element of a nested list); fromiter without a tangent."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.creation import conversion
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == conversion.__name__]


def test_registered() -> None:
    names = {r.name for r in REGS}
    assert names >= {"asarray", "numpy:asarray", "numpy:array", "from_dlpack"}


@pytest.mark.parametrize(
    "reg",
    [
        pytest.param(r, id=r.name)
        for r in REGS
        if not r.non_differentiable and r.name != "from_dlpack"
    ],
)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions ---------------------------------------------------------------------------
def test_asarray_identity_and_sequences() -> None:
    x = np.array([1.0, 2.0], dtype=np.float32)
    _, pb = cr.rrule(np.asarray, x, dtype=np.float64)
    assert pb(np.ones(2))[1].dtype == np.float32
    _, pb = cr.rrule(np.asarray, [[1.0, 2.0], [3.0, 4.0]])
    t = pb(np.array([[1.0, 2.0], [3.0, 4.0]]))[1]
    assert isinstance(t, cr.Tangent) and float(t[1][0]) == 3.0
    test_rrule(np.array, np.ones(3), ndmin=2)
    test_frule(np.asarray, [1.0, 2.0])


def test_fromiter_has_no_tangent() -> None:
    y, pb = cr.rrule(np.fromiter, (x * 0.5 for x in range(4)), float, count=3)
    np.testing.assert_array_equal(y, [0.0, 0.5, 1.0])
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3
    y, y_dot = cr.frule((cr.NoTangent(),) * 3, np.fromiter, range(3), np.float32)
    assert y.dtype == np.float32 and y_dot == cr.NoTangent()


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.creation.conversion")


def test_from_dlpack_of_the_same_library_under_transformations() -> None:
    """Campaign seeds 2897 and 5736: the torch bridge's from_dlpack raised "Can't export tensors
    that require gradient" (func.grad), "Cannot access data pointer" (jacfwd, export) and
    graph-broke under compile; jax.numpy.from_dlpack refuses a tracer. An array of the namespace's
    own library now reaches from_dlpack's rule as asarray does (its data, no DLPack protocol):
    the gradient of sum(sin(from_dlpack(x))) is cos(x) under torch.func.grad, torch.compile and
    jax.jit(jax.grad)."""
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    import array_api_compat.torch as ttorch
    import jax.numpy as jnp

    from chainrules.interop import jax as crjax
    from chainrules.interop import torch as crtorch

    x = np.linspace(-1.0, 1.0, 5)
    f = crtorch.wrap(ttorch.from_dlpack)
    xt = torch.asarray(x)
    g = torch.func.grad(lambda t: torch.sum(torch.sin(f(t))))(xt)
    np.testing.assert_allclose(g.numpy(), np.cos(x), rtol=1e-12)
    torch._dynamo.reset()
    gc = torch.compile(
        torch.func.grad(lambda t: torch.sum(torch.sin(f(t)))), backend="aot_eager", fullgraph=True
    )(xt)
    np.testing.assert_allclose(gc.numpy(), np.cos(x), rtol=1e-12)
    fj = crjax.wrap(jnp.from_dlpack)
    gj = jax.jit(jax.grad(lambda t: jnp.sum(jnp.sin(fj(t)))))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(gj), np.cos(x), rtol=1e-6)  # float32 without x64
