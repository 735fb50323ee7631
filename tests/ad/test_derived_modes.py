"""chainrules.ad takes a function with one rule in every transformation (issue 28: a rule with only
an rrule or only an frule works in every engine): forward mode transposes the rrule's pullback,
reverse mode the frule's pushforward (``chainrules/ad/_derive.py``). Each derivative is compared
with finite differences of the function's body, on NumPy and on the scalar-guarded device
array; the chunked forward mode (``jacobian(mode="fwd")`` pushes a chunk of tangents at once) is
taken row by row."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.testing import device_array, to_numpy
from chainrules.testing.finite_differences import central_difference


def _body(x: Any, w: Any) -> Any:
    xp = cr.namespace_of(x, w)
    return xp.sin(x) * xp.exp(w), x * w


@cr.traceable
def only_rrule(x: Any, w: Any) -> Any:
    return _body(x, w)


@cr.register_rrule(only_rrule)
def _only_rrule_rrule(x: Any, w: Any) -> Any:
    xp = cr.namespace_of(x, w)

    def only_rrule_pullback(ys_bar: Any) -> Any:
        a, b = (cr.unthunk(t) for t in ys_bar)
        a = xp.zeros_like(x) if isinstance(a, cr.AbstractZero) else a
        b = xp.zeros_like(x) if isinstance(b, cr.AbstractZero) else b
        x_bar = a * xp.cos(x) * xp.exp(w) + b * w
        w_bar = a * xp.sin(x) * xp.exp(w) + b * x
        return cr.NoTangent(), x_bar, w_bar

    return _body(x, w), only_rrule_pullback


@cr.traceable
def only_frule(x: Any, w: Any) -> Any:
    return _body(x, w)


@cr.register_frule(only_frule)
def _only_frule_frule(tangents: Any, x: Any, w: Any) -> Any:
    xp = cr.namespace_of(x, w)
    dx, dw = (cr.unthunk(t) for t in tangents[1:])
    dx = xp.zeros_like(x) if isinstance(dx, cr.AbstractZero) else dx
    dw = xp.zeros_like(w) if isinstance(dw, cr.AbstractZero) else dw
    da = xp.cos(x) * xp.exp(w) * dx + xp.sin(x) * xp.exp(w) * dw
    return _body(x, w), (da, dx * w + x * dw)


X = np.array([0.3, -0.7, 1.1])
W = np.array([0.2, 0.5, -0.4])


def _loss(f: Any) -> Any:
    def L(x: Any, w: Any) -> Any:
        a, b = f(x, w)
        return (a * a).sum() + (b * a).sum()

    return L


def _fd(g: Any, x: np.ndarray) -> np.ndarray:
    """The derivative of ``g`` at ``x`` by central differences, one column per element."""
    cols = [
        np.asarray(central_difference(lambda t, e=e: g(x + t * e), 1e-3)) for e in np.eye(x.size)
    ]
    return np.stack(cols, axis=-1)


def _fd_grad(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return _fd(lambda v: _loss(_body)(v, w), x)


def _fd_jacobian(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return _fd(lambda v: _body(v, w)[0], x)


@pytest.mark.parametrize("f", [only_rrule, only_frule], ids=["rrule only", "frule only"])
@pytest.mark.parametrize("make", [np.asarray, device_array], ids=["numpy", "device"])
def test_grad_and_jvp_of_a_function_with_one_rule(f: Any, make: Any) -> None:
    x, w = make(X), make(W)
    g = ad.grad(_loss(f))(x, w)
    np.testing.assert_allclose(to_numpy(g), _fd_grad(X, W), rtol=1e-7, atol=1e-9)
    t = np.array([1.0, -2.0, 0.5])
    _, (da, db) = ad.jvp(f, (x, w), (make(t), make(np.zeros(3))))
    np.testing.assert_allclose(to_numpy(da), _fd_jacobian(X, W) @ t, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(to_numpy(db), t * W, rtol=1e-12)


@pytest.mark.parametrize("f", [only_rrule, only_frule], ids=["rrule only", "frule only"])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_jacobian_in_both_modes(f: Any, mode: str) -> None:
    """``mode="fwd"`` pushes a chunk of tangents: the derived frule takes it row by row."""
    J = ad.jacobian(lambda x: f(x, W)[0], mode=mode)(X)
    np.testing.assert_allclose(np.asarray(J), _fd_jacobian(X, W), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("f", [only_rrule, only_frule], ids=["rrule only", "frule only"])
def test_hessian_of_a_function_with_one_rule(f: Any) -> None:
    H = ad.hessian(lambda x: _loss(f)(x, W))(X)
    fd = _fd(lambda v: _fd_grad(v, W), X)
    np.testing.assert_allclose(np.asarray(H), fd, rtol=1e-5, atol=1e-6)


def test_a_function_with_no_rule_still_names_it() -> None:
    @cr.traceable
    def no_rule_at_all(x: Any) -> Any:
        return x

    with pytest.raises(cr.NoRuleError, match="no_rule_at_all"):
        ad.grad(lambda x: no_rule_at_all(x).sum())(X)
