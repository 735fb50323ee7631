"""Traced arrays inside lists of lists (found by the campaign's corpus of user code, issue 26).

``np.block([[a, b], [c, d]])`` with traced blocks never ended: NumPy's protocol found the tracers
and called the engine, whose dispatch looks one level into a sequence, found none and called
NumPy's function again (a ``RecursionError`` after the stack filled). Now every NumPy function
given traced arrays nested deeper than one list raises a ``TypeError`` (np.block's names the
function and the fix); one level (``np.block([a, b])``, ``np.concatenate([a, b])``) is
differentiated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chainrules import ad

X = np.arange(12.0).reshape(4, 3) / 7

NESTED: dict[str, Callable[[Any], Any]] = {
    "block": lambda X: np.block([[X[:2, :2], X[:2, 2:]], [X[2:, :2], X[2:, 2:]]]),
    "concatenate": lambda X: np.concatenate([[X[0], X[1]]]),
    "stack": lambda X: np.stack([[X[0], X[1]], [X[2], X[3]]]),
    "vstack": lambda X: np.vstack([[X[0], X[1]]]),
    "hstack": lambda X: np.hstack([[X[0], X[1]]]),
    "column_stack": lambda X: np.column_stack([[X[0], X[1]]]),
}


@pytest.mark.parametrize("name", list(NESTED))
def test_nested_lists_of_tracers_raise_a_clear_error(name: str) -> None:
    f = NESTED[name]
    np.asarray(f(X))  # NumPy itself runs it
    # np.block's protocol looks into the inner lists (this message); the others' convert the
    # inner list with numpy.asarray, which refuses a traced array
    clear = rf"numpy\.{name}: traced arrays inside nested lists|numpy\.asarray\(x\) of a traced"
    with pytest.raises(TypeError, match=clear):
        ad.grad(lambda X: np.sum(f(X) ** 2))(X)


@pytest.mark.parametrize(
    "f",
    [
        lambda X: np.block([X[:, :2], X[:, 2:]]),
        lambda X: np.concatenate([X[:2], X[2:]]),
        lambda X: np.stack([X[0], X[1]]),
    ],
    ids=["block", "concatenate", "stack"],
)
def test_one_level_is_differentiated(f: Callable[[Any], Any]) -> None:
    g = ad.grad(lambda X: np.sum(f(X) ** 2))(X)
    h = 1e-6
    fd = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[i] = h
        fd[i] = (np.sum(f(X + e) ** 2) - np.sum(f(X - e) ** 2)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
