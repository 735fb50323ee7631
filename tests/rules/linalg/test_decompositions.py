"""Decompositions: every registration on every backend, JAX as a reference, Hermitian inputs,
complex gauges, degenerate spectra, non-unique complements, second derivatives of cholesky."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules._util.linalg import cholesky_back, hermitian, positive_definite
from chainrules.rules.linalg import decompositions as dec
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == dec.__name__ and r.family != "callable"]
# functions that read one triangle of a Hermitian matrix: judged along Hermitian perturbations
HERMITIAN = {r.name for r in REGS if r.hermitian}


def test_registered() -> None:
    assert {
        "linalg.cholesky",
        "linalg.eigh",
        "numpy:linalg.eigh",
        "linalg.eigvalsh",
        "numpy:linalg.eigvalsh",
    } == HERMITIAN
    assert {r.name for r in REGS} == {
        "linalg.cholesky",
        "linalg.eigh",
        "numpy:linalg.eigh",
        "linalg.eigvalsh",
        "numpy:linalg.eigvalsh",
        "linalg.svd",
        "numpy:linalg.svd",
        "linalg.svdvals",
        "linalg.qr",
        "numpy:linalg.qr",
        "linalg.matrix_rank",
        "numpy:linalg.eig",
        "numpy:linalg.eigvals",
    }


def _jax_examples(reg: cr.Registration) -> list:  # type: ignore[type-arg]
    out = []
    for ex in examples_for(reg):
        x = ex.args[0]
        m, n = x.shape[-2:]
        full = ex.kwargs.get("full_matrices", ex.args[1] if len(ex.args) > 1 else True)
        if reg.name.endswith("svd") and full and m != n:
            continue  # JAX raises: not implemented for full matrices
        if x.size == 0:
            continue
        out.append(ex)
    return out


# NumPy's eig, eigvals: tested below
DIFFERENTIABLE = [
    r
    for r in REGS
    if r.name not in ("linalg.matrix_rank", "numpy:linalg.eig", "numpy:linalg.eigvals")
]


@pytest.mark.parametrize("reg", DIFFERENTIABLE, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, _jax_examples(reg), rtol=1e-8, atol=1e-10)


# ---- helpers -----------------------------------------------------------------------------------
def _herm(r: np.ndarray) -> np.ndarray:
    return (r + np.conj(np.swapaxes(r, -1, -2))) / 2


def _random(rng: np.random.Generator, shape: tuple[int, ...], cplx: bool) -> np.ndarray:
    r = rng.standard_normal(shape)
    return r + 1j * rng.standard_normal(shape) if cplx else r


def _fd(loss, x: np.ndarray, e: np.ndarray, h: float = 1e-4) -> float:  # type: ignore[no-untyped-def]
    """d/dt loss(x + t e) by the 5-point stencil."""
    return (
        loss(x - 2 * h * e) - 8 * loss(x - h * e) + 8 * loss(x + h * e) - loss(x + 2 * h * e)
    ) / (12 * h)


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """The real inner product Re <a, b> of the cotangent convention."""
    return float(np.sum(np.real(np.conj(a) * b)))


def _check_loss(f, parts_loss, x, e, rng, tol=1e-6, **kw):  # type: ignore[no-untyped-def]
    """``parts_loss(y) -> (loss value, cotangent of y)`` must be gauge-invariant; the rrule's
    <x_bar, e> and the frule's d loss must both equal finite differences along ``e``."""

    def loss(a):  # type: ignore[no-untyped-def]
        return parts_loss(f(a, **kw))[0]

    want = _fd(loss, x, e)
    y, pb = cr.rrule(f, x, **kw)
    _, y_bar = parts_loss(y)
    x_bar = pb(y_bar)[1]
    assert np.all(np.isfinite(x_bar))
    np.testing.assert_allclose(_dot(x_bar, e), want, rtol=tol, atol=tol)
    _, y_dot = cr.frule((cr.NoTangent(), e), f, x, **kw)
    parts = y_dot if not isinstance(y, tuple) else [y_dot[i] for i in range(len(y))]
    bars = y_bar if isinstance(y, tuple) else [y_bar]
    parts = parts if isinstance(y, tuple) else [parts]
    got = sum(_dot(b, d) for b, d in zip(bars, parts) if not cr.is_zero(b))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    return x_bar


# ---- Hermitian inputs: one triangle read, Hermitian cotangent ------------------------------------
def test_eigh_cotangent_is_hermitian_whichever_triangle() -> None:
    rng = np.random.default_rng(1)
    a = hermitian(rng, (2, 3, 3), cplx=True)
    y_bar = (rng.standard_normal((2, 3)), _random(rng, (2, 3, 3), True))
    full = cr.rrule(np.linalg.eigh, a)[1](y_bar)[1]
    np.testing.assert_allclose(full, np.conj(np.swapaxes(full, -1, -2)), atol=1e-14)
    # the eigenvectors' phases differ between the triangles: compare gauge-free eigenvalues
    y_bar = (y_bar[0], cr.ZeroTangent())
    lower = cr.rrule(np.linalg.eigh, a)[1](y_bar)[1]
    upper = cr.rrule(np.linalg.eigh, a, UPLO="U")[1](y_bar)[1]
    np.testing.assert_allclose(lower, upper, atol=1e-10)
    # the triangle numpy does not read is garbage: the rule still gives the Hermitian cotangent
    spd = positive_definite(rng, (3, 3))
    junk = spd + np.triu(rng.standard_normal((3, 3)), 1)
    l_bar = np.tril(rng.standard_normal((3, 3)))
    x_bar = cr.rrule(np.linalg.cholesky, junk)[1](l_bar)[1]
    np.testing.assert_allclose(x_bar, x_bar.T, atol=1e-14)
    np.testing.assert_allclose(x_bar, cr.rrule(np.linalg.cholesky, spd)[1](l_bar)[1])


# ---- complex gauges: gauge-invariant losses ----------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_complex_eigh_gauge_invariant_loss(shape) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(2)
    a = hermitian(rng, shape, cplx=True)
    c, d = rng.standard_normal(shape), rng.standard_normal(shape[:-1])

    def parts(y):  # type: ignore[no-untyped-def]
        w, v = y
        # |V_ij|^2 does not see the phase of a column
        return float(np.sum(c * np.abs(v) ** 2) + np.sum(d * w)), (d, 2 * c * v)

    _check_loss(np.linalg.eigh, parts, a, _herm(_random(rng, shape, True)), rng)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (2, 3, 5)])
def test_complex_svd_gauge_invariant_loss(shape) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    a = dec._general(rng, shape, cplx=True)
    m, n = shape[-2:]
    k = min(m, n)
    b = _random(rng, (*shape[:-2], m, n), True)
    c, e = rng.standard_normal((*shape[:-2], m, k)), rng.standard_normal((*shape[:-2], k, n))
    d = rng.standard_normal((*shape[:-2], k))

    def parts(y):  # type: ignore[no-untyped-def]
        u, s, vh = y
        val = np.sum(c * np.abs(u) ** 2) + np.sum(e * np.abs(vh) ** 2) + np.sum(d * s)
        val += np.sum(np.real(np.conj(b) * (u @ vh)))  # U Vh: a common phase cancels
        u_bar = 2 * c * u + b @ np.conj(np.swapaxes(vh, -1, -2))
        vh_bar = 2 * e * vh + np.conj(np.swapaxes(u, -1, -2)) @ b
        return float(val), (u_bar, d, vh_bar)

    _check_loss(np.linalg.svd, parts, a, _random(rng, shape, True), rng, full_matrices=False)
    _check_loss(np.linalg.svd, parts, a, _random(rng, shape, True), rng, full_matrices=False)


# ---- degenerate spectra: finite, exact for losses that do not see the rotation ------------------
def _repeated(rng: np.random.Generator, w: list[float], cplx: bool = False) -> np.ndarray:
    q, _ = np.linalg.qr(_random(rng, (len(w), len(w)), cplx))
    return _herm((q * np.asarray(w)) @ np.conj(q.T))


@pytest.mark.parametrize("cplx", [False, True])
def test_eigh_repeated_eigenvalue(cplx: bool) -> None:
    rng = np.random.default_rng(4)
    a = _repeated(rng, [1.0, 1.0, 3.0], cplx)
    with np.errstate(all="raise"):
        (w, v), pb = cr.rrule(np.linalg.eigh, a)
        # sum of eigenvalues (the trace): gradient I; sum of squares: 2 A
        np.testing.assert_allclose(pb((np.ones(3), cr.ZeroTangent()))[1], np.eye(3), atol=1e-12)
        np.testing.assert_allclose(pb((2 * w, cr.ZeroTangent()))[1], 2 * a, atol=1e-12)
        # V diag(g(w)) V^H: finite (the within-cluster g' term cannot be recovered; documented)
        c = rng.standard_normal((3, 3))
        g = np.exp(w)
        v_bar = 2 * _herm(c) @ v * g
        w_bar = np.real(np.einsum("ij,ik,kj->j", np.conj(v), _herm(c), v)) * g
        assert np.all(np.isfinite(pb((w_bar, v_bar))[1]))
        _, t = cr.frule((cr.NoTangent(), _herm(_random(rng, (3, 3), cplx))), np.linalg.eigh, a)
        assert np.all(np.isfinite(t[0])) and np.all(np.isfinite(t[1]))

    # the projector onto the repeated eigenspace is smooth: exact against finite differences
    cm = _herm(_random(rng, (3, 3), cplx))

    def parts(y):  # type: ignore[no-untyped-def]
        _, v = y
        v1 = v[:, :2]
        p = v1 @ np.conj(v1.T)
        v_bar = np.zeros_like(v)
        v_bar[:, :2] = 2 * cm @ v1
        return _dot(cm, p), (np.zeros(3), v_bar)

    _check_loss(np.linalg.eigh, parts, a, _herm(_random(rng, (3, 3), cplx)), rng)


def test_svd_repeated_and_zero_singular_values() -> None:
    rng = np.random.default_rng(5)
    u, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    v, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    a = (u[:, :3] * np.array([2.0, 2.0, 1.0])) @ v.T
    with np.errstate(all="raise"):
        (uu, _, vh), pb = cr.rrule(np.linalg.svd, a, full_matrices=False)
        # the nuclear norm: U V^H
        g = pb((cr.ZeroTangent(), np.ones(3), cr.ZeroTangent()))[1]
        np.testing.assert_allclose(g, uu @ vh, atol=1e-12)
        rank2 = (u[:, :3] * np.array([2.0, 1.0, 0.0])) @ v.T
        _, pb2 = cr.rrule(np.linalg.svd, rank2, full_matrices=False)
        c = rng.standard_normal((4, 3))
        out = pb2((c, np.ones(3), rng.standard_normal((3, 3))))[1]
        assert np.all(np.isfinite(out))
    # the polar factor U Vh is smooth at a repeated singular value: exact (the tie drops only
    # the 1 / (s_j - s_i) half of 1 / (s_j^2 - s_i^2))
    b = rng.standard_normal((4, 3))

    def parts(y):  # type: ignore[no-untyped-def]
        uu, _, vh = y
        return _dot(b, uu @ vh), (b @ vh.T, np.zeros(3), uu.T @ b)

    _check_loss(np.linalg.svd, parts, a, rng.standard_normal((4, 3)), rng, full_matrices=False)


# ---- the non-unique complement: svd(full_matrices=True) and qr(mode="complete"), m > n ----------
def test_full_svd_and_complete_qr_complement() -> None:
    rng = np.random.default_rng(6)
    a = dec._general(rng, (5, 3))
    c1, c2 = rng.standard_normal((5, 3)), _herm(rng.standard_normal((5, 5)))
    d, e = rng.standard_normal(3), rng.standard_normal((3, 3))

    def svd_parts(y):  # type: ignore[no-untyped-def]
        u, s, vh = y
        u1, u2 = u[:, :3], u[:, 3:]
        val = _dot(c1, u1) + _dot(c2, u2 @ u2.T) + _dot(d, s) + _dot(e, vh)
        return val, (np.concatenate([c1, 2 * c2 @ u2], axis=1), d, e)

    _check_loss(np.linalg.svd, svd_parts, a, rng.standard_normal((5, 3)), rng)
    _check_loss(np.linalg.svd, svd_parts, a, rng.standard_normal((5, 3)), rng, full_matrices=True)
    r_bar = np.triu(rng.standard_normal((5, 3)))

    def qr_parts(y):  # type: ignore[no-untyped-def]
        q, r = y
        q1, q2 = q[:, :3], q[:, 3:]
        val = _dot(c1, q1) + _dot(c2, q2 @ q2.T) + _dot(r_bar, r)
        return val, (np.concatenate([c1, 2 * c2 @ q2], axis=1), r_bar)

    _check_loss(np.linalg.qr, qr_parts, a, rng.standard_normal((5, 3)), rng, mode="complete")
    # the wide transpose of the same (the standard's names, on a stack)
    w = np.stack([a.T, a.T + 0.1])
    _, pb = cr.rrule(np.linalg.svd, w)
    assert pb((cr.ZeroTangent(), np.ones((2, 3)), cr.ZeroTangent()))[1].shape == (2, 3, 5)


# ---- second derivatives: cholesky's pullback differentiated by JAX -------------------------------
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_pullback_is_differentiable_again(upper: bool, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    import jax

    jnp = jax_numpy
    rng = np.random.default_rng(7)
    a = positive_definite(rng, (2, 3, 3))
    l_bar = rng.standard_normal((2, 3, 3))
    c = rng.standard_normal((2, 3, 3))

    def g(x, lb):  # type: ignore[no-untyped-def]
        _, pb = cr.rrule(jnp.linalg.cholesky, x, upper=upper)
        return jnp.sum(jnp.asarray(c) * pb(lb)[1])

    def g_np(x, lb):  # type: ignore[no-untyped-def]
        _, pb = cr.rrule(np.linalg.cholesky, x, upper=upper)
        return float(np.sum(c * pb(lb)[1]))

    ga, gl = jax.jit(jax.grad(g, argnums=(0, 1)))(jnp.asarray(a), jnp.asarray(l_bar))
    e, f = _herm(rng.standard_normal((2, 3, 3))), rng.standard_normal((2, 3, 3))
    np.testing.assert_allclose(
        _dot(np.asarray(ga), e), _fd(lambda x: g_np(x, l_bar), a, e), rtol=1e-6
    )
    np.testing.assert_allclose(
        _dot(np.asarray(gl), f), _fd(lambda lb: g_np(a, lb), l_bar, f), rtol=1e-6, atol=1e-9
    )

    # and the same as JAX's own second derivative of its cholesky
    def h(x, lb):  # type: ignore[no-untyped-def]
        _, vjp = jax.vjp(lambda y: jnp.linalg.cholesky(y, upper=upper), x)
        return jnp.sum(jnp.asarray(c) * vjp(lb)[0])

    # JAX symmetrises its input and gives the (symmetric) cotangent of its own convention
    ha = jax.grad(h)(jnp.asarray(a), jnp.asarray(l_bar))
    np.testing.assert_allclose(_dot(np.asarray(ha), e), _dot(np.asarray(ga), e), rtol=1e-8)


def test_cholesky_back_is_the_pullback() -> None:
    rng = np.random.default_rng(8)
    a = positive_definite(rng, (3, 3), cplx=True)
    lb = _random(rng, (3, 3), True)
    y, pb = cr.rrule(np.linalg.cholesky, a)
    np.testing.assert_allclose(pb(lb)[1], cholesky_back(y, lb))


@pytest.mark.parametrize("cplx", [False, True])
def test_cholesky_upper_of_a_matrix_not_hermitian_is_the_librarys_own(cplx: bool) -> None:
    """``upper=True`` reads the upper triangle, as NumPy's and torch's own ``cholesky`` do
    (LAPACK's 'U'); array-api-compat's wrapper transposed the factor of the lower triangle, a
    value 0.25 away from NumPy's for a matrix whose triangles differ (found by a complex probe of
    the registry's examples)."""
    import array_api_compat.torch as tx
    import torch

    rng = np.random.default_rng(10)
    a = positive_definite(rng, (2, 3, 3), cplx=cplx)
    a[..., 0, 2] += 0.5  # the triangles differ
    for upper in (False, True):
        y, _ = cr.rrule(np.linalg.cholesky, a, upper=upper)
        np.testing.assert_allclose(y, np.linalg.cholesky(a, upper=upper), rtol=1e-12, atol=1e-14)
        t = torch.from_numpy(a)
        yt, _ = cr.rrule(tx.linalg.cholesky, t, upper=upper)
        want = torch.linalg.cholesky(t, upper=upper)
        torch.testing.assert_close(yt, want, rtol=1e-12, atol=1e-14)


# ---- NumPy's extra modes ----------------------------------------------------------------------
def test_numpy_svd_hermitian_and_qr_r() -> None:
    rng = np.random.default_rng(9)
    a = hermitian(rng, (3, 3))
    d = rng.standard_normal(3)

    def parts(y):  # type: ignore[no-untyped-def]
        return _dot(d, y), d

    e = _herm(rng.standard_normal((3, 3)))
    x_bar = _check_loss(np.linalg.svd, parts, a, e, rng, compute_uv=False, hermitian=True)
    np.testing.assert_allclose(x_bar, x_bar.T, atol=1e-14)
    r_bar = rng.standard_normal((2, 2))

    def r_parts(r):  # type: ignore[no-untyped-def]
        return _dot(r_bar, r), r_bar

    m = rng.standard_normal((3, 2))
    _check_loss(np.linalg.qr, r_parts, m, rng.standard_normal((3, 2)), rng, mode="r")


# ---- zero-size, errors ------------------------------------------------------------------------
def test_zero_size() -> None:
    for f, x, kw in (
        (np.linalg.eigh, np.zeros((2, 0, 0)), {}),
        (np.linalg.svd, np.zeros((3, 0)), {"full_matrices": False}),
        (np.linalg.qr, np.zeros((0, 2)), {}),
        (np.linalg.eigvalsh, np.zeros((0, 0)), {}),
    ):
        y, pb = cr.rrule(f, x, **kw)
        bar = tuple(np.ones_like(p) for p in y) if isinstance(y, tuple) else np.ones_like(y)
        assert pb(bar)[1].shape == x.shape


def test_bad_input() -> None:
    with pytest.raises(ValueError, match=r"linalg.cholesky: expected .* square .* \(2, 3\)"):
        cr.rrule(np.linalg.cholesky, np.ones((2, 3)))
    with pytest.raises(ValueError, match="mode='raw'"):
        cr.rrule(np.linalg.qr, np.ones((3, 2)), mode="raw")
    with pytest.raises(ValueError, match="UPLO"):
        cr.rrule(np.linalg.eigh, np.eye(2), UPLO="X")
    _, pb = cr.rrule(np.linalg.eigh, np.eye(2))
    with pytest.raises(ValueError, match=r"\(3,\) does not match .* \(2,\)"):
        pb((np.ones(3), np.ones((2, 2))))
    with pytest.raises(TypeError, match="out="):
        cr.rrule(np.linalg.svd, np.eye(2), out=np.eye(2))


def test_matrix_rank_is_non_differentiable() -> None:
    y, pb = cr.rrule(np.linalg.matrix_rank, np.eye(3))
    assert int(y) == 3
    assert pb(cr.ZeroTangent()) == (cr.NoTangent(), cr.NoTangent())


def test_complex_eigh_and_svd_agree_with_jax(jax_numpy) -> None:  # type: ignore[no-untyped-def]
    """Complex eigenvectors and singular vectors: NumPy and JAX call the same LAPACK, so the
    gauges match and whole pullbacks (not only gauge-invariant ones) can be compared."""
    from chainrules.testing import check_agrees_with_jax

    rng = np.random.default_rng(10)
    jnp = jax_numpy
    check_agrees_with_jax(
        np.linalg.eigh, hermitian(rng, (2, 3, 3), cplx=True), f_jax=jnp.linalg.eigh, rtol=1e-8
    )
    for shape in ((3, 3), (2, 4, 3), (3, 5)):
        check_agrees_with_jax(
            np.linalg.svd,
            dec._general(rng, shape, cplx=True),
            f_jax=jnp.linalg.svd,
            fkwargs={"full_matrices": False},
            rtol=1e-8,
            atol=1e-10,
        )


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.linalg.decompositions")


def test_named_tuple_cotangents_by_field() -> None:
    """A Tangent with named fields, or the result's own named tuple, is read by field."""
    a = np.random.default_rng(0).standard_normal((3, 3))
    s = a @ a.T + 3 * np.eye(3)
    y, pb = cr.rrule(np.linalg.eigh, s)
    by_name = pb(cr.Tangent(eigenvalues=np.ones(3)))[1]
    np.testing.assert_allclose(by_name, pb(type(y)(np.ones(3), np.zeros((3, 3))))[1])
    np.testing.assert_allclose(by_name, np.eye(3), atol=1e-12)  # d(sum w)/dS = I
    _, pb = cr.rrule(np.linalg.slogdet, s)
    np.testing.assert_allclose(pb(cr.Tangent(logabsdet=1.0))[1], np.linalg.inv(s), atol=1e-12)


def test_qr_at_a_rank_deficient_matrix_names_the_rule() -> None:
    # Q has no derivative below full rank (no finite limit): the backend's LinAlgError, named
    x = np.array([[1.0, 0.0], [1.0, 0.0]])  # R[1, 1] is exactly 0
    y, pb = cr.rrule(np.linalg.qr, x)
    y_bar = cr.Tangent(np.ones((2, 2)), np.ones((2, 2)), primal_type=type(y))
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.qr: the derivative needs R\^-1"):
        cr.unthunk(pb(y_bar)[1])
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.qr: .* singular"):
        cr.frule((cr.NoTangent(), np.ones((2, 2))), np.linalg.qr, x)


@pytest.mark.parametrize("kind", ["int", "bool", "float"])
def test_svdvals_primal_is_numpys_to_the_last_bit(kind: str) -> None:
    # LAPACK's SVD without vectors differs from the one with them in the last bits
    x = np.random.default_rng(5).standard_normal((4, 3)) * 3
    x = {"int": np.round(x).astype(np.int64), "bool": x > 0, "float": x}[kind]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        s, _ = cr.rrule(np.linalg.svdvals, x)
    # an integer or boolean matrix has no tangent space, and rrule says so
    assert [type(w.message) for w in record] == [cr.IntegerArgumentWarning] * (kind != "float")
    want = np.linalg.svdvals(x)
    assert s.dtype == want.dtype
    np.testing.assert_array_equal(s, want)
    s2, _ = cr.frule((cr.NoTangent(), np.ones(x.shape)), np.linalg.svdvals, x)
    np.testing.assert_array_equal(s2, want)


# ---- NumPy's eig, eigvals ---------------------------------------------------------------------
NP_RNG = np.random.default_rng(11)


def test_eig_phase_dependent_loss_matches_lapack_gauge(fd_grad) -> None:  # type: ignore[no-untyped-def]
    # Re(sum(c * V)) depends on the eigenvectors' phases: the rule fixes LAPACK's gauge
    a = NP_RNG.standard_normal((3, 3)) + 1j * NP_RNG.standard_normal((3, 3)) + np.diag([0, 3, 6])
    _, v = np.linalg.eig(a)
    c = NP_RNG.standard_normal(v.shape) + 1j * NP_RNG.standard_normal(v.shape)
    _, pb = cr.rrule(np.linalg.eig, a)
    got = pb(cr.Tangent(cr.ZeroTangent(), c))[1]

    def loss(m: np.ndarray) -> float:
        return float(np.sum(np.real(np.conj(c) * np.linalg.eig(m)[1])))

    np.testing.assert_allclose(got, fd_grad(loss, a), rtol=1e-6, atol=1e-7)


def test_eigvals_primal_is_numpys() -> None:
    a = NP_RNG.standard_normal((4, 4))
    y, _ = cr.rrule(np.linalg.eigvals, a)
    np.testing.assert_allclose(y, np.linalg.eigvals(a), rtol=1e-12)


def test_eigvals_gradient_of_trace_on_jax() -> None:
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    jax.config.update("jax_enable_x64", True)
    a = jnp.asarray(NP_RNG.standard_normal((3, 3)) + np.diag([0.0, 2.0, 4.0]))
    _, pb = cr.rrule(jnp.linalg.eigvals, a)
    g = pb(jnp.ones(3, dtype=jnp.complex128))[1]
    # sum of the eigenvalues is the trace: its gradient is the identity
    np.testing.assert_allclose(np.asarray(g), np.eye(3), atol=1e-10)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("fn", [np.linalg.eigh, np.linalg.eigvalsh], ids=["eigh", "eigvalsh"])
def test_eigh_hessian_with_uplo(fn, uplo: str) -> None:  # type: ignore[no-untyped-def]
    """Campaign seeds 4725 and 4793: the Hessian through NumPy's eigh/eigvalsh raised
    "linalg.eigh: got an unexpected keyword argument 'UPLO'": the rule passed UPLO= on to its
    namespace's eigh, which the standard's namespaces (the engine's traced one among them) do
    not take. The rule now reads the upper triangle as the lower one of x^H. The primal is
    NumPy's for a non-symmetric input; the Hessian of a loss of the eigenvalues of (t + t^T)/2
    equals central differences of the gradient."""
    from chainrules import ad

    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 3)) + np.diag([0.0, 2.0, 5.0])  # distinct eigenvalues
    got, want = cr.rrule(fn, a, uplo)[0], fn(a, uplo)
    got, want = (got[0], want[0]) if isinstance(want, tuple) else (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

    def loss(t: object) -> object:
        y = fn((t + np.swapaxes(t, -1, -2)) / 2, uplo)
        vals = y[0] if isinstance(y, tuple) else y
        return np.sum(np.sin(vals) * np.arange(1.0, 4.0))

    hess = np.asarray(ad.hessian(loss)(a)).reshape(9, 9)

    def grad(x: object) -> object:
        return np.asarray(ad.grad(loss)(x)).ravel()

    h = 1e-5
    steps = np.eye(9).reshape(9, 3, 3)
    fd = np.stack([(grad(a + h * e) - grad(a - h * e)) / (2 * h) for e in steps], axis=1)
    np.testing.assert_allclose(hess, fd, atol=1e-6)
