"""Solvers and determinants: every registration on every backend, JAX as a reference, singular
matrices, the vector/matrix rule of ``solve``, broadcasting, ``n = 0``, rank-preserving ``pinv``,
and second derivatives of the ``solve`` and ``inv`` pullbacks."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util.adjugate import adjugate
from chainrules.rules.linalg import solvers
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

ALL = [r for r in cr.registrations() if r.module == solvers.__name__ and r.family != "callable"]
NAMES = {  # compared with JAX (NumPy's tensorsolve and tensorinv: below)
    "linalg.solve",
    "linalg.inv",
    "linalg.det",
    "linalg.slogdet",
    "linalg.matrix_power",
}
REGS = [r for r in ALL if r.name in NAMES]
RNG = np.random.default_rng(7)


def _well(n: int, *batch: int, cplx: bool = False) -> np.ndarray:
    a = RNG.standard_normal((*batch, n, n)) * 0.3
    if cplx:
        a = a + 1j * RNG.standard_normal((*batch, n, n)) * 0.3
    return a + 2 * np.eye(n)


def test_registered() -> None:
    assert {r.name for r in ALL} == NAMES | {
        "numpy:linalg.tensorsolve",
        "numpy:linalg.tensorinv",
        "numpy:linalg.cond",
    }


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    examples = examples_for(reg)
    if reg.name == "linalg.det":  # JAX's own det derivative fails on 0x0 (an IndexError in jax)
        examples = [ex for ex in examples if np.size(ex.args[0])]
    assert_agrees_with_jax(reg, examples, rtol=1e-8, atol=1e-10)


# ---- solve: the vector rule, broadcasting, singular matrices -----------------------------------
def test_solve_vector_only_when_b_is_1d(forced_rrule, pull) -> None:  # type: ignore[no-untyped-def]
    a = _well(3, 2)
    b = RNG.standard_normal(3)
    y, (_, a_bar, b_bar) = pull(np.linalg.solve, a, b)
    assert y.shape == (2, 3) and a_bar.shape == (2, 3, 3) and b_bar.shape == (3,)
    # the same numbers as the (3, 1) matrix form, with the stack summed back onto b
    ym, (_, am, bm) = pull(np.linalg.solve, a, b[:, None], y_bar=np.ones((2, 3, 1)))
    np.testing.assert_allclose(y, ym[..., 0], rtol=1e-13)
    np.testing.assert_allclose(a_bar, am, rtol=1e-13)
    np.testing.assert_allclose(b_bar, bm[:, 0], rtol=1e-13)
    # a (2, 3) b against a stack of two 3x3 matrices is a matrix, as in NumPy 2: NumPy refuses it
    with pytest.raises(ValueError):
        forced_rrule(np.linalg.solve, a, RNG.standard_normal((2, 3)))


def test_solve_cotangent_of_broadcast_operand_is_summed_back(pull) -> None:  # type: ignore[no-untyped-def]
    a = _well(3)
    b = RNG.standard_normal((4, 3, 2))
    y_bar = RNG.standard_normal((4, 3, 2))
    _, (_, a_bar, b_bar) = pull(np.linalg.solve, a, b, y_bar=y_bar)
    want = sum(pull(np.linalg.solve, a, b[k], y_bar=y_bar[k])[1][1] for k in range(4))
    np.testing.assert_allclose(a_bar, want, rtol=1e-12)
    np.testing.assert_allclose(b_bar, np.linalg.solve(a.T, y_bar), rtol=1e-12)
    # and the other way round: a stack (2, 1) of matrices against b's stack (3,)
    a2, b2 = _well(3, 2, 1), RNG.standard_normal((3, 3, 2))
    y, (_, a2_bar, b2_bar) = pull(np.linalg.solve, a2, b2)
    assert y.shape == (2, 3, 3, 2) and a2_bar.shape == a2.shape and b2_bar.shape == b2.shape


def test_solve_formula_exact(pull) -> None:  # type: ignore[no-untyped-def]
    a, b = _well(4, cplx=True), RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))
    y_bar = RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))
    y, (_, a_bar, b_bar) = pull(np.linalg.solve, a, b, y_bar=y_bar)
    want_b = np.linalg.solve(a.conj().T, y_bar)
    np.testing.assert_allclose(b_bar, want_b, rtol=1e-12)
    np.testing.assert_allclose(a_bar, -want_b @ y.conj().T, rtol=1e-12)


@pytest.mark.parametrize("f", [np.linalg.solve, np.linalg.inv], ids=["solve", "inv"])
def test_singular_matrix_raises_the_backends_error(forced_rrule, f) -> None:  # type: ignore[no-untyped-def]
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    args = (a, np.ones(2)) if f is np.linalg.solve else (a,)
    with pytest.raises(np.linalg.LinAlgError):
        f(*args)
    with pytest.raises(np.linalg.LinAlgError):
        forced_rrule(f, *args)
    with pytest.raises(np.linalg.LinAlgError):
        cr.frule((cr.NoTangent(), *(np.ones_like(v) for v in args)), f, *args)


def test_real_matrix_complex_rhs_gives_real_cotangent(pull) -> None:  # type: ignore[no-untyped-def]
    a, b = _well(3), RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
    _, (_, a_bar, b_bar) = pull(np.linalg.solve, a, b, y_bar=np.ones(3) + 0.5j)
    assert a_bar.dtype == np.float64 and b_bar.dtype == np.complex128
    test_rrule(np.linalg.solve, a, b)


# ---- det: finite and exact at singular matrices ------------------------------------------------
def _cofactor(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix (adj(a)^T) from the definition: signed minors."""
    n = a.shape[-1]
    c = np.empty_like(a)
    for i, j in itertools.product(range(n), range(n)):
        minor = np.delete(np.delete(a, i, axis=0), j, axis=1)
        c[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return c


def test_det_gradient_is_the_cofactor_matrix_also_when_singular(pull) -> None:  # type: ignore[no-untyped-def]
    a = RNG.standard_normal((4, 4))
    singular = a.copy()
    singular[3] = singular[0] - singular[1]  # rank 3: cofactor rank 1, not zero
    rank2 = RNG.standard_normal((4, 2)) @ RNG.standard_normal((2, 4))  # rank 2: cofactor 0
    for m in (a, singular, rank2):
        with np.errstate(all="raise"):
            y, (_, g) = pull(np.linalg.det, m, y_bar=np.float64(1.5))
        np.testing.assert_allclose(g, 1.5 * _cofactor(m), atol=1e-12 * max(1, abs(y)))
    assert np.abs(_cofactor(singular)).max() > 0.1  # not trivially zero
    np.testing.assert_allclose(pull(np.linalg.det, rank2)[1][1], 0, atol=1e-12)
    # forward mode: tr(adj(A) dA); on the singular matrix, along the direction that fixes it
    d = np.zeros((4, 4))
    d[3] = 1.0
    _, y_dot = cr.frule((cr.NoTangent(), d), np.linalg.det, singular)
    np.testing.assert_allclose(y_dot, np.sum(_cofactor(singular) * d), rtol=1e-10)


def test_adjugate_complex_and_batched() -> None:
    a = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3))
    want = np.linalg.det(a)[:, None, None] * np.linalg.inv(a)
    np.testing.assert_allclose(adjugate(a), want, rtol=1e-10)
    with pytest.raises(ValueError, match="rank >= 2"):
        adjugate(np.ones(3))


def _ranked(rank: int, n: int = 3, cplx: bool = False) -> np.ndarray:
    rng = np.random.default_rng(rank)

    def r(*s: int) -> np.ndarray:
        return rng.standard_normal(s) + (1j * rng.standard_normal(s) if cplx else 0)

    return r(n, rank) @ r(rank, n)


@pytest.mark.parametrize("rank", [3, 2, 1, 0])
@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("tester", [test_rrule, test_frule])
def test_adjugate_rules_at_singular_matrices(rank: int, cplx: bool, tester: Any) -> None:
    # adj is a polynomial: smooth at every rank, so finite differences judge it everywhere
    tester(adjugate, _ranked(rank, cplx=cplx), scalar_free=False, jit=False)


@pytest.mark.parametrize("rank", [3, 2, 1, 0])
def test_det_hessian_at_singular_matrices(rank: int) -> None:
    """issue 26 (campaign seed 8707, det -> gamma): det's pullback is ``adjugate(x)^H``, which
    chainrules.ad differentiated through the SVD -- whose derivative divides by the gaps between
    singular values, two of them zero at a rank-1 3x3 matrix: a Hessian off by 0.4, no error.
    The adjugate now has rules of its own (exact at every rank: the test above). SciPy's det
    shares it, but chainrules.ad cannot run its primal on a traced array (it calls
    ``np.asarray``: a TypeError), so only NumPy's det is differentiated twice here."""
    from chainrules import ad
    from chainrules.testing import central_difference

    f = np.linalg.det
    x = _ranked(rank)
    v = np.random.default_rng(9).standard_normal((3, 3))
    h = np.asarray(ad.hessian(lambda a: f(a))(x)).reshape(9, 9)
    g = ad.grad(lambda a: f(a))
    fd = central_difference(lambda t: np.asarray(g(x + t * v)), 1e-3)
    np.testing.assert_allclose(h @ v.ravel(), np.real(fd).ravel(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(h, h.T, atol=1e-12)


def test_det_of_empty_matrix(pull) -> None:  # type: ignore[no-untyped-def]
    y, (_, g) = pull(np.linalg.det, np.zeros((2, 0, 0)))
    assert y.tolist() == [1.0, 1.0] and g.shape == (2, 0, 0)


# ---- slogdet: the real sign carries nothing ----------------------------------------------------
def test_slogdet_real_sign_cotangent_contributes_nothing(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    a = _well(3) * np.array([[1.0], [-1.0], [1.0]])
    (sign, _), pb = forced_rrule(np.linalg.slogdet, a)
    assert sign == -1.0
    _, g = pb(cr.Tangent(np.float64(5.0), cr.ZeroTangent()))
    assert cr.is_zero(g)
    _, g = pb(cr.Tangent(np.float64(5.0), np.float64(2.0)))
    np.testing.assert_allclose(g, 2.0 * np.linalg.inv(a).T, rtol=1e-12)
    _, g2 = pb((cr.ZeroTangent(), np.float64(2.0)))  # a plain tuple works too
    np.testing.assert_allclose(g, g2, rtol=0)
    _, t = cr.frule((cr.NoTangent(), np.ones((3, 3))), np.linalg.slogdet, a)
    assert cr.is_zero(t[0]) and t[1].dtype == np.float64


def test_slogdet_complex_sign_moves_on_the_circle() -> None:
    a = _well(3, cplx=True)
    d = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    (sign, _), t = cr.frule((cr.NoTangent(), d), np.linalg.slogdet, a)
    h = 1e-6
    s_p, _ = np.linalg.slogdet(a + h * d)
    s_m, _ = np.linalg.slogdet(a - h * d)
    np.testing.assert_allclose(t[0], (s_p - s_m) / (2 * h), rtol=1e-6)
    assert abs(np.real(np.conj(sign) * t[0])) < 1e-12  # tangent to the unit circle


def test_slogdet_bad_cotangent(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    _, pb = forced_rrule(np.linalg.slogdet, _well(3))
    with pytest.raises(ValueError, match=r"\(2,\).*\(\)"):
        pb(cr.Tangent(np.zeros(2), np.zeros(2)))
    with pytest.raises(TypeError, match="Tangent or a tuple"):
        pb(np.zeros(()))


# ---- matrix_power ------------------------------------------------------------------------------
def test_matrix_power_zero_is_identity_and_no_flow(pull) -> None:  # type: ignore[no-untyped-def]
    a = _well(3, 2)
    y, (_, g, n_bar) = pull(np.linalg.matrix_power, a, 0)
    np.testing.assert_array_equal(y, np.broadcast_to(np.eye(3), (2, 3, 3)))
    assert cr.is_zero(g) and isinstance(n_bar, cr.NoTangent)
    _, t = cr.frule((cr.NoTangent(), np.ones_like(a), cr.NoTangent()), np.linalg.matrix_power, a, 0)
    assert cr.is_zero(t)


@pytest.mark.parametrize("n", [2, 3, 6, 7, 8, 13, -1, -4, -5])
def test_matrix_power_against_the_sum_formula(forced_rrule, pull, n: int) -> None:  # type: ignore[no-untyped-def]
    a = _well(3) / 2
    y_bar = RNG.standard_normal((3, 3))
    _, (_, g, _) = pull(np.linalg.matrix_power, a, n, y_bar=y_bar)
    b = a if n > 0 else np.linalg.inv(a)
    m = abs(n)
    pw = [np.linalg.matrix_power(b.T, k) for k in range(m)]
    want = sum(pw[k] @ y_bar @ pw[m - 1 - k] for k in range(m))
    if n < 0:
        want = -b.T @ want @ b.T
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        forced_rrule(np.linalg.matrix_power, a, n)[0], np.linalg.matrix_power(a, n), rtol=1e-12
    )


def test_matrix_power_rejects_non_integer_n(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match="integer"):
        forced_rrule(np.linalg.matrix_power, _well(2), 2.0)
    with pytest.raises(TypeError, match="integer"):
        forced_rrule(np.linalg.matrix_power, _well(2), True)


# ---- second derivatives: the solve and inv pullbacks ------------------------------------------
@pytest.mark.parametrize("kind", ["matrix", "vector", "one-vector"])
def test_solve_pullback_is_differentiable_by_jax(forced_rrule, kind: str, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    import jax

    jnp = jax_numpy
    if kind == "one-vector":  # one matrix, one vector: the outer-product path
        a0, b0, y_bar0 = _well(3), RNG.standard_normal(3), RNG.standard_normal(3)
    else:
        vec = kind == "vector"
        a0, b0 = _well(3, 2), RNG.standard_normal(3 if vec else (2, 3, 2))
        y_bar0 = RNG.standard_normal((2, 3) if vec else (2, 3, 2))
    wa, wb = RNG.standard_normal(a0.shape), RNG.standard_normal(b0.shape)

    def g(a, b, y_bar):  # type: ignore[no-untyped-def]
        _, pb = forced_rrule(jnp.linalg.solve, a, b)
        _, a_bar, b_bar = pb(y_bar)
        return jnp.sum(a_bar * wa) + jnp.sum(b_bar * wb)

    args = [jnp.asarray(v) for v in (a0, b0, y_bar0)]
    grads = jax.grad(g, argnums=(0, 1, 2))(*args)
    grads_jit = jax.jit(jax.grad(g, argnums=(0, 1, 2)))(*args)
    h = 1e-6
    for i, (gr, gj) in enumerate(zip(grads, grads_jit)):
        np.testing.assert_allclose(np.asarray(gj), np.asarray(gr), rtol=1e-10)
        d = RNG.standard_normal(args[i].shape)
        plus, minus = list(args), list(args)
        plus[i], minus[i] = args[i] + h * d, args[i] - h * d
        fd = (float(g(*plus)) - float(g(*minus))) / (2 * h)
        np.testing.assert_allclose(float(jnp.sum(gr * d)), fd, rtol=1e-6, atol=1e-8)


def test_inv_pullback_is_differentiable_by_jax(forced_rrule, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    import jax

    jnp = jax_numpy
    a0 = _well(3, 2, cplx=True)
    y_bar0 = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3))
    w = RNG.standard_normal(a0.shape) + 1j * RNG.standard_normal(a0.shape)

    def g(a, y_bar):  # type: ignore[no-untyped-def]
        _, pb = forced_rrule(jnp.linalg.inv, a)
        return jnp.real(jnp.sum(pb(y_bar)[1] * w))

    args = [jnp.asarray(a0), jnp.asarray(y_bar0)]
    grads = jax.jit(jax.grad(g, argnums=(0, 1)))(*args)
    h = 1e-6
    for i, gr in enumerate(grads):
        d = RNG.standard_normal(a0.shape) + 1j * RNG.standard_normal(a0.shape)
        plus, minus = list(args), list(args)
        plus[i], minus[i] = args[i] + h * d, args[i] - h * d
        fd = (float(g(*plus)) - float(g(*minus))) / (2 * h)
        # JAX's gradient of a real loss is the conjugate of ours: <conj(gr), d> in our terms
        got = float(np.real(np.sum(np.asarray(gr) * d)))
        np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


def _blocks() -> list[tuple[str, object, tuple[object, ...], dict[str, object]]]:
    a, b = _well(3, 2), RNG.standard_normal((2, 3, 2))
    c = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
    return [
        ("linalg.solve", np.linalg.solve, (a, b), {}),
        ("linalg.inv", np.linalg.inv, (a,), {}),
        ("matmul", np.matmul, (a, b), {}),
        ("matrix_transpose", np.matrix_transpose, (b,), {}),
        ("conj", np.conj, (c,), {}),
        ("multiply", np.multiply, (c[..., :1], c[:1]), {}),
        ("negative", np.negative, (b,), {}),
        ("expand_dims", np.expand_dims, (c,), {"axis": -1}),
        ("squeeze", np.squeeze, (b[..., :1],), {"axis": -1}),
        ("sum", np.sum, (b,), {"axis": 0}),
    ]


@pytest.mark.parametrize(("name", "f", "args", "kw"), _blocks(), ids=[b[0] for b in _blocks()])
def test_pullback_building_blocks_have_rules(name, f, args, kw) -> None:  # type: ignore[no-untyped-def]
    """Every function the solve and inv pullbacks call passes test_rrule (and test_frule)."""
    if cr.find_rrule(f) is None:
        pytest.skip(f"no rule for {name} registered yet (another module's)")
    test_rrule(f, *args, scalar_free=False, jit=False, **kw)
    test_frule(f, *args, scalar_free=False, jit=False, **kw)


# ---- contract odds and ends --------------------------------------------------------------------
def test_float32_stays_float32_and_inputs_untouched(forced_rrule, pull) -> None:  # type: ignore[no-untyped-def]
    a = _well(3).astype(np.float32)
    b = RNG.standard_normal(3).astype(np.float32)
    a.flags.writeable = b.flags.writeable = False
    _, (_, a_bar, b_bar) = pull(np.linalg.solve, a, b, y_bar=np.ones(3, np.float32))
    assert a_bar.dtype == b_bar.dtype == np.float32
    for f in (np.linalg.inv, np.linalg.det, np.linalg.pinv):
        y, pb = forced_rrule(f, a)
        assert pb(np.ones(np.shape(y), np.float32))[1].dtype == np.float32


def test_wrong_cotangent_shape_names_both(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    _, pb = forced_rrule(np.linalg.solve, _well(3), np.ones(3))
    with pytest.raises(ValueError, match=r"\(4,\).*\(3,\)"):
        pb(np.ones(4))
    with pytest.raises(ValueError, match="rank >= 2"):
        forced_rrule(np.linalg.solve, np.ones(3), np.ones(3))


def test_chunk_axes_must_agree_in_solve() -> None:
    a, b = _well(3), np.ones((3, 2))
    with pytest.raises(ValueError, match="chunk"):
        cr.frule((cr.NoTangent(), np.ones((2, 3, 3)), np.ones((2, 2, 3, 2))), np.linalg.solve, a, b)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.linalg.solvers")


def test_slogdet_at_a_singular_matrix_names_the_rule() -> None:
    # log|det| -> -inf and A^-H has no finite limit: the backend's LinAlgError, named
    x = np.array([[1.0, 2.0], [2.0, 4.0]])
    y, pb = cr.rrule(np.linalg.slogdet, x)
    y_bar = cr.Tangent(cr.ZeroTangent(), np.ones(()), primal_type=type(y))
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.slogdet: the derivative of log"):
        cr.unthunk(pb(y_bar))
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.slogdet: .* singular"):
        cr.frule((cr.NoTangent(), np.ones((2, 2))), np.linalg.slogdet, x)


# ---- NumPy's tensorsolve, tensorinv ------------------------------------------------------------
NP_RNG = np.random.default_rng(11)


def test_tensorsolve_axes_and_tensorinv(fd_grad) -> None:  # type: ignore[no-untyped-def]
    a = NP_RNG.standard_normal((2, 2, 2, 2)) + 3 * np.eye(4).reshape(2, 2, 2, 2)
    b = NP_RNG.standard_normal((2, 2))
    y, pb = cr.rrule(np.linalg.tensorsolve, a, b, (0,))
    np.testing.assert_allclose(y, np.linalg.tensorsolve(a, b, (0,)), rtol=1e-12)
    c = NP_RNG.standard_normal(y.shape)
    got = cr.unthunk(pb(c)[1])

    def loss(m: np.ndarray) -> float:
        return float(np.sum(c * np.linalg.tensorsolve(m, b, (0,))))

    np.testing.assert_allclose(got, fd_grad(loss, a), rtol=1e-6, atol=1e-7)
    yi, _ = cr.rrule(np.linalg.tensorinv, a.reshape(4, 2, 2), ind=1)
    np.testing.assert_allclose(yi, np.linalg.tensorinv(a.reshape(4, 2, 2), ind=1))


# ---- NumPy's cond ----------------------------------------------------------------------------
@pytest.mark.parametrize("p", [None, -2, "fro", 1, np.inf])
def test_cond_primal_is_numpys(p) -> None:  # type: ignore[no-untyped-def]
    a = NP_RNG.standard_normal((3, 3)) + 2 * np.eye(3)
    y, pb = cr.rrule(np.linalg.cond, a, p)
    assert y == np.linalg.cond(a, p)
    assert pb(1.0)[1].shape == (3, 3)


@pytest.mark.parametrize(("p", "want"), [(None, [1.0, -2.0]), (2, [1.0, -2.0]), (-2, [-0.25, 0.5])])
def test_cond_gradient_at_tiny_singular_values(p, want) -> None:  # type: ignore[no-untyped-def]
    # cond = s_max / s_min at diag(2, 1) * 1e-300: d cond / d s = (1/s_min, -s_max/s_min^2)
    # = (1e300, -2e300), finite, where s_min^2 underflows (it gave NaN); p=-2: its inverse
    y, pb = cr.rrule(np.linalg.cond, np.diag([2e-300, 1e-300]), p)
    assert y == np.linalg.cond(np.diag([2e-300, 1e-300]), p)
    np.testing.assert_allclose(np.diag(pb(1.0)[1]), np.array(want) * 1e300, rtol=1e-14)
    # cond is scale-free: its gradient at c a is the gradient at a over c
    a = NP_RNG.standard_normal((3, 3)) + 2 * np.eye(3)
    g = cr.rrule(np.linalg.cond, a, p)[1](1.0)[1]
    np.testing.assert_allclose(cr.rrule(np.linalg.cond, a * 1e-300, p)[1](1.0)[1], g * 1e300)


@pytest.mark.parametrize("a_moves", [False, True], ids=["b-only", "both"])
@pytest.mark.parametrize(
    "b_shape", [(1, 3, 2), (3, 2), (2, 1, 3, 2)], ids=["narrower", "matrix", "wider"]
)
def test_solve_frule_with_a_right_hand_side_of_other_batch_axes(
    b_shape: tuple[int, ...], a_moves: bool
) -> None:
    """Campaign seeds 4292, 4615, 5586: the pushforward of linalg.solve with a stack A (2, 3, 3)
    and a right-hand side whose batch axes broadcast against A's but are narrower ((1, 3, 2))
    raised "operands could not be broadcast together with remapped shapes": the shared _solve
    took b's batch axes for the result's. Both operands are now broadcast to their common batch
    axes. The tangent equals central differences, for narrower, 2-D and wider right-hand sides,
    with A's tangent zero (the campaign's case) or not."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal(b_shape)
    da = rng.standard_normal(a.shape) if a_moves else np.zeros(a.shape)
    db = rng.standard_normal(b.shape)
    y, y_dot = cr.frule((None, da if a_moves else cr.ZeroTangent(), db), np.linalg.solve, a, b)
    np.testing.assert_array_equal(y, np.linalg.solve(a, b))
    h = 1e-6
    fd = (np.linalg.solve(a + h * da, b + h * db) - np.linalg.solve(a - h * da, b - h * db)) / (
        2 * h
    )
    np.testing.assert_allclose(y_dot, fd, rtol=1e-6, atol=1e-8)
