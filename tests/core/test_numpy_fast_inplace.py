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
