"""Pullbacks keep alive only what they need: a linear rule's pullback holds shapes and dtypes, not
its inputs (issue 15, point 9). Each linear registration at its first example: after the rrule
call only the pullback is kept, and every floating input array must be freed. About 1 s.

``HELD`` declares the rules whose pullbacks still keep an input alive, with the reason; the test
fails on a new one and on a declared one that is freed now (remove it from ``HELD`` then).
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.registry import registrations
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for

# the linear registrations (linear in their differentiable inputs); the registry has no marker
LINEAR = (
    "reshape squeeze expand_dims permute_dims moveaxis flip roll broadcast_to repeat tile concat "
    "stack unstack broadcast_arrays take take_along_axis operator.getitem tril triu sum mean "
    "cumulative_sum operator.neg operator.pos asarray numpy:reshape numpy:ravel numpy:squeeze "
    "numpy:expand_dims numpy:transpose numpy:swapaxes numpy:moveaxis numpy:flip numpy:roll "
    "numpy:broadcast_to numpy:concatenate numpy:stack numpy:vstack numpy:hstack numpy:dstack "
    "numpy:column_stack numpy:split numpy:array_split numpy:atleast_1d numpy:atleast_2d "
    "numpy:fliplr numpy:flipud numpy:rot90 numpy:copy numpy:sum numpy:mean numpy:cumsum "
    "numpy:take numpy:diag"
).split()

# the pullback decorator keeps an Output record of y, not y (often a view of the input); these
# rules' own closures still capture an input (x, arrays, args) where a shape and dtype would do
_REASON = "the rule's pullback closure captures the input array itself"
HELD = dict.fromkeys(
    "take take_along_axis operator.getitem tril triu cumulative_sum operator.neg operator.pos "
    "asarray numpy:cumsum numpy:take".split(),
    _REASON,
)


def _fresh(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        return a.copy()
    if isinstance(a, (tuple, list)):
        return type(a)(_fresh(e) for e in a)
    return a


def _arrays(a: Any) -> list[Any]:
    if isinstance(a, np.ndarray):
        return [a]
    if isinstance(a, (tuple, list)):
        return [e for v in a for e in _arrays(v)]
    return []


def _params() -> list[Any]:
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=HELD[n])) if n in HELD else n
        for n in LINEAR
    ]


@pytest.mark.parametrize("name", _params())
def test_a_linear_pullback_frees_its_inputs(name: str) -> None:
    regs = {r.name: r for r in registrations()}
    reg = regs[name]
    f = BACKENDS["numpy"].function(reg)
    ex = examples_for(reg)[0]

    def call() -> tuple[list[Any], Any]:
        args = tuple(_fresh(a) for a in ex.args)
        refs = [weakref.ref(a) for a in _arrays(args) if a.dtype.kind in "fc"]
        _, pb = cr.rrule(f, *args, **ex.kwargs)
        return refs, pb

    refs, pb = call()
    gc.collect()
    assert refs, f"{name}: the example has no floating input"
    alive = [i for i, r in enumerate(refs) if r() is not None]
    assert not alive, f"{name}: the pullback keeps input arrays {alive} alive"
    assert pb is not None


def test_the_pullback_decorator_holds_no_argument() -> None:
    def double(x: Any) -> Any:
        return x * 2.0

    def double_rrule(x: Any) -> Any:
        y = double(x)

        @cr.pullback(y, (x,))
        def double_pullback(y_bar: Any) -> Any:
            return y_bar * 2.0

        return y, double_pullback

    x = np.ones(3)
    ref = weakref.ref(x)
    _, pb = double_rrule(x)
    del x
    gc.collect()
    assert ref() is None
    assert pb(cr.ZeroTangent()) == (cr.NoTangent(), cr.ZeroTangent())
    np.testing.assert_array_equal(pb(np.ones(3))[1], np.full(3, 2.0))
