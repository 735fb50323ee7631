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


def test_inductor_compiles_a_bridged_program_on_a_cold_cache(tmp_path: Path) -> None:
    cache = tmp_path / "inductor"
    cache.mkdir()
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [sys.executable, "-c", _INDUCTOR],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["inductor_files"] > 0  # inductor compiled (into an empty cache)
    # compiled = eager (inductor's fused kernels round differently); eager = the rules (marker)
    assert got["backward"] <= 1e-12 and got["func.grad"] <= 1e-12, got
    assert got["marker"] <= 1e-12, got
