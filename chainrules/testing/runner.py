"""Run the testers on a registration's example inputs in one column: the one checker behind
``python -m chainrules check`` and the library's own test suite.

A column is a backend (``numpy``, ``array_api_strict``, ``jax``, ``torch``, ``cupy``: the
finite-difference testers in float64 and float32, complex128 and complex64 for complex examples)
or a device check (``scalar-free``: guarded device arrays; ``jit``: ``jax.jit``). Each check is
judged against the registration's declared expectations (``chainrules.Expect``):

* a failing check that an ``Expect(kind="xfail")`` covers is an *xfail* (with its reason); one
  that passes although it is declared to fail is a failure ("expected to fail ... but passed");
* an example the library's own function refuses (or that a device check cannot take) is skipped
  when an ``Expect(kind="skip")`` covers it, and a failure when nothing declares it; an example a
  skip declaration covers that runs after all is a failure too;
* warnings raised while a cell runs are recorded on the cell, attributed to the rule.
"""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.examples import Example, Expect
from ..core.registry import Registration, counterpart
from .backends import Backend
from .examples import examples_for
from .tester import device_checks_apply, test_frule, test_rrule

__all__ = [
    "DEVICE_CHECKS",
    "DTYPE_LIMITS",
    "EXAMPLE_LIMITS",
    "KIND_LIMITS",
    "PROFILES",
    "Cell",
    "check_device",
    "check_registration",
    "set_profile",
]

# Per column, the most examples of one registration run there (the first real ones and the first
# complex one; a limit of 1: the first real one), and how many of its dtypes (float64 first, then
# float32; complex128, complex64). "fast" (the default of the check command and of the test suite)
# limits the slow columns, whose time is nearly all XLA compiling small programs -- JAX eager (one
# real example in float64: its float32 run and the complex one cost as much again and check the
# same rule, whose complex case NumPy, PyTorch and the jit column check), a jit compile per
# example, PyTorch -- and runs every example in both precisions on NumPy, array-api-strict and
# guarded device arrays; "thorough" runs everything everywhere.
# "kinds" caps the examples of each kind (real, complex) separately: the jit column of the fast
# profile traces one real and one complex example (tracing safety and complex conventions; the
# values at every example are the other columns' checks).
PROFILES: dict[str, dict[str, dict[str, int]]] = {
    "fast": {
        "examples": {"jax": 1, "torch": 3, "jit": 2},
        "dtypes": {"jax": 1},
        "kinds": {"jit": 1},
    },
    "thorough": {"examples": {}, "dtypes": {}, "kinds": {}},
}
EXAMPLE_LIMITS: dict[str, int] = dict(PROFILES["fast"]["examples"])
DTYPE_LIMITS: dict[str, int] = dict(PROFILES["fast"]["dtypes"])
KIND_LIMITS: dict[str, int] = dict(PROFILES["fast"]["kinds"])

_DTYPES = {False: ("float64", "float32"), True: ("complex128", "complex64")}
DEVICE_CHECKS = ("scalar-free", "jit")


def set_profile(name: str) -> None:
    """Use the example limits of profile ``name`` (``"fast"`` or ``"thorough"``)."""
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {name!r}")
    EXAMPLE_LIMITS.clear()
    EXAMPLE_LIMITS.update(PROFILES[name]["examples"])
    DTYPE_LIMITS.clear()
    DTYPE_LIMITS.update(PROFILES[name]["dtypes"])
    KIND_LIMITS.clear()
    KIND_LIMITS.update(PROFILES[name]["kinds"])


@dataclass
class Cell:
    """The outcome of one registration in one column.

    ``status``: ``"ok"``, ``"FAIL"``, ``"xfail"`` (only declared failures), ``"skip"`` (every
    example a declared skip), ``"n/a"`` (the library has no such function, or the check cannot
    apply), ``"none"`` (no examples).
    """

    status: str
    checks: int = 0
    errors: list[str] = field(default_factory=list)  # failures, including unexpected passes
    unsupported: list[str] = field(default_factory=list)  # examples skipped: declared ones
    undeclared: list[str] = field(default_factory=list)  # examples refused with no declaration
    xfailed: list[str] = field(default_factory=list)  # declared failures, with their reasons
    warnings: list[str] = field(default_factory=list)  # "Category: message", once each
    not_applicable: int = 0  # examples a device check cannot judge (no array argument)
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return bool(self.errors or self.undeclared)

    def xfail_reasons(self) -> list[str]:
        """The distinct reasons of the declared failures that happened."""
        return list(dict.fromkeys(x.split(": xfail: ", 1)[-1] for x in self.xfailed))

    def finish(self) -> Cell:
        if self.status in ("ok", "FAIL", "xfail"):
            self.status = "FAIL" if self.failed else "xfail" if self.xfailed else "ok"
            if self.status == "ok" and not self.checks and self.unsupported:
                self.status = "skip"  # every example is a declared skip
        return self

    def skip_reasons(self) -> list[str]:
        """The distinct reasons of the declared skips that happened."""
        return list(dict.fromkeys(u.rsplit("(declared: ", 1)[-1][:-1] for u in self.unsupported))


def _label(i: int, ex: Example) -> str:
    return f"#{i} {ex.note}" if ex.note else f"#{i}"


def _find(
    expects: Sequence[Expect], kind: str, column: str, note: str, dtype: str, phase: Any
) -> Any:
    for e in expects:
        if e.kind == kind and e.matches(column, note, dtype, phase):
            return e
    return None


class _Judge:
    """Records the checks of one cell against its declarations."""

    def __init__(self, reg: Registration, column: str) -> None:
        self.expects = reg.expectations
        self.column = column
        self.cell = Cell("ok")
        self._seen: dict[str, None] = {}

    def refused(self, what: str, label: str, dtype: str, e: BaseException) -> None:
        """The library (or the device check) cannot take this example."""
        msg = _describe(what, label, dtype, e)
        d = _find(self.expects, "skip", self.column, label, dtype, None)
        if d is not None:
            self.cell.unsupported.append(f"{msg} (declared: {d.reason})")
        else:
            self.cell.undeclared.append(
                f"{msg} -- the example is refused and no Expect(kind='skip') declares it"
            )

    def accepted(self, label: str, dtype: str) -> None:
        d = _find(self.expects, "skip", self.column, label, dtype, None)
        if d is not None:
            self.cell.errors.append(
                f"[{label}, {dtype}]: declared as skipped ({d.reason}) but the example runs: "
                "the declaration is stale"
            )

    def run(self, phase: str, label: str, dtype: str, check: Callable[[], Any]) -> None:
        try:
            check()
        except Exception as e:  # noqa: BLE001  (a crash is a failure to report, too)
            self.record(phase, label, dtype, e)
            return
        self.record(phase, label, dtype, None)

    def record(self, phase: str, label: str, dtype: str, error: BaseException | None) -> None:
        """One check's outcome: ``error`` is what it raised (``None``: it passed)."""
        x = _find(self.expects, "xfail", self.column, label, dtype, phase)
        self.cell.checks += 1
        if error is not None:
            if x is not None:
                self.cell.xfailed.append(f"{phase} [{label}, {dtype}]: xfail: {x.reason}")
            else:
                self._error(_describe(phase, label, dtype, error))
        elif x is not None:
            self._error(f"{phase} [{label}, {dtype}]: expected to fail ({x.reason}) but passed")

    def _error(self, msg: str) -> None:
        if msg not in self._seen:  # identical messages are reported once
            self._seen[msg] = None
            self.cell.errors.append(msg)


def _recorded(run: Callable[[_Judge], None], judge: _Judge) -> Cell:
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(judge)
    cell = judge.cell
    cell.seconds = time.perf_counter() - start
    seen = dict.fromkeys(f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught)
    cell.warnings = list(seen)
    return cell.finish()


def check_registration(
    reg: Registration,
    backend: Backend,
    examples: Sequence[Example] | None = None,
    dtypes: Sequence[str] | None = None,
) -> Cell:
    """Run both testers on the examples of ``reg`` (default: ``examples_for``, limited by the
    profile) in ``backend``'s arrays, in each of ``dtypes`` (default: float64 and float32, or
    complex128 and complex64 for complex examples)."""
    f = backend.function(reg)
    if f is None:
        return Cell("n/a")
    if examples is None:
        examples = examples_for(reg)
    if not examples:
        return Cell("none")
    chosen = _limited(examples, EXAMPLE_LIMITS.get(backend.name), KIND_LIMITS.get(backend.name))
    n_dtypes = DTYPE_LIMITS.get(backend.name)
    chosen_dtypes = {k: v[:n_dtypes] for k, v in _DTYPES.items()}
    hermitian = reg.hermitian

    def run(judge: _Judge) -> None:
        for i, ex in chosen:
            label = _label(i, ex)
            for dtype in chosen_dtypes[ex.complex] if dtypes is None else _pick(dtypes, ex.complex):
                with backend.precision(dtype):
                    args = tuple(backend.asarray(a, dtype) for a in ex.args)
                    try:
                        f(*args, **ex.kwargs)
                    except Exception as e:  # noqa: BLE001
                        # the library's own function rejects this input (torch.logical_or(True,
                        # t)): not a rule failure, but it must be declared
                        judge.refused("primal", label, dtype, e)
                        continue
                    judge.accepted(label, dtype)
                    for tester, present in ((test_rrule, reg.rrule), (test_frule, reg.frule)):
                        if present is None:
                            continue
                        # the GPU-safety checks are columns of their own (check_device)
                        judge.run(
                            tester.__name__,
                            label,
                            dtype,
                            lambda t=tester, a=args, kw=ex.kwargs: t(  # type: ignore[misc]
                                f, *a, scalar_free=False, jit=False, hermitian=hermitian, fkwargs=kw
                            ),
                        )

    return _recorded(run, _Judge(reg, backend.name))


def check_device(reg: Registration, which: str, examples: Sequence[Example] | None = None) -> Cell:
    """``check_scalar_free`` (``which="scalar-free"``) or ``check_jit`` (``"jit"``) of ``reg``'s
    NumPy function at each example (in float32 on guarded device arrays / in JAX's precision).

    ``"n/a"`` when the check cannot apply at all: no NumPy (or ``jax.numpy``) counterpart, JAX not
    installed, or no example with an array argument. Examples a check cannot take (the function
    itself is not traceable there) must be declared with ``Expect(kind="skip")``.
    """
    from . import checks
    from .backends import BACKENDS

    if which not in DEVICE_CHECKS:
        raise ValueError(f"which must be one of {DEVICE_CHECKS}, got {which!r}")
    f = BACKENDS["numpy"].function(reg)
    if f is None:
        return Cell("n/a")
    if which == "jit":
        if not BACKENDS["jax"].available():
            return Cell("n/a")
        jnp = BACKENDS["jax"].namespace()
        if counterpart(f, jnp) is None:
            return Cell("n/a")
        module = jnp
        # the registration's own JAX function: NumPy's name where NumPy's rule is checked
        jf = BACKENDS["jax"].function(reg)

        def go(ex: Example) -> None:
            checks.check_jit(f, *ex.args, fkwargs=ex.kwargs, f_jax=jf)
    else:
        module = np

        def go(ex: Example) -> None:
            checks.check_scalar_free(f, *ex.args, fkwargs=ex.kwargs)

    if examples is None:
        examples = examples_for(reg)
    if not examples:
        return Cell("none")
    chosen = _limited(examples, EXAMPLE_LIMITS.get(which), KIND_LIMITS.get(which))

    def run(judge: _Judge) -> None:
        for i, ex in chosen:
            label = _label(i, ex)
            dtype = "complex128" if ex.complex else "float64"
            if not device_checks_apply(f, ex.args, module):
                judge.cell.not_applicable += 1  # no array argument: nothing to guard
                continue
            try:
                go(ex)
            except checks.CheckNotApplicable as e:
                # the function itself cannot run there: not a check of the rule
                judge.refused(which, label, dtype, e)
                continue
            except Exception as e:  # noqa: BLE001
                judge.record(which, label, dtype, e)
            else:
                judge.record(which, label, dtype, None)
            judge.accepted(label, dtype)

    cell = _recorded(run, _Judge(reg, which))
    if cell.status == "ok" and cell.checks == 0 and not cell.unsupported and cell.not_applicable:
        cell.status = "n/a"
    return cell


def _describe(tester: str, label: str, dtype: str, e: BaseException) -> str:
    kind = "" if isinstance(e, AssertionError) else f"{type(e).__name__}: "
    msg = str(e).splitlines()[0] if str(e) else repr(e)
    if not isinstance(e, AssertionError):
        tb = traceback.extract_tb(e.__traceback__)
        if tb:
            last = tb[-1]
            msg += f" [{last.filename.rsplit('/', 1)[-1]}:{last.lineno}]"
    return f"{tester} [{label}, {dtype}]: {kind}{msg}"


def _pick(dtypes: Sequence[str], cplx: bool) -> list[str]:
    return [d for d in dtypes if d.startswith("complex") == cplx]


def _limited(
    examples: Sequence[Example], limit: int | None, per_kind: int | None = None
) -> list[tuple[int, Example]]:
    """``(index, example)`` of at most ``limit`` examples: the first real ones, and the first
    complex one if any; with ``per_kind``, at most that many real and that many complex ones."""
    if per_kind is not None:
        reals = [(i, e) for i, e in enumerate(examples) if not e.complex][:per_kind]
        cplxs = [(i, e) for i, e in enumerate(examples) if e.complex][:per_kind]
        chosen = sorted(reals + cplxs, key=lambda p: (p[1].complex, p[0]))
        return chosen if limit is None else chosen[:limit]
    indexed = list(enumerate(examples))
    if limit is None or len(indexed) <= limit:
        return indexed
    if limit == 1:  # the first real example (the first one when all are complex)
        return [next(((i, e) for i, e in indexed if not e.complex), indexed[0])]
    cplx = next(((i, e) for i, e in indexed if e.complex), None)
    real = [(i, e) for i, e in indexed if not e.complex][: limit - (cplx is not None)]
    return [*real, *([cplx] if cplx is not None else [])]
