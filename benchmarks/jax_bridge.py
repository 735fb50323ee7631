"""The JAX bridge against native JAX (issue 14, point 6): eager ``jax.grad`` and ``jit(grad)``.

Each row is the bridge's time over native JAX's for the same function, measured side by side in
one process (``interleaved``), as the median and range over ``runs`` repeats. Functions: the
2-norm and the inf-norm (``linalg.vector_norm``) and ``logsumexp`` (``jax.scipy.special``), at
n = 10 and n = 1e6, float64, both modes. Targets: eager ``grad`` <= 1.3x, ``jit(grad)`` <= 1.2x.

Run as ``python benchmarks/jax_bridge.py`` (``--quick`` for a short run).

``--sharded``: ``jit(value_and_grad)`` of the 2-norm, the inf-norm and the 1-norm at n = 1e6
sharded over 8 CPU devices (``XLA_FLAGS=--xla_force_host_platform_device_count=8``, set by the
script before JAX is imported), bridge over native, with the compiled collectives of each (issue
28, item 5: the bridge issues native's; ``tests/interop/test_jax_sharding.py`` asserts it).
"""

from __future__ import annotations

import os
import re
import statistics
import sys
from typing import Any

import numpy as np

try:
    from ._timing import Row, interleaved, table
except ImportError:  # run as a script
    from _timing import Row, interleaved, table


def _over_native(
    calls: dict[str, Any], runs: int, budget: float, rounds: int
) -> dict[str, list[float]]:
    """Each bridge mode's time over native JAX's, in ``runs`` interleaved measurements."""
    per: dict[str, list[float]] = {"jvp": [], "vjp": []}
    for _ in range(runs):
        t = interleaved(calls, budget=budget, rounds=rounds)
        for m in per:
            per[m].append(t[m] / t["native"])
    return per


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
                for m, rs in _over_native(calls, runs, budget, rounds).items():
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


# an all-reduce, all-gather, reduce-scatter, collective-permute or all-to-all in compiled HLO text
# (the -start half of an async pair counted once)
_COLLECTIVE = (
    r"= [^=\n]*\b(?:all-reduce|all-gather|reduce-scatter|collective-permute|all-to-all)"
    r"(?:-start)?\("
)


def _sharded(runs: int, budget: float, rounds: int) -> list[Row]:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax.sharding import AxisType, NamedSharding, PartitionSpec

    from chainrules.interop import jax as crjax

    if jax.device_count() < 8:
        raise RuntimeError("--sharded needs 8 devices: JAX was imported before XLA_FLAGS was set")
    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    x = jax.device_put(
        jnp.asarray(np.random.default_rng(0).standard_normal(1_000_000)),
        NamedSharding(mesh, PartitionSpec("x")),
    )
    rows: list[Row] = []
    for name, kw in (("2-norm", {}), ("inf-norm", {"ord": np.inf}), ("1-norm", {"ord": 1})):
        calls, counts = {}, {}
        for kind in ("native", "jvp", "vjp"):
            g = (
                jnp.linalg.vector_norm
                if kind == "native"
                else crjax.wrap(jnp.linalg.vector_norm, mode=kind)
            )
            fn = jax.jit(jax.value_and_grad(lambda x, g=g, kw=kw: jnp.sin(g(x, **kw))))
            hlo = fn.lower(x).compile().as_text() or ""
            counts[kind] = len(re.findall(_COLLECTIVE, hlo))
            jax.block_until_ready(fn(x))
            calls[kind] = lambda fn=fn: jax.block_until_ready(fn(x))
        for m, rs in _over_native(calls, runs, budget, rounds).items():
            med = statistics.median(rs)
            rows.append(
                Row(
                    f"JAX sharded jit(value_and_grad) {name}, {m} mode, n=1e6 on 8 devices",
                    f"median of {runs} runs; collectives {counts[m]} (native {counts['native']})",
                    f"range {min(rs):.2f}-{max(rs):.2f}x",
                    f"{med:.2f}x",
                    "<= 1.2x",
                    med <= 1.2 and counts[m] == counts["native"],
                )
            )
    return rows


def run(quick: bool = False) -> list[Row]:
    return _ratios(3, 0.1 if quick else 0.3, 3 if quick else 5)


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    if "--sharded" in sys.argv:
        os.environ["XLA_FLAGS"] = (
            os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
        ).strip()
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        print(table(_sharded(3, 0.1 if quick else 0.3, 3 if quick else 5)))
    else:
        print(table(run(quick=quick)))
