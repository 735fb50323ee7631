"""Run the testers on a registration's example inputs in one backend: the engine behind
``python -m chainrules check`` and the library's own test suite."""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.registry import Registration, counterpart
from .backends import Backend
from .examples import Example, examples_for
from .tester import device_checks_apply, test_frule, test_rrule

__all__ = ["DEVICE_CHECKS", "EXAMPLE_LIMITS", "Cell", "check_device", "check_registration"]

# Per backend (or device check: "scalar-free", "jit"), the most examples of one registration run
# there: the first real ones and the first complex one. Empty (no limit) for the check command;
# the library's fast test profile sets it for the slow backends (JAX's eager dispatch, jit
# compiles), the thorough profile does not.
EXAMPLE_LIMITS: dict[str, int] = {}

_DTYPES = {False: ("float64", "float32"), True: ("complex128", "complex64")}


@dataclass
class Cell:
    """The outcome of one registration on one backend."""

    status: str  # "ok", "FAIL", "n/a" (the library has no such function), "none" (no examples)
    checks: int = 0
    errors: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)  # examples the library itself rejects


def check_registration(
    reg: Registration,
    backend: Backend,
    examples: Sequence[Example] | None = None,
    dtypes: Sequence[str] | None = None,
) -> Cell:
    """Run both testers on every example of ``reg`` (default: ``examples_for``) in
    ``backend``'s arrays, in each of ``dtypes`` (default: float64 and float32, or complex128 and
    complex64 for complex examples)."""
    f = backend.function(reg)
    if f is None:
        return Cell("n/a")
    if examples is None:
        examples = examples_for(reg)
    if not examples:
        return Cell("none")
    examples = _limited(examples, EXAMPLE_LIMITS.get(backend.name))
    cell = Cell("ok")
    for ex in examples:
        for dtype in _DTYPES[ex.complex] if dtypes is None else _pick(dtypes, ex.complex):
            args = tuple(backend.asarray(a, dtype) for a in ex.args)
            try:
                f(*args, **ex.kwargs)
            except Exception as e:  # noqa: BLE001
                # the library's own function rejects this input (torch.logical_or(True, t)):
                # not a rule failure, but counted and listed so that nothing passes silently
                cell.unsupported.append(_describe("primal", ex, dtype, e))
                continue
            for tester, present in ((test_rrule, reg.rrule), (test_frule, reg.frule)):
                if present is None:
                    continue
                cell.checks += 1
                try:
                    # the GPU-safety checks are columns of their own (check_device)
                    tester(
                        f,
                        *args,
                        scalar_free=False,
                        jit=False,
                        hermitian=reg.meta.get("hermitian", ()),
                        **ex.kwargs,
                    )
                except Exception as e:  # noqa: BLE001  (a crash is a failure to report, too)
                    cell.status = "FAIL"
                    cell.errors.append(_describe(tester.__name__, ex, dtype, e))
    return cell


DEVICE_CHECKS = ("scalar-free", "jit")


def check_device(reg: Registration, which: str, examples: Sequence[Example] | None = None) -> Cell:
    """``check_scalar_free`` (``which="scalar-free"``) or ``check_jit`` (``"jit"``) of ``reg``'s
    NumPy function at each example (in float32 on guarded device arrays / in JAX's precision).

    ``"n/a"`` when the check cannot apply: no NumPy (or ``jax.numpy``) counterpart, or JAX not
    installed. Examples the checks cannot take (sequences of arrays, no array argument) are
    counted as unsupported, never as passes.
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
        run, module = checks.check_jit, jnp
        # the registration's own JAX function: NumPy's name where NumPy's rule is checked
        extra = {"f_jax": BACKENDS["jax"].function(reg)}
    else:
        run, module = checks.check_scalar_free, np
        extra = {}
    if examples is None:
        examples = examples_for(reg)
    if not examples:
        return Cell("none")
    examples = _limited(examples, EXAMPLE_LIMITS.get(which))
    cell = Cell("ok")
    for ex in examples:
        dtype = "complex128" if ex.complex else "float64"
        if not device_checks_apply(f, ex.args, module):
            reason = "not applicable: no array argument, or a sequence of floating arrays"
            cell.unsupported.append(f"{which} [{ex.note or 'example'}, {dtype}]: {reason}")
            continue
        try:
            run(f, *ex.args, **ex.kwargs, **extra)
        except checks.CheckNotApplicable as e:
            cell.unsupported.append(_describe(which, ex, dtype, e))
            continue
        except Exception as e:  # noqa: BLE001
            cell.status = "FAIL"
            cell.errors.append(_describe(which, ex, dtype, e))
        cell.checks += 1
    return cell


def _describe(tester: str, ex: Example, dtype: str, e: BaseException) -> str:
    kind = "" if isinstance(e, AssertionError) else f"{type(e).__name__}: "
    msg = str(e).splitlines()[0] if str(e) else repr(e)
    if not isinstance(e, AssertionError):
        tb = traceback.extract_tb(e.__traceback__)
        if tb:
            last = tb[-1]
            msg += f" [{last.filename.rsplit('/', 1)[-1]}:{last.lineno}]"
    return f"{tester} [{ex.note or 'example'}, {dtype}]: {kind}{msg}"


def _pick(dtypes: Sequence[str], cplx: bool) -> list[str]:
    return [d for d in dtypes if d.startswith("complex") == cplx]


def _limited(examples: Sequence[Example], limit: int | None) -> Sequence[Example]:
    """At most ``limit`` examples: the first real ones, and the first complex one if any."""
    if limit is None or len(examples) <= limit:
        return examples
    cplx = next((e for e in examples if e.complex), None)
    real = [e for e in examples if not e.complex][: limit - (cplx is not None)]
    return [*real, *([cplx] if cplx is not None else [])]
