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
    "DASK_EXPECTS",
    "DASK_LIMITS",
    "DASK_XFAILS",
    "DEVICE_CHECKS",
    "DTYPE_LIMITS",
    "EXAMPLE_LIMITS",
    "KIND_LIMITS",
    "LAZY_COLUMN",
    "PROFILES",
    "Cell",
    "check_device",
    "check_lazy",
    "check_registration",
    "dask_expectations",
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
    expects: Sequence[Expect] | None = None,
) -> Cell:
    """Run both testers on the examples of ``reg`` (default: ``examples_for``, limited by the
    profile) in ``backend``'s arrays, in each of ``dtypes`` (default: float64 and float32, or
    complex128 and complex64 for complex examples), judged by ``expects`` (default: ``reg``'s
    own declarations; the dask column passes ``dask_expectations(reg)``)."""
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

    judge = _Judge(reg, backend.name)
    if expects is not None:
        judge.expects = tuple(expects)
    return _recorded(run, judge)


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


# --- the lazy column: rules on dask arrays build graphs and run none -----------------------------
LAZY_COLUMN = "lazy"

# dask's own limits: its function refuses the examples named (``None``: every example), or
# computes while it builds the graph. Declared as skips of the lazy and dask columns alike, with
# the upstream issue where one is known.
_FFTS = ("fft", "ifft", "fftn", "ifftn", "rfft", "rfftn", "ihfft", "irfft", "irfftn", "hfft")
_SQUARE = "dask's {} needs square chunks (by design: blocked algorithm)"
_TWO_D = "dask's {} takes 2-D arrays only (no stacks; no issue known)"
DASK_LIMITS: dict[str, list[tuple[tuple[str, ...] | None, str]]] = {
    "arange": [(None, "da.arange refuses 0-d array bounds (no issue known)")],
    **{f"fft.{n}": [(None, "dask's FFTs need the transformed axis in one chunk")] for n in _FFTS},
    "linalg.svd": [(None, "dask's svd has no full_matrices=True (no issue known)")],
    "linalg.svdvals": [(None, "array-api-compat's dask svdvals calls svd(full_matrices=True)")],
    "linalg.qr": [(None, "dask's qr needs one column chunk (tsqr, by design)")],
    "linalg.matrix_rank": [(None, "array-api-compat's dask matrix_rank calls svd(compute_uv=)")],
    "linalg.matrix_norm": [
        (("#2", "#8", "#10", "#16"), "dask's svd needs an array chunked along one axis only"),
        (("#3", "#9", "#11"), "dask's SVD-based norms take 2-D arrays only"),
    ],
    "linalg.cholesky": [
        (("#0", "#3"), _SQUARE.format("cholesky")),
        (("#1", "#5"), _TWO_D.format("cholesky")),
        (("#4",), "array-api-compat's dask cholesky calls da.issubdtype, which dask lacks"),
    ],
    "linalg.solve": [
        (("#0", "#1", "#5", "#6"), _SQUARE.format("lu (solve)")),
        (("#2", "#3", "#4", "#7", "#9", "#10"), _TWO_D.format("lu (solve)")),
    ],
    "linalg.inv": [
        (("#0", "#3"), _SQUARE.format("lu (inv)")),
        (("#2", "#4", "#6"), _TWO_D.format("lu (inv)")),
    ],
    "reshape": [
        (("#0", "#1"), "da.reshape refuses a reshape that merges chunked axes (no issue known)"),
        (("#4",), "da.reshape of a zero-size array with explicit chunks raises"),
    ],
    "repeat": [
        (("#2", "#4", "#9"), "da.repeat needs an integer axis"),
        (("#6", "#7", "#8", "#10"), "da.repeat takes integer repeats only, not arrays"),
        (("#5",), "da.repeat of a zero-size array raises (Need array(s) to concatenate)"),
    ],
    "operator.getitem": [
        (
            ("#7", "#13", "#15", "#20"),
            "dask has no n-d fancy indexing (two index arrays, a 2-D index array)",
        ),
    ],
}

# Failures of the lazy and dask columns at the examples named: dask's own (outputs of unknown
# size) and this library's defects not fixed yet. Strict: one that passes is reported, so a fix
# is noticed.
_UNKNOWN = "the output's shape is unknown (nan) in dask, so no cotangent of a known shape matches"
DASK_XFAILS: dict[str, list[tuple[tuple[str, ...] | None, str]]] = {
    **{f"unique_{n}": [(None, _UNKNOWN)] for n in ("all", "counts", "inverse", "values")},
    "operator.getitem": [(("#8", "#16", "#17"), f"mask keys: {_UNKNOWN}")],
    # the primal, dask's own eye, builds a graph that fails when computed
    "eye": [(("#1",), "da.eye(N, M > N) builds a broken graph (dask issue 11937)")],
}

# Declarations of one column each (the ``Expect``'s own), where the lazy column (one tangent,
# values compared after computing) and the dask column (the testers on dask arrays: shapes
# compared before computing, tangents stacked in chunks) part ways.
_NAN_SHAPE = (
    "the output's shape is unknown (nan) in dask, and the testers compare shapes without"
    " computing (nan != nan)"
)
DASK_EXPECTS: dict[str, list[Expect]] = {
    "nonzero": [Expect("dask", _NAN_SHAPE)],
    # dask's linspace computes a 0-d array bound while it builds the graph: a refusal of the
    # lazy column only (the dask column's testers do not watch for computations)
    "linspace": [
        Expect(
            LAZY_COLUMN,
            "da.linspace computes a 0-d array argument while it builds the graph (no issue known)",
            kind="skip",
        )
    ],
}


def _declared(
    table: dict[str, list[tuple[tuple[str, ...] | None, str]]], name: str
) -> list[tuple[str | None, str]]:
    return [(e, why) for exs, why in table.get(name, []) for e in (exs or (None,))]


def dask_expectations(reg: Registration) -> list[Expect]:
    """``reg``'s own declarations plus the dask tables above, for the ``dask`` and ``lazy``
    columns."""
    out = list(reg.expectations)
    for ex, why in _declared(DASK_LIMITS, reg.name):
        out += [Expect(c, why, kind="skip", example=ex) for c in ("dask", LAZY_COLUMN)]
    for ex, why in _declared(DASK_XFAILS, reg.name):
        out += [Expect(c, why, example=ex) for c in ("dask", LAZY_COLUMN)]
    out += DASK_EXPECTS.get(reg.name, [])
    return out


class _GraphRuns:
    """Counts the graphs dask's local schedulers run while it is active: ``compute``,
    ``__array__``, ``__bool__``, ``__float__`` and ``__int__`` all go through one."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> _GraphRuns:
        from dask.callbacks import Callback

        def start(dsk: Any) -> None:
            self.count += 1

        self._cb = Callback(start=start)
        self._cb.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._cb.__exit__(*exc)


def check_lazy(reg: Registration, examples: Sequence[Example] | None = None) -> Cell:
    """The ``lazy`` column: ``reg``'s rrule, pullback and frule on dask arrays (two chunks per
    axis, float64 / complex128) at each example run no graph (a dask callback counts every run of
    a local scheduler), and their results, computed afterwards, equal the same rule's on NumPy at
    the same inputs, cotangents and tangents (``rtol = atol = 1e-9``).

    ``"n/a"`` when dask (or array-api-compat's wrapper of it) is not installed or has no such
    function. An example dask's own function refuses, or computes while building its graph, must
    be declared (``DASK_LIMITS``)."""
    from .backends import BACKENDS, get_backend

    dsk = get_backend("dask")
    if not dsk.available():
        return Cell("n/a")
    f, nf = dsk.function(reg), BACKENDS["numpy"].function(reg)
    if f is None or nf is None:
        return Cell("n/a")
    if examples is None:
        examples = examples_for(reg)
    if not examples:
        return Cell("none")
    # a function of this library (scatter_add), not dask's: it must take every example
    ours = str(getattr(reg.target, "__module__", "")).startswith("chainrules")

    def run(judge: _Judge) -> None:
        for i, ex in enumerate(examples):
            label = _label(i, ex)
            dtype = "complex128" if ex.complex else "float64"
            dargs = tuple(dsk.asarray(a, dtype) for a in ex.args)
            try:
                with _GraphRuns() as runs:
                    f(*dargs, **ex.kwargs)
                if runs.count:
                    raise RuntimeError("dask's own function computes while it builds the graph")
            except Exception as e:  # noqa: BLE001
                if ours:
                    judge.record("primal", label, dtype, e)
                else:
                    judge.refused("primal", label, dtype, e)
                continue
            judge.accepted(label, dtype)
            nargs = tuple(BACKENDS["numpy"].asarray(a, dtype) for a in ex.args)
            judge.run(
                LAZY_COLUMN,
                label,
                dtype,
                lambda a=dargs, n=nargs, kw=ex.kwargs, s=i: _lazy_and_right(  # type: ignore[misc]
                    f, nf, a, n, kw, s
                ),
            )

    judge = _Judge(reg, LAZY_COLUMN)
    judge.expects = tuple(dask_expectations(reg))
    return _recorded(run, judge)


def _lazy_and_right(
    f: Any, nf: Any, dargs: tuple[Any, ...], nargs: tuple[Any, ...], kw: dict[str, Any], seed: int
) -> None:
    from ..core.registry import frule, rrule
    from ..core.tangents import NoTangent, Tangent, unthunk
    from .backends import get_backend

    dsk = get_backend("dask")
    rng = np.random.default_rng(seed)
    with _GraphRuns() as runs:
        y, pb = rrule(f, *dargs, **kw)
    ny, npb = rrule(nf, *nargs, **kw)
    ny_leaves = _leaves(ny)
    bars = [_random_like(rng, v) if _floating(v) else None for v in ny_leaves]
    out_diff = any(b is not None for b in bars)
    bar_n = _structured(ny, [NoTangent() if b is None else b for b in bars])
    bar_d = _structured(
        ny, [NoTangent() if b is None else dsk.asarray(b, str(b.dtype)) for b in bars]
    )
    with _GraphRuns() as pulls:
        res = tuple(unthunk(r) for r in pb(bar_d if out_diff else NoTangent()))
    nres = tuple(unthunk(r) for r in npb(bar_n if out_diff else NoTangent()))
    per_n: list[Any] = [NoTangent()]
    per_d: list[Any] = [NoTangent()]
    for a in nargs:
        if isinstance(a, (tuple, list)) and any(_floating(e) for e in a):
            ts = [_random_like(rng, e) if _floating(e) else NoTangent() for e in a]
            per_n.append(Tangent(*ts, primal_type=type(a)))
            per_d.append(
                Tangent(
                    *[t if isinstance(t, NoTangent) else dsk.asarray(t, str(t.dtype)) for t in ts],
                    primal_type=type(a),
                )
            )
        elif _floating(a):
            t = _random_like(rng, a)
            per_n.append(t)
            per_d.append(dsk.asarray(t, str(t.dtype)))
        else:
            per_n.append(NoTangent())
            per_d.append(NoTangent())
    with _GraphRuns() as pushes:
        _, ydot = frule(tuple(per_d), f, *dargs, **kw)
    _, nydot = frule(tuple(per_n), nf, *nargs, **kw)
    if runs.count or pulls.count or pushes.count:
        raise AssertionError(
            f"computes while building: rrule runs {runs.count} graph(s), pullback "
            f"{pulls.count}, frule {pushes.count}"
        )
    for what, got, want in (
        ("primal", _leaves(y), ny_leaves),
        (
            "cotangents",
            [v for r in res[1:] for v in _leaves(r)],
            [v for r in nres[1:] for v in _leaves(r)],
        ),
        ("frule tangent", _leaves(ydot), _leaves(nydot)),
    ):
        _compare_dask(what, got, want)


def _leaves(x: Any) -> list[Any]:
    """The arrays of an output or a tangent, zero markers as ``None``."""
    from ..core.tangents import AbstractZero
    from .arrays import leaves

    return [None if isinstance(v, AbstractZero) else v for v in leaves(x)]


def _floating(v: Any) -> bool:
    dt = getattr(v, "dtype", None)
    if dt is None or not hasattr(v, "shape") or isinstance(v, type):
        return False
    return np.dtype(str(dt)).kind in "fc"


def _random_like(rng: np.random.Generator, v: Any) -> np.ndarray:
    shape = tuple(int(n) for n in v.shape)
    r = rng.standard_normal(shape)
    if np.dtype(str(v.dtype)).kind == "c":
        r = r + 1j * rng.standard_normal(shape)
    return r.astype(np.dtype(str(v.dtype)))


def _structured(like: Any, parts: list[Any]) -> Any:
    from .arrays import nest

    return nest(like, parts)


def _compare_dask(what: str, got: list[Any], want: list[Any]) -> None:
    import dask

    if len(got) != len(want):
        raise AssertionError(f"{what}: {len(got)} parts, NumPy gives {len(want)}")
    computed = iter(dask.compute(*[g for g in got if g is not None]))
    for i, (g, w) in enumerate(zip(got, want)):
        if g is None or w is None:
            other = w if g is None else next(computed)
            if other is not None and np.any(np.asarray(other) != 0):
                raise AssertionError(f"{what} part {i}: a zero marker on one side only")
            continue
        a, b = np.asarray(next(computed)), np.asarray(w)
        if a.shape != b.shape:
            raise AssertionError(f"{what} part {i}: shape {a.shape}, NumPy gives {b.shape}")
        if not np.allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True):
            err = float(np.max(np.abs(a.astype(complex) - b)))
            raise AssertionError(f"{what} part {i}: differs from NumPy by up to {err:.3g}")
