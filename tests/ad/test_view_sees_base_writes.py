"""A view made by basic indexing sees every later write into its base (found by the campaign's
corpus of user code, issue 26).

``y = x * 1.0; v = y[1:3]; y[1] = 100 * x[0]; return v`` -- in NumPy ``v`` shows the write. The
engine wrote a view's writes through to its base, but not the base's writes into the views
already taken (nor a sibling view's, which reach the base first): ``v`` kept the old value, and
the value and the gradient were silently wrong. Each test compares the value with NumPy's and
the gradient with central differences, over every kind of basic key and every kind of write.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chainrules import ad

X = np.array([[0.3, -1.2, 0.7, 2.0], [0.1, 0.9, -0.4, 1.3], [0.6, -0.8, 1.1, 0.2]])

# basic keys: NumPy's getitem returns a view for each
KEYS = {
    "int": 1,
    "slice": slice(1, 3),
    "step": (slice(None), slice(None, None, 2)),
    "int-slice": (0, slice(1, None)),
    "ellipsis": (Ellipsis, 2),
    "newaxis": (None, slice(0, 2)),
    "negative": (slice(None, None, -1), -1),
}


def _writes() -> dict[str, Callable[[Any, Any], None]]:
    """Ways to write into ``y`` (in place) with values computed from ``x``."""

    def setitem(y: Any, x: Any) -> None:
        y[1] = 10 * x[0]

    def setitem_all(y: Any, x: Any) -> None:
        y[...] = x**2

    def through_sibling_view(y: Any, x: Any) -> None:
        s = y[:, 1:]
        s *= x[:, :3]

    def ufunc_out(y: Any, x: Any) -> None:
        np.multiply(x, 3.0, out=y)

    out = {"setitem": setitem, "setitem ...": setitem_all, "sibling view": through_sibling_view}
    out["ufunc out="] = ufunc_out
    for op in ("iadd", "isub", "imul", "itruediv"):

        def inplace(y: Any, x: Any, op: str = op) -> None:
            getattr(operator, op)(y, x[::-1] + 2.0)

        out[op] = inplace
    return out


WRITES = _writes()


def _check(f: Callable[[Any], Any]) -> None:
    def loss(x: Any) -> Any:
        return np.sum(f(x) * _w(f))

    def _numpy_loss(x: np.ndarray) -> float:
        return float(np.sum(f(x.copy()) * _w(f)))

    v, g = ad.value_and_grad(loss)(X)
    np.testing.assert_allclose(v, _numpy_loss(X), rtol=1e-12)
    h = 1e-6
    fd = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[i] = h
        fd[i] = (_numpy_loss(X + e) - _numpy_loss(X - e)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


_WEIGHTS: dict[tuple[int, ...], np.ndarray] = {}


def _w(f: Callable[[Any], Any]) -> np.ndarray:
    shape = np.shape(f(X.copy()))
    if shape not in _WEIGHTS:
        _WEIGHTS[shape] = np.random.default_rng(len(_WEIGHTS)).standard_normal(shape)
    return _WEIGHTS[shape]


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("key", list(KEYS))
def test_view_sees_a_later_write_into_its_base(key: str, write: str) -> None:
    k, w = KEYS[key], WRITES[write]

    def f(x: Any) -> Any:
        y = x * 1.0
        v = y[k]
        w(y, x)
        return v * 2.0

    _check(f)


@pytest.mark.parametrize("key", list(KEYS))
def test_view_of_a_view_sees_a_write_into_the_base(key: str) -> None:
    def f(x: Any) -> Any:
        y = x * 1.0
        a = y[1:]
        b = a[KEYS[key]] if key != "negative" else a[::-1]
        y[2] = x[0] ** 3
        return b + 0.0

    _check(f)


def test_two_overlapping_views() -> None:
    """A write through one view reaches the base and, from there, an overlapping view."""

    def f(x: Any) -> Any:
        y = x * 1.0
        a, b = y[:2], y[1:]
        a[1] = x[2] * 7
        return b * x[1:]

    _check(f)


def test_views_in_a_loop_stay_cheap() -> None:
    """Views the code no longer holds are not updated (``y[i]`` in a loop): the gradient of a
    long loop of row writes is right and the number of recorded views stays bounded."""

    held: list[int] = []

    def f(x: Any) -> Any:
        y = x * 1.0
        for _ in range(50):
            for i in range(3):
                y[i] = y[i] * 0.99 + x[(i + 1) % 3] * 0.01
        held.append(len(getattr(y, "_views", None) or ()))
        return y

    _check(f)
    assert max(held) <= 40, held  # 150 views were made of y, and dropped once gone


# --- views the engine does not follow: a write into their base while they are held is refused --
def _view_registrations() -> list[Any]:
    from chainrules.core.registry import registrations
    from chainrules.testing.backends import BACKENDS

    numpy = BACKENDS["numpy"]
    return [r for r in registrations() if r.kind == "view" and numpy.function(r) is not None]


def _call(reg: Any) -> tuple[Callable[..., Any], np.ndarray, tuple[Any, ...], dict[str, Any]]:
    from chainrules.testing.backends import BACKENDS
    from chainrules.testing.examples import examples_for

    ex = next(
        e
        for e in examples_for(reg, 0)
        if isinstance(e.args[0], np.ndarray) and e.args[0].dtype.kind in "fc"
    )
    x = np.real(ex.args[0]).copy()  # a real base (imag's examples are complex)
    return BACKENDS["numpy"].function(reg), x, tuple(ex.args[1:]), dict(ex.kwargs)


@pytest.mark.parametrize("reg", _view_registrations(), ids=lambda r: r.name)
def test_write_into_the_base_of_a_held_view_is_refused(reg: Any) -> None:
    """``v = reshape(y, ...); y += 1``: NumPy's ``v`` may see the write (a view of a contiguous
    ``y``) or not (a copy), which the engine cannot tell, so it refuses rather than give ``v``'s
    old value (silently wrong before). The same code with the view taken after the write, or
    with the view dropped before it, is differentiated."""
    fn, x, rest, kw = _call(reg)

    def held(x: Any) -> Any:
        y = x * 1.0
        v = fn(y, *rest, **kw)
        y += 1.0
        return np.sum(v * v)

    def after(x: Any) -> Any:
        y = x * 1.0
        y += 1.0
        v = fn(y, *rest, **kw)
        return np.sum(v * v)

    def dropped(x: Any) -> Any:
        y = x * 1.0
        s = np.sum(fn(y, *rest, **kw) ** 2)
        y += 1.0
        return s + np.sum(y)

    with pytest.raises(TypeError, match="view of it is held"):
        ad.grad(held)(x)
    for f in (after, dropped):
        np.testing.assert_allclose(ad.grad(f)(x), _fd(f, x), rtol=1e-6, atol=1e-8)


def _fd(f: Callable[[Any], Any], x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out
