"""Reverse-mode Jacobians with chunked cotangents, side by side (float64, one thread).

``chainrules.ad.jacobian(f, mode="rev")`` of ``tanh(B @ x)`` at n = m = 1000 against
``autograd.jacobian`` and ``torch.func.jacrev``, and the Hessian of ``sum(tanh(B @ x))`` at
n = 200 (chainrules: forward over reverse) against ``autograd.hessian`` and
``torch.func.hessian``. Each figure: median and range of our time over theirs, over 3 runs in
one process. Run: ``python benchmarks/jacobian_rev.py``.
"""

from __future__ import annotations

import os
import statistics
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np

from benchmarks._timing import interleaved


def _engines(n: int, hess: bool) -> dict[str, object]:
    import autograd
    import autograd.numpy as anp
    import torch

    from chainrules.ad import hessian, jacobian

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    b = rng.standard_normal((n, n)) / np.sqrt(n)
    x = rng.standard_normal(n)
    bt, xt = torch.from_numpy(b), torch.from_numpy(x)
    if hess:
        cr = hessian(lambda x: np.sum(np.tanh(b @ x)))
        ag = autograd.hessian(lambda x: anp.sum(anp.tanh(anp.dot(b, x))))
        th = torch.func.hessian(lambda x: torch.sum(torch.tanh(bt @ x)))
    else:
        cr = jacobian(lambda x: np.tanh(b @ x), mode="rev")
        ag = autograd.jacobian(lambda x: anp.tanh(anp.dot(b, x)))
        th = torch.func.jacrev(lambda x: torch.tanh(bt @ x))
    ref = np.asarray(ag(x))
    np.testing.assert_allclose(cr(x), ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(th(xt).numpy(), ref, rtol=1e-9, atol=1e-12)
    return {
        "chainrules": lambda: cr(x),
        "autograd": lambda: ag(x),
        "torch.func": lambda: th(xt),
    }


def main() -> None:
    for label, n, hess in (("jacobian rev", 1000, False), ("hessian", 200, True)):
        fns = _engines(n, hess)
        runs = [interleaved(fns, rounds=3, budget=0.3) for _ in range(3)]  # type: ignore[arg-type]
        ours = [r["chainrules"] for r in runs]
        print(f"{label} n={n}: chainrules {statistics.median(ours) * 1e3:.2f} ms", flush=True)
        for peer in ("autograd", "torch.func"):
            ratios = sorted(r["chainrules"] / r[peer] for r in runs)
            print(
                f"  / {peer}: {statistics.median(ratios):.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})"
                f"  [{peer} {statistics.median(r[peer] for r in runs) * 1e3:.2f} ms]",
                flush=True,
            )


if __name__ == "__main__":
    main()
