"""The fast pullbacks multiply the cotangent into a partial's fresh temporary in place
(``numpy_fast._scale``, issue 14) and never into anything another holds: the output, the
operands, the cotangent, an array a partial returns unchanged (``exp``'s ``out``), a view."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core import numpy_fast
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for

from .test_numpy_fast import FORMULAS
from .test_numpy_fast_defer import _big


@pytest.mark.parametrize("reg", FORMULAS, ids=lambda r: r.name)
def test_no_pullback_writes_what_another_holds(reg: cr.Registration) -> None:
    f = BACKENDS["numpy"].function(reg)
    taken = 0
    for ex in examples_for(reg):
        if ex.complex or not all(numpy_fast.is_real(a) for a in ex.args):
            continue
        for args in (ex.args, _big(ex.args)):  # inline and deferred (thunk) cotangents
            y, pb = cr.rrule(f, *args)
            g = np.random.default_rng(5).standard_normal(np.shape(y)).astype(np.asarray(y).dtype)
            if not isinstance(g, np.ndarray):
                continue
            kept = [np.copy(a) for a in (y, g, *args)]
            first = [cr.unthunk(c) for c in pb(g)[1:]]
            again = [cr.unthunk(c) for c in pb(g)[1:]]  # a pullback called twice: same result
            for a, b in zip(first, again):
                np.testing.assert_array_equal(a, b)
            for now, before in zip((y, g, *args), kept):
                np.testing.assert_array_equal(now, before)
            taken += 1
    assert taken, reg.name


def test_scale_writes_into_a_fresh_temporary_only() -> None:
    n = numpy_fast.INPLACE_SIZE
    g = np.full(n, 2.0)
    assert numpy_fast._FRESH > 0  # CPython: the in-place product is on
    held = np.ones(n)
    assert numpy_fast._scale(g, held) is not held and held[0] == 1.0
    base = np.ones(2 * n)
    view = numpy_fast._scale(g, base[:n])  # a view: its owner's memory is not written
    assert base[0] == 1.0 and view[0] == 2.0
    calls: list[Any] = []
    real = numpy_fast._multiply

    def spy(*a: Any, **k: Any) -> Any:
        calls.append(k.get("out"))
        return real(*a, **k)

    numpy_fast._multiply = spy  # type: ignore[assignment]
    try:
        np.testing.assert_array_equal(numpy_fast._scale(g, np.ones(n) + 1), np.full(n, 4.0))
        _, pb = cr.rrule(np.log1p, np.ones(n))
        np.testing.assert_array_equal(pb(g)[1], np.ones(n))  # 2 * 1 / (1 + 1)
    finally:
        numpy_fast._multiply = real
    assert len(calls) == 2 and all(c is not None for c in calls)
    small = np.ones(4) + 1
    assert numpy_fast._scale(g[:4], small) is not small  # below INPLACE_SIZE: a new array


def test_a_handed_cotangent_takes_a_unary_product() -> None:
    """A cotangent no one else holds (the engine hands its node's over: ``pb(box.pop())``) takes
    a unary pullback's product with a held partial (``exp``'s is its output) in place; a
    cotangent the caller keeps is never written."""
    assert numpy_fast.HANDED > 0  # CPython: the hand-over is on
    n = numpy_fast.INPLACE_SIZE
    x = np.linspace(-1.0, 1.0, n)
    y, pb = cr.rrule(np.exp, x)
    box = [np.full(n, 2.0)]
    handed = id(box[0])
    got = pb(box.pop())[1]
    assert id(got) == handed  # got keeps it alive: the same array, written in place
    np.testing.assert_array_equal(got, 2.0 * y)
    kept = np.full(n, 2.0)
    got = pb(kept)[1]
    assert got is not kept
    np.testing.assert_array_equal(kept, np.full(n, 2.0))
    np.testing.assert_array_equal(got, 2.0 * y)
    view = np.full(2 * n, 2.0)
    box = [view[:n]]  # a view: its owner's memory is not written
    pb(box.pop())
    np.testing.assert_array_equal(view, np.full(2 * n, 2.0))


def test_the_engine_hands_its_cotangents_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """In ``ad.grad`` a chain of elementwise pullbacks reuses the cotangent's buffer: the peak of
    ``sum(log1p(exp(x)))``'s gradient is at least one buffer lower than with the hand-over off,
    and the gradient is the same."""
    import tracemalloc

    from chainrules import ad

    x = np.linspace(-3.0, 3.0, 1 << 17)
    grad = ad.grad(lambda v: np.sum(np.log1p(np.exp(v))))

    def run() -> tuple[Any, int]:
        grad(x)
        tracemalloc.start()
        try:
            g = grad(x)
            return g, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    on, peak_on = run()
    monkeypatch.setattr(numpy_fast, "HANDED", 0)
    off, peak_off = run()
    np.testing.assert_array_equal(on, off)
    np.testing.assert_allclose(on, 1 / (1 + np.exp(-x)), rtol=1e-14)
    assert peak_off - peak_on > x.nbytes // 2  # one buffer, give or take small Python objects
