from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

import chainrules as cr
from chainrules.testing import Example, examples_for
from chainrules.testing.strategies import elementwise_args, shapes


def _reg(name: str) -> cr.Registration:
    return next(r for r in cr.registrations() if r.name == name)


def test_examples_respect_the_domain_and_cover_shapes() -> None:
    exs = examples_for(_reg("log"))
    real = [e for e in exs if not e.complex]
    assert {np.shape(e.args[0]) for e in real} >= {(), (4,), (2, 3), (7, 7)}
    assert all(np.all(np.asarray(e.args[0]) >= 0.2) for e in real)
    cplx = [e for e in exs if e.complex]
    assert cplx and all(np.all(np.real(e.args[0]) > 0) for e in cplx)  # off the branch cut


def test_binary_examples_broadcast_and_include_python_scalars() -> None:
    exs = examples_for(_reg("atan2"))
    shapes_seen = [
        tuple(np.shape(a) if not isinstance(a, float) else "s" for a in e.args) for e in exs
    ]
    assert ((2, 1), (1, 3)) in shapes_seen and ("s", (3,)) in shapes_seen


def test_integer_and_bool_domains() -> None:
    ex = examples_for(_reg("bitwise_and"))[0]
    assert all(np.asarray(a).dtype.kind == "i" for a in ex.args)
    ex = examples_for(_reg("logical_not"))[0]
    assert np.asarray(ex.args[0]).dtype == bool


def test_custom_examples_function() -> None:
    reg = cr.Registration("f", "callable", meta={"examples": lambda rng: [((np.ones(2),), {})]})
    (ex,) = examples_for(reg)
    assert isinstance(ex, Example) and ex.kwargs == {} and not ex.complex
    assert examples_for(cr.Registration("g", "callable")) == []


def test_shapes_strategy_includes_scalar_and_empty() -> None:
    seen = set()

    @given(shapes())
    def collect(s) -> None:  # type: ignore[no-untyped-def]
        seen.add(len(s) == 0)
        seen.add("empty" if 0 in s else "full")

    collect()
    assert {True, "empty"} <= seen


def test_elementwise_args_strategy_stays_in_domain() -> None:
    @given(elementwise_args(_reg("acosh"), np))
    def check(args) -> None:  # type: ignore[no-untyped-def]
        assert np.all(args[0] >= 1.2)

    check()
    with pytest.raises(ValueError, match="does not take complex"):
        elementwise_args(_reg("atan2"), np, complex=True)
