"""ndarray's methods on a NumPy-backed traced array (chainrules/ad/_numpy_methods.py): the method
spelling differentiates as the function spelling does (``x.repeat(2)`` as ``np.repeat(x, 2)``),
the in-place ones (``x.sort()``) change the array as NumPy's do, and host reads (``x.item()``)
are refused where they would lose a derivative. Code that others wrote uses these spellings; a
traced array lacked ``argmax``, ``argsort``, ``repeat``, ``sort``, ``any``, ``all``,
``compress``, ``searchsorted``, ``item`` and ``nbytes`` until this test."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from chainrules import ad
from chainrules.testing.finite_differences import gradient

X = np.array([0.3, -1.2, 2.5, 0.7, -0.1])
M = np.arange(6.0).reshape(2, 3) + 0.5
W = np.arange(5.0)

# method spelling, function spelling, argument
PAIRS: dict[str, tuple[Any, Any, Any]] = {
    "repeat": (
        lambda x: np.sum(x.repeat(2) * np.arange(10.0)),
        lambda x: np.sum(np.repeat(x, 2) * np.arange(10.0)),
        X,
    ),
    "repeat axis": (
        lambda m: np.sum(m.repeat(2, axis=0) ** 2),
        lambda m: np.sum(np.repeat(m, 2, axis=0) ** 2),
        M,
    ),
    "argmax argmin": (
        lambda x: x[x.argmax()] ** 2 + x[x.argmin()],
        lambda x: x[np.argmax(x)] ** 2 + x[np.argmin(x)],
        X,
    ),
    "argsort": (
        lambda x: np.sum(x[x.argsort()] * W),
        lambda x: np.sum(x[np.argsort(x)] * W),
        X,
    ),
    "argpartition": (
        lambda x: x[x.argpartition(2)[2]] ** 2,
        lambda x: x[np.argpartition(x, 2)[2]] ** 2,
        X,
    ),
    "compress": (
        lambda m: np.sum(m.compress([True, False, True], axis=1) ** 2),
        lambda m: np.sum(np.compress([True, False, True], m, axis=1) ** 2),
        M,
    ),
    "compress positional axis": (
        lambda m: np.sum(m.compress([True, False, True], 1) ** 2),
        lambda m: np.sum(np.compress([True, False, True], m, 1) ** 2),
        M,
    ),
    "searchsorted": (
        lambda x: np.sum(x[np.sort(x).searchsorted(0.5) % 5] ** 2),
        lambda x: np.sum(x[np.searchsorted(np.sort(x), 0.5) % 5] ** 2),
        X,
    ),
    "any all": (
        lambda x: np.sum(x**2) if x.any() and not (x > 0).all() else np.sum(x),
        lambda x: np.sum(x**2) if np.any(x) and not np.all(x > 0) else np.sum(x),
        X,
    ),
}


def _finite_differences(f: Any, x: Any) -> Any:
    return gradient(lambda xs: f(xs[0]), [x], 0, 1e-4)


@pytest.mark.parametrize("name", list(PAIRS))
def test_a_method_differentiates_as_its_function(name: str) -> None:
    method, function, x = PAIRS[name]
    g = ad.grad(method)(x)
    np.testing.assert_allclose(g, ad.grad(function)(x), rtol=1e-12)
    np.testing.assert_allclose(g, _finite_differences(method, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["sort", "partition"])
def test_an_in_place_method_changes_the_array_and_returns_none(name: str) -> None:
    def f(x: Any) -> Any:
        y = x * 1.0
        assert getattr(y, name)(2) is None if name == "partition" else y.sort() is None
        return np.sum(y[:3] * W[:3])

    want = X * 1.0
    (want.partition(2) if name == "partition" else want.sort())
    np.testing.assert_allclose(ad.value_and_grad(f)(X)[0], np.sum(want[:3] * W[:3]))
    np.testing.assert_allclose(ad.grad(f)(X), _finite_differences(f, X), rtol=1e-6, atol=1e-8)


def test_item_and_tolist_of_a_traced_value_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"x\.item\(\) of a traced array reads its value"):
        ad.grad(lambda x: np.sum(x) * x[0].item())(X)
    with pytest.raises(TypeError, match=r"x\.item\(\) of a traced array reads its value"):
        ad.grad(lambda x: np.sum(x) * x.item(0))(X)
    with pytest.raises(TypeError, match=r"x\.tolist\(\) of a traced array reads its value"):
        ad.grad(lambda x: np.sum(np.array(x.tolist())))(X)


def test_item_of_a_value_that_depends_on_no_input_is_read() -> None:
    seen: list[Any] = []

    def f(x: Any) -> Any:
        n = np.sum(np.zeros_like(x)).item()  # no derivative to lose
        # an array the code created from x (a constant of the trace), 2 x 3: item(k) of the
        # flat array, as NumPy's
        c = np.reshape(np.zeros_like(x)[:1] + M.ravel(), (2, 3))
        assert not isinstance(c, np.ndarray)
        seen.append((c.item(4), c.item(1, 2)))
        return np.sum(x**2) + n

    np.testing.assert_allclose(ad.grad(f)(X), 2 * X)
    assert seen == [(M.item(4), M.item(1, 2))]


def test_itemsize_and_nbytes_are_numpys() -> None:
    seen: list[Any] = []

    def f(x: Any) -> Any:
        seen.append((x.itemsize, x.nbytes))
        return np.sum(x)

    ad.grad(f)(X.astype(np.float32))
    assert seen == [(4, 20)]
