"""The JAX bridge against native JAX (issue 14, point 6): eager ``jax.grad`` and ``jit(grad)``.

Each row is the bridge's time over native JAX's for the same function, measured side by side in
one process (``interleaved``), as the median and range over ``runs`` repeats. Functions: the
2-norm and the inf-norm (``linalg.vector_norm``) and ``logsumexp`` (``jax.scipy.special``), at
n = 10 and n = 1e6, float64, both modes. Targets: eager ``grad`` <= 1.3x, ``jit(grad)`` <= 1.2x.

Run as ``python benchmarks/jax_bridge.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import statistics
import sys

import numpy as np

try:
    from ._timing import Row, interleaved, table
except ImportError:  # run as a script
    from _timing import Row, interleaved, table


def _ratios(runs: int, budget: float, rounds: int) -> list[Row]:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.special as jss

    from chainrules.interop import jax as crjax

    fns = {
        "2-norm": (jnp.linalg.vector_norm, {}),
        "inf-norm": (jnp.linalg.vector_norm, {"ord": np.inf}),
        "logsumexp": (jss.logsumexp, {}),
    }
    rows: list[Row] = []
    for n in (10, 1_000_000):
        x = jnp.asarray(np.random.default_rng(0).standard_normal(n))
        for name, (f, kw) in fns.items():
            for how, target in (("eager grad", 1.3), ("jit(grad)", 1.2)):
                calls = {}
                for kind in ("native", "jvp", "vjp"):
                    g = f if kind == "native" else crjax.wrap(f, mode=kind)
                    grad = jax.grad(lambda x, g=g, kw=kw: g(x, **kw))
                    if how == "jit(grad)":
                        grad = jax.jit(grad)
                    grad(x).block_until_ready()  # compile, build
                    calls[kind] = lambda grad=grad, x=x: grad(x).block_until_ready()
                per: dict[str, list[float]] = {"jvp": [], "vjp": []}
                for _ in range(runs):
                    t = interleaved(calls, budget=budget, rounds=rounds)
                    for m in per:
                        per[m].append(t[m] / t["native"])
                for m, rs in per.items():
                    med = statistics.median(rs)
                    rows.append(
                        Row(
                            f"JAX {how} {name}, {m} mode, n={'1e6' if n > 10 else n}",
                            f"median of {runs} runs",
                            f"range {min(rs):.2f}-{max(rs):.2f}x",
                            f"{med:.2f}x",
                            f"<= {target}x",
                            med <= target,
                        )
                    )
    return rows


def run(quick: bool = False) -> list[Row]:
    return _ratios(3, 0.1 if quick else 0.3, 3 if quick else 5)


if __name__ == "__main__":
    print(table(run(quick="--quick" in sys.argv)))
