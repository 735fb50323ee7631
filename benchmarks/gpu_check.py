"""The GPU check: every GPU-safe rule on real device arrays, with host synchronisation forbidden.

    python benchmarks/gpu_check.py            # all parts that the machine can run
    python benchmarks/gpu_check.py --quick    # fewer timing repeats

Parts (each runs only when its library sees a CUDA device; without one the script says so and
exits 0 -- the test suite calls the same functions from ``tests/test_gpu.py``, skipped without a
GPU):

1. CuPy: the rrule, the pullback and the frule of every rule of the reductions, norms and indexing
   families (and the elementwise ones) at their example inputs, as ``cupy`` arrays, inside
   ``cupyx.allow_synchronize(False)`` -- a synchronising call raises. Results are compared with
   NumPy on the host (after the guarded block).
2. ``cupy.add.at`` (the scatter behind ``scatter_add`` on CuPy): duplicates accumulate, in
   float64 and complex128.
3. PyTorch on CUDA: the same rules on CUDA tensors under
   ``torch.cuda.set_sync_debug_mode("error")``.
4. Timings (medians, same process): our pullbacks against PyTorch's autograd and JAX's
   ``jit(grad)`` of the same functions on the GPU.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chainrules as cr
from chainrules.testing import examples_for, to_numpy
from chainrules.testing.arrays import nest
from chainrules.testing.backends import BACKENDS

# every registration of the library's own rule modules
FAMILIES = ("chainrules.rules.", "chainrules.core.scatter")


def cupy_available() -> bool:
    try:
        import cupy

        return bool(cupy.cuda.is_available())
    except Exception:  # noqa: BLE001  (not installed, or no driver)
        return False


def torch_cuda_available() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001
        return False


def registrations() -> list[cr.Registration]:
    return [r for r in cr.registrations() if str(r.module).startswith(FAMILIES)]


def _convert(value: Any, make: Callable[[np.ndarray], Any]) -> Any:
    if isinstance(value, np.ndarray):
        return make(value)
    if isinstance(value, tuple):
        return tuple(_convert(v, make) for v in value)
    return value


def _compare(what: str, got: Any, want: Any, failures: list[str], rtol: float = 1e-6) -> None:
    got_l, want_l = _leaves(got), _leaves(want)
    for g, w in zip(got_l, want_l):
        if cr.is_zero(w) or cr.is_zero(g):
            if not (cr.is_zero(g) or np.all(to_numpy(g) == 0)):
                failures.append(f"{what}: expected zero, got {type(g).__name__}")
            continue
        gn, wn = to_numpy(g), to_numpy(w)
        if not np.allclose(
            gn, wn, rtol=rtol, atol=rtol * max(1.0, float(np.max(np.abs(wn), initial=0.0)))
        ):
            failures.append(f"{what}: max error {float(np.max(np.abs(gn - wn))):.3g}")


def _leaves(x: Any) -> list[Any]:
    from chainrules.testing.arrays import leaves

    return leaves(x)


def _run_rules(
    backend_name: str,
    make: Callable[[np.ndarray], Any],
    guard: Callable[[], Any],
    sync: Callable[[], None],
) -> tuple[int, list[str]]:
    """Every rule at every example on the GPU inside ``guard()``; compared with NumPy."""
    failures: list[str] = []
    count = 0
    backend = BACKENDS.get(backend_name)
    for reg in registrations():
        f_np = BACKENDS["numpy"].function(reg)
        f_gpu = backend.function(reg) if backend is not None else None
        if f_np is None or f_gpu is None:
            continue
        for ex in examples_for(reg):
            args = tuple(_convert(a, make) for a in ex.args)
            try:
                y_ref, pb_ref = cr.rrule(f_np, *ex.args, **ex.kwargs)
            except Exception:  # noqa: BLE001  (an example NumPy itself rejects)
                continue
            rng = np.random.default_rng(0)
            ybar = [
                rng.standard_normal(np.shape(v)) if np.asarray(v).dtype.kind in "fc" else None
                for v in _leaves(y_ref)
            ]
            parts_ref = [cr.NoTangent() if b is None else b for b in ybar]
            parts_gpu = [cr.NoTangent() if b is None else make(b) for b in ybar]
            # one Tangent per tuple or list, nested as the output is (histogramdd's
            # (counts, [edges, ...])); a tuple of one output is a tuple
            ybar_ref = nest(y_ref, parts_ref)
            ybar_gpu = nest(y_ref, parts_gpu)
            what = f"{reg.name} [{ex.note or ex.kwargs}]"
            try:  # an input the library's own function rejects is not the rule's failure
                f_gpu(*args, **ex.kwargs)
                sync()
            except Exception:  # noqa: BLE001
                continue
            count += 1
            try:
                with guard():
                    y, pullback = cr.rrule(f_gpu, *args, **ex.kwargs)
                    res = pullback(ybar_gpu)
                    res_l = [_leaves(r) for r in res]
                sync()
            except Exception as e:  # noqa: BLE001
                failures.append(f"{what}: {type(e).__name__}: {str(e).splitlines()[0]}")
                continue
            if reg.gauge:  # eigh, svd: vectors' signs are each library's choice;
                continue  # ran without a sync, compared by gauge-invariant losses in the tests
            _compare(what + " primal", y, y_ref, failures)
            ref = pb_ref(ybar_ref)
            for i, (r, rr) in enumerate(zip(res_l, ref)):
                _compare(f"{what} cotangent {i}", r, rr, failures)
    return count, failures


# ---- CuPy ---------------------------------------------------------------------------------------
def check_cupy() -> tuple[int, list[str]]:
    """Every rule on CuPy arrays under ``cupyx.allow_synchronize(False)``."""
    import cupy
    import cupyx

    return _run_rules(
        "cupy",
        lambda a: cupy.asarray(a),
        lambda: cupyx.allow_synchronize(False),
        lambda: cupy.cuda.Stream.null.synchronize(),
    )


def check_cupy_add_at() -> list[str]:
    """``cupy.add.at`` accumulates duplicate indices in float64 and complex128."""
    import cupy

    failures = []
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 100, 100_000)
    for dtype in (np.float64, np.complex128):
        vals = rng.standard_normal(idx.size).astype(dtype)
        if dtype == np.complex128:
            vals = vals + 1j * rng.standard_normal(idx.size)
        want = np.zeros(100, dtype=dtype)
        np.add.at(want, idx, vals)
        got = cupy.zeros(100, dtype=dtype)
        cupy.add.at(got, cupy.asarray(idx), cupy.asarray(vals))
        if not np.allclose(cupy.asnumpy(got), want, rtol=1e-10, atol=1e-9):
            failures.append(f"cupy.add.at {np.dtype(dtype).name}: differs from np.add.at")
        got2 = cr.scatter_add(cupy.zeros(100, dtype=dtype), cupy.asarray(idx), cupy.asarray(vals))
        if not np.allclose(cupy.asnumpy(got2), want, rtol=1e-10, atol=1e-9):
            failures.append(f"scatter_add on cupy {np.dtype(dtype).name}: differs from np.add.at")
    return failures


# ---- PyTorch on CUDA ---------------------------------------------------------------------------
def check_torch_cuda() -> tuple[int, list[str]]:
    """Every rule on CUDA tensors under ``torch.cuda.set_sync_debug_mode("error")``."""
    import torch

    @contextmanager
    def no_sync() -> Iterator[None]:
        torch.cuda.set_sync_debug_mode("error")
        try:
            yield
        finally:
            torch.cuda.set_sync_debug_mode("default")

    return _run_rules(
        "torch",
        lambda a: torch.asarray(a, device="cuda"),
        no_sync,
        torch.cuda.synchronize,
    )


# ---- timings ------------------------------------------------------------------------------------
def _median(fn: Callable[[], Any], sync: Callable[[], None], repeats: int) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def time_torch(n: int, repeats: int, dev: str = "cuda") -> list[tuple[str, float, float]]:
    """(case, our pullback, torch autograd backward) in seconds, medians."""
    import torch

    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    x = torch.randn(n, device=dev, dtype=torch.float64)
    idx = torch.randint(0, 10_000, (n,), device=dev)
    base = torch.randn(10_000, device=dev, dtype=torch.float64)
    # (case, the standard's name -- resolved in array_api_compat.torch, native, args, kwargs)
    cases: list[tuple[str, str, Callable[[Any], Any], tuple[Any, ...], dict[str, Any]]] = [
        (
            "inf-norm",
            "linalg.vector_norm",
            lambda v: torch.linalg.vector_norm(v, ord=float("inf")),
            (x,),
            {"ord": float("inf")},
        ),
        ("2-norm", "linalg.vector_norm", lambda v: torch.linalg.vector_norm(v), (x,), {}),
        ("max", "max", lambda v: torch.max(v), (x,), {}),
        ("sum", "sum", lambda v: torch.sum(v), (x,), {}),
    ]
    out = []
    import array_api_compat.torch as ct

    for name, std_name, native, args, kw in cases:
        f = ct.linalg.vector_norm if std_name == "linalg.vector_norm" else getattr(ct, std_name)
        y, pb = cr.rrule(f, *args, **kw)
        ones = torch.ones_like(y)
        ours = _median(lambda pb=pb, ones=ones: pb(ones), sync, repeats)
        v = args[0].clone().requires_grad_(True)

        def native_backward(v: Any = v, native: Any = native) -> Any:
            v.grad = None
            native(v).backward()
            return v.grad

        out.append((name, ours, _median(native_backward, sync, repeats)))
    # getitem with duplicate indices (a gather whose pullback is a scatter-add)
    import operator

    y, pb = cr.rrule(operator.getitem, base, idx)
    ybar = torch.ones_like(y)
    ours = _median(lambda: pb(ybar), sync, repeats)
    b = base.clone().requires_grad_(True)

    def native_gather() -> Any:
        b.grad = None
        b[idx].backward(ybar)
        return b.grad

    out.append(("getitem, 1e6 duplicate indices", ours, _median(native_gather, sync, repeats)))
    return out


def time_jax(n: int, repeats: int) -> list[tuple[str, float, float]]:
    """(case, our pullback under jit, jax.jit(jax.grad)) in seconds, medians, on JAX's GPU."""
    import jax
    import jax.numpy as jnp

    if jax.default_backend() != "gpu":
        return []
    x = jnp.asarray(np.random.default_rng(0).standard_normal(n), dtype=jnp.float32)
    cases = [
        ("inf-norm", lambda v: jnp.linalg.norm(v, ord=jnp.inf), jnp.linalg.norm, {"ord": jnp.inf}),
        ("2-norm", lambda v: jnp.linalg.norm(v), jnp.linalg.norm, {}),
        ("max", lambda v: jnp.max(v), jnp.max, {}),
        ("sum", lambda v: jnp.sum(v), jnp.sum, {}),
    ]
    out = []

    def sync() -> None:
        jax.block_until_ready(x)

    for name, native, f, kw in cases:

        def ours_fn(v: Any, f: Any = f, kw: Any = kw) -> Any:
            y, pb = cr.rrule(f, v, **kw)
            return pb(jnp.ones_like(y))[1]

        ours_jit = jax.jit(ours_fn)
        native_jit = jax.jit(jax.grad(native))
        t_ours = _median(lambda g=ours_jit: g(x).block_until_ready(), lambda: None, repeats)
        t_native = _median(lambda g=native_jit: g(x).block_until_ready(), lambda: None, repeats)
        out.append((name, t_ours, t_native))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    repeats = 5 if args.quick else 21
    status = 0
    ran = False
    if cupy_available():
        ran = True
        n, failures = check_cupy()
        print(f"CuPy, allow_synchronize(False): {n} rule calls, {len(failures)} failures")
        failures += check_cupy_add_at()
        for f in failures:
            print("  FAIL", f)
        status |= bool(failures)
    else:
        print("CuPy: no CUDA device (skipped)")
    if torch_cuda_available():
        ran = True
        n, failures = check_torch_cuda()
        print(f"torch CUDA, sync debug mode 'error': {n} rule calls, {len(failures)} failures")
        for f in failures:
            print("  FAIL", f)
        status |= bool(failures)
        print(
            "\n| case (n=1e6, float64) | our pullback | torch backward | ratio |\n|---|---|---|---|"
        )
        for name, ours, native in time_torch(1_000_000, repeats):
            print(
                f"| {name} | {ours * 1e6:.1f} µs | {native * 1e6:.1f} µs | {ours / native:.2f}x |"
            )
    else:
        print("torch: no CUDA device (skipped)")
    try:
        rows = time_jax(1_000_000, repeats)
    except ImportError:
        rows = []
    if rows:
        ran = True
        print(
            "\n| case (n=1e6, float32) | our pullback, jit | jax.jit(jax.grad) | ratio |\n"
            "|---|---|---|---|"
        )
        for name, ours, native in rows:
            print(
                f"| {name} | {ours * 1e6:.1f} µs | {native * 1e6:.1f} µs | {ours / native:.2f}x |"
            )
    if not ran:
        print(
            "no GPU here: nothing to check (the same checks run on the CPU through the guarded "
            "device array and under jax.jit in the test suite)"
        )
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
