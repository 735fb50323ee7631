"""A list operand of a NumPy tracer is the array NumPy makes of it (found by the campaign's corpus
of user code, issue 26: ``x[0] - [3, 5, 2]``, ``X @ w - [1.0, 2.0]``, ``np.maximum(x, [0.1, 3])``
were refused with "expected an array or a Python scalar, got builtins.list").

NumPy's operators, in-place operators and ufuncs take any array_like; each test compares the
value and the gradient with a list operand against the same code with ``numpy.asarray`` of it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad._core import _OPERATORS
from chainrules.ad._tracer import _BITWISE

X = np.array([1.5, 2.5, 0.7])
LIST = [0.5, 2.0, 1.25]  # positive (pow), floats (an int list would make floor_divide exact)

# every binary arithmetic operator of the tracer (``neg``/``pos``/``abs``/``invert`` are unary; the
# bitwise ones take masks and integers, tests/ad/test_jit.py)
BINARY = [op for op in _OPERATORS if op not in ("neg", "pos", "abs", "invert", *_BITWISE)]


def _agree(f: Callable[[Any, Any], Any], x: np.ndarray, operand: Any) -> None:
    """``f(x, operand)`` with the list and with its array: same value, same gradient."""
    arr = np.asarray(operand)
    want_v, want_g = ad.value_and_grad(lambda x: np.sum(f(x, arr) * 1.0))(x)
    got_v, got_g = ad.value_and_grad(lambda x: np.sum(f(x, operand) * 1.0))(x)
    np.testing.assert_array_equal(got_v, want_v)
    np.testing.assert_array_equal(got_g, want_g)
    np.testing.assert_array_equal(got_v, np.sum(f(x, operand) * 1.0))  # NumPy's own value


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("reflected", [False, True], ids=["t op list", "list op t"])
def test_list_operand_of_operator(op: str, reflected: bool) -> None:
    fn = getattr(operator, op)
    x = X if op != "pow" or reflected else np.abs(X)

    def f(x: Any, o: Any) -> Any:
        return fn(o, x) if reflected else fn(x, o)

    _agree(f, x, LIST)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow"])
def test_list_operand_of_in_place_operator(op: str) -> None:
    iop = getattr(operator, f"i{op}")

    def f(x: Any, o: Any) -> Any:
        y = x * 1.0
        y = iop(y, o)
        return y * x

    _agree(f, X, LIST)


def _binary_float_ufuncs() -> list[np.ufunc]:
    out = []
    for name in sorted(dir(np)):
        u = getattr(np, name)
        if isinstance(u, np.ufunc) and u.nin == 2 and u.nout == 1 and "dd->d" in u.types:
            out.append(u)
    return out


@pytest.mark.parametrize("ufunc", _binary_float_ufuncs(), ids=lambda u: u.__name__)
def test_list_operand_of_ufunc(ufunc: np.ufunc) -> None:
    """Every binary float ufunc: a list operand does what its array does (the same value and
    gradient, or the same refusal where the ufunc has no derivative)."""
    x = np.abs(X)  # in the domain of all of them (power, logaddexp, ...)

    def f(x: Any, o: Any) -> Any:
        return ufunc(x, o) + ufunc(o, x)

    lst = [0.5, 2.0, 1.25]
    try:
        ad.grad(lambda x: np.sum(f(x, np.asarray(lst))))(x)
    except Exception as e:  # noqa: BLE001  (no derivative: the list must be refused alike)
        with pytest.raises(type(e)):
            ad.grad(lambda x: np.sum(f(x, lst)))(x)
        return
    _agree(f, x, lst)


def test_nested_list_and_tuple_operands() -> None:
    M = np.array([[0.3, -1.2, 0.7], [2.0, 0.1, -0.4]])
    _agree(lambda x, o: x - o, M, [[1, 2, 3], [4, 5, 6]])
    _agree(lambda x, o: x @ o, M, (1.0, 2.0, 3.0))


def test_list_holding_a_tracer_still_traced() -> None:
    """A list with a traced element is not converted (it would read the value): it goes to the
    rule, which stacks it, as before."""
    g = ad.grad(lambda x: np.sum(x * [x[0], 1.0]))(np.array([1.5, 2.5]))
    np.testing.assert_allclose(g, [2 * 1.5, 1.0])  # d(x0 * x0 + x1)


def test_in_place_operator_keeps_the_shape() -> None:
    """``a *= b`` whose broadcast shape is larger than ``a``'s: NumPy raises; the engine too (it
    used to give ``a`` the broadcast shape, a value NumPy never computes)."""

    def f(x: Any) -> Any:
        y = x * 1.0
        y *= np.array([[1.0, 2.0, 3.0]])
        return np.sum(y)

    with pytest.raises(ValueError):
        f(X.copy())
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        ad.grad(f)(X)
