"""Pullbacks keep alive only what they need: a linear rule's pullback holds shapes and dtypes, not
its inputs (issue 15, point 9). Each linear registration at its first example: after the rrule
call only the pullback is kept, and every floating input array must be freed; the pullback then
still gives what a fresh call's gives. About 1 s.

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

# the rules whose pullbacks still keep an input alive, with the reason (none now): the pullback
# decorator keeps an Output record of y, not y (often a view of the input), and each rule's
# closure captures shapes, dtypes and devices, not its inputs
HELD: dict[str, str] = {}


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


def _ones(y: Any) -> Any:
    """A cotangent of ones for an output (a tuple of them for a tuple output)."""
    if isinstance(y, (tuple, list)):
        return tuple(_ones(e) for e in y)
    return np.ones_like(y)


def _flat(v: Any) -> list[Any]:
    """A pullback's result as a flat list: arrays, and the markers by type."""
    v = cr.unthunk(v)
    if isinstance(v, cr.Tangent):
        return [e for part in v.elements() for e in _flat(part)]
    if isinstance(v, (tuple, list)):
        return [e for part in v for e in _flat(part)]
    return [v if hasattr(v, "shape") else type(v)]


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

    def call() -> tuple[list[Any], Any, Any]:
        args = tuple(_fresh(a) for a in ex.args)
        refs = [weakref.ref(a) for a in _arrays(args) if a.dtype.kind in "fc"]
        y, pb = cr.rrule(f, *args, **ex.kwargs)
        return refs, pb, _ones(y)

    refs, pb, y_bar = call()
    gc.collect()
    assert refs, f"{name}: the example has no floating input"
    alive = [i for i, r in enumerate(refs) if r() is not None]
    assert not alive, f"{name}: the pullback keeps input arrays {alive} alive"
    # and the pullback still works with its inputs gone: the cotangents of a fresh call's
    got = _flat(pb(y_bar))
    want = _flat(cr.rrule(f, *(_fresh(a) for a in ex.args), **ex.kwargs)[1](y_bar))
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        if isinstance(w, type):
            assert g is w, name
        else:
            assert type(g) is type(w) and g.dtype == w.dtype, name
            np.testing.assert_array_equal(g, w)


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


def test_check_cotangent_takes_the_output_record() -> None:
    from chainrules.core.toolkit import Output, output

    y = np.ones((2, 3), dtype=np.float32)
    rec = output(y)
    assert type(rec) is Output and rec.shape == (2, 3) and rec.dtype == np.float32
    # what check_cotangent does with y it does with the record: shapes, dtype kinds, scalars
    for y_bar in (np.ones((2, 3)), np.ones((2, 3), dtype=bool), np.ones((2, 3)) + 1j):
        got, want = cr.check_cotangent("f", y_bar, rec), cr.check_cotangent("f", y_bar, y)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match=r"f: cotangent of shape \(3,\) .* shape \(2, 3\)"):
        cr.check_cotangent("f", np.ones(3), rec)
    s = cr.check_cotangent("f", 2.0, output(np.zeros((), dtype=np.float32)))
    assert type(s) is np.ndarray and s.dtype == np.float32 and s.shape == ()
    # a tuple output gives a tuple of records; scalars are kept as they are
    assert [type(r) for r in output((y, y))] == [Output, Output]
    assert output(1.5) == 1.5 and output(np.float64(2.0)) == 2.0


def test_the_output_record_keeps_the_device_checks() -> None:
    torch = pytest.importorskip("torch")
    from chainrules.core.toolkit import output

    rec = output(torch.ones(3, dtype=torch.float64))
    # another library in host memory: converted to the output's library, as for y itself
    got = cr.check_cotangent("f", np.ones(3), rec)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float64
    # another device: refused, naming both
    with pytest.raises(TypeError, match=r"f: the cotangent is on device meta, but the primal"):
        cr.check_cotangent("f", torch.ones(3, dtype=torch.float64, device="meta"), rec)
    # an accelerator's array is never moved silently: refused, naming both libraries
    with pytest.raises(TypeError, match=r"f: the cotangent is a torch array .* a numpy array"):
        cr.check_cotangent(
            "f", torch.ones(3, dtype=torch.float64, device="meta"), output(np.ones(3))
        )


@pytest.mark.parametrize("name", ["reshape", "permute_dims", "operator.getitem", "concat"])
def test_a_torch_view_is_not_kept(name: str) -> None:
    # a torch view holds its base tensor (._base): the record, not y, keeps the input free
    torch = pytest.importorskip("torch")
    reg = {r.name: r for r in registrations()}[name]
    f = BACKENDS["torch"].function(reg)
    ex = examples_for(reg)[0]

    def call() -> tuple[list[Any], Any]:
        args = tuple(torch.asarray(_fresh(a)) if isinstance(a, np.ndarray) else a for a in ex.args)
        if name == "concat":
            args = (tuple(torch.asarray(a) for a in ex.args[0]), *ex.args[1:])
        leaves = args[0] if name == "concat" else args[:1]
        refs = [weakref.ref(a) for a in leaves]
        _, pb = cr.rrule(f, *args, **ex.kwargs)
        return refs, pb

    refs, pb = call()
    gc.collect()
    assert all(r() is None for r in refs), f"{name}: the pullback keeps a torch input alive"
    assert pb is not None
