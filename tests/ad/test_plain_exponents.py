"""``x ** c`` with a constant exponent in plain NumPy code (issue 29, item 5): no ``log`` pass is
made for the exponent's cotangent, and no warning is raised that ``x ** c`` itself does not raise.

The exponent's partial ``x**c log(x)`` is a logarithm pass; before, ``pow``'s pullback computed
it for every exponent that was not a Python float (``np.float64(2)``, a data array), although
nothing reads the cotangent of a constant. ``pow``, ``numpy.power`` and ``numpy.float_power``
now declare their exponent ``deferred``: its cotangent is a ``Thunk`` that the engine forces only
where the exponent is traced. The spy below records every cotangent a scalar rule computes
(``scalar_rule._operand_cotangent``) with the exponent's partial ``_pow_dy``: none for a constant
exponent in any mode, one where the exponent is differentiated (the control).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.rules.elementwise import arithmetic
from chainrules.testing import device_array, to_numpy

scalar_rule = importlib.import_module("chainrules.core.scalar_rule")

# x <= 0, x = 0, negative x: where x ** c with an integer-valued float c is finite and silent
X = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
C_ARRAY = np.array([2.0, 3.0, 2.0, 1.0, 0.0])

# spelling -> (f, its derivative in x, its second derivative in x)
SPELLINGS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any]]] = {
    "x**2.0": (lambda x: x**2.0, lambda x: 2 * x, lambda x: 2 + 0 * x),
    "x**2": (lambda x: x**2, lambda x: 2 * x, lambda x: 2 + 0 * x),
    "x**3.0": (lambda x: x**3.0, lambda x: 3 * x**2, lambda x: 6 * x),
    "x**1.0": (lambda x: x**1.0, lambda x: 1 + 0 * x, lambda x: 0 * x),
    "x**0.0": (lambda x: x**0.0, lambda x: 0 * x, lambda x: 0 * x),
    "x**np.float64(2)": (lambda x: x ** np.float64(2), lambda x: 2 * x, lambda x: 2 + 0 * x),
    "x**np.int64(3)": (lambda x: x ** np.int64(3), lambda x: 3 * x**2, lambda x: 6 * x),
    "x**np.float32(2)": (lambda x: x ** np.float32(2), lambda x: 2 * x, lambda x: 2 + 0 * x),
    "x**array": (
        lambda x: x**C_ARRAY,
        lambda x: np.where(C_ARRAY == 0, 0.0, C_ARRAY * x ** np.maximum(C_ARRAY - 1, 0)),
        lambda x: C_ARRAY * (C_ARRAY - 1) * x ** np.maximum(C_ARRAY - 2, 0),
    ),
    "np.power(x, 2.0)": (lambda x: np.power(x, 2.0), lambda x: 2 * x, lambda x: 2 + 0 * x),
    "np.power(x, array)": (
        lambda x: np.power(x, C_ARRAY),
        lambda x: np.where(C_ARRAY == 0, 0.0, C_ARRAY * x ** np.maximum(C_ARRAY - 1, 0)),
        lambda x: C_ARRAY * (C_ARRAY - 1) * x ** np.maximum(C_ARRAY - 2, 0),
    ),
    "np.float_power(x, 3.0)": (
        lambda x: np.float_power(x, 3.0),
        lambda x: 3 * x**2,
        lambda x: 6 * x,
    ),
    "np.float_power(x, array)": (
        lambda x: np.float_power(x, C_ARRAY),
        lambda x: np.where(C_ARRAY == 0, 0.0, C_ARRAY * x ** np.maximum(C_ARRAY - 1, 0)),
        lambda x: C_ARRAY * (C_ARRAY - 1) * x ** np.maximum(C_ARRAY - 2, 0),
    ),
    "np.square(x)": (lambda x: np.square(x), lambda x: 2 * x, lambda x: 2 + 0 * x),
    "x**=2.0": (lambda x: _ipow(x, 2.0), lambda x: 2 * x, lambda x: 2 + 0 * x),
}


def _ipow(x: Any, c: Any) -> Any:
    y = x * 1.0
    y **= c
    return y


class _LogSpy:
    """Counts the cotangents of ``pow``'s exponent (``_pow_dy``, the log pass) scalar rules
    compute."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> _LogSpy:
        real = scalar_rule._operand_cotangent

        def spy(p: Any, *rest: Any) -> Any:
            if p is arithmetic._pow_dy:
                self.count += 1
            return real(p, *rest)

        self._real = real
        scalar_rule._operand_cotangent = spy
        return self

    def __exit__(self, *exc: Any) -> None:
        scalar_rule._operand_cotangent = self._real


def _modes(f: Callable[[Any], Any], x: Any) -> Iterator[tuple[str, Any]]:
    yield "grad", ad.grad(lambda v: np.sum(f(v)))(x)
    yield "jacobian", np.diagonal(ad.jacobian(f)(x))
    yield "hessian", np.diagonal(ad.hessian(lambda v: np.sum(f(v)))(x))
    yield "jvp", ad.jvp(f, (x,), (np.ones_like(x),))[1]
    yield "vjp", ad.vjp(f, x)[1](np.ones_like(x))[0]


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_constant_exponent_makes_no_log_pass_and_no_warning(spelling: str) -> None:
    f, d1, d2 = SPELLINGS[spelling]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(X)  # x ** c itself is silent at these points
        with _LogSpy() as spy:
            for mode, got in _modes(f, X):
                want = d2(X) if mode == "hessian" else d1(X)
                np.testing.assert_allclose(got, want, rtol=1e-13, atol=0, err_msg=mode)
    assert spy.count == 0, f"{spelling}: the exponent's log pass ran {spy.count} times"


def test_a_differentiated_exponent_still_gets_its_cotangent() -> None:
    """The control: with the exponent traced, its cotangent ``x**c log x`` is computed (once
    per pullback), and matches finite differences."""
    x = np.array([0.5, 1.5, 2.0])
    c = np.array([2.0, 0.5, -1.0])
    with _LogSpy() as spy:
        gx, gc = ad.grad(lambda x, c: np.sum(x**c), argnums=(0, 1))(x, c)
    assert spy.count == 1
    np.testing.assert_allclose(gc, x**c * np.log(x), rtol=1e-13)
    h = 1e-6
    fd = ((x + h) ** c - (x - h) ** c) / (2 * h)
    np.testing.assert_allclose(gx, fd, rtol=1e-8)
    # and through a constant base: c ** x
    g = ad.grad(lambda c: np.sum(2.0**c))(c)
    np.testing.assert_allclose(g, 2.0**c * np.log(2.0), rtol=1e-13)


def test_pullback_defers_the_exponent_at_every_size() -> None:
    """The rule itself: ``pow``'s pullback returns the exponent's cotangent as a ``Thunk`` also
    for a small array exponent (before: an array, the log computed), forcing it gives the
    partial."""
    x, c = np.array([0.5, 1.5]), np.array([2.0, 3.0])
    for f in (np.power, np.float_power):
        _, pb = cr.rrule(f, x, c)
        _, gx, gc = pb(np.ones(2))
        assert type(gx) is np.ndarray
        assert isinstance(gc, cr.Thunk)
        np.testing.assert_allclose(cr.unthunk(gc), x**c * np.log(x), rtol=1e-13)


def test_constant_exponent_on_a_guarded_device_array_and_under_jit() -> None:
    """The same on the scalar-guarded device array (no element read) and under
    ``chainrules.ad.jit`` (recorded once, replayed): values and no log pass."""
    x = np.array([-2.0, 0.0, 0.5, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with _LogSpy() as spy:
            c = device_array(C_ARRAY[:4])  # a constant array of the device's library
            g = ad.grad(lambda v: np.sum(v ** np.float64(3.0) + v**c))(device_array(x))
            assert type(g) is type(device_array(x))
            got = to_numpy(g)
            want = 3 * x**2 + C_ARRAY[:4] * x ** (C_ARRAY[:4] - 1)  # exponents 2, 3, 2, 1
            np.testing.assert_allclose(got, want, rtol=1e-13)
            jg = ad.jit(ad.grad(lambda v: np.sum(v**3.0)))
            for _ in range(2):
                np.testing.assert_allclose(jg(x), 3 * x**2, rtol=1e-13)
    assert spy.count == 0
