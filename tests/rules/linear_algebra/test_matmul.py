"""``matmul`` and ``matrix_transpose`` (the standard's and the ``linalg`` extension's) and NumPy's
``matvec`` and ``vecmat``: the tester on every backend, JAX as a reference, exact conventions
(also of the products together: zero sizes, errors, chunks), and second derivatives (the pullbacks
are built from functions with rules)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.linear_algebra import matmul
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == matmul.__name__]
NAMES = {r.name for r in REGS}
RNG = np.random.default_rng(7)


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def _c(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def test_registered() -> None:
    assert {"matmul", "matrix_transpose", "linalg.matmul", "linalg.matrix_transpose"} <= NAMES
    assert {"numpy:matvec", "numpy:vecmat"} <= NAMES


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


# ---- conventions, exact values -----------------------------------------------------------------
def test_matmul_promotes_vectors_and_sums_broadcast_batches(forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    a, b = _r(3), _r(3, 2)
    yb = _r(2)
    _, ab, bb = forced_cotangents(np.matmul, a, b, y_bar=yb)
    np.testing.assert_allclose(ab, b @ yb)
    np.testing.assert_allclose(bb, np.outer(a, yb))
    # a (2, 2, 3) stack against one (3, 4) matrix: B's cotangent sums over the stack
    a, b, yb = _r(2, 2, 3), _r(3, 4), _r(2, 2, 4)
    _, ab, bb = forced_cotangents(np.matmul, a, b, y_bar=yb)
    np.testing.assert_allclose(ab, yb @ b.T)
    np.testing.assert_allclose(bb, sum(a[i].T @ yb[i] for i in range(2)))
    # batch axes broadcast both ways: (2, 1, m, n) @ (3, n, p)
    a, b, yb = _r(2, 1, 2, 3), _r(3, 3, 2), _r(2, 3, 2, 2)
    _, ab, bb = forced_cotangents(np.matmul, a, b, y_bar=yb)
    np.testing.assert_allclose(ab, (yb @ np.swapaxes(b, -1, -2)).sum(1, keepdims=True))
    np.testing.assert_allclose(bb, (np.swapaxes(a, -1, -2) @ yb).sum(0))


def test_complex_cotangents_use_the_conjugate_transpose(forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    a, b, yb = _c(2, 3), _c(3, 2), _c(2, 2)
    _, ab, bb = forced_cotangents(np.matmul, a, b, y_bar=yb)
    np.testing.assert_allclose(ab, yb @ b.conj().T)
    np.testing.assert_allclose(bb, a.conj().T @ yb)
    # a real operand meeting a complex one gets the real part
    ar = _r(2, 3)
    _, ab, _ = forced_cotangents(np.matmul, ar, b, y_bar=yb)
    assert ab.dtype == np.float64
    np.testing.assert_allclose(ab, (yb @ b.conj().T).real)


def test_zero_size_and_zero_d(forced_cotangents) -> None:  # type: ignore[no-untyped-def]
    _, ab, bb = forced_cotangents(np.matmul, _r(2, 0), _r(0, 3))
    assert ab.shape == (2, 0) and bb.shape == (0, 3)
    _, ab, bb = forced_cotangents(np.matmul, _r(0, 3), _r(3, 2))
    assert ab.shape == (0, 3) and bb.tolist() == np.zeros((3, 2)).tolist()
    # dot and einsum with 0-d operands are products
    s, v = np.float64(2.0), _r(3)
    _, gs, gv = forced_cotangents(np.dot, s, v, y_bar=np.ones(3))
    assert gs.shape == () and np.isclose(gs, v.sum()) and np.allclose(gv, 2.0)
    _, _, gs, gv = forced_cotangents(np.einsum, ",i->i", np.asarray(s), v, y_bar=np.ones(3))
    assert gs.shape == () and np.isclose(gs, v.sum()) and np.allclose(gv, 2.0)
    _, _, g = forced_cotangents(np.einsum, "->", np.asarray(3.0), y_bar=np.float64(5.0))
    assert float(g) == 5.0


def test_errors_name_the_function_and_the_shapes(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    a, b = _r(2, 3), _r(3, 4)
    with pytest.raises(ValueError, match=r"cotangent of shape \(2, 3\) does not match .*\(2, 4\)"):
        forced_rrule(np.matmul, a, b)[1](np.ones((2, 3)))
    with pytest.raises(TypeError, match="out= is not supported"):
        forced_rrule(np.dot, a, b, out=np.empty((2, 4)))
    with pytest.raises(ValueError, match="einsum: subscripts"):
        forced_rrule(np.einsum, "ij,jk->ik", a)
    with pytest.raises(ValueError, match="matmul: operands must have rank >= 1"):
        forced_rrule(np.matmul, np.float64(2.0), a)
    with pytest.raises(ValueError, match="tensordot: contracted axes"):
        forced_rrule(np.tensordot, a, b, axes=((0,), (0,)))


def test_chunked_tangents_keep_the_chunk_axes_in_front() -> None:
    # a vector against a stack: the chunk axis must not meet the stack's batch axis
    a, b = _r(3), _r(4, 3, 2)
    ta, tb = _r(5, 3), _r(5, 4, 3, 2)
    _, yd = cr.frule((cr.NoTangent(), ta, tb), np.matmul, a, b)
    assert yd.shape == (5, 4, 2)
    want = np.stack([ta[k] @ b + a @ tb[k] for k in range(5)])
    np.testing.assert_allclose(yd, want)
    _, yd = cr.frule((cr.NoTangent(), None, ta, tb), np.einsum, "i,bij->bj", a, b)
    np.testing.assert_allclose(yd, want)


# ---- second derivatives: the pullbacks' building blocks have rules ------------------------------
def test_matmul_pullback_building_blocks() -> None:
    """``A_bar = y_bar @ B^H``, ``B_bar = A^H @ y_bar``: matmul, matrix_transpose and conj, each
    checked at the pullback's own arguments."""
    a, b, yb = _c(2, 3), _c(3, 4), _c(2, 4)
    bt = np.matrix_transpose(b)
    test_rrule(np.matrix_transpose, b)
    test_frule(np.matrix_transpose, b)
    test_rrule(np.conj, bt)
    test_frule(np.conj, bt)
    test_rrule(np.matmul, yb, bt.conj())
    test_frule(np.matmul, yb, bt.conj())
    test_rrule(np.matmul, np.matrix_transpose(a).conj(), yb)
    test_frule(np.matmul, np.matrix_transpose(a).conj(), yb)
    # batched and broadcast: the cotangent of the broadcast operand is a sum
    a, b, yb = _r(2, 2, 3), _r(3, 4), _r(2, 2, 4)
    test_rrule(np.matmul, np.matrix_transpose(a), yb)
    test_rrule(np.sum, np.matrix_transpose(a) @ yb, axis=(0,))


def _fd_jvp(f, args, dirs, h=1e-6):  # type: ignore[no-untyped-def]
    plus = f(*[a + h * d for a, d in zip(args, dirs)])
    minus = f(*[a - h * d for a, d in zip(args, dirs)])
    return [(np.asarray(p) - np.asarray(m)) / (2 * h) for p, m in zip(plus, minus)]


@pytest.mark.parametrize(
    ("f", "shapes"),
    [
        (np.matmul, [(2, 3), (3, 4), (2, 4)]),
        (np.matmul, [(2, 2, 3), (3, 4), (2, 2, 4)]),
        (np.matmul, [(3,), (3, 2), (2,)]),
        ("ij,jk->ik", [(2, 3), (3, 4), (2, 4)]),
        ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2), (2, 2)]),
        ("ii,j->ij", [(3, 3), (2,), (3, 2)]),
    ],
    ids=["matmul", "matmul-batched", "matmul-vector", "einsum", "einsum-3", "einsum-diag"],
)
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
def test_pullback_is_smooth_jax_code(forced_rrule, f, shapes, cplx, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    """The pullback as a function of (operands, y_bar), run on jax.numpy arrays: jax.jvp (and,
    for real inputs, jax.jacfwd and jax.vjp) through it equal its finite differences -- smooth
    code with no host reads, so engines can take second derivatives."""
    import jax

    jnp = jax_numpy
    rng = np.random.default_rng(1)
    draw = (
        (lambda s: rng.standard_normal(s) + 1j * rng.standard_normal(s))
        if cplx
        else (lambda s: rng.standard_normal(s))
    )
    vals = [draw(s) for s in shapes]
    fn = f if callable(f) else jnp.einsum
    lead = () if callable(f) else (f,)
    jfn = getattr(jnp, fn.__name__) if callable(f) else fn

    def pullback(*xs):  # type: ignore[no-untyped-def]
        *ops, yb = xs
        _, pb = forced_rrule(
            jfn,
            *lead,
            *ops,
        )
        return tuple(pb(yb)[1 + len(lead) :])

    args = [jnp.asarray(v) for v in vals]
    dirs = [jnp.asarray(draw(s)) for s in shapes]
    _, tangent_out = jax.jvp(pullback, tuple(args), tuple(dirs))
    fd = _fd_jvp(pullback, args, dirs)
    for got, want in zip(tangent_out, fd):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-8)
    if cplx:
        return
    jac = jax.jacfwd(pullback, argnums=tuple(range(len(args))))(*args)
    # column by column: the jacobian applied to the directions is the jvp
    for i, out_jac in enumerate(jac):
        applied = sum(
            np.tensordot(np.asarray(j), np.asarray(d), axes=np.ndim(d))
            for j, d in zip(out_jac, dirs)
        )
        np.testing.assert_allclose(applied, fd[i], rtol=1e-6, atol=1e-8)
    # vjp: <w, J v> = <J^T w, v>
    outs, vjp = jax.vjp(pullback, *args)
    ws = tuple(jnp.asarray(rng.standard_normal(np.shape(o))) for o in outs)
    back = vjp(ws)
    lhs = sum(float(np.vdot(np.asarray(w), want)) for w, want in zip(ws, fd))
    rhs = sum(float(np.vdot(np.asarray(b), np.asarray(d))) for b, d in zip(back, dirs))
    assert np.isclose(lhs, rhs, rtol=1e-6, atol=1e-8)


def test_pullback_runs_under_jit_of_jacfwd(forced_rrule, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    """No host reads: the second derivative of matmul traces inside jax.jit."""
    import jax

    jnp = jax_numpy
    a, b, yb = (jnp.asarray(_r(*s)) for s in [(2, 3), (3, 4), (2, 4)])

    def pullback(a, b, yb):  # type: ignore[no-untyped-def]
        return forced_rrule(jnp.matmul, a, b)[1](yb)[1]

    jac = jax.jit(jax.jacfwd(pullback, argnums=1))(a, b, yb)
    # A_bar[i, k] = sum_j y_bar[i, j] B[k, j]:  d A_bar[i, k] / d B[p, q] = y_bar[i, q] [k == p]
    want = np.einsum("iq,kp->ikpq", np.asarray(yb), np.eye(3))
    np.testing.assert_allclose(np.asarray(jac), want, atol=1e-12)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.linear_algebra.matmul")


# ---- matvec, vecmat ---------------------------------------------------------------------------
def test_matvec_vecmat_against_numpy(forced_rrule) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    v = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    w = rng.standard_normal(2) + 1j * rng.standard_normal(2)
    y, pb = forced_rrule(np.matvec, a, v)
    np.testing.assert_allclose(y, a @ v)
    g = rng.standard_normal(2) + 1j * rng.standard_normal(2)
    _, a_bar, v_bar = pb(g)
    np.testing.assert_allclose(a_bar, np.outer(g, np.conj(v)))
    np.testing.assert_allclose(v_bar, np.conj(a).T @ g)
    y, pb = forced_rrule(np.vecmat, w, a)
    np.testing.assert_allclose(y, np.conj(w) @ a)
    h = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    _, w_bar, a_bar = pb(h)
    np.testing.assert_allclose(w_bar, a @ np.conj(h))
    np.testing.assert_allclose(a_bar, np.outer(w, h))
    with pytest.raises(ValueError, match="matvec"):
        forced_rrule(np.matvec, np.ones(3), np.ones(3))


# ---- a chunk of mat-vecs is one matrix product (issue 14: Jacobians of B @ x) ------------------
@pytest.mark.parametrize(
    "shapes",
    [((4, 3), (3,)), ((3,), (3, 4)), ((4, 3), (2, 3, 1)), ((2, 1, 3), (3, 4))],
    ids=["matvec", "vecmat", "column-stack", "row-stack"],
)
def test_chunked_matvecs_are_one_matrix_product(shapes, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With a chunk of k tangents (cotangents) of the vector operand, ``matmul`` of a stack of
    mat-vecs runs k products that each read the whole matrix; the frule and the chunked pullback
    fold the stack into one GEMM. Checked by spying on ``xp.matmul``: no product the rule makes
    has the chunk as a batch axis, and the results equal one call per tangent."""
    from chainrules.core.namespaces import namespace_of

    a, b = _r(*shapes[0]), _r(*shapes[1])
    xp = namespace_of(a)
    calls: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    real = xp.matmul

    def spy(x1, x2, /):  # type: ignore[no-untyped-def]
        calls.append((tuple(x1.shape), tuple(x2.shape)))
        return real(x1, x2)

    k, y = 5, a @ b
    vec_a = a.ndim == 1 or a.shape[-2] == 1  # the traced operand is the vector (row) one
    ta = _r(k, *a.shape) if vec_a else None
    tb = None if vec_a else _r(k, *b.shape)
    yb = _r(k, *y.shape)
    monkeypatch.setattr(xp, "matmul", spy)
    zero = cr.ZeroTangent()
    _, yd = cr.frule(
        (cr.NoTangent(), zero if ta is None else ta, zero if tb is None else tb), np.matmul, a, b
    )
    _, pb = cr.rrule(np.matmul, a, b)
    bars = pb(yb, chunk=1)  # type: ignore[call-arg]  # one leading chunk axis
    got = cr.unthunk(bars[1 if vec_a else 2])
    monkeypatch.setattr(xp, "matmul", real)
    # two primals, the pushforward, the cotangent asked for; the rrule's primal of matrices and
    # vectors is the NumPy method's np.matmul, which the spy does not see
    assert len(calls) == (3 if max(a.ndim, b.ndim) <= 2 else 4), calls
    assert not any(len(s) > 2 and s[0] == k for c in calls for s in c), calls
    dots = [ta[i] @ b if vec_a else a @ tb[i] for i in range(k)]  # type: ignore[index]
    np.testing.assert_allclose(yd, np.stack(dots))
    want = [pb(yb[i])[1 if vec_a else 2] for i in range(k)]
    np.testing.assert_allclose(got, np.stack([cr.unthunk(w) for w in want]))


@pytest.mark.parametrize("name", ["matvec", "vecmat"])
def test_chunked_gufunc_tangents_are_one_matrix_product(name, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``np.matvec(A, v)`` / ``np.vecmat(v, A)`` with a chunk of tangents of ``v``: one GEMM
    (``xp.matmul`` of 2-D operands) in place of the gufunc's loop, equal to one call per
    tangent (complex: ``vecmat`` conjugates the vector)."""
    from chainrules.core.namespaces import namespace_of

    a, v = _c(4, 3), _c(3) if name == "matvec" else _c(4)
    tv = _c(5, *v.shape)
    xp, f = namespace_of(a), getattr(np, name)
    args = (a, v) if name == "matvec" else (v, a)
    calls: list[tuple[int, ...]] = []
    real = xp.matmul

    def spy(x1, x2, /):  # type: ignore[no-untyped-def]
        calls.append((x1.ndim, x2.ndim))
        return real(x1, x2)

    monkeypatch.setattr(xp, "matmul", spy)
    z = cr.ZeroTangent()
    _, yd = cr.frule(
        (cr.NoTangent(), z, tv) if name == "matvec" else (cr.NoTangent(), tv, z), f, *args
    )
    monkeypatch.setattr(xp, "matmul", real)
    assert calls == [(2, 2)]
    want = [f(a, t) if name == "matvec" else f(t, a) for t in tv]
    np.testing.assert_allclose(yd, np.stack(want))


@pytest.mark.parametrize(
    "form", ["array", "numpy scalar", "thunk of an array", "thunk of a scalar", "float"]
)
@pytest.mark.parametrize("shapes", [((5,), (5,)), ((5,), (5, 3)), ((4, 5), (5,))])
def test_numpys_method_takes_scalar_and_thunk_cotangents(shapes, form, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """matmul's NumPy method keeps its pullback for the cotangents an engine passes: a NumPy
    scalar (NumPy's product of two vectors is one, and so is arithmetic on it) and a ``Thunk``
    (an operand cotangent of the next product, unforced) -- the generic pullback, built only for
    other cotangents, is not built for these (a Python float goes to it); the cotangents equal
    the generic path's."""
    from chainrules.core.specialise import generic_only

    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(s) for s in shapes)
    y, pb = cr.rrule(np.matmul, a, b)
    v = rng.standard_normal(np.shape(y))
    g = {
        "array": np.asarray(v),
        "numpy scalar": np.float64(v) if np.ndim(v) == 0 else np.asarray(v),
        "thunk of an array": cr.Thunk(lambda: np.asarray(v)),
        "thunk of a scalar": cr.Thunk(lambda: np.float64(v) if np.ndim(v) == 0 else v),
        "float": float(v) if np.ndim(v) == 0 else np.asarray(v),
    }[form]
    with generic_only():
        _, want_pb = cr.rrule(np.matmul, a, b)
        want = [cr.unthunk(c) for c in want_pb(cr.unthunk(g))[1:]]
    built = []
    generic = matmul._matmul_pullback
    monkeypatch.setattr(matmul, "_matmul_pullback", lambda *args: built.append(1) or generic(*args))
    got = [cr.unthunk(c) for c in pb(g)[1:]]
    for w, c in zip(want, got, strict=True):
        np.testing.assert_allclose(c, w, rtol=1e-14)
    assert built == ([1] if form == "float" and np.ndim(v) == 0 else [])
