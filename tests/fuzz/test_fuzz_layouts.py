"""Fuzz categories beyond ``test_fuzz.py``'s (issue 15, point 10): precisions, memory layouts,
extreme magnitudes and foreign cotangents, over every NumPy registration, at its first example.

* ``float16``, ``float32``, ``complex64`` (the first floating argument cast): the primal is
  ``f(*args)`` (value, dtype, type) and each argument's cotangent keeps its argument's dtype.
* ``strided``, ``fortran``, ``read-only``, ``big-endian`` (the same values in another layout): the
  primal is ``f``'s and the cotangents equal, bitwise, those of the plain C-contiguous input.
* ``1e+300``, ``1e-300`` (the argument scaled): no NaN in a cotangent where the inputs and the
  primal are finite (the outcome ``nan``).
* ``wrong-dtype`` (a float32, an int64 and a complex cotangent of a float64 output) and
  ``wrong-library`` (a JAX and a torch CPU cotangent of a NumPy output): the documented
  conversion of ``docs/conventions.md`` -- the cotangents come back as NumPy arrays of the
  argument's dtype, equal to those of the NumPy float64 cotangent -- or a ``TypeError`` that names
  the function and both libraries. Nothing passes through.

The run is a subprocess (this file run as a script) with a per-call watchdog, as in
``test_fuzz.py``: a hang fails the test with the case named. ``layouts_residuals.json`` declares
each case that does not pass, with its outcome as the reason; the test fails on a new failing
case and on a declared one that passes now. The tallies per category are printed (``-s``).
About 20 s; a hypothesis test of random layouts, in process, about 3 s more.
"""

# ruff: noqa: BLE001 -- a fuzzer records every exception a rule raises, by design
from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chainrules.testing.arrays import relaid

HERE = Path(__file__).parent
RUN_TIMEOUT = 240
sys.path.insert(0, str(HERE))  # the bad-input worker's helpers, shared (tests/ is no package)
from fuzz_worker import (  # noqa: E402
    _cotangent,
    _differentiable,
    _guarded,
    _leaves,
    _same_primal,
)


def _readonly(a: Any) -> Any:
    b = a.copy()
    b.flags.writeable = False
    return b


PRECISIONS: dict[str, Any] = {
    "float16": lambda a: a.astype(np.float16) if a.dtype.kind == "f" else None,
    "float32": lambda a: a.astype(np.float32) if a.dtype.kind == "f" else None,
    "complex64": lambda a: a.astype(np.complex64) if a.dtype.kind == "c" else None,
}
LAYOUTS: dict[str, Any] = {
    "strided": lambda a: relaid(a, "strided") if a.ndim else None,
    "fortran": lambda a: relaid(a, "F") if a.ndim >= 2 else None,
    "read-only": _readonly,
    "big-endian": lambda a: a.astype(a.dtype.newbyteorder(">")),
}
MAGNITUDES: dict[str, Any] = {
    "1e+300": lambda a: a * 1e300,
    "1e-300": lambda a: a * 1e-300,
}
COTANGENTS = ("wrong-dtype", "wrong-library")
# declared residuals left out of the run (the watchdog ends the process at a hang), with reasons
SKIP = {
    "scipy:special.hyp1f1 [1e+300]": "SciPy's own hyp1f1 never returns at x >= ~1e15 "
    "(boostorg/math#1288): f itself hangs, and the rule's primal and pullback with it",
}
CATEGORIES = (*PRECISIONS, *LAYOUTS, *MAGNITUDES, *COTANGENTS)


# --- the worker -----------------------------------------------------------------------------
def _is_np(v: Any) -> bool:
    return isinstance(v, np.ndarray | np.generic)


def _grads(res: Any) -> list[Any]:
    """The argument cotangents of a pullback's result (the function's own slot dropped),
    forced, as leaves."""
    import chainrules as cr

    return [cr.unthunk(v) for v in _leaves(list(res[1:]))]


def _arrays_equal(a: list[Any], b: list[Any]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if _is_np(x) != _is_np(y):
            return False
        if _is_np(x) and not (np.shape(x) == np.shape(y) and np.array_equal(x, y, equal_nan=True)):
            return False
    return True


def _run(label: str, call: Any) -> tuple[str, Any]:
    try:
        return "ok", _guarded(label, call)
    except Exception as e:
        return f"error: {type(e).__name__}: {str(e)[:160]}", None


def _input_case(
    cat: str,
    name: str,
    f: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    i: int,
    plain: tuple[Any, Any, bool, Any] | None,
) -> str:
    """One bad input. ``plain``: the rule's primal and cotangents at the plain example, whether
    that primal equals ``f``'s bitwise, and ``f``'s value there. (Where the primal differs at
    the plain example, the difference is no category's -- ``test_fuzz.py`` and the rule tests
    judge it -- and only type, dtype and shape are compared here.)"""
    import chainrules as cr

    try:
        want = _guarded(name + " f itself", lambda: f(*args, **kwargs))
    except Exception:
        return "refused"
    got, res = _run(name, lambda: cr.rrule(f, *args, **kwargs))
    if got != "ok":
        return "crash" + got[5:]
    y, pb = res
    why = _same_primal(y, want, values=plain is not None and plain[2])
    if why is None and cat in LAYOUTS and plain is not None:
        if _same_primal(want, plain[3], dtypes=False) is not None:
            return "f-layout"  # f itself gives other numbers (last bits) in this layout
        # the same numbers as at the C-contiguous input (the dtype was compared with f's)
        why = _same_primal(y, plain[0], dtypes=False)
        why = None if why is None else why.replace("f's", "the C-contiguous input's")
    if why is not None:
        return f"silent: {why}"
    if not _differentiable(y):
        return "ok"
    got, res = _run(name + " pullback", lambda: pb(_cotangent(y, np.ones_like)))
    if got != "ok":
        return "pullback-" + got
    grads = _grads(res)
    g = cr.unthunk(res[1 + i])
    if cat in PRECISIONS and _is_np(g) and g.dtype != args[i].dtype:
        return f"dtype: the cotangent of argument {i} is {g.dtype}, the argument {args[i].dtype}"
    if cat in LAYOUTS and plain is not None and not _arrays_equal(grads, plain[1]):
        return "differs: the cotangents differ from those of the C-contiguous input"
    if cat in MAGNITUDES:
        finite_in = all(not _is_np(a) or np.isfinite(a).all() for a in args)
        finite_out = all(not _is_np(v) or np.isfinite(v).all() for v in _leaves(y))
        nan = any(_is_np(v) and v.dtype.kind in "fc" and np.isnan(v).any() for v in grads)
        if finite_in and finite_out and nan:
            return "nan: a NaN cotangent at finite inputs and a finite primal"
    return "ok"


def _foreign(lib: str) -> Any:
    if lib == "jax":
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)  # float64 cotangents: the same numbers

        return lambda a: jnp.asarray(np.ones_like(a))
    import torch

    return lambda a: torch.ones(a.shape, dtype=getattr(torch, str(a.dtype)))


def _cotangent_case(label: str, pb: Any, y: Any, ref: list[Any], fname: str) -> str:
    """The foreign-dtype and foreign-library cotangents of one example; ``ref``: the
    cotangents of NumPy ones of the outputs' own dtypes."""
    makes: dict[str, Any] = {}
    if label.endswith("[wrong-dtype]"):
        real = all(not _is_np(v) or v.dtype.kind != "c" for v in _leaves(y))
        makes["int64"] = lambda a: np.ones(a.shape, np.int64)
        if real:
            makes["complex"] = lambda a: np.ones(a.shape, np.complex128) + 2j
        if all(not _is_np(v) or v.dtype == np.float64 for v in _leaves(y)):
            makes["float32"] = lambda a: np.ones(a.shape, np.float32)
    else:
        for lib in ("jax", "torch"):
            makes[lib] = _foreign(lib)
    for kind, make in makes.items():
        try:
            res = _guarded(f"{label} {kind}", lambda make=make: pb(_cotangent(y, make)))
        except TypeError as e:
            msg = str(e)
            if label.endswith("[wrong-library]") and not (
                fname.split(":")[-1] in msg and kind in msg and "numpy" in msg
            ):
                return f"unclear: {kind}: a TypeError naming not the function and libraries: {msg}"
            continue
        except Exception as e:
            return f"unclear: {kind}: {type(e).__name__}: {str(e)[:160]}"
        grads = _grads(res)
        leak = [type(v).__name__ for v in grads if not _is_np(v) and hasattr(v, "shape")]
        if leak:
            return f"silent: {kind}: a cotangent passes through as {leak[0]}"
        if len(grads) != len(ref) or any(
            _is_np(a) and _is_np(b) and a.dtype != b.dtype for a, b in zip(grads, ref)
        ):
            return f"dtype: {kind}: the cotangents' dtypes differ from the NumPy cotangent's"
        if kind != "float32" and not _arrays_equal(grads, ref):
            return f"differs: {kind}: the cotangents differ from the NumPy cotangent's"
    return "ok"


def main(out_path: str) -> None:
    import chainrules as cr
    from chainrules.core.registry import registrations
    from chainrules.testing.backends import BACKENDS
    from chainrules.testing.examples import examples_for

    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    numpy_backend = BACKENDS["numpy"]
    outcomes: dict[str, str] = {}
    tallies: dict[str, Counter[str]] = {c: Counter() for c in CATEGORIES}
    for reg in registrations():
        f = numpy_backend.function(reg)
        if f is None or reg.non_differentiable:
            continue
        try:
            exs = examples_for(reg)
        except Exception:
            continue
        if not exs:
            continue
        for ex_index, cats in ((0, (*PRECISIONS, *LAYOUTS, *MAGNITUDES)), (None, ())):
            if ex_index is None:  # complex64: the first example with a complex argument
                ex = next(
                    (
                        e
                        for e in exs
                        if any(_is_np(a) and a.dtype.kind == "c" for a in tuple(e.args))
                    ),
                    None,
                )
                cats = ("complex64",) if ex is not None else ()
            else:
                ex = exs[ex_index]
            if ex is None:
                continue
            args, kwargs = tuple(ex.args), dict(ex.kwargs)
            i = next((k for k, a in enumerate(args) if _is_np(a) and a.dtype.kind in "fc"), None)
            if i is None:
                continue
            plain = None
            try:
                y0, pb0 = cr.rrule(f, *args, **kwargs)
                g0 = _grads(pb0(_cotangent(y0, np.ones_like))) if _differentiable(y0) else []
                w0 = f(*args, **kwargs)
                plain = (y0, g0, _same_primal(y0, w0) is None, w0)
            except Exception:
                pass
            for cat in cats:
                make = {**PRECISIONS, **LAYOUTS, **MAGNITUDES}[cat]
                bad = make(args[i])
                if bad is None:
                    continue
                label = f"{reg.name} [{cat}]"
                if label in SKIP:
                    continue
                new_args = (*args[:i], bad, *args[i + 1 :])
                outcome = _input_case(cat, label, f, new_args, kwargs, i, plain)
                tallies[cat][outcome.split(":")[0]] += 1
                if outcome not in ("ok", "refused", "f-layout"):
                    outcomes[label] = outcome
        # the foreign cotangents, at the first example
        args, kwargs = tuple(exs[0].args), dict(exs[0].kwargs)
        try:
            y, pb = cr.rrule(f, *args, **kwargs)
            ref = _grads(pb(_cotangent(y, np.ones_like)))
        except Exception:
            continue
        if not _differentiable(y):
            continue
        for cat in COTANGENTS:
            label = f"{reg.name} [{cat}]"
            outcome = _cotangent_case(label, pb, y, ref, reg.name)
            tallies[cat][outcome.split(":")[0]] += 1
            if outcome != "ok":
                outcomes[label] = outcome
    with open(out_path, "w") as fh:
        json.dump({"outcomes": outcomes, "tallies": {k: dict(v) for k, v in tallies.items()}}, fh)


# --- the test -------------------------------------------------------------------------------
def test_layouts_precisions_magnitudes_and_foreign_cotangents(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    pytest.importorskip("torch")
    out = tmp_path / "fuzz.json"
    try:
        res = subprocess.run(
            [sys.executable, __file__, str(out)],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else str(exc.stderr or "")
        started = [line for line in err.splitlines() if line.startswith("start")]
        pytest.fail(f"the fuzz run hung ({RUN_TIMEOUT} s) at: {started[-1:] or 'import'}")
    if res.returncode != 0:
        started = [line for line in res.stderr.splitlines() if line.startswith("start")]
        pytest.fail(f"the fuzz run ended with {res.returncode} at {started[-1:]}: {res.stderr}")
    data = json.loads(out.read_text())
    print("tallies per category:", json.dumps(data["tallies"], indent=1))
    outcomes: dict[str, str] = data["outcomes"]
    residuals = json.loads((HERE / "layouts_residuals.json").read_text())
    declared = {k: v["outcome"] for k, v in residuals.items()}
    assert all(v["why"] for v in residuals.values())  # each residual is explained
    new = {k: v for k, v in outcomes.items() if declared.get(k) != v}
    fixed = sorted(set(declared) - set(outcomes))
    assert not new, f"{len(new)} new failing cases (or a changed outcome): {new}"
    assert not fixed, f"declared in layouts_residuals.json but passing now (remove them): {fixed}"


def _numpy_cases() -> list[tuple[str, Any, tuple[Any, ...], dict[str, Any], int]]:
    """``(name, f, args, kwargs, i)`` for each NumPy registration's first example, ``i`` its
    first floating array argument."""
    from chainrules.core.registry import registrations
    from chainrules.testing.backends import BACKENDS
    from chainrules.testing.examples import examples_for

    out = []
    for reg in registrations():
        f = BACKENDS["numpy"].function(reg)
        if f is None or reg.non_differentiable:
            continue
        try:
            exs = examples_for(reg)
        except Exception:
            continue
        if not exs:
            continue
        args, kwargs = tuple(exs[0].args), dict(exs[0].kwargs)
        i = next((k for k, a in enumerate(args) if _is_np(a) and a.dtype.kind in "fc"), None)
        if i is None or not args[i].ndim:
            continue
        try:  # an example f itself refuses (a keyword only the rule takes) is no case here
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                f(*args, **kwargs)
        except Exception:
            continue
        out.append((reg.name, f, args, kwargs, i))
    return out


def test_any_layout_gives_the_same_numbers() -> None:
    """Hypothesis draws a registration and a layout -- a step and an offset into a larger
    buffer, a reversed view, C or Fortran order, the byte order, writeable or not -- for its
    first floating argument: the rule's primal and cotangents equal those of the plain input
    (bitwise), wherever ``f``'s own value does. About 3 s."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import chainrules as cr

    residual = {k.split(" [")[0] for k in json.loads((HERE / "layouts_residuals.json").read_text())}
    cases = [c for c in _numpy_cases() if c[0] not in residual]

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(
        st.sampled_from(cases),
        st.integers(1, 3),
        st.integers(0, 2),
        st.booleans(),
        st.sampled_from("CF"),
        st.sampled_from("<>"),
        st.booleans(),
    )
    def check(case: Any, step: int, offset: int, rev: bool, order: str, bo: str, ro: bool) -> None:
        name, f, args, kwargs, i = case
        a = args[i]
        big = np.zeros((offset + step * a.shape[0], *a.shape[1:]), a.dtype.newbyteorder(bo))
        view = big[offset::step][: a.shape[0]]
        view[...] = a[::-1] if rev else a
        v = view[::-1] if rev else view
        v = np.asfortranarray(v) if order == "F" else v
        v.flags.writeable = not ro and v.flags.writeable
        bad = (*args[:i], v, *args[i + 1 :])
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                ref = f(*bad, **kwargs)
            except (TypeError, ValueError):
                # f itself refuses the layout (SciPy's det: a big-endian buffer): the rule
                # refuses it too, or gives the plain input's value
                refused = False
                try:
                    y, _ = cr.rrule(f, *bad, **kwargs)
                except (TypeError, ValueError):
                    refused = True
                if not refused:
                    y0, _ = cr.rrule(f, *args, **kwargs)
                    assert _same_primal(y, y0, dtypes=False) is None, name
                assert np.array_equal(v, a, equal_nan=True)
                return
            if _same_primal(ref, f(*args, **kwargs), dtypes=False) is not None:
                return  # f itself gives other last bits in this layout: no bitwise reference
            y0, pb0 = cr.rrule(f, *args, **kwargs)
            y, pb = cr.rrule(f, *bad, **kwargs)
            assert _same_primal(y, y0, dtypes=False) is None, name
            if _differentiable(y0):
                g0 = _grads(pb0(_cotangent(y0, np.ones_like)))
                assert _arrays_equal(_grads(pb(_cotangent(y, np.ones_like))), g0), name
        assert np.array_equal(v, a, equal_nan=True)  # nothing written into the input

    check()


if __name__ == "__main__":
    main(sys.argv[1])
