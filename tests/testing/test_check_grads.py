"""chainrules.testing.check_grads: autograd's whole-function derivative check (issue 29).

It passes on correct derivatives (arrays, numbers, complex values, pytrees, several arguments,
keywords, other array libraries), fails with a message naming the check, the mode, the order and
the arguments on wrong ones at each order and in each mode, draws its directions as autograd's
``check_grads`` does, and agrees with autograd's verdicts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from chainrules.ad.extend import defjvp, defvjp, primitive
from chainrules.testing import check_grads, device_array

RNG = np.random.default_rng(7)
X = RNG.standard_normal(4)
W = RNG.standard_normal(4)


pytestmark = pytest.mark.usefixtures("seeded_numpy")


def test_passes_on_correct_derivatives() -> None:
    check_grads(lambda x: np.sum(np.sin(x) * np.exp(x)))(X)
    check_grads(lambda x, w: np.tanh(w * x), argnums=(0, 1), order=3)(X, W)
    check_grads(lambda x: np.abs(x) ** 2)(1.1 + 1.2j)
    check_grads(lambda x: np.sin(x) * (1 + 0.2j))(X)  # complex output of a real input
    check_grads(lambda z: np.conj(z) * np.exp(z))(X + 1j * W)  # not holomorphic
    check_grads(lambda p: np.sum(p["w"] * np.sin(p["b"][0])), modes=["rev"])(
        {"w": W, "b": (X, 2.0)}
    )
    check_grads(lambda x, *, s: s * np.sum(x**3))(X, s=2.0)
    check_grads(lambda x: x**3.5, rng=3)(1.7)


@pytest.mark.parametrize("make", [device_array, lambda x: x.astype(np.float64)])
def test_passes_on_the_device_array(make: Any) -> None:
    check_grads(lambda x: np.sum(np.sin(x) ** 2), order=2)(make(X))


@pytest.mark.parametrize("library", ["array_api_strict", "torch"])
def test_passes_on_other_libraries(library: str) -> None:
    from array_api_compat import array_namespace

    lib = pytest.importorskip(library)

    def f(x: Any, w: Any) -> Any:
        xp = array_namespace(x)
        return xp.sum(xp.sin(x * w) ** 2)

    check_grads(f, argnums=(0, 1))(lib.asarray(X), lib.asarray(W))


def _wrong_vjp() -> Any:
    @primitive
    def foo(x: Any) -> Any:
        return x * 2.0

    defvjp(foo, lambda ans, x: lambda g: g * 2.001)
    defjvp(foo, lambda g, ans, x: g * 2.0)
    return foo


def test_wrong_first_order_vjp_fails_naming_the_check(clean_registry) -> None:  # type: ignore[no-untyped-def]
    foo = _wrong_vjp()
    check_grads(foo, modes=["fwd"])(1.0)  # the JVP is right
    with pytest.raises(
        AssertionError,
        match=r"\(VJP\) check of foo failed \(mode 'rev', order 1 of 2, with respect to "
        r"argument 0 \('x'\)\) with arg 1.0:\nanalytic: .*\nnumeric: ",
    ):
        check_grads(foo, modes=["rev"])(1.0)


def test_wrong_jvp_fails_in_forward_mode(clean_registry) -> None:  # type: ignore[no-untyped-def]
    @primitive
    def foo(x: Any, y: Any) -> Any:
        return x * y

    defvjp(foo, lambda ans, x, y: lambda g: g * y, lambda ans, x, y: lambda g: g * x)
    defjvp(foo, lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x * 1.01)
    check_grads(foo, argnums=(0, 1), modes=["rev"])(X, W)
    check_grads(foo, argnums=0)(X, W)
    with pytest.raises(
        AssertionError,
        match=r"\(JVP\) check of foo failed \(mode 'fwd', order 1 of 1, with respect to "
        r"argument 1 \('y'\)\)",
    ):
        check_grads(foo, argnums=1, order=1)(X, W)


def test_wrong_second_order_fails_naming_the_derivative(clean_registry) -> None:  # type: ignore[no-untyped-def]
    """autograd's own test_check_vjp_2nd_order_fail: the VJP is right at first order, its own
    derivative is not."""

    @primitive
    def bar(x: Any) -> Any:
        return x

    defvjp(bar, lambda ans, x: lambda g: g * 1.001)

    @primitive
    def foo(x: Any) -> Any:
        return x * 2.0

    defvjp(foo, lambda ans, x: lambda g: bar(g) * 2)
    check_grads(foo, modes=["rev"], order=1)(1.0)
    with pytest.raises(
        AssertionError,
        match=r"\(VJP\) check of vjp_foo failed \(mode 'rev', order 2 of 2, with respect to "
        r"arguments 0 \('x'\), 1 \('u'\)\)",
    ):
        check_grads(foo, modes=["rev"])(1.0)


def test_wrong_second_order_fails_in_forward_mode(clean_registry) -> None:  # type: ignore[no-untyped-def]
    """The forward-mode twin: the JVP is right, the JVP of what it calls is not."""

    @primitive
    def bar(x: Any) -> Any:
        return x

    defjvp(bar, lambda g, ans, x: g * 1.001)

    @primitive
    def foo(x: Any) -> Any:
        return x * 2.0

    defjvp(foo, lambda g, ans, x: bar(g) * 2)
    check_grads(foo, modes=["fwd"], order=1)(1.0)
    with pytest.raises(
        AssertionError,
        match=r"\(JVP\) check of jvp_foo failed \(mode 'fwd', order 2 of 2, with respect to "
        r"arguments 0 \('x'\), 1 \('v'\)\)",
    ):
        check_grads(foo, modes=["fwd"])(1.0)


def test_argument_errors() -> None:
    with pytest.raises(ValueError, match=r"check_grads: modes must be among \('fwd', 'rev'\), "):
        check_grads(np.sin, modes=["bwd"])
    with pytest.raises(ValueError, match="check_grads: order must be a positive int, got 0"):
        check_grads(np.sin, order=0)


def test_rng_makes_the_check_reproducible_and_leaves_numpys_state() -> None:
    state = np.random.get_state()[1].copy()
    check_grads(lambda x: np.sum(x**3), rng=np.random.default_rng(1))(X)
    check_grads(lambda x: np.sum(x**3), rng=5)(X)
    assert np.array_equal(np.random.get_state()[1], state)


def test_draws_its_directions_as_autograd_does() -> None:
    """Without ``rng``, NumPy's global state gives the directions, drawn in autograd's order and
    number: from the same seed, both checks leave the state in the same place (so a suite that
    seeds ``numpy.random`` checks what it checked under autograd)."""
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    from autograd.test_util import check_grads as ag_check_grads

    cases = [
        (lambda m: lambda x: m.sum(m.sin(x) ** 2), (X,), {}),
        (lambda m: lambda x, w: m.tanh(w * x), (X, W), {"argnum": (0, 1)}),
        (lambda m: lambda z: m.exp(z) * m.conj(z), (X + 1j * W,), {"modes": ["rev"]}),
        (lambda m: lambda x: m.sin(x) * (1 + 2j), (X,), {"order": 3}),
    ]
    for make, args, kw in cases:
        ours = dict(kw)
        if "argnum" in ours:
            ours["argnums"] = ours.pop("argnum")
        np.random.seed(11)
        ag_check_grads(make(anp), **kw)(*args)
        after_autograd = np.random.get_state()[2]
        np.random.seed(11)
        check_grads(make(np), **ours)(*args)
        assert np.random.get_state()[2] == after_autograd, (kw, ag.__version__)


def test_agrees_with_autograds_verdict_on_a_wrong_vjp(clean_registry) -> None:  # type: ignore[no-untyped-def]
    import_ag = pytest.importorskip("autograd.extend")
    from autograd.test_util import check_grads as ag_check_grads

    def make(extend: Any) -> Any:
        @extend.primitive
        def foo(x: Any) -> Any:
            return x * 2.0

        extend.defvjp(foo, lambda ans, x: lambda g: g * 2.001)
        return foo

    import chainrules.ad.extend as ours

    with pytest.raises(AssertionError, match=r"\(VJP\) check of foo failed"):
        ag_check_grads(make(import_ag), modes=["rev"])(1.0)
    with pytest.raises(AssertionError, match=r"\(VJP\) check of foo failed"):
        check_grads(make(ours), modes=["rev"])(1.0)
