"""Only the cotangents asked for (docs/conventions.md): the expensive rules return each operand's
cotangent as a ``Thunk``, the tester checks that they force to the same values in any order, and
the engine never forces the cotangent of an argument it does not trace."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.rules.linear_algebra import matmul
from chainrules.testing import test_rrule

RNG = np.random.default_rng(3)


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def _spd(n: int) -> np.ndarray:
    m = _r(n, n)
    return m @ m.T + n * np.eye(n)


# (f, args, kwargs): every rule with two operands whose cotangents cost a product or a solve
CASES: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
    ("matmul", np.matmul, (_r(3, 4), _r(4, 2)), {}),
    ("matmul vector", np.matmul, (_r(3, 4), _r(4)), {}),
    ("tensordot", np.tensordot, (_r(2, 3, 4), _r(4, 3)), {"axes": ([1, 2], [1, 0])}),
    ("vecdot", np.vecdot, (_r(3, 4), _r(4)), {}),
    ("dot", np.dot, (_r(3, 4), _r(4, 2)), {}),
    ("inner", np.inner, (_r(3, 4), _r(2, 4)), {}),
    ("vdot", np.vdot, (_r(2, 3) + 1j * _r(2, 3), _r(6)), {}),
    ("einsum", np.einsum, ("ij,jk,k->i", _r(2, 3), _r(3, 4), _r(4)), {}),
    ("kron", np.kron, (_r(2, 3), _r(3, 2)), {}),
    ("outer", np.outer, (_r(3), _r(4)), {}),
    ("linalg.outer", np.linalg.outer, (_r(3), _r(4)), {}),
    ("cross", np.linalg.cross, (_r(4, 3), _r(3)), {}),
    ("matvec", np.matvec, (_r(2, 3, 4), _r(4)), {}),
    ("vecmat", np.vecmat, (_r(3), _r(2, 3, 4)), {}),
    ("solve", np.linalg.solve, (_spd(3), _r(3)), {}),
    ("solve matrix", np.linalg.solve, (_spd(3), _r(3, 2)), {}),
    ("solve batched vector", np.linalg.solve, (np.stack([_spd(3), _spd(3)]), _r(3)), {}),
    ("lstsq", np.linalg.lstsq, (_r(4, 3), _r(4)), {"rcond": None}),
    ("lstsq matrix", np.linalg.lstsq, (_r(4, 3), _r(4, 2)), {"rcond": None}),
    ("tensorsolve", np.linalg.tensorsolve, (_spd(6).reshape(2, 3, 6), _r(2, 3)), {}),
    ("convolve", np.convolve, (_r(4), _r(3)), {}),
    ("correlate", np.correlate, (_r(4), _r(3)), {"mode": "full"}),
    ("polymul", np.polymul, (_r(3), _r(2)), {}),
]


def _tri(n: int, lower: bool) -> np.ndarray:
    a = 0.3 * _r(n, n) + 2 * np.eye(n)
    return np.tril(a) if lower else np.triu(a)


def _scipy_cases() -> list[Any]:
    """SciPy's solvers and products: every plain array argument deferred."""
    sl = pytest.importorskip("scipy.linalg")
    sig = pytest.importorskip("scipy.signal")
    band = np.stack([0.3 * _r(4), 3 + _r(4), 0.3 * _r(4)])  # (l, u) = (1, 1), dominant
    return [
        ("solve_triangular", sl.solve_triangular, (_tri(3, False), _r(3, 2)), {}),
        (
            "solve_triangular T",
            sl.solve_triangular,
            (_tri(3, True), _r(3)),
            {"lower": True, "trans": 1},
        ),
        (
            "solve_triangular C",
            sl.solve_triangular,
            (_tri(3, True), _r(3)),
            {"lower": True, "trans": 2},
        ),
        ("cho_solve", sl.cho_solve, (sl.cho_factor(_spd(3)), _r(3)), {}),
        ("lu_solve", sl.lu_solve, (sl.lu_factor(_spd(3) + _r(3, 3)), _r(3, 2)), {}),
        ("lu_solve T", sl.lu_solve, (sl.lu_factor(_spd(3) + _r(3, 3)), _r(3)), {"trans": 1}),
        ("lu_solve C", sl.lu_solve, (sl.lu_factor(_spd(3) + _r(3, 3)), _r(3)), {"trans": 2}),
        ("scipy solve", sl.solve, (_spd(3) + 0.3 * _r(3, 3), _r(3, 2)), {}),
        ("scipy solve sym", sl.solve, (_spd(3), _r(3)), {"assume_a": "sym"}),
        ("expm_frechet", sl.expm_frechet, (0.3 * _r(3, 3), _r(3, 3)), {"compute_expm": False}),
        ("qr_multiply", sl.qr_multiply, (_r(4, 3), _r(4, 4)), {}),
        ("solve_sylvester", sl.solve_sylvester, (_spd(3), _spd(2), _r(3, 2)), {}),
        ("solve_banded", sl.solve_banded, ((1, 1), band, _r(4)), {}),
        ("signal.convolve", sig.convolve, (_r(4, 3), _r(2, 2)), {"method": "direct"}),
        ("signal.correlate", sig.correlate, (_r(4, 3), _r(2, 2)), {"method": "direct"}),
    ]


SCIPY_IDS = [
    "solve_triangular",
    "solve_triangular T",
    "solve_triangular C",
    "cho_solve",
    "lu_solve",
    "lu_solve T",
    "lu_solve C",
    "scipy solve",
    "scipy solve sym",
    "expm_frechet",
    "qr_multiply",
    "solve_sylvester",
    "solve_banded",
    "signal.convolve",
    "signal.correlate",
]


@pytest.mark.parametrize("i", range(len(SCIPY_IDS)), ids=SCIPY_IDS)
def test_scipy_solvers_defer_each_cotangent(i: int) -> None:
    name, f, args, kw = _scipy_cases()[i]
    assert name == SCIPY_IDS[i]
    test_rrule(f, *args, deferred=True, scalar_free=False, jit=False, **kw)


@pytest.mark.parametrize(("f", "args", "kw"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_expensive_rules_defer_each_cotangent(f: Any, args: tuple[Any, ...], kw: Any) -> None:
    test_rrule(f, *args, deferred=True, scalar_free=False, jit=False, **kw)


def test_tester_flags_a_rule_that_computes_every_cotangent() -> None:
    # np.multiply's pullback computes both cotangents at once: deferred=True must say so
    with pytest.raises(AssertionError, match="not a Thunk"):
        test_rrule(np.multiply, _r(3), _r(3), deferred=True, scalar_free=False, jit=False)


def test_tester_flags_thunks_that_depend_on_the_order_they_are_forced_in() -> None:
    def twice(a: Any, b: Any) -> Any:
        return a * b

    @cr.register_rrule(twice)
    def twice_rrule(a: Any, b: Any) -> Any:
        @cr.pullback(a * b, (a, b))
        def twice_pullback(y_bar: Any) -> Any:
            state = [0.0]  # a shared computation that the first forced thunk changes

            def bump(v: Any) -> Any:
                state[0] += 1.0
                return v * state[0]

            return cr.Thunk(lambda: bump(y_bar * b)), cr.Thunk(lambda: bump(y_bar * a))

        return a * b, twice_pullback

    with pytest.raises(AssertionError, match="other order"):
        test_rrule(twice, _r(3), _r(3), scalar_free=False, jit=False)


def _count_adjoints(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the operand cotangents matmul computes: the generic pullback builds one adjoint
    per operand (a matrix-vector product's vector cotangent one ``_vector_bar``), NumPy's fast
    path (real matrices and vectors) calls one function per operand."""
    calls = [0]

    def counting(module: Any, name: str) -> None:
        real = getattr(module, name)

        def count(*args: Any) -> Any:
            calls[0] += 1
            return real(*args)

        monkeypatch.setattr(module, name, count)

    counting(matmul, "adjoint")
    counting(matmul, "_vector_bar")
    counting(matmul, "_left_bar")
    counting(matmul, "_right_bar")
    return calls


@pytest.mark.parametrize("dtype", [np.float64, np.float16], ids=["fast", "generic"])
def test_engine_never_forces_the_cotangent_of_a_constant(
    monkeypatch: pytest.MonkeyPatch, dtype: Any
) -> None:
    # the data matrix of a regression is a constant: its cotangent (an outer product as large as
    # the data) is never computed; on NumPy's fast path (float64) and on the generic one (float16
    # data meeting float64 weights: mixed dtypes), matmul computes one cotangent per operand
    x, w = _r(50, 4).astype(dtype), _r(4)
    calls = _count_adjoints(monkeypatch)
    g = ad.grad(lambda w: np.sum(np.tanh(x @ w)))(w)
    np.testing.assert_allclose(g, x.T @ (1 - np.tanh(x @ w) ** 2), rtol=1e-12)
    assert calls[0] == 1
    calls[0] = 0  # both traced: both computed, the same values as an eager product
    gx, gw = ad.grad(lambda x, w: np.sum(x @ w), argnums=(0, 1))(x, w)
    assert gx.dtype == dtype  # projected onto the data's dtype
    np.testing.assert_allclose(gx, np.broadcast_to(w.astype(dtype), x.shape), rtol=1e-12)
    np.testing.assert_allclose(gw, x.astype(np.float64).sum(axis=0), rtol=1e-12)
    assert calls[0] == 2


def test_second_order_through_a_deferred_product() -> None:
    # forward over reverse: the deferred cotangent of the traced operand still carries tangents
    a = _r(5, 5)
    x = _r(5)
    h = ad.hessian(lambda x: np.sum(np.tanh(a @ x)))(x)
    t = np.tanh(a @ x)
    np.testing.assert_allclose(h, a.T @ np.diag(-2 * t * (1 - t**2)) @ a, rtol=1e-10, atol=1e-12)
