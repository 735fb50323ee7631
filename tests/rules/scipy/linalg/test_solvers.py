"""scipy.linalg's solvers (solve, inv, det, solve_triangular, solve_banded, solve_sylvester): every
registration on every backend, JAX's own derivatives as a reference, the formulas by hand, the
library differences the rules model, and the calls they refuse."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.scipy.linalg import solvers as rules
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

sl = pytest.importorskip("scipy.linalg")

test_rule = rule_tests("chainrules.rules.scipy.linalg.solvers")

REGS = {r.name: r for r in cr.registrations() if r.meta.get("module") == rules.__name__}
RNG = np.random.default_rng(11)


# ---- JAX's own derivatives as a reference ------------------------------------------------------
AGREE = ["solve_triangular", "solve", "inv", "det"]


@pytest.mark.parametrize("name", AGREE)
def test_agrees_with_jax(name: str, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    reg = REGS[f"scipy:linalg.{name}"]
    examples = examples_for(reg)
    if name == "solve":  # JAX reads the whole matrix for assume_a='sym' (SciPy one triangle)
        examples = [ex for ex in examples if ex.kwargs.get("assume_a") != "sym"]
    assert_agrees_with_jax(reg, examples, rtol=1e-7, atol=1e-9)


# ---- the formulas by hand ----------------------------------------------------------------------
def test_solve_triangular_trans_variants_agree_with_dense_solve(pull) -> None:  # type: ignore[no-untyped-def]
    t = np.triu(RNG.standard_normal((3, 3))) + 2 * np.eye(3)
    b = RNG.standard_normal((3, 2))
    g = RNG.standard_normal((3, 2))
    for trans, op in ((0, t), (1, t.T), ("C", t.T)):
        _, (_, a_bar, b_bar) = pull(sl.solve_triangular, t, b, y_bar=g, trans=trans)
        _, (_, m_bar, b_ref) = pull(np.linalg.solve, op, b, y_bar=g)
        np.testing.assert_allclose(b_bar, b_ref)
        m_bar = m_bar if trans == 0 else m_bar.T
        np.testing.assert_allclose(a_bar, np.triu(m_bar), atol=1e-12)


# ---- refused calls -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((np.eye(2), np.ones(2)), {"assume_a": "banded"}, "assume_a"),
        ((np.eye(2), np.ones(2)), {"trans": 3}, "trans"),
    ],
)
def test_refused(args, kwargs, match) -> None:  # type: ignore[no-untyped-def]
    """Calls the rules cannot differentiate raise an error naming the function and argument."""
    target = {
        "assume_a": sl.solve,
        "trans": sl.solve_triangular,
    }[match]
    with pytest.raises((ValueError, TypeError), match=match):
        cr.rrule(target, *args, **kwargs)


@pytest.mark.parametrize("tester", [test_rrule, test_frule])
@pytest.mark.parametrize("assume_a", ["her", "hermitian", "pos", "positive definite", "sym"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_solve_hermitian_reads_the_real_diagonal(tester, assume_a, lower, dtype) -> None:  # type: ignore[no-untyped-def]
    """issue 26: a Hermitian solver (``?hesv``, ``?potrf``) reads one triangle and only the real
    part of the diagonal; the shared ``_effective`` mirrored the triangle but kept the diagonal's
    imaginary part, so complex ``solve(assume_a='pos')`` was wrong in complex64 and complex128
    alike. Every solver kind that mirrors a triangle (``sym`` reads the complex diagonal)."""
    rng = np.random.default_rng(3)
    m = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    a = m @ m.conj().T + 3 * np.eye(3)
    a = a + 0.3j * np.diag(rng.standard_normal(3))  # read by `sym`, ignored by the others
    a = a + (np.tril(m, -1) if not lower else np.triu(m, 1))  # the triangle never read
    b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sl.LinAlgWarning)  # the unread triangle spoils rcond
        tester(
            sl.solve,
            a.astype(dtype),
            b.astype(dtype),
            assume_a=assume_a,
            lower=lower,
            scalar_free=False,
            jit=False,
        )


def _sylvester_in_common_dtype(a, b, q):  # type: ignore[no-untyped-def]
    """What SciPy's solve_sylvester computes where it is right: all arguments in one dtype."""
    dt = np.result_type(a, b, q)
    return sl.solve_sylvester(a.astype(dt), b.astype(dt), q.astype(dt))


@pytest.mark.parametrize("tester", [test_rrule, test_frule])
@pytest.mark.parametrize("real", [(0,), (1,), (2,), (0, 1), (1, 2)])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_solve_sylvester_mixed_real_complex(tester, real, dtype) -> None:  # type: ignore[no-untyped-def]
    """issue 26 (campaign seeds 413, 5366, 6013, 7809): SciPy 1.17.1's own solve_sylvester
    hands a real argument's real Schur form (2x2 blocks for complex eigenvalues) to the complex
    ?trsyl, which drops the blocks: with real and complex arguments mixed, its X misses AX + XB =
    Q by 0.2, and the rule, whose primal was SciPy's, gave derivatives of another X. The shared
    _sylvester_setup now solves in the common dtype; the tester judges against that reference
    (docs/conventions.md, where the library's own primal is wrong)."""
    rng = np.random.default_rng(6)
    rot = np.array([[1.0, -2.0], [2.0, 1.0]])  # eigenvalues 1 +- 2i: a 2x2 real Schur block

    def arg(i: int) -> np.ndarray:
        m = 3 * np.eye(2) + rot if i < 2 else rng.standard_normal((2, 2))
        m = m + 0.2 * rng.standard_normal((2, 2))
        if i in real:
            return m.astype(np.float32 if dtype == np.complex64 else np.float64)
        return (m + 0.3j * rng.standard_normal((2, 2))).astype(dtype)

    a, b, q = arg(0), arg(1), arg(2)
    x, _ = cr.rrule(sl.solve_sylvester, a, b, q)
    tol = 1e-4 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(a @ x + x @ b, q, atol=tol)  # the rule's X solves the equation
    tester(
        sl.solve_sylvester,
        a,
        b,
        q,
        reference=_sylvester_in_common_dtype,
        scalar_free=False,
        jit=False,
    )


# ---- solve_banded -------------------------------------------------------------------------------
def _dense_from_band(ab: np.ndarray, lo: int, up: int) -> np.ndarray:
    m = ab.shape[-1]
    a = np.zeros((m, m), dtype=ab.dtype)
    for i in range(m):
        for j in range(max(0, i - lo), min(m, i + up + 1)):
            a[i, j] = ab[up + i - j, j]
    return a


@pytest.mark.parametrize(("lo", "up", "k"), [(1, 1, None), (2, 1, 2), (0, 2, None), (1, 0, 3)])
def test_solve_banded_matches_the_dense_solve(lo: int, up: int, k: int | None) -> None:
    """The banded cotangent is the dense one, -A^-T X_bar X^T, read on the band; the corners of
    the storage that SciPy never reads get 0."""
    m = 5
    ab = RNG.standard_normal((lo + up + 1, m)) * 0.3
    ab[up] += 3.0
    b = RNG.standard_normal(m if k is None else (m, k))
    x, pb = cr.rrule(sl.solve_banded, (lo, up), ab, b)
    a = _dense_from_band(ab, lo, up)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-12)
    x_bar = RNG.standard_normal(x.shape)
    f_bar, lu_bar, ab_bar, b_bar = map(cr.unthunk, pb(x_bar))
    assert isinstance(f_bar, cr.NoTangent) and isinstance(lu_bar, cr.NoTangent)
    want_b = np.linalg.solve(a.T, x_bar)
    np.testing.assert_allclose(b_bar, want_b, rtol=1e-12)
    a_bar = -np.outer(want_b, x) if k is None else -want_b @ x.T
    band = np.zeros_like(ab)
    for r in range(lo + up + 1):
        for j in range(m):
            i = j + r - up
            if 0 <= i < m:
                band[r, j] = a_bar[i, j]
    np.testing.assert_allclose(ab_bar, band, rtol=1e-12, atol=1e-14)


def test_solve_banded_frule_chunk_agrees_with_pullback() -> None:
    """The frule pushes a chunk of tangents in one call, and agrees with the pullback
    (<x_bar, dX> = <ab_bar, dab> + <b_bar, db>)."""
    ab = RNG.standard_normal((3, 4)) * 0.3
    ab[1] += 3.0
    b = RNG.standard_normal((4, 2))
    dab, db = RNG.standard_normal((3, 3, 4)), RNG.standard_normal((3, 4, 2))
    _, dx = cr.frule((cr.NoTangent(), cr.NoTangent(), dab, db), sl.solve_banded, (1, 1), ab, b)
    assert dx.shape == (3, 4, 2)
    _, pb = cr.rrule(sl.solve_banded, (1, 1), ab, b)
    x_bar = RNG.standard_normal((4, 2))
    _, _, ab_bar, b_bar = map(cr.unthunk, pb(x_bar))
    for c in range(3):
        lhs = np.sum(x_bar * dx[c])
        np.testing.assert_allclose(lhs, np.sum(ab_bar * dab[c]) + np.sum(b_bar * db[c]))


def test_solve_banded_leaves_its_inputs_alone_and_checks_bands() -> None:
    ab = RNG.standard_normal((3, 4)) * 0.3
    ab[1] += 3.0
    b = RNG.standard_normal(4)
    ab0, b0 = ab.copy(), b.copy()
    _, pb = cr.rrule(sl.solve_banded, (1, 1), ab, b, overwrite_ab=True, overwrite_b=True)
    pb(np.ones(4))
    np.testing.assert_array_equal(ab, ab0)
    np.testing.assert_array_equal(b, b0)
    with pytest.raises(ValueError, match=r"solve_banded: ab must have l \+ u \+ 1 = 4 rows"):
        cr.rrule(sl.solve_banded, (2, 1), ab, b)
    with pytest.raises(TypeError, match=r"solve_banded: \(l, u\) must be a pair"):
        cr.rrule(sl.solve_banded, (1.0, 1), ab, b)


def test_jax_has_no_solve_banded() -> None:
    """The jax column is n/a by SciPy's side: jax.scipy.linalg has no solve_banded."""
    jsl = pytest.importorskip("jax.scipy.linalg")
    assert not hasattr(jsl, "solve_banded")
    assert "scipy:linalg.solve_banded" in REGS


def test_det_of_float16_upcast_as_scipy() -> None:
    # SciPy's det takes float16 (computing in a wider type); NumPy's linalg and SciPy's lu_factor
    # refuse it: the rule's factorisation upcasts, the cotangent is float16
    a = np.array([[2.0, 1.0], [0.5, 3.0]], dtype=np.float16)
    y, pb = cr.rrule(sl.det, a)
    assert y == sl.det(a) and y.dtype == sl.det(a).dtype
    g = pb(np.float64(1.0))[1]
    assert g.dtype == np.float16
    np.testing.assert_array_equal(g, [[3.0, -0.5], [-1.0, 2.0]])  # adj(a)^T, exact in float16
    _, t = cr.frule((cr.NoTangent(), np.ones((2, 2), np.float16)), sl.det, a)
    assert t == 3.5  # tr(adj(a) 1) = 3 - 0.5 - 1 + 2
