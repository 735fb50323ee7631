"""Plain NumPy code with lists, tuples and Python scalars beside traced arrays (issue 29, item 2).

Operators and ufuncs read a list operand as NumPy does (``tests/ad/test_list_operands.py``).
Here: the functions NumPy dispatches (``np.dot``, ``np.where``, ``np.clip``, ``np.concatenate``,
``np.stack``, ``np.interp``, ...) with a list or tuple where they take an array -- on either
side, nested, of floats or of integers -- give the value and the gradient of the same code with
``numpy.asarray`` of the list; lists that are shapes, axes, pad widths or indices stay what they
are. Before, every dispatched function refused a list ("expected an array or a Python scalar, got
builtins.list").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chainrules import ad

X = np.array([1.5, 2.5, 0.7])
M = np.array([[1.0, -2.0, 3.0], [0.5, 5.0, -6.0], [7.0, 0.25, 9.0]])
F = [0.5, -2.0, 1.25]  # floats: data wherever they stand
I3 = [1, 2, 3]  # integers: a shape or an axis elsewhere, an array here


def _asarrays(o: Any) -> Any:
    """``o`` with each list or tuple of numbers (at any depth of an argument list) an array."""
    return np.asarray(o) if type(o) in (list, tuple) and _numbers(o) else o


def _numbers(o: Any) -> bool:
    return all(
        _numbers(e) if type(e) in (list, tuple) else isinstance(e, int | float | complex) for e in o
    )


def _agree(f: Callable[..., Any], x: np.ndarray, *operands: Any) -> None:
    """``f(x, *operands)`` with the lists and with their arrays: the same value (NumPy's own
    too) and the same gradient; each list passed as it was written."""
    arrays = [_asarrays(o) for o in operands]

    def loss(ops: Any) -> Callable[[Any], Any]:
        return lambda v: np.sum(np.asarray(1.0) * f(v, *ops))

    want_v, want_g = ad.value_and_grad(loss(arrays))(x)
    got_v, got_g = ad.value_and_grad(loss(operands))(x)
    np.testing.assert_array_equal(got_v, want_v)
    np.testing.assert_array_equal(got_g, want_g)
    np.testing.assert_allclose(got_v, np.sum(f(x, *operands)), rtol=1e-15)


CASES: dict[str, tuple[Callable[..., Any], np.ndarray, tuple[Any, ...]]] = {
    "np.dot(x, floats)": (lambda x, o: np.dot(x, o), X, (F,)),
    "np.dot(floats, x)": (lambda x, o: np.dot(o, x), X, (F,)),
    "np.dot(x, ints)": (lambda x, o: np.dot(x, o), X, (I3,)),
    "np.dot(nested, x)": (lambda x, o: np.dot(o, x), X, ([F, [1.0, 0.0, 2.0]],)),
    "np.dot(x, tuple)": (lambda x, o: np.dot(x, o), X, ((0.5, 1.0, 2.0),)),
    "np.matmul(M, floats)": (lambda m, o: np.matmul(m, o), M, (F,)),
    "np.where(m, floats, x)": (lambda x, o: np.where(x > 1.0, o, x), X, (F,)),
    "np.where(m, x, ints)": (lambda x, o: np.where(x > 1.0, x, o), X, (I3,)),
    "np.where(bools, x, 0.0)": (lambda x, o: np.where(o, x, 0.0), X, ([True, False, True],)),
    "np.clip(x, floats, floats)": (lambda x, lo, hi: np.clip(x, lo, hi), X, (F, [2.0, 2.0, 1.0])),
    "np.clip(x, ints, ints)": (lambda x, lo, hi: np.clip(x, lo, hi), X, ([0, 1, 1], [2, 2, 2])),
    "np.clip(x, 0, ints)": (lambda x, hi: np.clip(x, 0, hi), X, ([2, 2, 0],)),
    "np.concatenate([floats, x])": (lambda x, o: np.concatenate([o, x]), X, (F,)),
    "np.concatenate(([0], x))": (lambda x, o: np.concatenate((o, x)), X, ([0],)),
    "np.stack([x, floats])": (lambda x, o: np.stack([x, o]), X, (F,)),
    "np.vstack([ints, x])": (lambda x, o: np.vstack([o, x]), X, (I3,)),
    "np.hstack((x, floats))": (lambda x, o: np.hstack((x, o)), X, (F,)),
    "np.column_stack([x, floats])": (lambda x, o: np.column_stack([x, o]), X, (F,)),
    "np.append(x, floats)": (lambda x, o: np.append(x, o), X, (F,)),
    "np.append(floats, x)": (lambda x, o: np.append(o, x), X, (F,)),
    "np.interp(x, floats, floats)": (
        lambda x, xp, fp: np.interp(x, xp, fp),
        X,
        ([0.0, 1.0, 3.0], [0.0, 2.0, 1.0]),
    ),
    "np.interp(x, xp=, fp=)": (
        lambda x, xp, fp: np.interp(x, xp=xp, fp=fp),
        X,
        ([0.0, 1.0, 3.0], [0.0, 2.0, 1.0]),
    ),
    "np.outer(x, floats)": (lambda x, o: np.outer(x, o), X, (F,)),
    "np.inner(floats, x)": (lambda x, o: np.inner(o, x), X, (F,)),
    "np.cross(x, floats)": (lambda x, o: np.cross(x, o), X, (F,)),
    "np.kron(x, floats)": (lambda x, o: np.kron(x, o), X, (F,)),
    "np.convolve(x, floats)": (lambda x, o: np.convolve(x, o), X, (F,)),
    "np.polyval(floats, x)": (lambda x, o: np.polyval(o, x), X, (F,)),
    "np.average(x, weights=)": (lambda x, o: np.average(x, weights=o), X, ([0.2, 0.3, 0.5],)),
    "np.insert(x, 1, floats)": (lambda x, o: np.insert(x, 1, o), X, ([9.5, 8.5],)),
    "np.maximum(x, floats)": (lambda x, o: np.maximum(x, o), X, (F,)),
    "np.add(nested, x)": (lambda x, o: np.add(o, x), X, ([F, [1, 2, 3]],)),
    "tuple - x": (lambda x, o: o - x, X, ((1.0, 2.0, 3.0),)),
    "x @ nested": (lambda m, o: m @ o, M, ([F, [1.0, 0.0, 2.0], [0.0, 1.0, 1.0]],)),
    "scalars": (lambda x: 2 * x + 1 - x / 4.0 + np.float64(0.5) * np.maximum(x, 1), X, ()),
}


# interp's rule, given xp= and fp= by keyword, fails in its pullback with arrays as with lists
# (IndexError in rules/elementwise/interp.py: it sizes its cotangents by the positional arguments)
_KNOWN = {
    "np.interp(x, xp=, fp=)": "interp's pullback indexes its cotangents by the positional "
    "arguments only (also with numpy arrays, also through cr.rrule)"
}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, raises=IndexError, reason=_KNOWN[c]))
        if c in _KNOWN
        else c
        for c in CASES
    ],
)
def test_a_list_where_numpy_takes_an_array(case: str) -> None:
    f, x, operands = CASES[case]
    _agree(f, x, *operands)


# lists that are not arrays: shapes, axes, pad widths, repeat counts, indices (integers)
SHAPES: dict[str, Callable[[Any], Any]] = {
    "reshape(x, [3, 1])": lambda x: np.reshape(x, [3, 1]),
    "reshape(x, (1, 3))": lambda x: np.reshape(x, (1, 3)),
    "transpose(M, [1, 0])": lambda x: np.transpose(np.outer(x, x), [1, 0]),
    "tile(x, [2, 1])": lambda x: np.tile(x, [2, 1]),
    "pad(x, [1, 2])": lambda x: np.pad(x, [1, 2]),
    "pad(x, ((1, 1),), constant)": lambda x: np.pad(x, ((1, 1),), constant_values=0.5),
    "sum(M, axis=(0, 1))": lambda x: np.sum(np.outer(x, x), axis=(0, 1)),
    "take(x, [0, 2])": lambda x: np.take(x, [0, 2]),
    "repeat(x, [1, 2, 0])": lambda x: np.repeat(x, [1, 2, 0]),
    "insert(x, [1, 2], 7.0)": lambda x: np.insert(x, [1, 2], 7.0),
    "broadcast_to(x, (2, 3))": lambda x: np.broadcast_to(x, (2, 3)),
    "moveaxis(M, [0], [1])": lambda x: np.moveaxis(np.outer(x, x), [0], [1]),
    "tensordot(M, M, ([1], [0]))": lambda x: np.tensordot(np.outer(x, x), np.diag(x), ([1], [0])),
}


@pytest.mark.parametrize("case", list(SHAPES))
def test_lists_of_integers_that_are_shapes_axes_or_indices_stay_so(case: str) -> None:
    f = SHAPES[case]
    w = np.random.default_rng(1).standard_normal(np.shape(f(X)))
    got_v, got_g = ad.value_and_grad(lambda v: np.sum(f(v) * w))(X)
    np.testing.assert_allclose(got_v, np.sum(f(X) * w), rtol=1e-14)
    h = 1e-6
    fd = np.array(
        [(np.sum(f(X + h * e) * w) - np.sum(f(X - h * e) * w)) / (2 * h) for e in np.eye(3)]
    )
    np.testing.assert_allclose(got_g, fd, rtol=1e-7, atol=1e-9)


def test_a_list_beside_a_tracer_under_jacobian_hessian_jvp_and_jit() -> None:
    """The same conversion in every transformation, and in a recording replayed."""

    def f(x: Any) -> Any:
        return np.dot(np.clip(x, [0, 1, 1], [2, 2, 2]), F) * np.stack([x, F])

    want = np.dot(np.clip(X, [0, 1, 1], [2, 2, 2]), F) * np.stack([X, F])
    np.testing.assert_allclose(ad.jit(f)(X), want, rtol=1e-15)
    np.testing.assert_allclose(ad.jit(f)(X), want, rtol=1e-15)  # replayed
    jac = ad.jacobian(f)(X)
    fd = np.stack(
        [(f(X + 1e-6 * e) - f(X - 1e-6 * e)) / 2e-6 for e in np.eye(3)],
        axis=-1,
    )
    np.testing.assert_allclose(jac, fd, rtol=1e-6, atol=1e-8)
    _, tangent = ad.jvp(f, (X,), (np.ones(3),))
    np.testing.assert_allclose(tangent, jac.sum(-1), rtol=1e-12)
    hess = ad.hessian(lambda x: np.sum(f(x) ** 2))(X)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-12)
    assert np.abs(hess).max() > 0


def test_a_wrong_shape_list_keeps_its_error() -> None:
    """A list of integers the rule reads as a shape is not retried as an array: a wrong shape
    is the same error as NumPy's."""
    with pytest.raises(ValueError) as numpy_err:
        np.reshape(X, [2, 2])
    with pytest.raises(ValueError) as ours:
        ad.grad(lambda x: np.sum(np.reshape(x, [2, 2])))(X)
    assert str(ours.value) == str(numpy_err.value)
