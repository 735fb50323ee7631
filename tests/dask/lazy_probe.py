"""Run a rule on dask arrays (two chunks per axis) and judge it: lazy and equal to NumPy.

``probe(reg)`` calls the rrule, the pullback and the frule of ``reg``'s dask function
(``array_api_compat.dask.array``) at each of its examples while a dask callback counts the graphs
the local scheduler runs: ``compute``, ``__array__``, ``__bool__``, ``__float__`` and ``__int__``
all go through it. Nothing may run before the results are asked for. The results are then computed
(once) and compared with the same rule on NumPy at the same inputs, cotangents and tangents.

``python tests/dask/lazy_probe.py`` prints the outcome of every registration (the table in
``docs/beyond-one-machine.md``).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import chainrules as cr
from chainrules.core.tangents import AbstractZero, NoTangent, Tangent, unthunk
from chainrules.testing.arrays import leaves
from chainrules.testing.backends import BACKENDS, get_backend
from chainrules.testing.examples import examples_for

OUTCOMES = ("ok", "refused", "error", "eager", "wrong")
RTOL = 1e-9


@dataclass
class Outcome:
    status: str  # one of OUTCOMES ("refused": dask's own function rejects every example)
    detail: str = ""


class ComputeCounter:
    """Counts the graphs dask's local schedulers run while it is active."""

    def __init__(self) -> None:
        self.count = 0

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        from dask.callbacks import Callback

        def start(dsk: Any) -> None:
            self.count += 1

        with Callback(start=start):
            yield


def _kind(v: Any) -> str:
    dt = getattr(v, "dtype", None)
    if dt is None or not hasattr(v, "shape") or isinstance(v, type):
        return "o"
    return np.dtype(str(dt)).kind


def _diff(v: Any) -> bool:
    return _kind(v) in "fc"


def _random_like(rng: np.random.Generator, v: Any, lead: tuple[int, ...] = ()) -> np.ndarray:
    shape = (*lead, *tuple(int(n) for n in v.shape))
    r = rng.standard_normal(shape)
    if _kind(v) == "c":
        r = r + 1j * rng.standard_normal(shape)
    return r.astype(np.dtype(str(v.dtype)))


def _structured(like: Any, parts: list[Any]) -> Any:
    if isinstance(like, (tuple, list)):
        return Tangent(*parts, primal_type=type(like))
    return parts[0]


def _values(x: Any) -> list[Any]:
    """The leaves of an output or a tangent, zero markers as ``None``."""
    return [None if isinstance(v, AbstractZero) else v for v in leaves(x)]


def _compare(what: str, got: list[Any], want: list[Any]) -> str:
    import dask

    if len(got) != len(want):
        return f"{what}: {len(got)} parts, NumPy gives {len(want)}"
    try:
        computed = dask.compute(*[g for g in got if g is not None])
    except Exception as e:  # noqa: BLE001  (a graph that cannot run)
        return f"{what}: computing fails: {_msg(e, 120)}"
    it = iter(computed)
    for i, (g, w) in enumerate(zip(got, want)):
        if g is None or w is None:
            other = w if g is None else next(it)
            if other is not None and np.any(np.asarray(other) != 0):
                return f"{what} part {i}: a zero marker on one side, non-zero values on the other"
            continue
        a, b = np.asarray(next(it)), np.asarray(w)
        if a.shape != b.shape:
            return f"{what} part {i}: shape {a.shape}, NumPy gives {b.shape}"
        if not np.allclose(a, b, rtol=RTOL, atol=RTOL, equal_nan=True):
            err = float(np.max(np.abs(a.astype(complex) - b)))
            return f"{what} part {i}: differs from NumPy by up to {err:.3g}"
    return ""


def _msg(e: BaseException, n: int = 160) -> str:
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text[:n]}"


def _run_example(
    f: Any, nf: Any, ex: Any, counter: ComputeCounter, seed: int, ours: bool
) -> Outcome:
    dsk, npy = get_backend("dask"), BACKENDS["numpy"]
    dtype = "complex128" if ex.complex else "float64"
    dargs = tuple(dsk.asarray(a, dtype) for a in ex.args)
    nargs = tuple(npy.asarray(a, dtype) for a in ex.args)
    kw = ex.kwargs
    try:
        with counter.watching():
            f(*dargs, **kw)
    except Exception as e:  # noqa: BLE001  (dask's own function rejects it)
        # dask's own function rejects it; a function of this library (scatter_add) must not
        return Outcome("error" if ours else "refused", _msg(e))
    if counter.count:
        return Outcome("refused", "dask's own function computes while it builds the graph")
    rng = np.random.default_rng(seed)
    try:
        with counter.watching():
            y, pb = cr.rrule(f, *dargs, **kw)
        n_rrule = counter.count
        ny, npb = cr.rrule(nf, *nargs, **kw)
        ny_leaves = leaves(ny)
        bars = [_random_like(rng, v) if _diff(v) else None for v in ny_leaves]
        bar_n = _structured(ny, [NoTangent() if b is None else b for b in bars])
        bar_d = _structured(
            ny, [NoTangent() if b is None else dsk.asarray(b, str(b.dtype)) for b in bars]
        )
        out_diff = any(b is not None for b in bars)
        with counter.watching():
            res = pb(bar_d if out_diff else NoTangent())
            res = tuple(unthunk(r) for r in res)
        n_pull = counter.count - n_rrule
        nres = tuple(unthunk(r) for r in npb(bar_n if out_diff else NoTangent()))

        per_n: list[Any] = [NoTangent()]
        per_d: list[Any] = [NoTangent()]
        for a in nargs:
            if isinstance(a, (tuple, list)) and any(_diff(e) for e in a):
                ts = [_random_like(rng, e) if _diff(e) else NoTangent() for e in a]
                per_n.append(Tangent(*ts, primal_type=type(a)))
                per_d.append(
                    Tangent(
                        *[t if isinstance(t, NoTangent) else dsk.asarray(t, dtype) for t in ts],
                        primal_type=type(a),
                    )
                )
            elif _diff(a):
                t = _random_like(rng, a)
                per_n.append(t)
                per_d.append(dsk.asarray(t, dtype))
            else:
                per_n.append(NoTangent())
                per_d.append(NoTangent())
        with counter.watching():
            _, ydot = cr.frule(tuple(per_d), f, *dargs, **kw)
        n_frule = counter.count - n_rrule - n_pull
        _, nydot = cr.frule(tuple(per_n), nf, *nargs, **kw)
    except Exception as e:  # noqa: BLE001
        return Outcome("error", _msg(e))
    if counter.count:
        return Outcome("eager", f"computes: rrule {n_rrule}, pullback {n_pull}, frule {n_frule}")
    for what, got, want in (
        ("primal", _values(y), _values(ny)),
        (
            "cotangents",
            [v for r in res[1:] for v in _values(r)],
            [v for r in nres[1:] for v in _values(r)],
        ),
        ("frule tangent", _values(ydot), _values(nydot)),
    ):
        msg = _compare(what, got, want)
        if msg:
            return Outcome("wrong", msg)
    return Outcome("ok")


def _ours(reg: cr.Registration) -> bool:
    """A function of this library (``scatter_add``): its primal on dask is not dask's limit."""
    return str(getattr(reg.target, "__module__", "")).startswith("chainrules")


def probe(reg: cr.Registration, max_examples: int | None = None) -> Outcome | None:
    """The worst outcome of ``reg`` over its examples, or ``None`` when dask has no such function
    or the registration has no examples."""
    f = get_backend("dask").function(reg)
    nf = BACKENDS["numpy"].function(reg)
    if f is None or nf is None:
        return None
    exs = examples_for(reg)[:max_examples]
    if not exs:
        return None
    outs = [
        _run_example(f, nf, ex, ComputeCounter(), i, reg.family == "callable")
        for i, ex in enumerate(exs)
    ]
    bad = [o for o in outs if o.status != "ok"]
    if not bad:
        return Outcome("ok")
    if all(o.status == "refused" for o in outs):
        return bad[0]
    worst = [o for o in bad if o.status != "refused"]
    return worst[0] if worst else Outcome("ok", "some examples refused by dask")


def main() -> None:
    import warnings

    warnings.simplefilter("ignore")
    counts = dict.fromkeys(OUTCOMES, 0)
    for reg in cr.registrations():
        out = probe(reg)
        if out is None:
            continue
        counts[out.status] += 1
        if out.status != "ok" or out.detail:
            print(f"{reg.name:32s} {out.status:8s} {out.detail}")
    print(counts, file=sys.stderr)


if __name__ == "__main__":
    main()
