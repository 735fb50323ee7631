"""Python's operators: each delegates to the rule of the standard function it means."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules import operators
from chainrules.testing import examples_for, test_frule, test_rrule
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == operators.__name__]
DIFFERENTIABLE = [r for r in REGS if not r.non_differentiable]


def test_every_arithmetic_operator_has_a_rule() -> None:
    names = {r.name for r in REGS}
    for op in ("add", "sub", "mul", "truediv", "pow", "matmul", "neg", "pos", "abs"):
        assert f"operator.{op}" in names
    assert cr.find_rrule(operator.getitem) is not None  # from the indexing rules


@pytest.mark.parametrize("reg", DIFFERENTIABLE, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


@pytest.mark.parametrize(
    ("op", "fn"),
    [
        (operator.sub, np.subtract),
        (operator.truediv, np.divide),
        (operator.pow, np.power),
        (operator.mul, np.multiply),
    ],
)
def test_reflected_forms_equal_the_function_with_the_scalar_first(op, fn) -> None:  # type: ignore[no-untyped-def]
    x = np.array([0.5, 1.5, 2.5])
    y, pb = cr.rrule(op, 2.0, x)
    y2, pb2 = cr.rrule(fn, 2.0, x)
    assert np.array_equal(y, 2.0 - x if op is operator.sub else y2)
    g, g2 = pb(np.ones(3)), pb2(np.ones(3))
    assert float(cr.unthunk(g[1])) == float(cr.unthunk(g2[1]))  # a Python float's: deferred
    assert np.array_equal(cr.unthunk(g[2]), cr.unthunk(g2[2]))  # pow: the exponent's is deferred
    test_rrule(op, 2.0, x)
    test_frule(op, x, 2.0)


def test_matmul_operator_is_matmul() -> None:
    a, b = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    y, pb = cr.rrule(operator.matmul, a, b)
    assert np.array_equal(y, a @ b)
    _, ga, gb = (cr.unthunk(c) for c in pb(np.ones(2)))  # deferred cotangents
    assert np.array_equal(ga, np.ones((2, 1)) * b)
    assert np.array_equal(gb, a.sum(0))


def test_comparisons_and_floor_division_give_no_or_zero_tangents() -> None:
    x = np.array([0.5, -1.0])
    assert cr.rrule(operator.lt, x, 0.0)[1](cr.NoTangent())[1:] == (cr.NoTangent(),) * 2
    _, pb = cr.rrule(operator.floordiv, x, 0.3)
    assert all(isinstance(c, cr.AbstractZero) for c in pb(np.ones(2))[1:])


def test_operands_without_an_array_are_rejected_by_name() -> None:
    with pytest.raises(TypeError, match=r"add: no array among the operands \(float, float\)"):
        cr.rrule(operator.add, 1.0, 2.0)


def test_mixed_libraries_are_named() -> None:
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="arrays of two libraries were mixed in mul"):
        cr.rrule(operator.mul, xs.asarray([1.0]), np.ones(1))


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.operators")


@pytest.mark.parametrize("reg", DIFFERENTIABLE, ids=lambda r: r.name)
def test_operator_rules_differentiate_twice(reg: cr.Registration) -> None:
    """Differentiating an operator's pullback again runs the operator's rule on tracers, which
    looks the rule up for the traced namespace's function (``rrule(namespace.matmul, ...)``):
    that lookup finds the wrapped function's rules. Campaign seed 4179 (``operator.matmul ->
    neg -> sub``) raised ``NoRuleError: no rrule for chainrules.ad.matmul`` in its Hessian."""
    from chainrules import ad

    op = cr.traceable(reg.target)
    x = np.array([[0.7, 1.3], [0.9, 1.1]])
    c = np.array([[1.2, 0.8], [0.6, 1.4]])
    unary = reg.target in (operator.neg, operator.pos, operator.abs)

    def f(x: np.ndarray) -> np.ndarray:
        return np.sum((op(x) if unary else op(x, c)) * x * x)

    h = ad.hessian(f)(x).reshape(4, 4)
    g = ad.grad(f)
    step = 1e-6
    fd = np.stack(
        [
            ((g(x + step * e) - g(x - step * e)) / (2 * step)).ravel()
            for e in np.eye(4).reshape(4, 2, 2)
        ],
        axis=1,
    )
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-6)
