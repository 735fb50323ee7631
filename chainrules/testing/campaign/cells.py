"""What the relations of a program record and share: an :class:`Outcome` per relation and engine,
the cells of one program's outcomes (``_Cells``), the program's function on each backend
(``native_function``), and the random directions and inner products the relations use."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends import BACKENDS
from .known import excuse
from .programs import Program
from .tolerances import close, worst


@dataclass
class Outcome:
    engine: str
    transform: str
    relation: str
    status: str  # agree / wrong / error / skip
    detail: str = ""


def _ident(v: Any) -> Any:
    return v


def _ns(a: Any) -> Any:
    import array_api_compat

    return array_api_compat.array_namespace(a)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


class _Cells:
    """Collects outcomes; ``cell`` runs one comparison and records it."""

    def __init__(self, program: Program) -> None:
        self.p = program
        self.out: list[Outcome] = []

    def record(
        self, engine: str, transform: str, relation: str, status: str, detail: str = ""
    ) -> None:
        self.out.append(Outcome(engine, transform, relation, status, detail))

    def compare(
        self, engine: str, transform: str, relation: str, got: Any, want: Any, kind: str
    ) -> bool:
        if self.p.dtype in ("float32", "complex64") and kind in ("same", "oracle"):
            kind = "single"  # single-precision rounding in both
        if close(got, want, kind):
            self.record(engine, transform, relation, "agree")
            return True
        name = excuse(self.p, engine, relation, got, want)
        if name is not None:
            self.record(engine, transform, relation, "skip", f"known: {name}")
            return True
        self.record(engine, transform, relation, "wrong", worst(got, want))
        return False

    @contextlib.contextmanager
    def guard(self, engine: str, transform: str, relation: str) -> Iterator[None]:
        try:
            with _quiet():
                yield
        except Exception as e:  # noqa: BLE001  (every engine error is counted, by design)
            from ...core.scalar import ScalarIndexingError

            status = "wrong" if isinstance(e, ScalarIndexingError) else "error"
            msg = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            self.record(engine, transform, relation, status, msg)


def _to_np(a: Any) -> np.ndarray:
    from ..arrays import to_numpy

    if a is None:
        return np.zeros(())
    if hasattr(a, "detach"):
        a = a.detach()
    return np.asarray(to_numpy(a))


def _random_like(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    v = rng.standard_normal(a.shape)
    if a.dtype.kind == "c":
        v = v + 1j * rng.standard_normal(a.shape)
    return v.astype(a.dtype)


def _direction(rng: np.random.Generator, a: np.ndarray, hermitian: bool) -> np.ndarray:
    """A random direction at ``a``; Hermitian where the program's first function reads ``x`` as
    a Hermitian matrix (one triangle: its derivative is defined along Hermitian directions)."""
    v = _random_like(rng, a)
    if hermitian:
        v = ((v + np.conj(np.swapaxes(v, -1, -2))) / 2).astype(a.dtype)
    return v


def _sym(M: np.ndarray, x: np.ndarray, hermitian: bool) -> np.ndarray:
    """``M`` (a Jacobian with ``x``'s elements as its last flattened axis) restricted to
    symmetric directions when ``x`` is read as a symmetric matrix."""
    if not hermitian:
        return M
    n = x.size
    idx = np.arange(n).reshape(x.shape)
    t = np.swapaxes(idx, -1, -2).ravel()
    M2 = M.reshape(-1, n)
    return ((M2 + M2[:, t]) / 2).reshape(M.shape)


def _inner(a: Any, b: Any) -> float:
    """Re <a, b> = sum(Re(conj(a) b)): the pairing our cotangent convention uses."""
    return float(np.sum(np.real(np.conj(_to_np(a).astype(np.complex128)) * _to_np(b))))


# --- native -----------------------------------------------------------------------------------
def native_function(reg: Any) -> Any:
    """The NumPy function of ``reg`` as a user's code reaches :mod:`chainrules.ad` with it: a
    NumPy ufunc or a NumPy function that dispatches (``__array_function__``) is called as it is;
    any other (SciPy's Python functions, methods of distributions) through ``cr.traceable``, the
    documented way to make such a function visible to an engine."""
    f = BACKENDS["numpy"].function(reg)
    if isinstance(f, np.ufunc) or hasattr(f, "_implementation"):
        return f
    return _traceable(f)


_TRACEABLE: dict[int, Any] = {}


def _traceable(f: Any) -> Any:
    from ... import traceable

    t = _TRACEABLE.get(id(f))
    if t is None:
        t = _TRACEABLE[id(f)] = (f, traceable(f))
    return t[1]


def _native_fns(p: Program) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def F(x: Any, d: Any) -> Any:
        return p.run(x, d, native_function, _ident, _ns)

    def L(x: Any, d: Any) -> Any:
        return p.loss_of(F(x, d), _ident, _ns)

    return F, L


def _out_dtype(p: Program) -> Any:
    single = p.dtype in ("float32", "complex64")
    if p.y_complex:
        return np.complex64 if single else np.complex128
    return np.float32 if single else np.float64
