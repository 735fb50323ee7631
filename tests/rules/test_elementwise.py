"""Every elementwise rule: the tester on every backend, JAX as a reference, the conventions."""

from __future__ import annotations

import math
import operator
import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given

import chainrules as cr
from chainrules.rules import elementwise as _elementwise_module
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.backends import BACKENDS
from chainrules.testing.strategies import elementwise_args
from chainrules.testing.suite import rule_tests

# the elementwise functions of the standard with a derivative (issue 2's list) ...
DIFFERENTIABLE = """abs acos acosh add asin asinh atan atan2 atanh conj copysign cos cosh divide exp
expm1 hypot imag log log1p log2 log10 logaddexp maximum minimum multiply negative positive pow
real reciprocal sin sinh sqrt square subtract tan tanh clip nextafter remainder""".split()
# ... and those without one (zero derivative or no tangent space)
NON_DIFFERENTIABLE = """bitwise_and bitwise_left_shift bitwise_invert bitwise_or
bitwise_right_shift bitwise_xor ceil equal floor floor_divide greater greater_equal isfinite isinf
isnan less less_equal logical_and logical_not logical_or logical_xor not_equal round sign signbit
trunc""".split()
NUMPY_NAMES = """absolute arccos arccosh arcsin arcsinh arctan arctan2 arctanh conjugate power
true_divide fabs exp2 cbrt deg2rad rad2deg degrees radians fmax fmin fmod mod logaddexp2 sinc
float_power around rint fix invert bitwise_not left_shift right_shift isneginf isposinf isreal
iscomplex isclose""".split()

ELEMENTWISE = [r for r in cr.registrations() if r.module == _elementwise_module.__name__]


def test_every_standard_elementwise_function_has_both_rules() -> None:
    names = {r.name: r for r in ELEMENTWISE}
    missing = [n for n in DIFFERENTIABLE + NON_DIFFERENTIABLE if n not in names]
    assert not missing, f"no rule for {missing}"
    assert not [n for n in names if n in DIFFERENTIABLE and names[n].frule is None]
    missing_np = [n for n in NUMPY_NAMES if f"numpy:{n}" not in names]
    assert not missing_np, f"no rule for NumPy's {missing_np}"


# ---- JAX as a reference ---------------------------------------------------------------------


# functions whose derivative JAX does not implement: strict xfails, so a JAX that adds one is seen
JAX_HAS_NO_DERIVATIVE = {"nextafter"}


def _jax_cases() -> list:  # type: ignore[type-arg]
    cases = []
    for r in ELEMENTWISE:
        if r.non_differentiable:
            continue
        marks = []
        if r.name in JAX_HAS_NO_DERIVATIVE:
            marks.append(
                pytest.mark.xfail(
                    raises=NotImplementedError, strict=True, reason="JAX has no derivative rule"
                )
            )
        cases.append(pytest.param(r, id=r.name, marks=marks))
    return cases


@pytest.mark.parametrize("reg", _jax_cases())
def test_agrees_with_jax(reg: cr.Registration, jax_numpy) -> None:  # type: ignore[no-untyped-def]
    """Our NumPy cotangents equal JAX's derivative of the same function at random points.

    JAX's cotangent of a complex input is the conjugate of ours: ``x_bar = conj(vjp(conj(y_bar)))``.
    """
    import jax

    jf = BACKENDS["jax"].function(reg)
    npf = BACKENDS["numpy"].function(reg)
    if jf is None or npf is None:
        pytest.skip(f"{reg.name} is not in both jax.numpy and numpy")
    rng = np.random.default_rng(1)
    for ex in examples_for(reg):
        if any(type(a) in (int, float, complex, bool) for a in ex.args):
            continue
        diff = [i for i, a in enumerate(ex.args) if np.asarray(a).dtype.kind in "fc"]
        if not diff:
            continue
        y, pullback = cr.rrule(npf, *ex.args)
        if np.asarray(y).dtype.kind not in "fc":
            continue
        y_bar = rng.standard_normal(np.shape(y))
        if np.iscomplexobj(y):
            y_bar = y_bar + 1j * rng.standard_normal(np.shape(y))
        ours = pullback(y_bar)

        def f_diff(*dargs, ex=ex, diff=diff):  # type: ignore[no-untyped-def]
            args = list(map(jax_numpy.asarray, ex.args))
            for i, a in zip(diff, dargs):
                args[i] = a
            return jf(*args)

        _, jvjp = jax.vjp(f_diff, *(jax_numpy.asarray(ex.args[i]) for i in diff))
        theirs = jvjp(jax_numpy.asarray(np.conj(y_bar)))
        for i, t in zip(diff, theirs):
            want = np.conj(np.asarray(t))
            if reg.name == "sign" and ex.complex:
                # JAX takes sign's derivative to be 0 also for complex z, where z/|z| is smooth;
                # ours is the true derivative (checked against finite differences elsewhere)
                assert np.all(want == 0)
                assert not np.allclose(ours[1 + i], 0)
                continue
            got = np.asarray(ours[1 + i]) if not cr.is_zero(ours[1 + i]) else np.zeros_like(want)
            np.testing.assert_allclose(
                got, want, rtol=1e-10, atol=1e-12, err_msg=f"{reg.name} argument {i} ({ex.note})"
            )


# ---- conventions at ties and kinks ----------------------------------------------------------


def _grads(f, *args):  # type: ignore[no-untyped-def]
    y, pb = cr.rrule(f, *args)
    return pb(np.ones(np.shape(y)))[1:]


def test_maximum_minimum_split_ties_equally() -> None:
    x, y = np.array([1.0, 3.0, 2.0]), np.array([2.0, 3.0, 1.0])
    gx, gy = _grads(np.maximum, x, y)
    assert np.array_equal(gx, [0.0, 0.5, 1.0]) and np.array_equal(gy, [1.0, 0.5, 0.0])
    gx, gy = _grads(np.minimum, x, y)
    assert np.array_equal(gx, [1.0, 0.5, 0.0]) and np.array_equal(gy, [0.0, 0.5, 1.0])
    _, ydot = cr.frule((cr.NoTangent(), np.ones(3), np.zeros(3)), np.maximum, x, y)
    assert np.array_equal(ydot, [0.0, 0.5, 1.0])


def test_clip_ties_at_the_bounds() -> None:
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    gx, glo, ghi = _grads(np.clip, x, np.zeros(5), np.ones(5))
    assert np.array_equal(gx, [0.0, 0.5, 1.0, 0.5, 0.0])
    assert np.array_equal(glo, [1.0, 0.5, 0.0, 0.0, 0.0])
    assert np.array_equal(ghi, [0.0, 0.0, 0.0, 0.5, 1.0])
    # keyword bounds are never differentiated; a missing bound is fine
    _, pb = cr.rrule(np.clip, x, None, 1.0)
    assert np.array_equal(pb(np.ones(5))[1], [1.0, 1.0, 1.0, 0.5, 0.0])
    assert pb(np.ones(5))[2] is cr.NoTangent()


def test_kinks_give_minimum_norm_subgradients_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _grads(np.abs, np.array([-2.0, 0.0, 3.0]))[0].tolist() == [-1.0, 0.0, 1.0]
        assert np.allclose(_grads(np.abs, np.array([0j, 3 + 4j]))[0], [0j, 0.6 + 0.8j])
        assert [g.tolist() for g in _grads(np.hypot, np.zeros(1), np.zeros(1))] == [[0.0], [0.0]]
        assert [g.tolist() for g in _grads(np.arctan2, np.zeros(1), np.zeros(1))] == [[0.0], [0.0]]
        assert _grads(np.power, np.zeros(1), np.array([2.0]))[1].tolist() == [0.0]
        assert _grads(np.copysign, np.array([0.0, -2.0]), np.array([1.0, 1.0]))[0].tolist() == [
            0.0,
            -1.0,
        ]
        assert _grads(np.sign, np.array([0.0, 2.0]))[0] is cr.ZeroTangent()
        assert _grads(np.sign, np.array([0j]))[0].tolist() == [0j]
        assert _grads(np.floor, np.array([1.5]))[0] is cr.ZeroTangent()


def test_integer_arguments_have_no_tangent() -> None:
    gx, gn = _grads(np.power, np.array([2.0, 3.0]), 2)
    assert gx.tolist() == [4.0, 6.0] and gn is cr.NoTangent()
    assert _grads(np.abs, np.array([1, -2]))[0] is cr.NoTangent()
    assert all(g is cr.NoTangent() for g in _grads(np.less, np.ones(2), np.zeros(2)))


def test_rules_reject_out_and_wrong_arity() -> None:
    with pytest.raises(TypeError, match="out= is not supported"):
        cr.rrule(np.sin, np.ones(2), out=np.empty(2))
    with pytest.raises(TypeError, match="sin takes 1 positional argument in its rule, got 2"):
        cr.rrule(np.sin, np.ones(2), np.ones(2))


def test_python_scalars_and_numpy_scalars() -> None:
    _, pb = cr.rrule(np.multiply, 3.0, np.arange(3.0))
    g3, gx = pb(np.ones(3))[1:]
    assert isinstance(g3, cr.Thunk)  # a Python number's cotangent is deferred (conventions.md)
    assert float(cr.unthunk(g3)) == 3.0 and gx.tolist() == [3.0, 3.0, 3.0]
    _, pb = cr.rrule(np.sin, 0.5)
    assert np.isclose(pb(1.0)[1], np.cos(0.5))


def test_chunked_frule_with_broadcasting() -> None:
    x, y = np.arange(3.0), np.ones((2, 3))
    xd = np.stack([np.eye(3)[i] for i in range(3)])  # 3 directions for x
    _, yd = cr.frule((cr.NoTangent(), xd, cr.ZeroTangent()), np.multiply, x, y)
    assert yd.shape == (3, 2, 3)
    assert np.array_equal(yd[1], np.broadcast_to(np.eye(3)[1], (2, 3)))


@given(elementwise_args(next(r for r in ELEMENTWISE if r.name == "atan2"), np))
def test_hypothesis_binary_broadcasting(args) -> None:  # type: ignore[no-untyped-def]
    test_rrule(np.arctan2, *args)
    test_frule(np.arctan2, *args)


@given(elementwise_args(next(r for r in ELEMENTWISE if r.name == "log"), np, complex=True))
def test_hypothesis_complex_log(args) -> None:  # type: ignore[no-untyped-def]
    test_rrule(np.log, *args)
    test_frule(np.log, *args)


@given(elementwise_args(next(r for r in ELEMENTWISE if r.name == "sqrt"), np, dtype="float32"))
def test_hypothesis_float32_sqrt(args) -> None:  # type: ignore[no-untyped-def]
    test_rrule(np.sqrt, *args)
    test_frule(np.sqrt, *args)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.elementwise")


# --- edge values (issue 11): the rules' limits where the plain formula overflows or divides ---
@pytest.mark.parametrize(
    ("f", "x1", "x2", "want"),
    [
        (np.logaddexp, 1e20, 1e20, (0.5, 0.5)),  # exp(x1 - out) gave 1: log(2) lost in rounding
        (np.logaddexp, 1e15, 1e15, (0.5, 0.5)),
        (np.logaddexp, np.inf, -np.inf, (1.0, 0.0)),  # was NaN
        (np.logaddexp, -3.0, 40.0, (np.exp(-43.0), 1.0)),
        (np.logaddexp2, 1e20, 1e20, (0.5, 0.5)),
        (np.power, 0.0, 0.0, (0.0, 0.0)),  # d/dx at 0**0 was NaN
        (np.float_power, 0.0, 0.0, (0.0, 0.0)),
        (np.remainder, 0.25, 0.001, (1.0, -249.0)),  # NumPy's result has quotient 249, not 250
    ],
)
def test_binary_edge_values(f, x1, x2, want) -> None:  # type: ignore[no-untyped-def]
    a, b = np.asarray(x1), np.asarray(x2)
    _, pb = cr.rrule(f, a, b)
    _, da, db = pb(np.asarray(1.0))
    np.testing.assert_allclose([da, db], want, rtol=1e-12, atol=0)
    # the pushforward uses the same partials
    _, ya = cr.frule((cr.NoTangent(), np.asarray(1.0), np.asarray(0.0)), f, a, b)
    _, yb = cr.frule((cr.NoTangent(), np.asarray(0.0), np.asarray(1.0)), f, a, b)
    np.testing.assert_allclose([ya, yb], want, rtol=1e-12, atol=0)


def test_remainder_partial_matches_the_librarys_own_quotient() -> None:
    x1 = np.array([0.25, 7.5, -3.3, 1.0])
    x2 = np.array([0.001, 0.1, 0.7, 0.3])
    out = np.remainder(x1, x2)
    _, pb = cr.rrule(np.remainder, x1, x2)
    q = -pb(np.ones(4))[2]
    np.testing.assert_array_equal(q, np.round(q))  # an integer
    np.testing.assert_allclose(x1 - q * x2, out, atol=1e-15)


def test_abs_at_infinity_and_zero() -> None:
    x = np.array([np.inf, -np.inf, 0.0, -2.0, 3.0])
    _, pb = cr.rrule(np.abs, x)
    np.testing.assert_array_equal(pb(np.ones(5))[1], [1.0, -1.0, 0.0, -1.0, 1.0])
    _, t = cr.frule((cr.NoTangent(), np.ones(5)), np.abs, x)
    np.testing.assert_array_equal(t, [1.0, -1.0, 0.0, -1.0, 1.0])


def test_power_with_zero_integer_exponent_has_zero_derivative() -> None:
    _, pb = cr.rrule(np.power, np.array([0.0, 2.0]), 0)
    np.testing.assert_array_equal(pb(np.ones(2))[1], [0.0, 0.0])


def test_primal_result_type_of_integer_inputs_is_numpys() -> None:
    # clip's result type follows NumPy's promotion; fabs of integers and booleans is a float
    xi = np.array([1, 3])
    for args in ((xi, 0, 2.5), (xi > 1, np.zeros(2), np.full(2, 0.5))):
        y, _ = cr.rrule(np.clip, *args)
        want = np.clip(*args)
        assert y.dtype == want.dtype and y.tolist() == want.tolist()
    for x in (np.array([1, -3]), np.array([1, -3], np.int8), np.array([True, False])):
        with pytest.warns(cr.IntegerArgumentWarning, match=f"dtype {x.dtype}; "):
            y, pb = cr.rrule(np.fabs, x)
        assert y.dtype == np.fabs(x).dtype and y.tolist() == np.fabs(x).tolist()
        assert pb(np.ones(2, y.dtype))[1] == cr.NoTangent()
        y, y_dot = cr.frule((cr.NoTangent(), cr.NoTangent()), np.fabs, x)
        assert y.dtype == np.fabs(x).dtype and isinstance(y_dot, cr.AbstractZero)


def test_complex_sign_at_infinity_is_numpys_unit() -> None:
    # z/|z| is inf/inf there: NumPy gives the unit along the infinite part, the derivative's
    # limit is 0 (ds ~ 1/|z|); it was NaN
    z = np.array([complex(np.inf, 1.0), complex(1.0, -np.inf), 3 + 4j])
    y, pb = cr.rrule(np.sign, z)
    assert y.tolist() == [1 + 0j, -1j, 0.6 + 0.8j] == np.sign(z).tolist()
    z_bar = pb(np.ones(3, complex))[1]
    assert z_bar[:2].tolist() == [0j, 0j]
    _, y_dot = cr.frule((cr.NoTangent(), np.ones(3, complex)), np.sign, z)
    assert y_dot[:2].tolist() == [0j, 0j]


# --- limits at extreme and infinite inputs: exact values, never NaN (issue 15, point 6) ---------
def _dx(f: Any, *args: Any) -> tuple[Any, ...]:
    y, pb = cr.rrule(f, *(np.asarray(a) for a in args))
    return tuple(pb(np.ones_like(y))[1:])


def test_inverse_trig_derivatives_do_not_overflow_at_1e300() -> None:
    # 1 / sqrt(1 + z^2) etc. are written through z / max(|Re z|, |Im z|, 1): no z^2 overflow.
    # The cotangent is conj(f'(z)) (complex convention); each value below is the exact one
    z = np.array([1e300 + 1e300j, 3e300 + 0j, 1e200j, -1e300 + 0j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (g,) = _dx(np.arcsinh, z)  # ~ 1 / z on the right half-plane, -1 / z on the left
        assert g.tolist() == [5e-301 + 5e-301j, 1 / 3e300 + 0j, 1e-200j, 1e-300 + 0j]
        (g,) = _dx(np.arctan, z)  # ~ 1 / z^2: underflows to 0, exactly
        assert g.tolist() == [0j] * 4
        (g,) = _dx(np.arctanh, z)  # ~ -1 / z^2
        assert g.tolist() == [0j] * 4
        (g,) = _dx(np.arcsinh, np.array([1e300, -1e300, 1e-300]))  # real: 1 / |x|, and 1
        assert g.tolist() == [1e-300, 1e-300, 1.0]
        (g,) = _dx(np.arctan, np.array([1e154]))
        assert g.tolist() == [1e-154 * 1e-154]


def test_logaddexp_abs_pow_limits() -> None:
    inf = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _dx(np.logaddexp, inf, 1.0) == (1.0, 0.0)
        assert _dx(np.logaddexp, -inf, 1.0) == (0.0, 1.0)
        assert _dx(np.logaddexp, inf, -inf) == (1.0, 0.0)
        # equal infinities: 1/2 each, the diagonal limit (maximum's tie convention)
        assert _dx(np.logaddexp, inf, inf) == (0.5, 0.5)
        assert _dx(np.logaddexp, -inf, -inf) == (0.5, 0.5)
        assert _dx(np.logaddexp2, -inf, -inf) == (0.5, 0.5)
        assert _dx(np.abs, np.array([inf, -inf]))[0].tolist() == [1.0, -1.0]
        assert _dx(np.pow, 0.0, 0.0) == (0.0, 0.0)  # d/dx x**0 = 0; d/dy at 0**0: 0 (declared)
        assert _dx(np.pow, 0.0, 1.0) == (1.0, 0.0)
        assert _dx(np.pow, 0.0, 2.0) == (0.0, 0.0)


# --- issue 26 (fmod): d/dx2 is minus the exact quotient of the two float values -----------
def _exact_quotient(x1: float, x2: float, floor: bool) -> float:
    q = Fraction(x1) / Fraction(x2)
    return float(math.floor(q) if floor else math.trunc(q))


_BIG64, _BIG32 = float(np.finfo(np.float64).max), float(np.finfo(np.float32).max)
# PyTorch's OpInfo reference inputs where trunc(x1 / x2), rounded, is not the exact quotient
# (torch's autograd says 250 for fmod(0.25, 0.001), computed with quotient 249), then large
# operands whose difference x1 - out overflows for remainder
_QUOTIENT_CASES = {
    np.float64: (
        [0.25, -0.25, 1.0, -1.0, 1e20, -1e20, 1e20, 1e20, 7.5, 0.9 * _BIG64, -0.9 * _BIG64],
        [
            0.001,
            0.001,
            -0.001,
            0.001,
            13437.7,
            1001.2,
            -501.0,
            3.0,
            0.1,
            -0.8 * _BIG64,
            0.7 * _BIG64,
        ],
    ),
    np.float32: (
        [7.793135643005371, 1.0000000200408773e20, -1.0000000200408773e20, 0.9 * _BIG32],
        [-0.7084668874740601, 4988429.0, 1001.2000122070312, -0.8 * _BIG32],
    ),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    ("f", "floor"),
    [(np.fmod, False), (np.remainder, True), (operator.mod, True)],
    ids=["fmod", "remainder", "operator.mod"],
)
def test_fmod_quotient_partial_is_the_exact_quotient(f, floor, dtype) -> None:  # type: ignore[no-untyped-def]
    """Every rule built on ``_quotient`` (fmod, remainder, mod, ``%``): d/dx2 = -q with q the
    exact quotient of the float operands, within the dtype's rounding of q, and finite where
    q is (``(x1 - out) / x2`` overflowed to -inf for remainder(0.9 * max, -0.8 * max))."""
    x1, x2 = (np.array(v, dtype) for v in _QUOTIENT_CASES[dtype])
    with np.errstate(over="ignore"):
        out, pb = cr.rrule(f, x1, x2)
    np.testing.assert_array_equal(out, f(x1, x2))
    want = np.array([-_exact_quotient(float(a), float(b), floor) for a, b in zip(x1, x2)])
    _, d1, d2 = pb(np.ones_like(out))
    rtol = float(np.finfo(dtype).eps)
    np.testing.assert_array_equal(cr.unthunk(d1), np.ones_like(x1))
    np.testing.assert_allclose(cr.unthunk(d2), want, rtol=rtol, atol=0)
    _, t = cr.frule((cr.NoTangent(), np.zeros_like(x1), np.ones_like(x2)), f, x1, x2)
    np.testing.assert_allclose(t, want, rtol=rtol, atol=0)
