"""Second derivatives: the rrule of a pullback.

Every pullback is built from functions with registered rules, so an engine can differentiate it
again. Here ``chainrules.ad`` (a tape of rrules) differentiates ``L(x, y_bar) = <w, x_bar>``,
where ``x_bar`` is the pullback of ``f`` at ``x`` applied to ``y_bar``: the result is checked
against central finite differences of ``L`` along a random direction, in float64.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import Tracer
from chainrules.ad._core import lift_values

RNG = np.random.default_rng(7)


def _r(*shape: int) -> Any:
    return RNG.standard_normal(shape)


def _spd(m: Any) -> Any:
    return m @ m.T + 4.0 * np.eye(m.shape[0])


IDX = np.array([2, 0, 2, 1])
COND = np.array([[True, False, True], [False, False, True]])

# name: (f, differentiable arguments, how f is called with them, y_bar)
CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...], Callable[..., tuple[Any, ...]]]] = {
    "matmul": (np.matmul, (_r(3, 4), _r(4, 2)), lambda a, b: (a, b)),
    "matmul batched": (
        np.matmul,
        (
            _r(2, 3, 4),
            _r(
                4,
            ),
        ),
        lambda a, b: (a, b),
    ),
    "solve": (np.linalg.solve, (_r(3, 3) + 3 * np.eye(3), _r(3, 2)), lambda a, b: (a, b)),
    "inv": (np.linalg.inv, (_r(3, 3) + 3 * np.eye(3),), lambda a: (a,)),
    "einsum": (np.einsum, (_r(2, 3), _r(3, 4)), lambda a, b: ("ij,jk->ik", a, b)),
    "einsum trace": (np.einsum, (_r(3, 3),), lambda a: ("ii->", a)),
    # cholesky reads a Hermitian input: differentiate through A = M M^T + 4 I
    "cholesky": (np.linalg.cholesky, (_r(3, 3),), lambda m: (_spd_traced(m),)),
    "take": (np.take, (_r(3, 2),), lambda x: (x, IDX)),
    "concat": (np.concatenate, (_r(2, 3), _r(1, 3)), lambda a, b: ([a, b],)),
    "where": (np.where, (_r(2, 3), _r(3)), lambda a, b: (COND, a, b)),
    "sort": (np.sort, (_r(5),), lambda x: (x,)),
}


LINEAR = {"einsum trace", "take", "concat", "where", "sort"}  # sort: piecewise linear


def _spd_traced(m: Any) -> Any:
    """M M^T + 4 I written with operators and matmul, so it traces."""
    return m @ np.swapaxes(m, -1, -2) + 4.0 * np.eye(m.shape[-1])


def _pullback_loss(name: str) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    f, xs, call = CASES[name]
    y = f(*call(*xs)) if name != "cholesky" else f(_spd(xs[0]))
    y_bar = RNG.standard_normal(np.shape(y))
    n_args = len(call(*xs))
    weights = [RNG.standard_normal(np.shape(a)) if _floating(a) else None for a in call(*xs)]
    if name == "concat":
        weights = [[RNG.standard_normal(np.shape(e)) for e in call(*xs)[0]]]

    def loss(*values: Any) -> Any:
        *vs, yb = values
        args = list(call(*vs))
        if isinstance(vs[0], Tracer):  # as an engine does before calling a rule: raw arrays
            lift_values(args, vs[0])  # (where's condition) become constants of its trace
        _, pullback = cr.rrule(f, *args)
        cts = [cr.unthunk(c) for c in pullback(yb)[1 : 1 + n_args]]  # deferred ones forced
        total = 0.0
        for c, w in zip(cts, weights):
            if w is None:
                continue
            if isinstance(w, list):  # a sequence argument: a Tangent with one entry per array
                for ce, we in zip(c.elements(), w):
                    total = total + np.sum(ce * we)
            else:
                total = total + np.sum(c * w)
        return total

    return loss, (*xs, y_bar)


def _floating(a: Any) -> bool:
    return isinstance(a, np.ndarray) and a.dtype.kind in "fc"


@pytest.mark.parametrize("name", list(CASES))
def test_pullback_is_differentiable_again(name: str) -> None:
    loss, args = _pullback_loss(name)
    grads = ad.grad(loss, argnums=tuple(range(len(args))))(*args)
    v = [RNG.standard_normal(np.shape(a)) for a in args]
    h = 1e-5
    plus = loss(*(a + h * d for a, d in zip(args, v)))
    minus = loss(*(a - h * d for a, d in zip(args, v)))
    want = (plus - minus) / (2 * h)
    got = sum(float(np.sum(g * d)) for g, d in zip(grads, v))
    assert abs(got - want) <= 1e-6 * max(1.0, abs(want)), (name, got, want)
    # the check cannot pass with zeros: the loss depends on y_bar, and on x unless f is linear
    # in x (then its pullback does not depend on x, and the x gradient is exactly zero)
    *gx, gy = grads
    assert float(np.max(np.abs(gy))) > 0
    for g in gx:
        if name in LINEAR:
            assert float(np.max(np.abs(g))) == 0.0, name
        else:
            assert float(np.max(np.abs(g))) > 0, name


@pytest.mark.parametrize(("f", "s"), [(np.logaddexp, 1.0), (np.logaddexp2, np.log(2.0))])
def test_logaddexp_second_derivative_at_a_tie(f, s) -> None:  # type: ignore[no-untyped-def]
    # d/dx1 = sigmoid(s (x1 - x2)): its derivative at x1 == x2 is s/4, from either side
    x2 = np.array([0.0, 3.0, -2.0])
    h = ad.hessian(lambda x1: np.sum(f(x1, x2)))(x2.copy())
    np.testing.assert_allclose(np.diag(h), s / 4 * np.ones(3), rtol=1e-12)
