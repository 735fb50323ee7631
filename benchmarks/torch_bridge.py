"""The PyTorch bridge against native torch: forward + backward of ``interop.torch.wrap(f)`` over
the same for ``f`` itself (issue 14 point 6: <= 1.5x at n = 10, where an ``autograd.Function``'s
own dispatch is part of the cost, and <= 1.1x at n = 1e6), and over a minimal hand-written
``autograd.Function`` (issue 28 item 2: <= 1.2x at n = 10).

    python benchmarks/torch_bridge.py [--quick] [--repeats 3] [--cpu]

Three functions: the 2-norm (a reduction), ``exp`` (elementwise, an output of x's size) and
``matmul`` of a data matrix that needs no gradient with weights that do (the bridge must not
compute the data's cotangent). float64, one thread. Each ratio is measured in alternating rounds
in one process; the table gives the median and the range over the repeats.

A third contender in the same rounds is the floor the target sits on: a minimal hand-written
``torch.autograd.Function`` per case (the same formula, no checks, called through the C ``apply``
as the bridge calls its own), whose ratio to native is what an ``autograd.Function`` costs by
itself; the bridge's ratio to it is reported per run. A fourth is the bridge's other route, the
one ``torch.export`` records: the call as a ``torch.library.custom_op`` whose
``register_autograd`` backward recomputes the rrule and applies its pullback, called eagerly.

``--cpu`` times this thread's CPU time instead of wall time: on the shared 2-core machine, whose
load moves wall times 2x within minutes, it leaves out the time other jobs hold the cores.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import Row, fmt_time, interleaved

Case = tuple[
    Callable[..., Any], Callable[..., Any], Callable[..., Any], Callable[..., Any], tuple[Any, ...]
]


def _floor_functions() -> dict[str, Any]:
    """The floor's classes: one minimal ``autograd.Function`` per case."""
    import torch

    class Norm(torch.autograd.Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return torch.linalg.vector_norm(x)

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(inputs[0], output)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, y = ctx.saved_tensors
            return x * (g / y)

    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return torch.exp(x)

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (y,) = ctx.saved_tensors
            return g * y

    class MatMul(torch.autograd.Function):
        @staticmethod
        def forward(a: Any, w: Any) -> Any:
            return torch.matmul(a, w)

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            a, w = ctx.saved_tensors
            need = ctx.needs_input_grad
            return (torch.outer(g, w) if need[0] else None), (a.mT @ g if need[1] else None)

    return {"vector_norm": Norm, "exp": Exp, "matmul": MatMul}


def _c_apply(fn: Any) -> Any:
    import torch

    return super(torch.autograd.Function, fn).apply


def _hand_written() -> dict[str, Callable[..., Any]]:
    """The floor: one minimal ``autograd.Function`` per case, through the C ``apply``."""
    return {name: _c_apply(fn) for name, fn in _floor_functions().items()}


def _hand_written_with_conventions() -> dict[str, Callable[..., Any]]:
    """The floor with the conventions the library's rules keep (docs/conventions.md) and the
    minimal Functions lack, written by hand: ``exp``'s strong zero (a zero cotangent gives 0
    where the partial is ``inf``: one host check of the product, masked only if it is not
    finite) and the 2-norm's limits (0 at the zero vector, ``sign(x) / sqrt(k)`` at ``k``
    infinite entries: one host read of the norm). ``matmul`` has none: the floor itself. What
    they cost over the floor is what no bridge of these rules can avoid."""
    import math

    import torch

    floor = _floor_functions()

    class Norm(floor["vector_norm"]):
        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, y = ctx.saved_tensors
            if 0 < float(y) < math.inf:
                return x * (g / y)
            big = torch.isinf(x)  # the limits: 0 at y = 0, sign(x) / sqrt(k) at y = inf
            k = big.sum().clamp(min=1).to(x.dtype)
            return torch.where(big, torch.sign(x) * g / k.sqrt(), torch.zeros_like(x))

    class Exp(floor["exp"]):
        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (y,) = ctx.saved_tensors
            r = g * y
            if not math.isfinite(float(torch.dot(r, r))):  # the strong zero
                r = r.masked_fill(g == 0, 0)
            return r

    return {
        "vector_norm": _c_apply(Norm),
        "exp": _c_apply(Exp),
        "matmul (data @ w)": _c_apply(floor["matmul"]),
    }


def _cases(n: int) -> dict[str, Case]:
    import array_api_compat.torch as ctorch
    import torch

    from chainrules.interop import torch as crtorch
    from chainrules.interop.torch import _custom_op_route

    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal(n), requires_grad=True)
    m = max(int(n**0.5), 2)
    a = torch.tensor(rng.standard_normal((m, m)))  # data: no gradient
    w = torch.tensor(rng.standard_normal(m), requires_grad=True)
    hand = _hand_written()
    return {
        "vector_norm": (
            ctorch.linalg.vector_norm,
            crtorch.wrap(ctorch.linalg.vector_norm),
            hand["vector_norm"],
            _custom_op_route(ctorch.linalg.vector_norm),
            (x,),
        ),
        "exp": (
            ctorch.exp,
            crtorch.wrap(ctorch.exp),
            hand["exp"],
            _custom_op_route(ctorch.exp),
            (x,),
        ),
        "matmul (data @ w)": (
            ctorch.matmul,
            crtorch.wrap(ctorch.matmul),
            hand["matmul"],
            _custom_op_route(ctorch.matmul),
            (a, w),
        ),
    }


_MINIMAL: dict[str, Callable[..., Any]] = {}


def _minimal_rules() -> dict[str, Callable[..., Any]]:
    """Per case, a function whose registered rrule is the hand-written Function's formula with
    no checks (``(y, pullback)``, a ``Thunk`` per ``matmul`` operand): wrapped, what the bridge
    alone costs over the floor; against the library's rule, what the rule costs over its
    formula. Registered once, on first use."""
    if _MINIMAL:
        return _MINIMAL
    import torch

    import chainrules as cr

    def min_norm(x: Any) -> Any:
        return torch.linalg.vector_norm(x)

    def min_exp(x: Any) -> Any:
        return torch.exp(x)

    def min_matmul(a: Any, w: Any) -> Any:
        return torch.matmul(a, w)

    @cr.register_rrule(min_norm)
    def _norm_rrule(x: Any) -> Any:
        y = torch.linalg.vector_norm(x)
        return y, lambda g: (cr.NoTangent(), x * (g / y))

    @cr.register_rrule(min_exp)
    def _exp_rrule(x: Any) -> Any:
        y = torch.exp(x)
        return y, lambda g: (cr.NoTangent(), g * y)

    @cr.register_rrule(min_matmul)
    def _matmul_rrule(a: Any, w: Any) -> Any:
        return torch.matmul(a, w), lambda g: (
            cr.NoTangent(),
            cr.Thunk(lambda: torch.outer(g, w)),
            cr.Thunk(lambda: a.mT @ g),
        )

    _MINIMAL.update({"vector_norm": min_norm, "exp": min_exp, "matmul (data @ w)": min_matmul})
    return _MINIMAL


def layers(rounds: int = 9, cpu: bool = True) -> list[Row]:
    """Where the bridge's time over the floor goes at n = 10, in µs (medians of alternating
    rounds): the bridge's own structure and Python (the bridge around a minimal rule, over the
    hand-written Function), and the rule's ``rrule`` and pullback over the minimal rule's
    (called directly, on detached inputs)."""
    import torch

    import chainrules as cr
    from chainrules.interop import torch as crtorch

    torch.set_num_threads(1)
    minimal = _minimal_rules()
    conventions = _hand_written_with_conventions()
    rows = []
    for name, (native, bridge, hand, _, args) in _cases(10).items():
        plain = tuple(t.detach() for t in args)
        need = [k + 1 for k, t in enumerate(args) if t.requires_grad]
        fns: dict[str, Callable[..., Any]] = {}
        for label, f in (("rule", native), ("minimal", minimal[name])):
            rrule = cr.find_rrule(f)
            y, pb = rrule(*plain)
            g = torch.ones_like(y)
            fns[f"rrule {label}"] = functools.partial(rrule, *plain)
            fns[f"pullback {label}"] = functools.partial(_pull, pb, g, need)
        fns["hand"] = _fwd_bwd(hand, args)
        fns["hand with conventions"] = _fwd_bwd(conventions[name], args)
        fns["bridge minimal"] = _fwd_bwd(crtorch.wrap(minimal[name]), args)
        fns["bridge"] = _fwd_bwd(bridge, args)
        t = {
            k: v * 1e6
            for k, v in interleaved(
                fns,
                budget=0.05,
                rounds=rounds,
                timer=time.thread_time if cpu else time.perf_counter,
            ).items()
        }
        parts = [
            ("the floor: hand-written Function, fwd+bwd", t["hand"]),
            (
                "the conventions alone (a hand-written Function with them) over the floor",
                t["hand with conventions"] - t["hand"],
            ),
            ("the bridge's own cost (around a minimal rule)", t["bridge minimal"] - t["hand"]),
            ("the rule's rrule over the minimal one", t["rrule rule"] - t["rrule minimal"]),
            (
                "the rule's pullback over the minimal one",
                t["pullback rule"] - t["pullback minimal"],
            ),
            ("the bridge, fwd+bwd", t["bridge"]),
        ]
        for what, us in parts:
            rows.append(Row(f"{name}, n=10: {what}", f"{us:.2f} µs", "", "", "(reported)", None))
    return rows


def _pull(pb: Callable[..., Any], g: Any, need: list[int]) -> object:
    import chainrules as cr

    cts = pb(g)
    return [cr.unthunk(cts[k]) for k in need]


def _fwd_bwd(f: Callable[..., Any], args: tuple[Any, ...]) -> Callable[[], object]:
    import torch

    wrt = tuple(t for t in args if t.requires_grad)
    y0 = f(*args)
    g = torch.ones_like(y0)

    def call() -> object:
        return torch.autograd.grad(f(*args), wrt, g)

    return call


def ratios(
    n: int, repeats: int, budget: float, rounds: int, cpu: bool = False
) -> dict[str, tuple[dict[str, list[float]], dict[str, float]]]:
    """Per case, over ``repeats`` runs: the ratios ``bridge``, ``hand`` and ``op`` (the
    custom-op route) over native, and ``bridge/hand`` and ``op/hand`` over the hand-written
    Function, each measured in one run; and the last run's times."""
    out: dict[str, tuple[dict[str, list[float]], dict[str, float]]] = {}
    for name, (native, bridge, hand, op, args) in _cases(n).items():
        rs: dict[str, list[float]] = {
            k: [] for k in ("bridge", "hand", "op", "bridge/hand", "op/hand")
        }
        t: dict[str, float] = {}
        for _ in range(repeats):
            t = interleaved(
                {
                    "native": _fwd_bwd(native, args),
                    "bridge": _fwd_bwd(bridge, args),
                    "hand": _fwd_bwd(hand, args),
                    "op": _fwd_bwd(op, args),
                },
                budget=budget,
                rounds=rounds,
                timer=time.thread_time if cpu else time.perf_counter,
            )
            for k in ("bridge", "hand", "op"):
                rs[k].append(t[k] / t["native"])
            rs["bridge/hand"].append(t["bridge"] / t["hand"])
            rs["op/hand"].append(t["op"] / t["hand"])
        out[name] = (rs, t)
    return out


def _spread(rs: list[float]) -> str:
    return f"{statistics.median(rs):.2f}x ({min(rs):.2f}-{max(rs):.2f}, {len(rs)} runs)"


def run(quick: bool = False, repeats: int = 3, cpu: bool = False) -> list[Row]:
    import torch

    torch.set_num_threads(1)
    budget, rounds = (0.05, 3) if quick else (0.2, 5)
    rows = []
    unit = " (cpu)" if cpu else ""
    for n, label, target in ((10, "10", 1.5), (1_000_000, "1e6", 1.1)):
        for name, (rs, t) in ratios(n, repeats, budget, rounds, cpu).items():
            native = fmt_time(t["native"]) + " native" + unit
            hand = fmt_time(t["hand"]) + " hand-written" + unit
            med = statistics.median(rs["bridge"])
            rows.append(
                Row(
                    f"torch bridge fwd+bwd {name}, n={label}",
                    _spread(rs["bridge"]),
                    native,
                    f"{med:.2f}x",
                    f"≤ {target}x",
                    med <= target,
                )
            )
            fmed = statistics.median(rs["hand"])
            rows.append(
                Row(
                    "  hand-written autograd.Function (C apply), the floor",
                    _spread(rs["hand"]),
                    native,
                    f"{fmed:.2f}x",
                    "(reported)",
                    None,
                )
            )
            over = statistics.median(rs["bridge/hand"])
            rows.append(
                Row(
                    "  the bridge over the floor",
                    _spread(rs["bridge/hand"]),
                    hand,
                    f"{over:.2f}x",
                    "≤ 1.2x" if n == 10 else "(reported)",
                    over <= 1.2 if n == 10 else None,
                )
            )
            rows.append(
                Row(
                    "  custom-op route (custom_op + register_autograd), over native",
                    _spread(rs["op"]),
                    native,
                    f"{statistics.median(rs['op']):.2f}x",
                    "(reported)",
                    None,
                )
            )
            rows.append(
                Row(
                    "  custom-op route over the floor",
                    _spread(rs["op/hand"]),
                    hand,
                    f"{statistics.median(rs['op/hand']):.2f}x",
                    "(reported)",
                    None,
                )
            )
    return rows


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--cpu", action="store_true", help="thread CPU time instead of wall time")
    p.add_argument("--layers", action="store_true", help="where the time goes at n = 10 (µs)")
    ns = p.parse_args()
    rows = layers(cpu=ns.cpu) if ns.layers else run(quick=ns.quick, repeats=ns.repeats, cpu=ns.cpu)
    for row in rows:
        print(" | ".join(row.cells()), flush=True)
