"""Decomposition pullbacks against hand-written NumPy code of the same formulas.

Questions answered:
* ``cholesky``: the pullback (SciPy's ``solve_triangular`` where SciPy is installed,
  ``solve_lower``'s library methods; two general ``linalg.solve`` calls otherwise) against the same
  formula written in NumPy with ``solve_triangular``, at n = 500: target within 1.2x; and against
  the formula with two general solves (reported). Ratios within one process, median and range
  over 3 runs.
* ``eigh``: the pullback of both outputs (with the tie mask on the eigenvalue gaps) against the
  textbook NumPy formula ``V (diag(w_bar) + F ∘ (V^T V_bar)) V^T`` with ``F = 1 / (w_j - w_i)``
  and no tie handling, n = 500. Reported.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from ._timing import Row, fmt_time, interleaved
except ImportError:  # run as a script
    from _timing import Row, fmt_time, interleaved  # type: ignore[no-redef]

import chainrules as cr

N = 500


def _cholesky(n: int) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(0)
    b = rng.standard_normal((n, n))
    a = b @ b.T + n * np.eye(n)
    l_bar = rng.standard_normal((n, n))
    lo, pullback = cr.rrule(np.linalg.cholesky, a)

    def hand() -> object:  # the same formula, the same two general solves
        lt = lo.T
        m = lt @ np.tril(l_bar)
        p = (np.tril(m) + np.tril(m, -1)) / 2
        x1 = np.linalg.solve(lt, p + p.T)
        a0 = np.linalg.solve(lt, x1.T)
        return (a0 + a0.T) / 4

    cases: dict[str, Callable[[], object]] = {
        "rule": lambda: pullback(l_bar)[1],
        "hand": hand,
    }
    try:
        from scipy.linalg import solve_triangular
    except ImportError:
        return cases

    def triangular() -> object:
        lt = lo.T
        m = lt @ np.tril(l_bar)
        p = (np.tril(m) + np.tril(m, -1)) / 2
        x1 = solve_triangular(lt, p + p.T, lower=False)
        a0 = solve_triangular(lt, x1.T, lower=False)
        return (a0 + a0.T) / 4

    cases["triangular"] = triangular
    return cases


def _eigh(n: int) -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(1)
    b = rng.standard_normal((n, n))
    a = (b + b.T) / 2
    (w, v), pullback = cr.rrule(np.linalg.eigh, a)
    w_bar, v_bar = rng.standard_normal(n), rng.standard_normal((n, n))

    def hand() -> object:
        d = w[None, :] - w[:, None]
        np.fill_diagonal(d, np.inf)
        inner = (v.T @ v_bar) / d
        inner[np.diag_indices(n)] = w_bar
        g = v @ inner @ v.T
        return (g + g.T) / 2

    return {"rule": lambda: pullback((w_bar, v_bar))[1], "hand": hand}


def run(quick: bool = False, runs: int = 3) -> list[Row]:
    budget = 0.3 if quick else 1.0
    rounds = 3 if quick else 7
    rows: list[Row] = []
    cases = _cholesky(N)
    per: dict[str, list[float]] = {k: [] for k in cases if k != "rule"}
    rule_t: list[float] = []
    for _ in range(runs):  # ratios within one process, median and range over the runs
        t = interleaved(cases, budget=budget, rounds=rounds)
        rule_t.append(t["rule"])
        for k in per:
            per[k].append(t["rule"] / t[k])
    rule = fmt_time(statistics.median(rule_t))
    r = per["hand"]
    rows.append(
        Row(
            f"cholesky pullback, n={N}",
            rule,
            "NumPy, 2 general solves",
            f"{statistics.median(r):.2f}x ({min(r):.2f}-{max(r):.2f})",
            "(reported)",
            None,
        )
    )
    if "triangular" in per:
        r = per["triangular"]
        med = statistics.median(r)
        rows.append(
            Row(
                f"cholesky pullback against SciPy's solve_triangular formula, n={N}",
                rule,
                "NumPy + solve_triangular",
                f"{med:.2f}x ({min(r):.2f}-{max(r):.2f})",
                "≤ 1.2x",
                med <= 1.2,
            )
        )
    t = interleaved(_eigh(N), budget=budget, rounds=rounds)
    rows.append(
        Row(
            f"eigh pullback (w and V), n={N}",
            fmt_time(t["rule"]),
            fmt_time(t["hand"]) + " NumPy, no tie mask",
            f"{t['rule'] / t['hand']:.2f}x",
            "(reported)",
            None,
        )
    )
    return rows


# ---- on a GPU: no synchronisation, same results as NumPy ----------------------------------------
def _gauge_free_cotangent(name: str, y: Any, rng: np.random.Generator, make: Any) -> Any:
    """A cotangent whose pullback does not depend on the eigen/singular vectors' signs and phases
    (which cuSOLVER and LAPACK choose differently): ``V_bar = B V diag(c)`` for ``eigh``,
    ``U_bar = B V diag(c)``, ``Vh_bar = diag(c) U^H B`` for ``svd`` (from the invariant loss
    ``sum_i c_i Re(u_i^H B v_i)``); random ones for everything else."""
    xp = cr.namespace_of(_first(y))
    if not isinstance(y, tuple) or name.endswith("qr"):
        parts = y if isinstance(y, tuple) else (y,)
        bars = tuple(make(_like(rng, p)) for p in parts)
        return cr.Tangent(*bars) if isinstance(y, tuple) else bars[0]
    if name.endswith("eigh"):
        w, v = y
        n = v.shape[-1]
        b = rng.standard_normal((n, n))
        c = make(rng.standard_normal(n))
        w_bar = make(rng.standard_normal(tuple(w.shape)))
        return cr.Tangent(w_bar, (make(b + b.T) @ v) * xp.astype(c, v.dtype))
    u, s, vh = y
    m, n = u.shape[-2], vh.shape[-1]
    k = s.shape[-1]
    b = make(rng.standard_normal((m, n)))
    c = xp.astype(make(rng.standard_normal(k)), u.dtype)
    v = xp.conj(xp.matrix_transpose(vh))[..., :, :k]
    uk = u[..., :, :k]
    u_bar = (b @ v) * c
    vh_bar = xp.conj(xp.matrix_transpose((xp.conj(xp.matrix_transpose(b)) @ uk) * c))
    if u.shape[-1] > k:
        u_bar = xp.concat([u_bar, xp.zeros_like(u[..., :, k:])], axis=-1)
    if vh.shape[-2] > k:
        vh_bar = xp.concat([vh_bar, xp.zeros_like(vh[..., k:, :])], axis=-2)
    return cr.Tangent(u_bar, make(rng.standard_normal(tuple(s.shape))), vh_bar)


def _like(rng: np.random.Generator, p: Any) -> Any:
    """Random values of ``p``'s shape, complex when ``p`` is."""
    r = rng.standard_normal(tuple(p.shape))
    return r * (1 + 1j) if "complex" in str(p.dtype) else r


def _first(y: Any) -> Any:
    return y[0] if isinstance(y, tuple) else y


def gpu_check(lib: str) -> tuple[int, list[str]]:
    """Every decomposition rule at its examples on CuPy (``lib="cupy"``, under
    ``cupyx.allow_synchronize(False)``) or CUDA tensors (``"torch"``, under
    ``set_sync_debug_mode("error")``): rrule, pullback and frule run without synchronising, and
    the pullback of a gauge-free cotangent equals NumPy's."""
    import contextlib

    from chainrules.rules.linalg import decompositions as dec
    from chainrules.testing import examples_for, to_numpy
    from chainrules.testing.backends import BACKENDS

    if lib == "numpy":  # a dry run on the host

        def make(a: Any) -> Any:
            return np.asarray(a)

        guard: Any = contextlib.nullcontext
        sync: Any = lambda: None
    elif lib == "cupy":
        import cupy
        import cupyx

        def make(a: Any) -> Any:
            return cupy.asarray(a)

        guard = lambda: cupyx.allow_synchronize(False)
        sync = cupy.cuda.Stream.null.synchronize
    else:
        import torch

        def make(a: Any) -> Any:
            return torch.asarray(a, device="cuda")

        @contextlib.contextmanager
        def guard() -> Any:
            torch.cuda.set_sync_debug_mode("error")
            try:
                yield
            finally:
                torch.cuda.set_sync_debug_mode("default")

        sync = torch.cuda.synchronize
    failures: list[str] = []
    count = 0
    regs = [r for r in cr.registrations() if r.module == dec.__name__]
    for reg in regs:
        f_gpu = BACKENDS[lib].function(reg)
        if f_gpu is None or reg.non_differentiable:
            continue
        for ex in examples_for(reg):
            args = tuple(make(a) if isinstance(a, np.ndarray) else a for a in ex.args)
            what = f"{lib} {reg.name} {[np.shape(a) for a in ex.args]} {ex.kwargs}"
            try:
                f_gpu(*args, **ex.kwargs)
                sync()
            except Exception as e:  # noqa: BLE001  (the library's own function rejects it)
                failures.append(f"{what}: primal unsupported ({type(e).__name__})")
                continue
            count += 1
            this_guard = guard
            if lib == "torch":
                try:  # torch.linalg.cholesky checks its LAPACK info on the host
                    with guard():
                        f_gpu(*args, **ex.kwargs)
                except RuntimeError:
                    this_guard = contextlib.nullcontext
                    failures.append(
                        f"{what}: the primal itself synchronises; the rules are run "
                        "without the guard"
                    )
            try:
                with this_guard():
                    y, pullback = cr.rrule(f_gpu, *args, **ex.kwargs)
                    y_bar = _gauge_free_cotangent(reg.name, y, np.random.default_rng(0), make)
                    x_bar = pullback(y_bar)[1]
                    t_np = np.random.default_rng(1).standard_normal((2, *np.shape(ex.args[0])))
                    t = make(t_np * (1 + 1j) if np.iscomplexobj(ex.args[0]) else t_np)
                    _, y_dot = cr.frule(
                        (cr.NoTangent(), t, *([cr.NoTangent()] * (len(args) - 1))),
                        f_gpu,
                        *args,
                        **ex.kwargs,
                    )
                sync()
            except Exception as e:  # noqa: BLE001
                failures.append(f"{what}: {type(e).__name__}: {str(e).splitlines()[0]}")
                continue
            # the cotangent is gauge-free, so NumPy's rule at NumPy's own factors must agree
            y_np, pb_np = cr.rrule(BACKENDS["numpy"].function(reg), *ex.args, **ex.kwargs)
            bar_np = _gauge_free_cotangent(
                reg.name, y_np, np.random.default_rng(0), lambda a: np.asarray(a)
            )
            want = pb_np(bar_np)[1]
            got = to_numpy(x_bar)
            if reg.name.endswith("qr"):
                continue  # the signs of R's diagonal may differ between cuSOLVER and LAPACK
            if not np.allclose(
                got, want, rtol=1e-6, atol=1e-8 * max(1.0, float(np.max(np.abs(want), initial=0.0)))
            ):
                failures.append(
                    f"{what}: pullback differs from NumPy's by "
                    f"{float(np.max(np.abs(got - want))):.3g}"
                )
            del y_dot
    return count, failures


if __name__ == "__main__":
    import sys

    if "--gpu" in sys.argv:
        total = 0
        for lib in ("cupy", "torch"):
            n, fails = gpu_check(lib)
            total += len(fails)
            print(f"{lib}: {n} examples, {len(fails)} failures")
            for f in fails:
                print("  ", f)
        sys.exit(1 if total else 0)
    try:
        from ._timing import table
    except ImportError:
        from _timing import table  # type: ignore[no-redef]
    print(table(run(quick=False)))
