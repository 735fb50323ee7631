"""The bad-input fuzz run (NumPy only), in its own process: ``python fuzz_worker.py OUT.json``.

Every registration with a NumPy function, at its first example, with its first floating array
argument replaced by each bad input of ``VARIANTS``, and its pullback fed the bad cotangents of
``COTANGENTS``. Each call runs under a watchdog (``faulthandler``): a call longer than
``CALL_TIMEOUT`` seconds ends the process with the case named on stderr (a hang, which the
test reports). Writes ``{case: outcome}`` for every case that did not pass, and the tallies.

Outcomes: ``ok``; ``refused`` (``f`` itself raises: the input is not one f accepts, nothing is
asked of the rule); ``silent`` (the primal differs from ``f(*args)`` in value, dtype or type);
``crash`` (the rrule raises where f accepts the input); ``bare`` (an ``IndexError`` or
``ZeroDivisionError`` from inside a pullback); ``pullback-error`` (any other exception from a
pullback of a valid cotangent); ``twice`` (a second call gives another result).
"""

# ruff: noqa: BLE001 -- a fuzzer records every exception a rule raises, by design
from __future__ import annotations

import faulthandler
import json
import sys
import time
import warnings
from collections import Counter
from typing import Any

import numpy as np

import chainrules as cr
from chainrules.core.registry import registrations
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for

CALL_TIMEOUT = 20.0  # seconds for one call (an rrule or a pullback) before it counts as a hang

# a bad input in place of the first floating array argument, from that argument
VARIANTS: dict[str, Any] = {
    "nan": lambda a: np.full_like(a, np.nan),
    "+inf": lambda a: np.full_like(a, np.inf),
    "-inf": lambda a: np.full_like(a, -np.inf),
    "empty": lambda a: np.zeros((0, *a.shape[1:]), a.dtype) if a.ndim else None,
    "0-d": lambda a: np.asarray(a.reshape(-1)[0]) if a.ndim and a.size else None,
    "int": lambda a: np.round(a.real * 3).astype(np.int64),
    "bool": lambda a: a.real > 0,
}
COTANGENTS = ("wrong-shape", "zero", "twice")
# declared residuals left out of the run (a hang cannot be recorded: the watchdog ends the
# process), each with its reason
SKIP = {
    "scipy:special.hyp1f1 [+inf]": "SciPy's own hyp1f1 never returns at x >= ~1e15 for a not a "
    "non-positive integer (SciPy 1.17.1, Boost's hypergeometric_1F1: boostorg/math#1288), so "
    "f itself hangs (the fuzz calls f first); the rule refuses x > 1e12 with a ValueError "
    "before calling SciPy (tests/rules/scipy/special/test_hypergeometric.py, test_hyp1f1_*)",
}


def _first_float(args: tuple[Any, ...]) -> int | None:
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
            return i
    return None


def _leaves(y: Any) -> list[Any]:
    return [e for v in y for e in _leaves(v)] if isinstance(y, (tuple, list)) else [y]


def _same_primal(got: Any, want: Any, values: bool = True, dtypes: bool = True) -> str | None:
    """Why ``got`` (the rule's primal) differs from ``want`` (f's value): type, dtype if
    ``dtypes``, shape, value if ``values``; or None."""
    g, w = _leaves(got), _leaves(want)
    if len(g) != len(w):
        return f"{len(g)} outputs, f gives {len(w)}"
    for i, (a, b) in enumerate(zip(g, w)):
        if type(a) is not type(b):
            return f"output {i} is {type(a).__name__}, f gives {type(b).__name__}"
        da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
        if dtypes and da != db:
            return f"output {i} has dtype {da}, f gives {db}"
        if isinstance(b, (np.ndarray, np.generic)) and b.dtype.kind in "biufc":
            if np.shape(a) != np.shape(b):
                return f"output {i} has shape {np.shape(a)}, f gives {np.shape(b)}"
            if values and not np.array_equal(a, b, equal_nan=True):
                return f"output {i} differs in value from f's"
    return None


def _cotangent(y: Any, make: Any) -> Any:
    if isinstance(y, (tuple, list)):
        return cr.Tangent(*(_cotangent(v, make) for v in y), primal_type=type(y))
    if isinstance(y, np.ndarray | np.generic) and np.asarray(y).dtype.kind in "fc":
        return make(np.asarray(y))
    return cr.NoTangent()


def _differentiable(y: Any) -> bool:
    return any(
        isinstance(v, np.ndarray | np.generic) and np.asarray(v).dtype.kind in "fc"
        for v in _leaves(y)
    )


def _guarded(label: str, call: Any) -> Any:
    print("start", f"{time.perf_counter():.3f}", label, file=sys.stderr, flush=True)
    faulthandler.dump_traceback_later(CALL_TIMEOUT, exit=True)
    try:
        return call()
    finally:
        faulthandler.cancel_dump_traceback_later()


def _forced(cts: Any) -> Any:
    """Every cotangent computed: a deferred one (a Thunk) can fail only when it is forced."""
    return tuple(cr.unthunk(c) for c in cts) if isinstance(cts, tuple) else cr.unthunk(cts)


def _pull(label: str, pb: Any, y_bar: Any) -> tuple[str, Any]:
    try:
        return "ok", _guarded(label, lambda: _forced(pb(y_bar)))
    except (IndexError, ZeroDivisionError) as e:
        return f"bare: {type(e).__name__}: {e}", None
    except Exception as e:
        return f"pullback-error: {type(e).__name__}: {str(e)[:160]}", None


def _results_equal(a: Any, b: Any) -> bool:
    la, lb = _leaves(list(a)), _leaves(list(b))
    for x, y in zip(la, lb):
        x, y = cr.unthunk(x), cr.unthunk(y)
        if isinstance(x, cr.AbstractZero) or isinstance(y, cr.AbstractZero):
            continue
        if isinstance(x, np.ndarray | np.generic) and not np.array_equal(x, y, equal_nan=True):
            return False
    return len(la) == len(lb)


def _input_case(name: str, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    try:
        want = _guarded(name + " f itself", lambda: f(*args, **kwargs))
    except Exception:
        return "refused"
    try:
        y, pb = _guarded(name, lambda: cr.rrule(f, *args, **kwargs))
    except Exception as e:
        return f"crash: {type(e).__name__}: {str(e)[:160]}"
    why = _same_primal(y, want)
    if why is not None:
        return f"silent: {why}"
    if not _differentiable(y):
        return "ok"
    outcome, _ = _pull(name + " pullback", pb, _cotangent(y, np.ones_like))
    return outcome


def main(out_path: str) -> None:
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    numpy_backend = BACKENDS["numpy"]
    outcomes: dict[str, str] = {}
    tallies: dict[str, Counter[str]] = {c: Counter() for c in (*VARIANTS, *COTANGENTS)}
    for reg in registrations():
        f = numpy_backend.function(reg)
        if f is None or reg.non_differentiable:
            continue
        try:
            ex = examples_for(reg)[0]
        except Exception:  # no examples: nothing to perturb
            continue
        args, kwargs = tuple(ex.args), dict(ex.kwargs)
        i = _first_float(args)
        for cat, make in VARIANTS.items():
            if i is None:
                continue
            bad = make(args[i])
            if bad is None:
                continue
            label = f"{reg.name} [{cat}]"
            if label in SKIP:
                continue
            outcome = _input_case(label, f, (*args[:i], bad, *args[i + 1 :]), kwargs)
            tallies[cat][outcome.split(":")[0]] += 1
            if outcome not in ("ok", "refused"):
                outcomes[label] = outcome
        # the cotangent categories, at the example itself
        try:
            y, pb = cr.rrule(f, *args, **kwargs)
        except Exception:
            continue
        if not _differentiable(y):
            continue
        good = _cotangent(y, np.ones_like)
        for cat in COTANGENTS:
            label = f"{reg.name} [{cat}]"
            if cat == "wrong-shape":
                if isinstance(y, (tuple, list)):
                    continue
                try:
                    bad = np.ones((2, *np.shape(y)), np.asarray(y).dtype)
                    _guarded(label, lambda pb=pb, bad=bad: _forced(pb(bad)))
                    outcome = "accepted"
                except (ValueError, TypeError):
                    outcome = "ok"
                except Exception as e:
                    outcome = f"unclear: {type(e).__name__}: {str(e)[:160]}"
            elif cat == "zero":
                outcome, _ = _pull(label, pb, cr.ZeroTangent())
            else:
                first, r1 = _pull(label, pb, good)
                second, r2 = _pull(label, pb, good)
                outcome = first if first != "ok" else second
                if outcome == "ok" and not _results_equal(r1, r2):
                    outcome = "twice: a second call gave another result"
            tallies[cat][outcome.split(":")[0]] += 1
            if outcome != "ok":
                outcomes[label] = outcome
    with open(out_path, "w") as fh:
        json.dump({"outcomes": outcomes, "tallies": {k: dict(v) for k, v in tallies.items()}}, fh)


if __name__ == "__main__":
    main(sys.argv[1])
