"""Chunked pullbacks: ``pullback(y_bar, chunk=1)`` of every rule registered with
``chunked_pullback=True`` equals the pullbacks of the chunk's cotangents one at a time, on the
rule's own examples (NumPy); a wrong shape is still refused; an undeclared pullback refuses
``chunk=``."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.registry import registrations, resolve_name, takes_chunks
from chainrules.core.tangents import AbstractZero, unthunk
from chainrules.testing.examples import examples_for

K = 3  # cotangents per chunk

_CHUNKED = [
    r
    for r in registrations()
    if r.chunked_pullback and r.family in ("array_api", "numpy", "callable")
]


def _rrule(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """``cr.rrule``, its pullback typed to take ``chunk=``."""
    return cr.rrule(fn, *args, **kwargs)


def _function(reg: cr.Registration) -> object:
    if callable(reg.target):  # a callable's own registration (operator.getitem)
        return reg.target
    return resolve_name(reg.family, str(reg.target), np)


def _cases() -> list[object]:
    out: list[Any] = []
    for reg in _CHUNKED:
        fn = _function(reg)
        if fn is None:
            continue
        for i, ex in enumerate(examples_for(reg)):
            out.append(pytest.param(fn, ex, id=f"{reg.name}-{i}"))
    return out


def _floating(y: object) -> bool:
    return isinstance(y, (np.ndarray, np.generic)) and y.dtype.kind in "fc"


def _dense(g: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    g = unthunk(g)
    return np.zeros(shape, dtype) if isinstance(g, AbstractZero) else np.asarray(g)


def test_the_benchmark_rules_are_declared() -> None:
    for fn in (np.tanh, np.exp, np.log, np.multiply, np.add, np.sum, np.mean, np.reshape):
        assert takes_chunks(cr.find_rrule(fn)), fn
    assert takes_chunks(cr.find_rrule(np.matmul))
    assert len(_CHUNKED) > 50


@pytest.mark.parametrize(("fn", "ex"), _cases())
def test_chunk_equals_loop(fn: Any, ex: Any) -> None:
    try:
        y, pb = _rrule(fn, *ex.args, **ex.kwargs)
    except Exception as e:  # noqa: BLE001 -- an example the primal refuses says so elsewhere
        pytest.skip(f"primal refuses the example: {e}")
    if not _floating(y):
        pytest.skip("integer or boolean output: no cotangent")
    rng = np.random.default_rng(1)
    shape = tuple(np.shape(y))
    cts = rng.standard_normal((K, *shape)).astype(y.dtype)
    if y.dtype.kind == "c":
        cts = cts + 1j * rng.standard_normal((K, *shape))
    chunked = pb(cts, chunk=1)
    rows = [pb(cts[r]) for r in range(K)]
    assert len(chunked) == len(rows[0])
    for i, a in enumerate(ex.args, start=1):
        if not any(_arr(r[i]) for r in rows):  # NoTangent or a zero derivative
            assert not _arr(chunked[i]), chunked[i]
            continue
        if isinstance(a, (tuple, list)):
            continue  # a sequence argument (concat's): none is declared chunk-capable here
        a_shape = tuple(np.shape(a))
        dtype = np.result_type(*(np.asarray(unthunk(r[i])).dtype for r in rows if _arr(r[i])))
        want = np.stack([_dense(r[i], a_shape, dtype) for r in rows])
        got = _dense(chunked[i], (K, *a_shape), dtype)
        assert got.shape == want.shape, (got.shape, want.shape)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def _arr(g: object) -> bool:
    return not isinstance(unthunk(g), AbstractZero)


def test_wrong_shapes_are_refused() -> None:
    x = np.ones((2, 3))
    _, pb = _rrule(np.tanh, x)
    with pytest.raises(ValueError, match=r"after 1 leading chunk"):
        pb(np.ones((4, 3, 2)), chunk=1)
    with pytest.raises(ValueError, match="does not match"):
        pb(np.ones((4, 2, 3)))  # a chunk that is not declared is a wrong shape
    _, pb = _rrule(np.matmul, np.ones((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match=r"after 1 leading chunk"):
        pb(np.ones((4, 3)), chunk=1)
    _, pb = _rrule(np.sum, x, axis=0)
    with pytest.raises(ValueError, match=r"after 1 leading chunk"):
        pb(np.ones(3), chunk=1)


def test_undeclared_pullback_refuses_a_chunk() -> None:
    _, pb = _rrule(np.linalg.det, np.eye(2) + 0.5)
    assert not takes_chunks(cr.find_rrule(np.linalg.det))
    with pytest.raises(TypeError, match="takes no chunk"):
        pb(np.ones((3,)), chunk=1)


def test_projection_keeps_chunk_axes() -> None:
    p = cr.ProjectTo(np.zeros((3, 1), dtype=np.float32))
    got = p(np.ones((5, 2, 3, 4)), 1)
    assert got.shape == (5, 3, 1) and got.dtype == np.float32
    np.testing.assert_array_equal(got, np.full((5, 3, 1), 8.0))
    assert cr.ProjectTo(1.0)(np.ones((5, 2)), 1).shape == (5,)


def test_operator_targets_follow_the_function() -> None:
    # the operator rules delegate to the function's rule: the engine loops over them (declared
    # per rule); their result equals the function's
    assert not takes_chunks(cr.find_rrule(operator.mul))


@pytest.mark.parametrize("key", [1, (slice(1, 3),), "index array"])
def test_a_chunk_through_the_generic_gather_reads_no_element(key: Any) -> None:
    """getitem's generic pullback takes a chunk one cotangent at a time (``each_direction``):
    each through a size-1 slice, never ``chunk[i]``, which a guarded device array refuses where
    the cotangents are 0-d (``x[1]``'s); the chunk equals the loop."""
    from chainrules.testing import to_numpy
    from chainrules.testing.device import device_array

    x = device_array(np.array([1.0, 2.0, 3.0]))
    k = device_array(np.array([0, 2])) if key == "index array" else key
    y, pb = _rrule(operator.getitem, x, k)
    shape = tuple(np.shape(to_numpy(y)))
    cts = np.random.default_rng(2).standard_normal((K, *shape))
    got = to_numpy(pb(device_array(cts), chunk=1)[1])
    want = np.stack([to_numpy(pb(device_array(cts[r]))[1]) for r in range(K)])
    np.testing.assert_allclose(got, want, rtol=1e-15)
