"""Elementwise rules against hand-written NumPy gradients and HIPS autograd, in one process.

Questions answered (issue 2):
* What does a rule call cost at n=10 over the hand-written gradient (target: at most +3 µs)?
* How does it compare with ``autograd`` computing the same value and pullback (target: 5x faster)?
* At n=1e6, is the rule as fast as hand-written code (target: within 1.1x)?
* How long does ``import chainrules`` take?
"""

from __future__ import annotations

import numpy as np

try:
    from ._timing import Row, fmt_time, import_time, interleaved
except ImportError:  # run as a script
    from _timing import Row, fmt_time, import_time, interleaved  # type: ignore[no-redef]

import chainrules as cr


def _sin_cases(n: int) -> dict[str, object]:
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal(n), rng.standard_normal(n)

    def hand() -> object:
        y = np.sin(x)
        return y, g * np.cos(x)

    def rule() -> object:
        y, pullback = cr.rrule(np.sin, x)
        return y, pullback(g)[1]

    cases: dict[str, object] = {"hand": hand, "rule": rule}
    try:
        import autograd
        import autograd.numpy as anp

        vjp_maker = autograd.make_vjp(anp.sin)

        def auto_vjp() -> object:
            vjp, y = vjp_maker(x)
            return y, vjp(g)

        # autograd.grad needs a scalar function: the cotangent-weighted sum gives the same x_bar
        auto_grad = autograd.value_and_grad(lambda x: anp.sum(anp.sin(x) * g))
        cases["autograd_vjp"] = auto_vjp
        cases["autograd_grad"] = lambda: auto_grad(x)
    except ImportError:
        pass
    return cases


def _binary_cases(n: int) -> dict[str, object]:
    rng = np.random.default_rng(1)
    x, y, g = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(n)

    def hand() -> object:
        z = x * y
        return z, g * y, g * x

    def rule() -> object:
        z, pullback = cr.rrule(np.multiply, x, y)
        _, gx, gy = pullback(g)
        return z, gx, gy

    return {"hand": hand, "rule": rule}


def _frule_cases(n: int, chunk: int) -> dict[str, object]:
    rng = np.random.default_rng(2)
    x = rng.standard_normal(n)
    xd = rng.standard_normal((chunk, n))

    def hand() -> object:
        e = np.exp(x)
        return e, e * xd

    def rule() -> object:
        return cr.frule((cr.NoTangent(), xd), np.exp, x)

    return {"hand": hand, "rule": rule}


def run(quick: bool = False) -> list[Row]:
    rows: list[Row] = []
    budget = 0.05 if quick else 0.1
    t = interleaved(_sin_cases(10), budget=budget)  # type: ignore[arg-type]
    diff = t["rule"] - t["hand"]
    rows.append(
        Row(
            "rrule(np.sin) + pullback, n=10",
            fmt_time(t["rule"]),
            fmt_time(t["hand"]) + " hand-written",
            f"+{diff * 1e6:.2f} µs",
            "≤ +3 µs",
            diff <= 3e-6,
        )
    )
    if "autograd_grad" in t:
        speedup = t["autograd_grad"] / t["rule"]
        rows.append(
            Row(
                "  vs autograd.value_and_grad(sum(sin(x) * g)), n=10",
                fmt_time(t["rule"]),
                fmt_time(t["autograd_grad"]) + " autograd",
                f"{speedup:.1f}x faster",
                "≥ 5x",
                speedup >= 5,
            )
        )
        speedup = t["autograd_vjp"] / t["rule"]
        rows.append(
            Row(
                "  vs autograd.make_vjp(sin), n=10",
                fmt_time(t["rule"]),
                fmt_time(t["autograd_vjp"]) + " autograd",
                f"{speedup:.1f}x faster",
                "(reported)",
                None,
            )
        )
    t = interleaved(_sin_cases(1_000_000), budget=budget * 5, rounds=3)  # type: ignore[arg-type]
    ratio = t["rule"] / t["hand"]
    rows.append(
        Row(
            "rrule(np.sin) + pullback, n=1e6",
            fmt_time(t["rule"]),
            fmt_time(t["hand"]) + " hand-written",
            f"{ratio:.3f}x",
            "≤ 1.1x",
            ratio <= 1.1,
        )
    )
    for n in (10, 1_000_000):
        t = interleaved(_binary_cases(n), budget=budget, rounds=3)  # type: ignore[arg-type]
        rows.append(
            Row(
                f"rrule(np.multiply) + pullback, n={n:.0e}".replace("+0", ""),
                fmt_time(t["rule"]),
                fmt_time(t["hand"]) + " hand-written",
                f"{t['rule'] / t['hand']:.2f}x",
                "(reported)",
                None,
            )
        )
    t = interleaved(_frule_cases(100_000, 8), budget=budget, rounds=3)  # type: ignore[arg-type]
    rows.append(
        Row(
            "frule(np.exp), chunk of 8, n=1e5",
            fmt_time(t["rule"]),
            fmt_time(t["hand"]) + " hand-written",
            f"{t['rule'] / t['hand']:.2f}x",
            "(reported)",
            None,
        )
    )
    reps = 3 if quick else 7
    for cached, label, target in (
        (True, "import chainrules (bytecode cache)", 0.060),
        (False, "import chainrules (no bytecode cache)", None),
    ):
        imp = import_time("chainrules", repeats=reps, bytecode=cached)
        imp_np = import_time("numpy", repeats=reps, bytecode=cached)
        rows.append(
            Row(
                label,
                fmt_time(imp),
                fmt_time(imp_np) + " import numpy",
                f"+{(imp - imp_np) * 1e3:.0f} ms",
                "(reported)" if target is None else f"≤ +{target * 1e3:.0f} ms",
                None if target is None else imp - imp_np <= target,
            )
        )
    return rows
