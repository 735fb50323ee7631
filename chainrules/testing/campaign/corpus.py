"""The campaign's second source: a corpus of code that others wrote.

Programs generated from the registry compose registered functions with glue the campaign wrote.
The defects of issue 26 came from elsewhere: from user code that calls scikit-learn and SciPy
functions written in Python, writes into arrays in place, and mixes in lists and Python scalars.
Each :class:`Entry` here is such a function, unchanged, at one point:

* :func:`library`: the user-code suite's 73 functions of SciPy, array-api-extra and scikit-learn
  (``tests/external/user_code/cases.py`` re-exports them as ``CASES``), each called as a user
  does (``scipy.stats.skew(x)``), with its first floating constant as the second argument;
* :data:`USER`: plain user code in NumPy's own idioms -- ``out = np.zeros(n); out[1:] = ...``,
  ``+=`` on slices, boolean masks, ``x[0] - [3, 5, 2]``, Python scalars, ``np.dot``/``np.outer``/
  ``np.where``/``np.clip``, log-likelihoods through ``logsumexp``, ``GaussianMixture``,
  ``scipy.optimize.rosen``, ``scipy.special`` -- taking its arguments by position, by keyword,
  as a tuple or as a dict.

:func:`program` turns an entry into a :class:`CorpusProgram`, a :class:`~.programs.Program`
whose ``run`` calls the entry, so the very same relations of :func:`.oracles.native` check it
(argument against closure, ``grad``/``vjp``/``jvp``/both Jacobians, the Hessian's symmetry and
``jacobian(grad)`` both ways, finite differences, purity). Only the native engine: the entries
are NumPy code, which JAX and torch cannot run as written.

SciPy runs in its array-API mode (``SCIPY_ARRAY_API=1``, read once when SciPy is imported) and
scikit-learn with ``array_api_dispatch=True`` (set around each entry, not process-wide), as
issue 26's reproducers do. ``python -m chainrules.testing.campaign --source corpus`` sets the
variable for its own process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from . import user_in_place, user_numerics  # noqa: F401  # their import fills USER, in this order
from .entry import USER, Entry
from .library_cases import Case, _from_case, library
from .programs import Program

__all__ = ["USER", "Case", "CorpusProgram", "Entry", "entries", "library", "program", "run"]


# --- programs ---------------------------------------------------------------------------------
@dataclass
class _Whole:
    """The entry as one step, for the relations that look at the first step (``hermitian``)."""

    hermitian: bool = False


@dataclass
class CorpusProgram(Program):
    """A :class:`~.programs.Program` whose ``run`` is a corpus entry."""

    entry: Entry | None = None
    index: int = 0
    tags: frozenset[str] = field(default_factory=frozenset)

    @property
    def names(self) -> list[str]:
        return [self._entry.name]

    @property
    def _entry(self) -> Entry:
        assert self.entry is not None
        return self.entry

    @property
    def d_hermitian(self) -> bool:
        return self._entry.hermitian_d

    def features(self) -> set[str]:
        return set(self.tags) | {f"signature {self.signature}"}

    def describe(self) -> str:
        d = "" if self.d is None else f", d{self.d.shape}"
        return f"corpus {self._entry.name} [{self.dtype}, {self.signature}, x{self.x.shape}{d}]"

    def run(self, x: Any, d: Any, fn_of: Any, asarray: Any, namespace: Any) -> Any:
        return self._entry.call(x, d)

    def loss_of(self, y: Any, asarray: Any, namespace: Any) -> Any:
        if isinstance(y, float | int | np.generic):  # a library's Python float or NumPy scalar
            y = np.asarray(y)
        return super().loss_of(y, asarray, namespace)

    def in_double(self) -> Program:
        """The entry at its point in float64/complex128 (the reference of a float32 one)."""
        if self.dtype in ("float64", "complex128"):
            return self
        dt = np.complex128 if self.dtype == "complex64" else np.float64
        return dataclasses.replace(
            self,
            dtype=np.dtype(dt).name,
            x=self.x.astype(dt),
            d=None if self.d is None else self.d.astype(dt),
        )


@contextlib.contextmanager
def _library_modes() -> Iterator[None]:
    """scikit-learn's array-API dispatch for the duration of the call (where SciPy runs in its
    array-API mode, which scikit-learn's dispatch requires), and warnings off."""
    with contextlib.ExitStack() as stack:
        if _scipy_array_api():
            import sklearn

            stack.enter_context(sklearn.config_context(array_api_dispatch=True))
        stack.enter_context(warnings.catch_warnings())
        stack.enter_context(np.errstate(all="ignore"))
        warnings.simplefilter("ignore")
        yield


def _scipy_array_api() -> bool:
    from scipy._lib._array_api import SCIPY_ARRAY_API

    return bool(SCIPY_ARRAY_API)


def require_array_api_mode() -> None:
    """Raise unless SciPy runs in its array-API mode (read once, when SciPy is imported)."""
    if not _scipy_array_api():
        raise RuntimeError(
            "chainrules.testing.campaign.corpus: the corpus runs SciPy in its array-API mode; "
            "set SCIPY_ARRAY_API=1 before SciPy is imported (python -m "
            "chainrules.testing.campaign --source corpus does it for its own process)"
        )


def program(entry: Entry, index: int = 0) -> CorpusProgram:
    """``entry`` as a campaign program: run once in NumPy for its output's shape and dtype, with
    a loss weight drawn from ``index``."""
    with _library_modes():
        y = np.asarray(entry.call(np.array(entry.x, copy=True), _copy(entry.d)))
    if y.dtype.kind not in "fc" or not np.all(np.isfinite(y)):
        raise ValueError(f"corpus entry {entry.name}: output {y.dtype} {y!r} is not finite")
    rng = np.random.default_rng([index, 26])
    real = np.float64
    dtype = np.dtype(entry.x.dtype).name  # float64, float32, complex128, complex64
    return CorpusProgram(
        seed=index,
        steps=cast(Any, [_Whole()]),
        dtype=dtype,
        signature=entry.signature,
        x=entry.x,
        d=entry.d,
        w=rng.standard_normal(y.shape).astype(real),
        w_imag=rng.standard_normal(y.shape).astype(real),
        y_shape=tuple(y.shape),
        y_complex=y.dtype.kind == "c",
        entry=entry,
        index=index,
        tags=entry.tags,
    )


def _copy(a: np.ndarray | None) -> np.ndarray | None:
    return None if a is None else np.array(a, copy=True)


_ENTRIES: list[Entry] = []


def entries() -> list[Entry]:
    """Every entry: :func:`library`'s, then :data:`USER`'s."""
    if not _ENTRIES:
        _ENTRIES.extend(_from_case(c) for c in library())
        _ENTRIES.extend(USER)
    return _ENTRIES


def run(selected: list[Entry] | None = None, progress: bool = False) -> Any:
    """Check every entry (or ``selected``) with the native relations; a
    :class:`~chainrules.testing.campaign.Report` keyed by the entry's index."""
    from . import Report
    from .oracles import Outcome, check

    require_array_api_mode()
    chosen = entries() if selected is None else selected
    rep = Report(source="corpus")
    t0 = time.perf_counter()
    for i, e in enumerate(chosen):
        rep.seeds.append(i)
        try:
            p = program(e, i)
        except Exception as exc:  # noqa: BLE001  (an entry NumPy cannot run: the corpus is wrong)
            rep.programs[i] = f"corpus {e.name}"
            rep.outcomes.append(
                (i, Outcome("native", "primal", "primal", "wrong", f"{type(exc).__name__}: {exc}"))
            )
            continue
        rep.programs[i] = p.describe()
        rep.features.update(p.features())
        rep.calls.update(p.names)
        with _library_modes():
            rep.outcomes.extend((i, o) for o in check(p, ()))
        if progress:
            print(f"\r{i + 1}/{len(chosen)} corpus entries", end="", file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    rep.seconds = time.perf_counter() - t0
    return rep
