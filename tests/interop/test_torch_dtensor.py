"""The PyTorch bridge on DTensors (issue 13, point 5): each probed rule, called through
``interop.torch.wrap`` on ``Shard(0)`` and ``Replicate()`` DTensors, gives the output and gradient
placements native torch gives for the same function, and (on a real process group) its values.

Two process groups, both in this one process:

* ``gloo`` of world size 1 (a ``HashStore``, no network): real collectives, so the values are
  compared too;
* ``fake`` of world size 4 (``torch.testing._internal.distributed.fake_pg``): collectives do
  nothing, so only placements and shapes are compared, but ``Shard(0)`` really splits an axis.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")
if not dist.is_available():  # pragma: no cover
    pytest.skip("torch was built without torch.distributed", allow_module_level=True)
import array_api_compat.torch as xp  # noqa: E402
from torch.distributed.device_mesh import init_device_mesh  # noqa: E402
from torch.distributed.tensor import DTensor, Replicate, Shard, distribute_tensor  # noqa: E402

from chainrules.interop import torch as crtorch  # noqa: E402


def _t(*shape: int, positive: bool = False, seed: int = 0) -> Any:
    a = torch.tensor(np.random.default_rng(seed).standard_normal(shape))
    return a.abs() + 0.5 if positive else a


def _i(*v: int) -> Any:
    return torch.tensor(v)


# name -> (function, arguments from a "distribute" map, keyword arguments); the first floating
# argument is the one differentiated
Build = Callable[[Callable[[Any], Any]], tuple[Any, ...]]
CASES: dict[str, tuple[Any, Build, dict[str, Any]]] = {
    "exp": (xp.exp, lambda d: (d(_t(8, 4)),), {}),
    "sin": (xp.sin, lambda d: (d(_t(8, 4)),), {}),
    "tanh": (xp.tanh, lambda d: (d(_t(8, 4)),), {}),
    "log": (xp.log, lambda d: (d(_t(8, 4, positive=True)),), {}),
    "sqrt": (xp.sqrt, lambda d: (d(_t(8, 4, positive=True)),), {}),
    "multiply": (xp.multiply, lambda d: (d(_t(8, 4)), d(_t(8, 4, seed=1))), {}),
    "add": (xp.add, lambda d: (d(_t(8, 4)), d(_t(8, 4, seed=1))), {}),
    "maximum": (xp.maximum, lambda d: (d(_t(8, 4)), d(_t(8, 4, seed=1))), {}),
    "where": (xp.where, lambda d: (d(_t(8, 4, seed=2) > 0), d(_t(8, 4)), d(_t(8, 4, seed=1))), {}),
    "sum": (xp.sum, lambda d: (d(_t(8, 4)),), {}),
    "sum_axis1": (xp.sum, lambda d: (d(_t(8, 4)),), {"axis": 1}),
    "mean": (xp.mean, lambda d: (d(_t(8, 4)),), {}),
    "prod": (xp.prod, lambda d: (d(_t(8, 4, positive=True)),), {}),
    "var": (xp.var, lambda d: (d(_t(8, 4)),), {}),
    "max": (xp.max, lambda d: (d(_t(8, 4)),), {}),
    "vector_norm": (xp.linalg.vector_norm, lambda d: (d(_t(8, 4)),), {}),
    "matmul": (xp.matmul, lambda d: (d(_t(8, 4)), d(_t(4, 3))), {}),
    "reshape": (xp.reshape, lambda d: (d(_t(8, 4)), (4, 8)), {}),
    "permute_dims": (xp.permute_dims, lambda d: (d(_t(8, 4)), (1, 0)), {}),
    "cumulative_sum": (xp.cumulative_sum, lambda d: (d(_t(8, 4)),), {"axis": 0}),
    "concat": (xp.concat, lambda d: ([d(_t(8, 4)), d(_t(8, 4, seed=1))],), {"axis": 0}),
    "getitem_basic": (operator.getitem, lambda d: (d(_t(8, 4)), (slice(1, 5), 2)), {}),
    "getitem_array": (operator.getitem, lambda d: (d(_t(8, 4)), d(_i(0, 2, 2))), {}),
    "take_axis0": (xp.take, lambda d: (d(_t(8, 4)), d(_i(0, 2, 2))), {"axis": 0}),
    "take_axis1": (xp.take, lambda d: (d(_t(8, 4)), d(_i(0, 2, 2))), {"axis": 1}),
}

# placements that differ from native torch's, with the reason (the values agree): (case, placement)
# -> (process groups, reason)
PLACEMENT_LIMITS: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {}
# warnings torch raises inside a rule, not the bridge's own
RULE_WARNINGS = {
    "prod": "array_api_compat's cumulative_prod(include_initial=True) concatenates a plain tensor "
    "of shape (..., 1), which DTensor replicates with a warning (torch's own prod backward warns "
    "the same way)",
}


@pytest.fixture(scope="module", params=["gloo", "fake"])
def mesh(request: pytest.FixtureRequest) -> Iterator[tuple[str, Any]]:
    kind = request.param
    if dist.is_initialized():  # pragma: no cover
        pytest.skip("a default process group is already set up in this process")
    if kind == "gloo":
        if not dist.is_gloo_available():  # pragma: no cover
            pytest.skip("torch was built without gloo")
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        size = 1
    else:
        fake_pg = pytest.importorskip("torch.testing._internal.distributed.fake_pg")
        dist.init_process_group("fake", store=fake_pg.FakeStore(), rank=0, world_size=4)
        size = 4
    try:
        yield kind, init_device_mesh("cpu", (size,))
    finally:
        dist.destroy_process_group()


def _run(fn: Any, name: str, dist_: Callable[[Any], Any]) -> tuple[Any, Any]:
    _, build, kwargs = CASES[name]
    args = build(dist_)
    leaves = [a for arg in args for a in (arg if isinstance(arg, list) else [arg])]
    first = next(a for a in leaves if isinstance(a, DTensor) and a.is_floating_point())
    first.requires_grad_()
    y = fn(*args, **kwargs)
    (g,) = torch.autograd.grad(y, first, torch.ones_like(y))
    return y, g


@pytest.mark.parametrize("placement", ["shard0", "replicate"])
@pytest.mark.parametrize("name", list(CASES))
def test_placements_match_native(
    request: pytest.FixtureRequest, mesh: tuple[str, Any], name: str, placement: str
) -> None:
    kind, m = mesh
    kinds, reason = PLACEMENT_LIMITS.get((name, placement), ((), ""))
    if kind in kinds:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))

    def distribute(t: Any) -> Any:
        pl = [Shard(0)] if placement == "shard0" and t.ndim else [Replicate()]
        return distribute_tensor(t, m, pl)

    f = CASES[name][0]
    with warnings.catch_warnings():
        # torch's own prod backward mixes in a plain tensor of shape (1,) and warns; the bridge
        # runs under the suite's "warnings are errors"
        warnings.filterwarnings("ignore", "Found a non-scalar tensor with numel=1", UserWarning)
        y_native, g_native = _run(f, name, distribute)
    with warnings.catch_warnings():
        if name in RULE_WARNINGS:
            warnings.filterwarnings("ignore", "Found a non-scalar tensor with numel=1", UserWarning)
        y, g = _run(crtorch.wrap(f), name, distribute)
    assert isinstance(y, DTensor) and isinstance(g, DTensor)
    assert (y.shape, g.shape) == (y_native.shape, g_native.shape)
    if kind == "gloo":  # real collectives: the values mean something
        torch.testing.assert_close(y.full_tensor(), y_native.full_tensor(), rtol=1e-12, atol=0)
        torch.testing.assert_close(g.full_tensor(), g_native.full_tensor(), rtol=1e-12, atol=0)
    assert y.placements == y_native.placements
    assert g.placements == g_native.placements
