"""The binary formula rules' pullbacks defer, from ``scalar_rule.DEFER_SIZE`` elements on, every
operand's cotangent that costs a pass (issue 14, point 6): an engine forces only the traced
operands'."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for

from .test_scalar_rule_pullbacks import FORMULAS, is_real
from .test_scalar_rule_pullbacks import same as _same

# the module (chainrules.core exports the function of that name)
scalar_rule = importlib.import_module("chainrules.core.scalar_rule")
N = scalar_rule.DEFER_SIZE
BINARY = [r for r in FORMULAS if len(r.domain) == 2]


def _big(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The array operands broadcast together and repeated along a new leading axis to at least N
    elements (their values, so still in the rule's domain); a Python float kept."""
    s = np.broadcast_shapes(*(np.shape(a) for a in args))
    k = -(-N // max(1, int(np.prod(s))))
    return tuple(
        np.tile(np.broadcast_to(a, s), (k,) + (1,) * len(s)) if isinstance(a, np.ndarray) else a
        for a in args
    )


def test_binary_formula_rules_are_found() -> None:
    assert {"multiply", "subtract", "atan2", "maximum"} <= {r.name for r in BINARY}


@pytest.mark.parametrize("reg", BINARY, ids=lambda r: r.name)
def test_deferred_cotangents_force_to_the_direct_values(
    reg: cr.Registration, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = BACKENDS["numpy"].function(reg)
    taken = 0
    for ex in examples_for(reg):
        if ex.complex or not all(is_real(a) for a in ex.args):
            continue
        args = _big(ex.args)
        y, pb = cr.rrule(f, *args)
        if np.size(y) < N:
            continue
        g = np.random.default_rng(2).standard_normal(np.shape(y)).astype(np.asarray(y).dtype)
        deferred = pb(g)
        with monkeypatch.context() as m:
            m.setattr(scalar_rule, "DEFER_SIZE", float("inf"))  # nothing deferred
            direct = pb(g)
        # nothing deferred but a Python float's and the arguments the registration defers
        # (deferred at every size: pow's exponent)
        late = reg.meta.get("deferred", ())
        assert not any(
            isinstance(c, cr.Thunk)
            for i, (c, a) in enumerate(zip(direct[1:], args))
            if type(a) is not float and i not in late
        )
        for a, b in zip(deferred, direct):
            _same(cr.unthunk(a), cr.unthunk(b))
        taken += 1
    assert taken, f"no real example of {reg.name} at {N} elements"


def test_a_constant_operands_cotangent_is_deferred_at_scale_only() -> None:
    y, z = np.full(N, 2.0), np.full(N, 3.0)
    _, pb = cr.rrule(np.multiply, y, z)
    _, yb, zb = pb(np.ones(N))
    assert isinstance(yb, cr.Thunk) and isinstance(zb, cr.Thunk)
    np.testing.assert_array_equal(cr.unthunk(yb), z)
    np.testing.assert_array_equal(cr.unthunk(zb), y)
    _, pb = cr.rrule(np.multiply, y[:10], z[:10])
    assert all(type(c) is np.ndarray for c in pb(np.ones(10))[1:])  # n=10: arrays, no closure
    # a partial of 1 on an operand of the output's shape hands y_bar through: nothing deferred
    _, pb = cr.rrule(np.subtract, y, z)
    g = np.ones(N)
    _, a, b = pb(g)
    assert a is g and isinstance(b, cr.Thunk)
    np.testing.assert_array_equal(cr.unthunk(b), -g)
    # a broadcast operand is summed back: deferred even with a partial of 1
    _, pb = cr.rrule(np.add, np.ones((N, 1)), np.ones((1, 3)))
    _, a, b = pb(np.ones((N, 3)))
    assert isinstance(a, cr.Thunk) and isinstance(b, cr.Thunk)
    np.testing.assert_array_equal(cr.unthunk(b), np.full((1, 3), float(N)))


def test_the_engine_forces_only_the_traced_operand() -> None:

    Y = np.random.default_rng(3).standard_normal(N)
    z = np.random.default_rng(4).standard_normal(N)
    calls = []
    real = scalar_rule._operand_cotangent

    def spy(p, is_const, proj, y_bar, conj, xp, out, args, *rest):  # type: ignore[no-untyped-def]
        if len(args) == 2:  # the product's operands (sin's pullback calls it with one)
            calls.append("z" if p(xp, out, *args) is Y else "Y")  # z's partial is Y
        return real(p, is_const, proj, y_bar, conj, xp, out, args, *rest)

    scalar_rule._operand_cotangent = spy
    try:
        g = ad.grad(lambda z: np.sum(np.sin(Y * z)))(z)
    finally:
        scalar_rule._operand_cotangent = real
    np.testing.assert_allclose(g, np.cos(Y * z) * Y, rtol=1e-14)
    assert calls == ["z"], calls  # z's cotangent forced once, Y's never
