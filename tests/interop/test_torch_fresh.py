"""The PyTorch bridge in a fresh process (issue 28 item 2): ``torch.compile`` with TorchInductor
(the default backend) on a cold cache -- an empty ``TORCHINDUCTOR_CACHE_DIR``, Dynamo reset --
compiles a bridged program with ``fullgraph=True`` (no graph break from the bridge), and the
compiled gradients are the rules' (a marker rule whose derivative is 3x the true one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

_INDUCTOR = """
import json, os, warnings
warnings.simplefilter("ignore")
import torch
import array_api_compat.torch as xp
import chainrules as cr
from chainrules.interop import torch as crtorch


def cube(x):
    return x * x * x


@cr.register_rrule(cube)
def _cube_rrule(x):
    # the marker: 3x the true derivative, so a gradient that does not come from the rule shows
    return x * x * x, lambda g: (cr.NoTangent(), 3 * (3 * x * x) * g)


@cr.register_frule(cube)
def _cube_frule(t, x):
    return x * x * x, 3 * (3 * x * x) * t[1]


torch._dynamo.reset()
assert not os.listdir(os.environ["TORCHINDUCTOR_CACHE_DIR"])
norm, ex, mm, mark = (crtorch.wrap(f) for f in (xp.linalg.vector_norm, xp.exp, xp.matmul, cube))
a = torch.tensor([[1.0, 0.5], [-0.5, 2.0]], dtype=torch.float64)


def loss(w):
    # a reduction, an elementwise rule, a product whose operands are data and w, a Python
    # scalar operand, and the marker
    return norm(ex(mm(a, w))) + torch.sum(mm(a, w) * 0.5) + torch.sum(mark(w))


w = torch.tensor([0.3, -0.7], dtype=torch.float64)
wc, we = w.clone().requires_grad_(), w.clone().requires_grad_()
torch.compile(loss, fullgraph=True)(wc).backward()
loss(we).backward()
g = torch.compile(torch.func.grad(loss), fullgraph=True)(w)
files = sum(len(fs) for _, _, fs in os.walk(os.environ["TORCHINDUCTOR_CACHE_DIR"]))
print(json.dumps({
    "backward": (wc.grad - we.grad).abs().max().item(),
    "func.grad": (g - we.grad).abs().max().item(),
    "marker": (we.grad - torch.func.grad(lambda v: loss(v) - torch.sum(mark(v)))(w)
               - 9 * w * w).abs().max().item(),
    "inductor_files": files,
}))
"""


def _run(code: str, tmp: Path, *args: str, **extra: str) -> str:
    """The last line ``code`` prints, run in a fresh process in ``tmp`` (importable there, as
    the project is) with the environment variables ``extra`` set; its stderr if it fails."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp)]), **extra)
    r = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=tmp,
        env=env,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip().splitlines()[-1]


def test_inductor_compiles_a_bridged_program_on_a_cold_cache(tmp_path: Path) -> None:
    cache = tmp_path / "inductor"
    cache.mkdir()
    got = json.loads(_run(_INDUCTOR, tmp_path, TORCHINDUCTOR_CACHE_DIR=str(cache)))
    assert got["inductor_files"] > 0  # inductor compiled (into an empty cache)
    # compiled = eager (inductor's fused kernels round differently); eager = the rules (marker)
    assert got["backward"] <= 1e-12 and got["func.grad"] <= 1e-12, got
    assert got["marker"] <= 1e-12, got


# --- torch.export.save / load in a fresh process ----------------------------------------------

_MARKER_MODULE = """
import chainrules as cr


def cube(x):
    return x * x * x


@cr.register_rrule(cube)
def _cube_rrule(x):
    # the marker: 3x the true derivative (an rrule alone: the bridge derives the frule)
    return x * x * x, lambda g: (cr.NoTangent(), 3 * (3 * x * x) * g)
"""

_PROGRAM = """
import json, sys, warnings
warnings.simplefilter("ignore")
import torch
import array_api_compat.torch as xp
from chainrules.interop import torch as crtorch
import crmarker

fs = (xp.exp, xp.matmul, xp.linalg.vector_norm, crmarker.cube)
ex, mm, nm, mk = (crtorch.wrap(f) for f in fs)


class M(torch.nn.Module):
    def forward(self, a, w):
        # static arguments (axis, ord) are part of an op's name
        return torch.sum(ex(mm(a, w))) + nm(a * w, axis=1, ord=3).sum() + torch.sum(mk(w))


gen = torch.Generator().manual_seed(0)
a = torch.randn(3, 3, dtype=torch.float64, generator=gen)
w = torch.randn(3, dtype=torch.float64, generator=gen)
"""

_SAVE = (
    _PROGRAM
    + """
ep = torch.export.export(M(), (a, w))
crtorch.save(ep, sys.argv[1])
print(json.dumps(sorted(str(n.target) for n in ep.graph.nodes
                        if getattr(n.target, "namespace", None) == "chainrules")))
"""
)

_LOAD = (
    _PROGRAM
    + """
ep = crtorch.load(sys.argv[1])  # first: nothing of the program was made in this process
al, wl = a.clone().requires_grad_(), w.clone().requires_grad_()
ep.module()(al, wl).backward()
ae, we = a.clone().requires_grad_(), w.clone().requires_grad_()
M()(ae, we).backward()  # the eager bridge: the rules (the marker's 9 w^2 in w's gradient)
names = sorted(str(n.target) for n in torch.export.export(M(), (a, w)).graph.nodes
               if getattr(n.target, "namespace", None) == "chainrules")
plain = torch.func.grad(lambda v: torch.sum(ex(mm(a, v))) + nm(a * v, axis=1, ord=3).sum())(w)
print(json.dumps({
    "a": (al.grad - ae.grad).abs().max().item(),
    "w": (wl.grad - we.grad).abs().max().item(),
    "marker": (we.grad - plain - 9 * w * w).abs().max().item(),
    "names": names,
}))
"""
)


def test_save_and_load_in_a_fresh_process_keep_the_rules(tmp_path: Path) -> None:
    """``crtorch.save`` writes each custom op's function (by an importable name) and call
    structure beside the program; ``crtorch.load`` in another process makes the ops again, under
    the same names, before ``torch.export.load``: the loaded program's backward pass is the
    rules' (the marker), and the op names are the same in both processes."""
    (tmp_path / "crmarker.py").write_text(_MARKER_MODULE)
    path = str(tmp_path / "program.pt2")
    saved = json.loads(_run(_SAVE, tmp_path, path))
    got = json.loads(_run(_LOAD, tmp_path, path))
    assert len(saved) == 4 and all(n.startswith("chainrules.") for n in saved)
    assert got["names"] == saved  # op names are stable across processes
    assert got["a"] <= 1e-12 and got["w"] <= 1e-12 and got["marker"] <= 1e-12, got


def test_save_refuses_a_function_it_cannot_name_again(tmp_path: Path) -> None:
    import torch

    import chainrules as cr
    from chainrules.interop import torch as crtorch

    def local_square(x):  # type: ignore[no-untyped-def]
        return x * x

    @cr.register_rrule(local_square)
    def _rule(x):  # type: ignore[no-untyped-def]
        return x * x, lambda g: (cr.NoTangent(), 2 * x * g)

    f = crtorch.wrap(local_square)

    class M(torch.nn.Module):
        def forward(self, x):  # type: ignore[no-untyped-def]
            return torch.sum(f(x))

    ep = torch.export.export(M(), (torch.ones(3, dtype=torch.float64),))
    with pytest.raises(ValueError, match="local_square"):
        crtorch.save(ep, str(tmp_path / "p.pt2"))


# --- a data-dependent output shape under torch.export -------------------------------------------


def test_unique_values_exports_with_a_dynamic_size() -> None:
    """``unique_values``' output size depends on the data: its custom op's fake forward (the
    rrule on fake tensors) gives it an unbacked size, so the exported program takes inputs with
    another number of distinct values, and its backward is the rule's (ties split equally)."""
    import array_api_compat.torch as xp
    import torch

    from chainrules.interop import torch as crtorch

    u = crtorch.wrap(xp.unique_values)

    class M(torch.nn.Module):
        def forward(self, x):  # type: ignore[no-untyped-def]
            v = u(x)
            return torch.sum(v * torch.arange(1, 1 + v.shape[0], dtype=x.dtype))

    x0 = torch.tensor([3.0, 1.0, 2.0, 2.0, 3.0], dtype=torch.float64)  # 3 distinct values
    ep = torch.export.export(M(), (x0,))
    for x in (x0, torch.tensor([4.0, 1.0, 2.0, 5.0, 4.0], dtype=torch.float64)):  # 3, then 4
        xe, xw = x.clone().requires_grad_(), x.clone().requires_grad_()
        ye, yw = ep.module()(xe), M()(xw)
        torch.testing.assert_close(ye, yw)
        ye.backward()
        yw.backward()
        torch.testing.assert_close(xe.grad, xw.grad)
    # the second input: distinct values 1, 2, 4, 5 weighted 1..4, the tie at 4 split in halves
    torch.testing.assert_close(
        xe.grad, torch.tensor([1.5, 1.0, 2.0, 4.0, 1.5], dtype=torch.float64)
    )
