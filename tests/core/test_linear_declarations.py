"""``linear=True`` registrations (``Registration.linear``), checked on the registry's examples.

An engine that reads the declaration pulls a cotangent's tangents back through the rule's own
pullback, built on the values (``chainrules.ad``'s Hessians: ``ad/_reverse.py``,
``_over_forward``). That is right only where both halves of the declaration hold, so every
registration that makes it is checked here, on each of its examples on NumPy:

* the function is linear in its floating positional arguments jointly, up to a constant the other
  arguments give (``diff(x, prepend=1.0)``: affine): ``f(a + 2 b) - f(a) = 2 (f(a + b) - f(a))``
  for a second random point ``b``;
* its pullback reads none of their values: the pullbacks built at ``a`` and at ``b`` give the
  same cotangents for the same random output cotangent.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.registry import registrations
from chainrules.core.tangents import AbstractZero, unthunk
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for

NUMPY = BACKENDS["numpy"]


def _linear_registrations() -> list[Any]:
    """The library's own (a test module's registrations of its own rules are checked there)."""
    return [
        reg
        for reg in registrations()
        if reg.linear
        and reg.rrule is not None
        and str(reg.meta.get("module") or reg.rrule.__module__).startswith("chainrules.")
    ]


def _floating(a: Any) -> bool:
    return isinstance(a, np.ndarray) and a.dtype.kind in "fc"


def _random_like(rng: np.random.Generator, a: Any) -> Any:
    b = rng.standard_normal(a.shape)
    return (b + 1j * rng.standard_normal(a.shape)).astype(a.dtype) if a.dtype.kind == "c" else b


def _cotangents(pb: Any, y_bar: Any) -> list[Any]:
    out = []
    for g in pb(y_bar)[1:]:
        g = unthunk(g)
        out.append(None if isinstance(g, AbstractZero) else np.asarray(g))
    return out


def _check(reg: Any) -> tuple[int, list[str]]:
    """(the examples checked, what failed): both properties on each example."""
    f = reg.target if callable(reg.target) else NUMPY.function(reg)
    checked, bad = 0, []
    if f is None:
        return 0, []
    rng = np.random.default_rng(0)
    for i, ex in enumerate(examples_for(reg)):
        a = list(ex.args)
        floats = [k for k, v in enumerate(a) if _floating(v)]
        if not floats:
            continue
        b = list(a)
        for k in floats:
            b[k] = _random_like(rng, a[k])
        one, two = list(a), list(a)
        for k in floats:
            one[k], two[k] = a[k] + b[k], a[k] + 2.0 * b[k]
        where = f"{reg.name} #{i}"
        ya, y1, y2 = (np.asarray(f(*v, **ex.kwargs)) for v in (a, one, two))
        if not np.allclose(y2 - ya, 2.0 * (y1 - ya), rtol=1e-10, atol=1e-10):
            bad.append(f"{where}: not linear")
            continue
        y_bar = _random_like(rng, ya) if ya.dtype.kind in "fc" else ya
        ga = _cotangents(cr.rrule(f, *a, **ex.kwargs)[1], y_bar)
        gb = _cotangents(cr.rrule(f, *b, **ex.kwargs)[1], y_bar)
        same = len(ga) == len(gb) and all(
            (u is None and v is None)
            or (u is not None and v is not None and np.allclose(u, v, rtol=1e-12, atol=1e-12))
            for u, v in zip(ga, gb)
        )
        if not same:
            bad.append(f"{where}: the pullback depends on the arguments' values")
            continue
        checked += 1
    return checked, bad


@pytest.mark.parametrize("reg", _linear_registrations(), ids=lambda r: r.name)
def test_a_linear_declaration_holds_on_every_example(reg: Any) -> None:
    checked, bad = _check(reg)
    assert bad == []
    assert checked > 0, f"{reg.name}: no example with a floating argument checked the declaration"


def test_the_check_finds_a_false_declaration(clean_registry: Any) -> None:
    def square(x: Any) -> Any:  # declared linear, and it is not
        return x * x

    def double(x: Any) -> Any:  # linear, but its pullback (declared linear) reads x
        return 2.0 * x

    ex = {"examples": lambda rng: [((np.ones(3),), {})], "linear": True}

    @cr.register_rrule(square, **ex)
    def _square_rrule(x: Any) -> Any:
        return square(x), lambda g: (cr.NoTangent(), 2.0 * g * x)

    @cr.register_rrule(double, **ex)
    def _double_rrule(x: Any) -> Any:
        return double(x), lambda g: (cr.NoTangent(), 2.0 * g + 1e-3 * x)

    regs = {f: cr.registration_of(f) for f in (square, double)}
    assert [m.rsplit(": ", 1)[1] for m in _check(regs[square])[1]] == ["not linear"]
    assert [m.rsplit(": ", 1)[1] for m in _check(regs[double])[1]] == [
        "the pullback depends on the arguments' values"
    ]
