"""Norms: every ord on every backend, JAX as a reference, ties and zeros, second derivatives."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.linalg import norms
from chainrules.rules.linalg.norms import norm2_back
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == norms.__name__ and r.family != "callable"]
INF = math.inf


def test_registered() -> None:
    assert {r.name for r in REGS} >= {
        "linalg.vector_norm",
        "linalg.matrix_norm",
        "numpy:linalg.norm",
    }


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    # ord=0 counts non-zeros: JAX differentiates it as a sum of zeros too, nothing to compare
    examples = [ex for ex in examples_for(reg) if ex.kwargs.get("ord") != 0]
    assert_agrees_with_jax(reg, examples, rtol=1e-8, atol=1e-10)


# ---- conventions: ties and zeros ----------------------------------------------------------------
def _grad(f, *args, **kw):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args, **kw)
    return pb(np.ones(np.shape(y)))[1]


def test_inf_norm_splits_ties_equally() -> None:
    x = np.array([1.0, -3.0, 2.0, 3.0])
    want = [0.0, -0.5, 0.0, 0.5]
    assert _grad(np.linalg.norm, x, ord=INF).tolist() == want
    assert _grad(np.linalg.vector_norm, x, ord=INF).tolist() == want
    assert _grad(np.linalg.norm, np.array([1.0, -1.0, 3.0]), ord=-INF).tolist() == [0.5, -0.5, 0.0]


VECTOR_ORDS = [2, 1, INF, -INF, 0, 3, 0.5, -1.5]
MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, INF, -INF]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_every_vector_norm_is_zero_at_zero(ord) -> None:  # type: ignore[no-untyped-def]
    for f in (np.linalg.vector_norm, np.linalg.norm):
        # NumPy's own primal warns for a negative ord at 0 (0 ** -1.5); the rule must not
        with np.errstate(divide="ignore"):
            y, pb = cr.rrule(f, np.zeros(4), ord=ord)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            g = pb(np.ones(np.shape(y)))[1]
        assert cr.is_zero(g) or np.array_equal(g, np.zeros(4)), (f, ord, g)
        with np.errstate(divide="ignore"):
            _, y_dot = cr.frule((cr.NoTangent(), np.ones(4)), f, np.zeros(4), ord=ord)
        assert cr.is_zero(y_dot) or float(y_dot) == 0.0


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_every_matrix_norm_is_zero_at_zero(ord) -> None:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f in (np.linalg.matrix_norm, np.linalg.norm):
            g = _grad(f, np.zeros((3, 2)), ord=ord)
            assert np.array_equal(g, np.zeros((3, 2))), (f, ord, g)


def test_spectral_norm_ties_split_equally() -> None:
    # the identity has every singular value tied at 1: the cotangent is I / 3
    g = _grad(np.linalg.matrix_norm, np.eye(3), ord=2)
    np.testing.assert_allclose(g, np.eye(3) / 3, atol=1e-12)
    g = _grad(np.linalg.norm, np.eye(3), ord="nuc")
    np.testing.assert_allclose(g, np.eye(3), atol=1e-12)


def test_column_and_row_sum_norms_split_ties() -> None:
    m = np.array([[1.0, -2.0], [2.0, 1.0]])  # column sums 3, 3; row sums 3, 3
    assert _grad(np.linalg.norm, m, ord=1).tolist() == [[0.5, -0.5], [0.5, 0.5]]
    assert _grad(np.linalg.norm, m, ord=INF).tolist() == [[0.5, -0.5], [0.5, 0.5]]


def test_bad_input() -> None:
    with pytest.raises(ValueError, match=r"cotangent of shape \(2,\) does not match .* \(\)"):
        cr.rrule(np.linalg.norm, np.ones(3))[1](np.ones(2))
    with pytest.raises(ValueError, match="rank >= 2"):
        cr.rrule(np.linalg.matrix_norm, np.ones(3))
    with pytest.raises(TypeError, match="at most 4 positional"):
        cr.rrule(np.linalg.norm, np.ones(3), 2, None, False, 5)


# ---- second derivatives: the 2-norm's pullback is a function with rules ------------------------
def test_two_norm_pullback_is_differentiable_again() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    _, pb = cr.rrule(np.linalg.vector_norm, x, axis=1)
    y_bar = rng.standard_normal(3)
    np.testing.assert_allclose(pb(y_bar)[1], norm2_back(x, y_bar, axis=(1,)))
    # its rrule and frule, against finite differences: the rrule of the pullback
    test_rrule(norm2_back, x, y_bar, 1)
    test_frule(norm2_back, x, y_bar, 1)
    test_rrule(norm2_back, rng.standard_normal(5), 1.5)
    test_rrule(
        norm2_back,
        rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)),
        rng.standard_normal(2),
        1,
    )
    test_rrule(norm2_back, x, rng.standard_normal((1, 4)), 0, True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("shape", [(7,), (3, 5)])
@pytest.mark.parametrize("kind", ["float", "scalar", "0-d"])
def test_two_norm_numpy_method_is_norm2_back(
    dtype: type, shape: tuple[int, ...], kind: str
) -> None:
    """The NumPy method of the 2-norm's pullback over every axis (``norms._norm2_bar``) gives
    ``norm2_back``'s array bit for bit, for NumPy's default norm and the standard's 2-norm; a
    cotangent of another dtype, a norm over some axes or kept axes, and a zero, infinite or NaN
    norm decline to it."""
    from chainrules.core.specialise import record_methods
    from chainrules.rules.linalg.norms import _norm2_bar, _norm2_bar_numpy

    x = np.random.default_rng(4).standard_normal(shape).astype(dtype)
    y_bar = {"float": 1.7, "scalar": dtype(1.7), "0-d": np.asarray(1.7, dtype)}[kind]
    for f in (np.linalg.norm, np.linalg.vector_norm):
        with record_methods() as used:
            y, pb = cr.rrule(f, x)
            got = pb(y_bar)[1]
        assert _norm2_bar in used
        want = norm2_back(x, y_bar, axis=tuple(range(x.ndim)), keepdims=False, norm=y)
        assert got.dtype == want.dtype == x.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    other = np.float32 if dtype is np.float64 else np.float64
    declined = [(x, y, np.asarray(1.7, other), None)]
    if x.ndim > 1:  # a norm over some axes: an array, not a NumPy scalar
        declined.append((x, np.linalg.norm(x, axis=0), y_bar, 0))
    declined.append((x, np.linalg.norm(x, keepdims=True), y_bar, None))
    declined += [(x, dtype(bad), y_bar, None) for bad in (0.0, np.inf, np.nan)]
    declined.append((x.astype(np.complex128), np.float64(y), 1.7, None))
    declined.append((x, y, np.ones(2, dtype), None))
    for x_, y_, y_bar_, axis in declined:
        assert _norm2_bar_numpy(x_, y_bar_, axis, y_) is NotImplemented


_FRO = [
    (np.linalg.matrix_norm, {}),
    (np.linalg.matrix_norm, {"ord": "fro", "keepdims": True}),
    (np.linalg.norm, {"ord": "fro"}),
    (np.linalg.norm, {}),
]


@pytest.mark.parametrize(("f", "kw"), _FRO)
def test_frobenius_norm_is_the_two_norm(f, kw) -> None:  # type: ignore[no-untyped-def]
    """'fro' is the 2-norm of the matrix's entries: the same pullback (``norm2_back``, so it is
    differentiable again), and at infinite entries the same limit -- ``sign(x) / sqrt(k)`` at
    the ``k`` infinite entries, where ``matrix_norm`` and ``norm(ord='fro')`` gave NaN and a
    warning before."""
    x = np.random.default_rng(5).standard_normal((2, 3, 4))[0]
    y, pb = cr.rrule(f, x, **kw)
    y_bar = 1.5 * np.ones(np.shape(y))
    want = norm2_back(x, y_bar, (0, 1), bool(kw.get("keepdims")))
    np.testing.assert_allclose(pb(y_bar)[1], want, rtol=1e-15)
    _, y_dot = cr.frule((cr.NoTangent(), x), f, x, **kw)
    np.testing.assert_allclose(y_dot, y, rtol=1e-14)  # along x itself: d||x|| = ||x||
    big = np.array([[INF, 1.0, -2.0], [3.0, -INF, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y, pb = cr.rrule(f, big, **kw)
        g = pb(2.0 * np.ones(np.shape(y)))[1]
        _, y_dot = cr.frule((cr.NoTangent(), np.eye(2, 3) * [[1.0], [-1.0]]), f, big, **kw)
    np.testing.assert_array_equal(g, 2.0 * np.array([[_R2, 0, 0], [0, -_R2, 0]]))
    assert np.all(y_dot == 2 * _R2)  # along the infinite entries' signs: 1/sqrt(2) each


def test_frobenius_norm_has_second_derivatives() -> None:
    """The Hessian of the Frobenius norm of a batch of matrices, through the engine: the
    pullback's own rules, ``(I - G G^T) / ||x||`` per matrix."""
    from chainrules import ad

    x = np.random.default_rng(6).standard_normal((2, 2, 3))
    h = ad.hessian(lambda v: np.sum(np.linalg.matrix_norm(v) ** 2 + np.linalg.matrix_norm(v)))(x)
    want = np.zeros((2, 6, 2, 6))
    for b in range(2):
        v = x[b].ravel()
        r = np.linalg.norm(v)
        want[b, :, b, :] = 2 * np.eye(6) + (np.eye(6) - np.outer(v, v) / r**2) / r
    np.testing.assert_allclose(h.reshape(2, 6, 2, 6), want, rtol=1e-12, atol=1e-12)


def test_two_norm_pullback_at_zero_is_zero() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, pb = cr.rrule(norm2_back, np.zeros(3), 1.0)
        x_bar, y_bar_bar = pb(np.ones(3))[1:]
        assert np.array_equal(x_bar, np.zeros(3)) and float(y_bar_bar) == 0.0


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.linalg.norms")


# --- infinite entries: the gradient is the limit, never NaN (issue 15, point 6) -----------------
_R2 = 2**-0.5  # k**(1/p - 1) at k = 2, p = 2
_INF_CASES = [
    # (x, ord, gradient): ord 2 and p > 0 give sign * k**(1/p - 1) at the k infinite entries and
    # the limit (|x| / y)**(p - 1) elsewhere (0 for p > 1, inf for p < 1); the inf-norm splits
    # equally among them; the 1-norm is sign(x); -inf and p < 0 ignore the infinite entries
    ([math.inf, 1.0, -2.0], 2, [1.0, 0.0, -0.0]),
    ([math.inf, -math.inf, 1.0], 2, [_R2, -_R2, 0.0]),
    ([math.inf, -math.inf, 1.0], math.inf, [0.5, -0.5, 0.0]),
    ([-math.inf, 1.0, -2.0], math.inf, [-1.0, 0.0, 0.0]),
    ([math.inf, -math.inf, 1.0], 1, [1.0, -1.0, 1.0]),
    ([math.inf, -math.inf, 1.0], 3, [2 ** (-2 / 3), -(2 ** (-2 / 3)), 0.0]),
    ([math.inf, -math.inf, 1.0], 0.5, [2.0, -2.0, math.inf]),
    ([math.inf, 1.0, -2.0], -math.inf, [0.0, 1.0, 0.0]),
]


@pytest.mark.parametrize(("x", "ord", "expected"), _INF_CASES)
def test_vector_norm_at_inf_is_the_limit(x: list[float], ord: float, expected: list[float]) -> None:
    x_ = np.array(x)
    y, pb = cr.rrule(np.linalg.vector_norm, x_, ord=ord)
    assert y == np.linalg.vector_norm(x_, ord=ord)
    for y_bar in (1.0, -2.5):
        np.testing.assert_array_equal(pb(np.array(y_bar))[1], y_bar * np.array(expected))
    # the pushforward along each basis vector gives the same gradient
    for i in range(3):
        e = np.zeros(3)
        e[i] = 1.0
        _, y_dot = cr.frule((cr.NoTangent(), e), np.linalg.vector_norm, x_, ord=ord)
        assert y_dot == expected[i]


def test_vector_norm_at_inf_by_rows_and_nan_stays_nan() -> None:
    x = np.array([[math.inf, 3.0, 4.0], [0.0, 3.0, 4.0], [math.inf, math.nan, 1.0]])
    _, pb = cr.rrule(np.linalg.vector_norm, x, axis=1)
    g = pb(np.ones(3))[1]
    np.testing.assert_array_equal(g[0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(g[1], [0.0, 0.6, 0.8], rtol=1e-15)
    assert np.isnan(g[2]).all()  # the norm is NaN: no limit


def test_two_norm_second_order_at_inf_is_the_limit() -> None:
    # the Hessian (I - G G^T) / ||x|| tends to 0; d(norm2_back)/d y_bar is G itself
    x = np.array([math.inf, -math.inf, 1.0])
    z, pb = cr.rrule(norm2_back, x, np.array(2.0))
    np.testing.assert_array_equal(z, [2 * _R2, -2 * _R2, 0.0])
    x_bar, y_bar_bar = pb(np.array([1.0, 3.0, 5.0]))[1:]
    np.testing.assert_array_equal(x_bar, np.zeros(3))
    assert y_bar_bar == _R2 * 1.0 - _R2 * 3.0
    _, z_dot = cr.frule((cr.NoTangent(), np.ones(3), np.array(1.0)), norm2_back, x, np.array(2.0))
    np.testing.assert_array_equal(z_dot, [_R2, -_R2, 0.0])


def test_two_norm_takes_the_axes_its_library_takes() -> None:
    """A list of axes where the library's own ``vector_norm`` takes one (torch's): the same
    cotangent as the tuple's."""
    torch = pytest.importorskip("torch")
    ct = pytest.importorskip("array_api_compat.torch")
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    y_bar = torch.randn(3, dtype=torch.float64)
    got = [cr.rrule(ct.linalg.vector_norm, x, axis=ax)[1](y_bar)[1] for ax in ([0, 2], (0, 2))]
    torch.testing.assert_close(got[0], got[1], rtol=0, atol=0)
    want = x * (y_bar / torch.linalg.vector_norm(x, dim=(0, 2)))[None, :, None]
    torch.testing.assert_close(got[0], want, rtol=1e-14, atol=0)
