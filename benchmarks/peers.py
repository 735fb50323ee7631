"""The same five programs in every engine, side by side (issue 14, point 6).

Programs (each a scalar loss of one parameter array, the data constant):

* ``chain``: ``sum(sin(x) * exp(x) + tanh(x))`` -- elementwise;
* ``mlp``: ``sum(tanh(X @ W) @ v)`` -- a tanh layer, gradient in ``W``;
* ``logistic``: ``sum(log1p(exp(-y * (X @ w))))`` -- logistic regression, gradient in ``w``;
* ``softmax``: ``sum(log(sum(exp(X @ W), axis=1))) - sum(Y * (X @ W))`` -- cross-entropy;
* ``robust``: ``max(abs(X @ w - y))`` -- the inf-norm regression.

Engines: ``chainrules.ad.grad``, HIPS ``autograd.grad``, PyTorch eager (``torch.autograd.grad``),
JAX eager (``jax.grad``), ``jax.jit(jax.grad)`` and the hand-written NumPy gradient; float64, one
thread (set before the libraries load). Each figure is chainrules' time over the peer's, measured
in one process in interleaved rounds; ``--repeats`` runs (3 by default) give the median and the
range, and the table gives chainrules' own time and eager JAX's per call beside the ratios.

The "over jax" column is small (0.01-0.04 at n=10) and real: eager ``jax.grad`` traces ``f``,
linearizes and transposes it on *every* call (this script counts one trace per call of the
gradient and none for ``jax.jit``), then dispatches each primitive on its own; nothing is
compiled again after the first call, and the timed call ends with ``block_until_ready``, so
asynchronous dispatch cannot hide work. On jax 0.10.2 here that costs milliseconds per call, where
chainrules takes tens of microseconds. ``jax.jit`` is the JAX figure to compare a traced engine
with. Engines that are not installed are left out.

``--hessian`` adds the second-order rows, against every eager engine: ``ad.hessian`` of
``sum(tanh(B @ x))`` at n=200 (forward over reverse) against ``autograd.hessian``,
``torch.func.hessian`` and ``jax.hessian``; ``ad.jacobian(mode="fwd")`` of ``tanh(B @ x)`` at
n=m=200 and 1000 (chunked pushforwards) against ``torch.func.jacfwd`` and ``jax.jacfwd``; and
``ad.jacobian(mode="rev")`` at n=200 and 1000 (chunked pullbacks) against ``torch.func.jacrev``
and ``jax.jacrev``; JAX without ``jit``, autograd's ``jacobian`` (reverse mode, its only one)
beside both Jacobians; chainrules with its default chunk. ``--programs`` with no names runs only
those rows.

``--chunks`` prints the curve behind the default chunk (``JACOBIAN_CHUNK_ELEMENTS``): the time of
both Jacobians of ``tanh(B @ x)`` at n=200 and 1000 against ``chunk_size`` from 16 to n, as a
ratio to ``torch.func`` (median and range over the repeats), and the default's own row; in
reverse mode also the bare product ``eye @ B`` that one pass amounts to, NumPy's over torch's.

``--keep-heap`` runs the programs with glibc keeping the memory it frees (see
docs/benchmarks.md, "Page faults"): under its defaults each call of a program at scale faults
its fresh buffers in again (glibc hands the heap's top back to the system after the call), a
cost of this machine's allocator that falls on every engine and on the hand-written code alike,
in proportion to the buffers each keeps alive at once.

    python benchmarks/peers.py [--quick] [--repeats 3] [--hessian] [--chunks]
        [--programs [NAME ...]] [--sizes {n10,scale} ...] [--keep-heap]
"""

from __future__ import annotations

import os
import sys

try:
    from ._timing import KEEP_HEAP, keep_heap_restart
except ImportError:  # run as a script
    from _timing import KEEP_HEAP, keep_heap_restart

if __name__ == "__main__":  # --keep-heap: glibc reads it at start-up, so the script runs again
    keep_heap_restart(sys.argv)

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")

import argparse  # noqa: E402
import functools  # noqa: E402
import statistics  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

try:
    from ._timing import interleaved
except ImportError:  # run as a script
    from _timing import interleaved

from chainrules import ad  # noqa: E402
from chainrules.ad import (  # noqa: E402  (the chunk policy's constants)
    DEFAULT_CHUNK_THRESHOLD,
    DEFAULT_REV_CHUNK,
    JACOBIAN_CHUNK_ELEMENTS,
)


# --- the programs, written once against a namespace m ------------------------------------------
def chain(m: Any, d: dict[str, Any]) -> Callable[[Any], Any]:
    return lambda x: m.sum(m.sin(x) * m.exp(x) + m.tanh(x))


def mlp(m: Any, d: dict[str, Any]) -> Callable[[Any], Any]:
    X, v = d["X"], d["v"]
    return lambda W: m.sum(m.tanh(X @ W) @ v)


def logistic(m: Any, d: dict[str, Any]) -> Callable[[Any], Any]:
    X, y = d["X"], d["y"]
    return lambda w: m.sum(m.log1p(m.exp(-y * (X @ w))))


def softmax(m: Any, d: dict[str, Any]) -> Callable[[Any], Any]:
    X, Y = d["X"], d["Y"]

    def f(W: Any) -> Any:
        Z = X @ W
        return m.sum(m.log(m.sum(m.exp(Z), axis=1))) - m.sum(Y * Z)

    return f


def robust(m: Any, d: dict[str, Any]) -> Callable[[Any], Any]:
    X, y = d["X"], d["y"]
    return lambda w: m.max(m.abs(X @ w - y))


# --- hand-written NumPy gradients -----------------------------------------------------------------
def hand(name: str, d: dict[str, Any]) -> Callable[[Any], Any]:
    X: Any = d.get("X")
    if name == "chain":
        return lambda x: np.exp(x) * (np.sin(x) + np.cos(x)) + (1 - np.tanh(x) ** 2)
    if name == "mlp":
        v = d["v"]
        return lambda W: X.T @ ((1 - np.tanh(X @ W) ** 2) * v)
    if name == "logistic":
        y = d["y"]
        return lambda w: X.T @ (-y / (1 + np.exp(y * (X @ w))))
    if name == "softmax":
        Y = d["Y"]

        def g(W: Any) -> Any:
            e = np.exp(X @ W)
            return X.T @ (e / e.sum(axis=1, keepdims=True) - Y)

        return g

    y = d["y"]

    def g_robust(w: Any) -> Any:
        r = X @ w - y
        a = np.abs(r)
        mask = a == a.max()
        return X.T @ (np.sign(r) * mask / mask.sum())

    return g_robust


def data(name: str, scale: bool, rng: np.random.Generator) -> tuple[dict[str, Any], Any]:
    """The constants and the parameter: n=10 elements, or at scale (1e6 elements of data; an
    MLP layer of 1024x512)."""
    r = rng.standard_normal
    if name == "chain":
        return {}, r(10**6 if scale else 10)
    if name == "mlp":
        b, i, o = (256, 1024, 512) if scale else (5, 2, 2)
        return {"X": r((b, i)), "v": r(o)}, r((i, o)) / np.sqrt(i)
    n, k = (10**5, 10) if scale else (5, 2)
    d: dict[str, Any] = {"X": r((n, k)), "y": np.sign(r(n))}
    if name == "softmax":
        d["Y"] = np.eye(k)[rng.integers(0, k, n)]
        return d, r((k, k)) * 0.1
    if name == "robust":
        d["y"] = r(n)
    return d, r(k) * 0.1


PROGRAMS = {"chain": chain, "mlp": mlp, "logistic": logistic, "softmax": softmax, "robust": robust}


def engines(name: str, d: dict[str, Any], p: np.ndarray) -> dict[str, Callable[[], Any]]:
    """One zero-argument call per engine, each checked against the hand-written gradient."""
    f = PROGRAMS[name]
    want = hand(name, d)(p)
    out: dict[str, Callable[[], Any]] = {}
    g = ad.grad(f(np, d))
    out["chainrules"] = lambda: g(p)
    out["numpy"] = lambda: hand(name, d)(p)
    try:
        import autograd
        import autograd.numpy as anp

        ga = autograd.grad(f(anp, d))
        out["autograd"] = lambda: ga(p)
    except ImportError:
        pass
    try:
        import torch

        torch.set_num_threads(1)
        td = {k: torch.from_numpy(v) for k, v in d.items()}
        tf = f(torch, td)
        tp = torch.from_numpy(p).requires_grad_(True)
        out["torch"] = lambda: torch.autograd.grad(tf(tp), tp)[0]
    except ImportError:
        pass
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        jd = {k: jnp.asarray(v) for k, v in d.items()}
        jp = jnp.asarray(p)
        traces = [0]
        jf = f(jnp, jd)

        def counted(w: Any) -> Any:
            traces[0] += 1  # a Python-level call: one per trace of the program
            return jf(w)

        jg = jax.grad(counted)
        jj = jax.jit(jg)
        for fn in (jg, jj):
            fn(jp).block_until_ready()  # the first call compiles
            before = traces[0]
            fn(jp).block_until_ready()
            fn(jp).block_until_ready()
            again = traces[0] - before
            # what the column measures: eager grad re-traces on every call, jit never again
            assert again == (2 if fn is jg else 0), f"{name}: {again} traces in 2 calls"
        out["jax"] = lambda: jg(jp).block_until_ready()
        out["jax.jit"] = lambda: jj(jp).block_until_ready()
    except ImportError:
        pass
    for k, fn in out.items():
        got = fn()
        got = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9, err_msg=f"{name}: {k}")
    return out


def _second_order_cases(
    label: str, n: int, rng: np.random.Generator
) -> dict[str, Callable[[], Any]]:
    """One zero-argument call per engine for ``label`` (``"hessian"``, ``"jacobian(fwd)"`` or
    ``"jacobian(rev)"``) at size ``n``, each checked against chainrules' result. Engines that are
    not installed are left out."""
    b = rng.standard_normal((n, n)) / np.sqrt(n)
    x = rng.standard_normal(n)
    out: dict[str, Callable[[], Any]] = {}
    if label == "hessian":
        h = ad.hessian(lambda x: np.sum(np.tanh(b @ x)))
        out["chainrules"] = lambda: h(x)
    else:
        j = ad.jacobian(lambda x: np.tanh(b @ x), mode=label[-4:-1])
        out["chainrules"] = lambda: j(x)
    try:
        import autograd
        import autograd.numpy as anp

        if label == "hessian":
            ah = autograd.hessian(lambda x: anp.sum(anp.tanh(anp.dot(b, x))))
        else:  # autograd has reverse mode only: its jacobian is the peer of both modes
            ah = autograd.jacobian(lambda x: anp.tanh(anp.dot(b, x)))
        out["autograd"] = lambda: ah(x)
    except ImportError:
        pass
    try:
        import torch

        torch.set_num_threads(1)
        tb, tx = torch.from_numpy(b), torch.from_numpy(x)
        tf = {
            "hessian": lambda: torch.func.hessian(lambda x: torch.sum(torch.tanh(tb @ x))),
            "jacobian(fwd)": lambda: torch.func.jacfwd(lambda x: torch.tanh(tb @ x)),
            "jacobian(rev)": lambda: torch.func.jacrev(lambda x: torch.tanh(tb @ x)),
        }[label]()
        out["torch.func"] = lambda: tf(tx)
    except ImportError:
        pass
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        jb, jx = jnp.asarray(b), jnp.asarray(x)
        jf = {  # eager: no jit, as a user calls them
            "hessian": lambda: jax.hessian(lambda x: jnp.sum(jnp.tanh(jb @ x))),
            "jacobian(fwd)": lambda: jax.jacfwd(lambda x: jnp.tanh(jb @ x)),
            "jacobian(rev)": lambda: jax.jacrev(lambda x: jnp.tanh(jb @ x)),
        }[label]()
        out["jax"] = lambda: jf(jx).block_until_ready()
    except ImportError:
        pass
    want = np.asarray(out["chainrules"]())
    for k, fn in out.items():
        got = fn()
        got = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=f"{label}: {k}")
    return out


SECOND_ORDER = (
    ("hessian", 200),
    ("jacobian(fwd)", 200),
    ("jacobian(fwd)", 1000),
    ("jacobian(rev)", 200),
    ("jacobian(rev)", 1000),
)
"""``hessian`` of ``sum(tanh(B @ x))`` and the Jacobians of ``tanh(B @ x)``, B a constant n x n."""


def second_order(quick: bool) -> list[tuple[str, dict[str, Callable[[], Any]]]]:
    """The ``--hessian`` cases against autograd, ``torch.func`` and eager JAX (``--quick``: n=200
    only)."""
    rng = np.random.default_rng(1)
    return [
        (f"{label}, n={n}", _second_order_cases(label, n, rng))
        for label, n in SECOND_ORDER
        if not (quick and n > 200)
    ]


CHUNKS = (16, 32, 64, 128, 256, 512, 1000)
"""The chunk sizes of ``--chunks`` (those up to n, and n itself)."""


def chunk_curve(repeats: int, budget: float) -> None:
    """``--chunks``: ``ad.jacobian`` of ``tanh(B @ x)`` in both modes at n=200 and 1000 against
    ``chunk_size``, each as a ratio to ``torch.func``'s ``jacfwd`` / ``jacrev`` measured in the same
    rounds (median and range over ``repeats``), with chainrules' own median time."""
    import torch

    torch.set_num_threads(1)
    rng = np.random.default_rng(1)
    print("| mode, n | chunk | passes | chainrules time | over torch.func |")
    print("|---|---|---|---|---|")
    for mode in ("fwd", "rev"):
        for n in (200, 1000):
            b = rng.standard_normal((n, n)) / np.sqrt(n)
            x = rng.standard_normal(n)
            tb, tx = torch.from_numpy(b), torch.from_numpy(x)
            peer = (torch.func.jacfwd if mode == "fwd" else torch.func.jacrev)(
                lambda x, tb=tb: torch.tanh(tb @ x)
            )
            want = peer(tx).numpy()
            sizes: list[int | None] = [*(c for c in CHUNKS if c < n), n, None]
            fns: dict[str, Callable[[], Any]] = {"torch.func": functools.partial(peer, tx)}
            for c in sizes:
                j = ad.jacobian(lambda x, b=b: np.tanh(b @ x), mode=mode, chunk_size=c)
                np.testing.assert_allclose(j(x), want, rtol=1e-9, atol=1e-12)
                fns[f"chainrules:{c}"] = functools.partial(j, x)
            if mode == "rev":  # the one product a single reverse pass is made of, bare
                e = np.eye(n) * 0.5
                fns["numpy matmul"] = functools.partial(np.matmul, e, b)
                fns["torch matmul"] = functools.partial(torch.matmul, torch.from_numpy(e), tb)
            runs = [interleaved(fns, rounds=3, budget=budget) for _ in range(repeats)]
            floor = DEFAULT_REV_CHUNK if mode == "rev" else DEFAULT_CHUNK_THRESHOLD
            default = ad.default_chunk_size(n, max(floor, JACOBIAN_CHUNK_ELEMENTS // n))
            for c in sizes:
                key = f"chainrules:{c}"
                over = [r[key] / r["torch.func"] for r in runs]
                name = "default" if c is None else str(c)
                print(
                    f"| {mode}, n={n} | {name} | {-(-n // (c or default))} "
                    f"| {fmt_s([r[key] for r in runs])} | {fmt(over)} |"
                )
                sys.stdout.flush()
            if mode == "rev":
                over = [r["numpy matmul"] / r["torch matmul"] for r in runs]
                print(
                    f"| {mode}, n={n} | bare `eye @ B`: NumPy over torch | 1 "
                    f"| {fmt_s([r['numpy matmul'] for r in runs])} | {fmt(over)} |"
                )


def run(quick: bool = False) -> list[Any]:
    """The ``--hessian`` rows as a suite of ``benchmarks/run.py`` (``second_order``): one row per
    engine, our time over theirs; the target is to be ahead of every eager engine (issue 14)."""
    try:
        from ._timing import Row, fmt_time
    except ImportError:  # run as a script
        from _timing import Row, fmt_time

    rows = []
    for title, fns in second_order(quick):
        t = interleaved(fns, rounds=3, budget=0.02 if quick else 0.1)
        for k in fns:
            if k == "chainrules":
                continue
            r = t["chainrules"] / t[k]
            rows.append(
                Row(
                    f"{title}: vs {k}",
                    fmt_time(t["chainrules"]),
                    fmt_time(t[k]) + " " + k,
                    f"{r:.2f}x",
                    "< 1x",
                    r < 1.0,
                )
            )
    return rows


def ratios(
    fns: dict[str, Callable[[], Any]], repeats: int, budget: float
) -> dict[str, list[float]]:
    """chainrules' time over each peer's, once per repeat (and, under ``"time:" + engine``, each
    engine's own seconds per call)."""
    runs = [interleaved(fns, rounds=3, budget=budget) for _ in range(repeats)]
    out = {k: [r["chainrules"] / r[k] for r in runs] for k in fns if k != "chainrules"}
    out.update({"time:" + k: [r[k] for r in runs] for k in fns})
    return out


def fmt_s(ts: list[float] | None) -> str:
    if not ts:
        return "n/a"
    t = statistics.median(ts)
    return f"{t * 1e6:.0f} µs" if t < 1e-2 else f"{t * 1e3:.1f} ms"


def fmt(rs: list[float]) -> str:
    """Median (min-max), to two decimals, or three significant digits below 0.1 (eager JAX)."""

    def f(v: float) -> str:
        return f"{v:.2f}" if v >= 0.1 else f"{v:.2g}"

    return f"{f(statistics.median(rs))} ({f(min(rs))}-{f(max(rs))})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs, noisier")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hessian", action="store_true", help="add hessian and jacobian(rev)")
    ap.add_argument("--chunks", action="store_true", help="jacobian time against chunk_size")
    ap.add_argument("--programs", nargs="*", default=list(PROGRAMS))
    ap.add_argument(
        "--sizes",
        nargs="*",
        choices=["n10", "scale"],
        default=["n10", "scale"],
        help="which rows of the programs: n=10 (overhead), at scale, or both",
    )
    ap.add_argument(
        "--keep-heap",
        action="store_true",
        help="run with glibc keeping freed memory (MALLOC_MMAP_THRESHOLD_, "
        "MALLOC_TRIM_THRESHOLD_): no page faults of fresh buffers on every call",
    )
    a = ap.parse_args(argv)
    heap = {k: os.environ[k] for k in KEEP_HEAP if k in os.environ}
    print(f"glibc heap: {heap or 'defaults (trimmed, large blocks mmapped)'}")
    budget = 0.02 if a.quick else 0.1
    if a.chunks:
        chunk_curve(a.repeats, budget)
        if not a.programs and not a.hessian:
            return 0
    peers = ["numpy", "autograd", "torch", "jax", "jax.jit"]
    heads = [f"over {p}" for p in peers] + ["chainrules time", "jax (eager) time"]
    print("| program | " + " | ".join(heads) + " |")
    print("|---" * (len(heads) + 1) + "|")
    rng = np.random.default_rng(0)
    for scale in [s == "scale" for s in dict.fromkeys(a.sizes)]:
        for name in a.programs:
            d, p = data(name, scale, rng)
            rs = ratios(engines(name, d, p), a.repeats, budget)
            cells = [fmt(rs[k]) if k in rs else "n/a" for k in peers]
            cells += [fmt_s(rs.get("time:chainrules")), fmt_s(rs.get("time:jax"))]
            print(f"| {name}, {'scale' if scale else 'n=10'} | " + " | ".join(cells) + " |")
            sys.stdout.flush()
    if a.hessian:
        for title, fns in second_order(a.quick):
            rs = ratios(fns, a.repeats, budget)
            cells = [f"over {k}: {fmt(v)}" for k, v in rs.items() if not k.startswith("time:")]
            cells.append(f"chainrules {fmt_s(rs['time:chainrules'])}")
            print(f"| {title} | " + " | ".join(cells) + " |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
