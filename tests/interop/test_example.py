"""The worked examples of docs/interop.md and docs/ad-authors.md run, and the user-defined
``logsumexp`` passes each engine's checker through the bridges."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S)


def _run(page: str) -> dict:  # type: ignore[type-arg]
    ns: dict = {"__name__": "doc"}  # type: ignore[type-arg]
    for code in _blocks(page):
        exec(compile(code, str(DOCS / page), "exec"), ns)
    return ns


def test_ad_authors_page_runs(clean_registry):  # type: ignore[no-untyped-def]
    assert len(_blocks("ad-authors.md")) == 2
    _run("ad-authors.md")


@pytest.fixture
def example(clean_registry):  # type: ignore[no-untyped-def]
    """The namespace of docs/interop.md after its blocks ran (logsumexp registered)."""
    pytest.importorskip("jax")
    pytest.importorskip("torch")
    pytest.importorskip("autograd")
    assert len(_blocks("interop.md")) == 2
    return _run("interop.md")


def test_logsumexp_jax(example):  # type: ignore[no-untyped-def]
    import jax
    import jax.numpy as jnp
    from jax.test_util import check_grads

    from chainrules.interop import jax as crjax

    x = jnp.asarray(np.random.default_rng(0).standard_normal((3, 4)))
    for mode, modes in (("jvp", ("fwd", "rev")), ("vjp", ("rev",))):
        f = crjax.wrap(example["logsumexp"], mode=mode)
        check_grads(jax.jit(f), (x,), order=2, modes=modes)
        np.testing.assert_allclose(
            jax.grad(lambda x: jnp.sum(f(x)))(x),  # noqa: B023
            jax.grad(lambda x: jnp.sum(jax.scipy.special.logsumexp(x, axis=-1)))(x),
        )
        loss = lambda v: f(v)  # noqa: B023
        got = jax.vmap(jax.grad(loss))(x)
        for k in range(3):
            np.testing.assert_allclose(got[k], jax.grad(loss)(x[k]), rtol=1e-12)


def test_logsumexp_torch(example):  # type: ignore[no-untyped-def]
    import torch
    from torch.autograd import gradcheck, gradgradcheck

    from chainrules.interop import torch as crtorch

    f = crtorch.wrap(example["logsumexp"])
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
    import warnings

    with warnings.catch_warnings():  # gradcheck's forward-AD path calls torch.jit.script
        warnings.simplefilter("ignore", DeprecationWarning)
        assert gradcheck(f, (x,), check_forward_ad=True, check_backward_ad=False)
    (g,) = torch.autograd.grad(f(x).sum(), x)
    (want,) = torch.autograd.grad(torch.logsumexp(x, dim=-1).sum(), x)
    torch.testing.assert_close(g, want)
    got = torch.func.vmap(torch.func.grad(f))(x.detach())
    for k in range(3):
        torch.testing.assert_close(got[k], torch.func.grad(f)(x.detach()[k]))


def test_logsumexp_autograd(example):  # type: ignore[no-untyped-def]
    from autograd.test_util import check_grads

    from chainrules.interop import autograd as crag

    f = crag.wrap(example["logsumexp"])
    x = np.random.default_rng(0).standard_normal((3, 4))
    check_grads(f, modes=["fwd", "rev"], order=1)(x)
