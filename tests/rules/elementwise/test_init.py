"""The elementwise family as a whole: every standard function has its rules, JAX as a
reference for each, and the conventions at ties, kinks and edge values shared across topics."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import examples_for
from chainrules.testing.backends import BACKENDS
from chainrules.testing.suite import defined_in

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


# the family's registrations whose examples are generated from a domain (functions that apply
# to each element and broadcast): not NumPy's gradient, cross, divmod, ... (explicit examples),
# nor the family's own functions with rules (exp_log.sigmoid: tested in their files)
ELEMENTWISE = [
    r
    for r in cr.registrations()
    if defined_in(r, "chainrules.rules.elementwise")
    and "examples" not in r.meta
    and r.family != "callable"
]


def test_every_standard_elementwise_function_has_both_rules() -> None:
    names = {r.name: r for r in ELEMENTWISE}
    missing = [n for n in DIFFERENTIABLE + NON_DIFFERENTIABLE if n not in names]
    assert not missing, f"no rule for {missing}"
    assert not [n for n in names if n in DIFFERENTIABLE and names[n].frule is None]
    missing_np = [n for n in NUMPY_NAMES if f"numpy:{n}" not in names]
    assert not missing_np, f"no rule for NumPy's {missing_np}"


# ---- JAX as a reference ---------------------------------------------------------------------


# functions whose derivative JAX does not implement: strict xfails, so a JAX that adds one is seen
JAX_HAS_NO_DERIVATIVE = {"nextafter", "numpy:spacing"}  # jnp.spacing: nextafter inside


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
        ours = tuple(map(cr.unthunk, pullback(y_bar)))  # pow's exponent comes as a Thunk

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
    return tuple(map(cr.unthunk, pb(np.ones(np.shape(y)))[1:]))


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
    _, da, db = map(cr.unthunk, pb(np.asarray(1.0)))
    np.testing.assert_allclose([da, db], want, rtol=1e-12, atol=0)
    # the pushforward uses the same partials
    _, ya = cr.frule((cr.NoTangent(), np.asarray(1.0), np.asarray(0.0)), f, a, b)
    _, yb = cr.frule((cr.NoTangent(), np.asarray(0.0), np.asarray(1.0)), f, a, b)
    np.testing.assert_allclose([ya, yb], want, rtol=1e-12, atol=0)


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


# --- limits at extreme and infinite inputs: exact values, never NaN (issue 15, point 6) ---------
def _dx(f: Any, *args: Any) -> tuple[Any, ...]:
    y, pb = cr.rrule(f, *(np.asarray(a) for a in args))
    return tuple(map(cr.unthunk, pb(np.ones_like(y))[1:]))


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
