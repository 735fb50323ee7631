"""Exponentials and logarithms: complex log by hypothesis, the generated cells, and
``sigmoid`` (logaddexp's partials, a function with rules of its own)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given

import chainrules as cr
from chainrules import ad
from chainrules.rules.elementwise import exp_log
from chainrules.rules.elementwise.exp_log import sigmoid
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.strategies import elementwise_args
from chainrules.testing.suite import rule_tests


def _reg(name: str) -> cr.Registration:
    """The registration of ``name`` in :mod:`chainrules.rules.elementwise.exp_log`."""
    return next(r for r in cr.registrations() if r.module == exp_log.__name__ and r.name == name)


@given(elementwise_args(_reg("log"), np, complex=True))
def test_hypothesis_complex_log(args) -> None:  # type: ignore[no-untyped-def]
    test_rrule(np.log, *args)
    test_frule(np.log, *args)


test_rule = rule_tests(exp_log)


# ---- sigmoid: logaddexp's partials, a function with rules of its own -----------------------------
@pytest.mark.parametrize(
    "t",
    [
        np.array([-3.0, -0.5, 0.0, 0.25, 2.0]),
        np.array([[-40.0, 40.0], [1e-3, -1e-3]]),
        np.array(0.7),
        np.array([0.5, -1.5], dtype=np.float32),
    ],
    ids=["vector", "tails", "0-d", "float32"],
)
def test_sigmoid_rules(t) -> None:  # type: ignore[no-untyped-def]
    """Against finite differences, on the guarded device array and under jax.jit."""
    test_rrule(sigmoid, t)
    test_frule(sigmoid, t)


def test_sigmoid_values_against_expit() -> None:
    """Within two ulps of ``1 / (1 + exp(-t))`` in extended precision and of SciPy's ``expit``
    wherever the result is a normal number (no ``1 - s`` cancels in either tail; below, ``expit``
    flushes to 0 where this keeps the subnormal), 1/2 at 0, 0 and 1 at the infinities, NaN at
    NaN, and no warning anywhere."""
    special = pytest.importorskip("scipy.special")
    t = np.concatenate([np.linspace(-708.0, 745.0, 20001), [0.0, -0.0, 1e-300, -1e-300]])
    exact = (1 / (1 + np.exp(-t.astype(np.longdouble)))).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = sigmoid(t)
        np.testing.assert_array_max_ulp(s, exact, maxulp=2)
        np.testing.assert_array_max_ulp(s, special.expit(t), maxulp=2)
        assert 0 < sigmoid(np.array(-740.0)) < 1e-320  # a subnormal, not 0
        assert sigmoid(np.array(0.0)) == 0.5
        np.testing.assert_array_equal(sigmoid(np.array([-np.inf, np.inf, np.nan])), [0, 1, np.nan])
        for dtype in (np.float32, np.float16):
            assert sigmoid(t.astype(dtype)).dtype == dtype


def test_sigmoid_derivatives_of_every_order_are_its_own() -> None:
    """First to third derivatives through ``sigmoid``'s rules, at 0 (where the formula's ``min``
    and ``abs`` have kinks) and in both tails, against the closed forms
    ``s' = s (1 - s)``, ``s'' = s' (1 - 2 s)``, ``s''' = s' (1 - 6 s + 6 s^2)``: reverse and
    forward mode and their compositions."""

    t = np.array([0.0, 1.5, -2.0, 30.0, -30.0])
    s = 1.0 / (1.0 + np.exp(-t))
    d1 = s * (1.0 - s)
    d1[3], d1[4] = np.exp(-30.0), np.exp(-30.0)  # exact in the tails, where 1 - s cancels
    d2 = d1 * (1.0 - 2.0 * s)
    d3 = d1 * (1.0 - 6.0 * s + 6.0 * s * s)

    def f(x):  # type: ignore[no-untyped-def]
        return np.sum(sigmoid(x))

    np.testing.assert_allclose(ad.grad(f)(t), d1, rtol=1e-12)
    np.testing.assert_allclose(np.diag(ad.hessian(f)(t)), d2, rtol=1e-12, atol=1e-300)
    third = ad.grad(lambda x: np.sum(np.diag(ad.hessian(f)(x))))(t)
    np.testing.assert_allclose(third, d3, rtol=1e-12, atol=1e-300)
    fwd = ad.jacobian(ad.jacobian(lambda x: sigmoid(x), mode="fwd"), mode="fwd")(t)
    np.testing.assert_allclose(np.einsum("iii->i", fwd), d2, rtol=1e-12, atol=1e-300)


def test_logaddexp_with_a_number_takes_one_pass_to_the_gap() -> None:
    """``logaddexp(0.0, t)`` (the logistic loss): the partial is ``sigmoid(t)``, with no tie
    mask (a finite number cannot tie at an infinity); the mask's answers are kept at infinities
    of the array argument."""
    t = np.array([-2.0, 0.0, 3.0, np.inf, -np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, pb = cr.rrule(np.logaddexp, 0.0, t)
        bar = cr.unthunk(pb(np.ones(5))[2])
    np.testing.assert_array_equal(bar[3:], [1.0, 0.0])
    np.testing.assert_allclose(bar[:3], 1.0 / (1.0 + np.exp(-t[:3])), rtol=1e-15)
    _, pb = cr.rrule(np.logaddexp, np.array([np.inf, 1.0]), np.array([np.inf, 1.0]))
    assert cr.unthunk(pb(np.ones(2))[1]).tolist() == [0.5, 0.5]


def test_logaddexp_takes_a_python_number_as_it_is_on_every_library_and_under_jit() -> None:
    """The partials take a Python number as it is (``takes_numbers``): a finite number's gap
    is one subtraction, on any library and in ``ad.jit``'s recording, which then calls no
    mask; an infinite number, or two numbers, take the masks and their answers."""
    x = np.linspace(-2.0, 2.0, 7)
    j = ad.jit(ad.value_and_grad(lambda w: np.sum(np.logaddexp(0.0, -w))))
    _, g = j(x)
    (replay,) = [r for r in j.recordings.values() if callable(r)]
    called = [v for k, v in replay.__globals__.items() if k.startswith("c")]
    assert not any(v is np.isinf or v is np.where for v in called), replay.source
    np.testing.assert_allclose(j(x)[1], -1.0 / (1.0 + np.exp(x)), rtol=1e-14)
    np.testing.assert_allclose(g, -1.0 / (1.0 + np.exp(x)), rtol=1e-14)
    inf = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for a, b, want in [
            (inf, inf, (0.5, 0.5)),
            (1e20, 1e20, (0.5, 0.5)),
            (inf, 1.0, (1.0, 0.0)),
            (-inf, np.array(1.0), (0.0, 1.0)),
            (np.array(inf), inf, (0.5, 0.5)),
        ]:
            y, pb = cr.rrule(np.logaddexp, a, b)
            assert tuple(float(cr.unthunk(v)) for v in pb(np.ones_like(y))[1:]) == want, (a, b)
    torch = pytest.importorskip("torch")
    import array_api_compat.torch as tx

    t = torch.tensor([-1.0, 0.0, 2.0, inf], dtype=torch.float64)
    y, pb = cr.rrule(tx.logaddexp, 0.0, t)  # sigmoid(t)
    want = [1 / (1 + np.exp(1.0)), 0.5, 1 / (1 + np.exp(-2.0)), 1.0]
    np.testing.assert_allclose(cr.unthunk(pb(torch.ones_like(y))[2]).numpy(), want, rtol=1e-15)
    y, pb = cr.rrule(tx.logaddexp, inf, t)  # an infinite number: the tie's 1/2
    assert cr.unthunk(pb(torch.ones_like(y))[2]).tolist() == [0.0, 0.0, 0.0, 0.5]
