"""``check_scalar_free`` and ``check_jit``: GPU-safe rules pass, each kind of GPU-unsafe rule fails
with a message naming the function, the phase and the access."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.scalar import ScalarIndexingError
from chainrules.testing.arrays import to_numpy
from chainrules.testing.checks import check_jit, check_scalar_free

X = np.array([0.3, -1.2, 2.5, 0.7])
XC = X + 1j * X[::-1]

SAFE = [
    pytest.param(np.sin, (X,), id="sin"),
    pytest.param(np.multiply, (X.reshape(4, 1), np.arange(3.0)), id="multiply-broadcast"),
    pytest.param(np.maximum, (X, np.array([0.3, 1.0, -2.0, 0.7])), id="maximum-with-ties"),
    pytest.param(np.abs, (np.array([0.0, -1.5, 2.0]),), id="abs-at-kink"),
    pytest.param(np.exp, (XC,), id="exp-complex"),
    pytest.param(np.multiply, (X, 2.5), id="multiply-python-float"),
    pytest.param(np.power, (np.abs(X) + 0.1, 2), id="power-python-int"),
    pytest.param(np.floor, (X,), id="floor-zero-tangent"),
    pytest.param(np.greater, (X, 0.0), id="greater-no-tangent"),
]


@pytest.mark.parametrize(("f", "args"), SAFE)
def test_elementwise_rules_are_scalar_free(f: Any, args: tuple[Any, ...]) -> None:
    check_scalar_free(f, *args)


@pytest.mark.parametrize(("f", "args"), SAFE[:6])
def test_elementwise_rules_are_scalar_free_on_the_strict_backing(
    f: Any, args: tuple[Any, ...]
) -> None:
    check_scalar_free(f, *args, backing="array_api_strict")


@pytest.mark.parametrize(("f", "args"), SAFE)
def test_elementwise_rules_trace_under_jit(f: Any, args: tuple[Any, ...], jax_numpy: Any) -> None:
    check_jit(f, *args)


def test_jit_in_float32_when_x64_is_off(jax_numpy: Any) -> None:
    import jax

    with jax.enable_x64(False):
        check_jit(np.sin, X)
        check_jit(np.exp, XC)
        check_jit(np.multiply, X.reshape(4, 1), np.arange(3.0))


def test_a_given_output_cotangent_is_used(jax_numpy: Any) -> None:
    check_scalar_free(np.sin, X, output_cotangent=np.ones(4))
    check_jit(np.sin, X, output_cotangent=np.ones(4))


def test_float32_and_integer_inputs() -> None:
    check_scalar_free(np.sin, X.astype(np.float32))
    check_scalar_free(np.multiply, X, np.array([1, 2, 3, 4]))


# -- rules registered for fresh functions --------------------------------------------------------
def _register(f: Any, rrule: Any = None, frule: Any = None) -> None:
    if rrule is not None:
        cr.register_rrule(f)(rrule)
    if frule is not None:
        cr.register_frule(f)(frule)


def _xp(x: Any) -> Any:
    return cr.namespace_of(x)


@pytest.fixture
def unsafe_max(clean_registry: Any) -> Any:
    """ChainRules' ∞-norm bug: the index of the maximum is read on the host, and the cotangent is
    written into one element there."""

    def unsafe_max(x: Any) -> Any:
        return _xp(x).max(x)

    def unsafe_max_rrule(x: Any) -> Any:
        xp = _xp(x)
        i = int(xp.argmax(x))  # a device->host synchronisation
        y = xp.max(x)

        def unsafe_max_pullback(y_bar: Any) -> Any:
            y_bar = cr.unthunk(y_bar)
            if cr.is_zero(y_bar):
                return cr.NoTangent(), cr.ZeroTangent()
            cr.check_cotangent("unsafe_max", y_bar, y)
            g = xp.zeros_like(x)
            g[i] = y_bar  # a write of one element at a host index
            return cr.NoTangent(), g

        return y, unsafe_max_pullback

    def unsafe_max_frule(tangents: Any, x: Any) -> Any:
        xp = _xp(x)
        i = int(xp.argmax(x))
        return xp.max(x), tangents[1][..., i]

    _register(unsafe_max, unsafe_max_rrule, unsafe_max_frule)
    return unsafe_max


def test_the_unsafe_max_passes_on_numpy_but_not_the_default_testers(unsafe_max: Any) -> None:
    from chainrules.testing import test_frule, test_rrule

    # finite differences and the contract cannot see the problem ...
    test_rrule(unsafe_max, X, scalar_free=False, jit=False)
    test_frule(unsafe_max, X, scalar_free=False, jit=False)
    # ... the device checks, part of the testers by default, can
    with pytest.raises(AssertionError, match=r"check_scalar_free\(.*unsafe_max\): the rrule"):
        test_rrule(unsafe_max, X)
    with pytest.raises(AssertionError, match=r"check_jit\(.*unsafe_max\): the rrule"):
        test_rrule(unsafe_max, X, scalar_free=False)


def test_the_unsafe_max_fails_check_scalar_free(unsafe_max: Any) -> None:
    with pytest.raises(AssertionError) as info:
        check_scalar_free(unsafe_max, X)
    msg = str(info.value)
    assert msg.startswith("check_scalar_free(")
    assert "unsafe_max): the rrule touched single elements: int(x) was refused" in msg
    assert isinstance(info.value.__cause__, ScalarIndexingError)


def test_the_unsafe_max_fails_check_jit(unsafe_max: Any, jax_numpy: Any) -> None:
    with pytest.raises(AssertionError) as info:
        check_jit(unsafe_max, X)
    msg = str(info.value)
    assert msg.startswith("check_jit(")
    assert "unsafe_max): the rrule is not traceable under jax.jit" in msg
    assert "`int` function" in msg


@pytest.fixture
def unsafe_pullback(clean_registry: Any) -> Any:
    """A safe forward pass, and a pullback that loops over elements with Python ``if``s."""

    def loopy_max(x: Any) -> Any:
        return _xp(x).max(x)

    def loopy_max_rrule(x: Any) -> Any:
        xp = _xp(x)
        y = xp.max(x)

        def loopy_max_pullback(y_bar: Any) -> Any:
            hits = [k for k in range(x.shape[0]) if bool(x[k] == y)]
            mask = xp.asarray([k in hits for k in range(x.shape[0])])
            return cr.NoTangent(), xp.where(mask, y_bar, xp.zeros_like(x))

        return y, loopy_max_pullback

    def loopy_max_frule(tangents: Any, x: Any) -> Any:
        xp = _xp(x)
        y = xp.max(x)
        if bool(xp.all(x < y)):  # never true: but it needs the value
            return y, cr.ZeroTangent()
        return y, xp.sum(xp.where(x == y, tangents[1], xp.zeros_like(x)))

    _register(loopy_max, loopy_max_rrule, loopy_max_frule)
    return loopy_max


def test_an_unsafe_pullback_is_named_as_the_pullback(unsafe_pullback: Any, jax_numpy: Any) -> None:
    with pytest.raises(AssertionError, match=r"the pullback touched single elements: x\[0\]"):
        check_scalar_free(unsafe_pullback, X)
    with pytest.raises(AssertionError, match=r"the pullback is not traceable under jax\.jit"):
        check_jit(unsafe_pullback, X)


def test_an_unsafe_frule_is_named_as_the_frule(unsafe_pullback: Any, jax_numpy: Any) -> None:
    cr.register_rrule(unsafe_pullback)(_safe_max_rrule)
    with pytest.raises(AssertionError, match=r"the frule touched single elements: bool\(x\)"):
        check_scalar_free(unsafe_pullback, X)
    with pytest.raises(AssertionError, match=r"the frule is not traceable under jax\.jit"):
        check_jit(unsafe_pullback, X)


def _safe_max_rrule(x: Any) -> Any:
    xp = _xp(x)
    y = xp.max(x)

    def safe_max_pullback(y_bar: Any) -> Any:
        mask = xp.astype(x == y, x.dtype)
        return cr.NoTangent(), mask * (y_bar / xp.sum(mask))

    return y, safe_max_pullback


def test_an_inplace_write_fails_check_jit(clean_registry: Any, jax_numpy: Any) -> None:
    def first_doubled(x: Any) -> Any:
        return 2 * x[0:1]

    def first_doubled_rrule(x: Any) -> Any:
        def first_doubled_pullback(y_bar: Any) -> Any:
            g = _xp(x).zeros_like(x)
            g[0:1] = 2 * y_bar  # fine on a GPU (a host index known before the call) ...
            return cr.NoTangent(), g

        return 2 * x[0:1], first_doubled_pullback

    _register(first_doubled, first_doubled_rrule)
    check_scalar_free(first_doubled, X)
    with pytest.raises(AssertionError, match=r"pullback is not traceable.*immutable"):
        check_jit(first_doubled, X)  # ... but not under jit: JAX arrays are immutable


def test_a_rule_that_returns_a_host_array_fails(clean_registry: Any) -> None:
    def host_sin(x: Any) -> Any:
        return _xp(x).sin(x)

    def host_sin_rrule(x: Any) -> Any:
        def host_sin_pullback(y_bar: Any) -> Any:
            # a whole-array copy to NumPy: no element access, but the result is on the host
            return cr.NoTangent(), np.cos(to_numpy(x)) * to_numpy(y_bar)

        return _xp(x).sin(x), host_sin_pullback

    _register(host_sin, host_sin_rrule)
    with pytest.raises(AssertionError) as info:
        check_scalar_free(host_sin, X)
    msg = str(info.value)
    assert "host_sin): the cotangent of argument 0 is a numpy.ndarray, not a device array" in msg
    assert "the pullback moved it to the host" in msg


def test_a_rule_that_mixes_host_and_device_arrays_fails(clean_registry: Any) -> None:
    def scaled(x: Any) -> Any:
        return 3 * x

    def scaled_frule(tangents: Any, x: Any) -> Any:
        return 3 * x, np.full(x.shape, 3.0) * tangents[1]  # a host constant

    _register(scaled, frule=scaled_frule)
    with pytest.raises(AssertionError, match=r"scaled\): the frule mixed host and device arrays"):
        check_scalar_free(scaled, X)


@pytest.fixture
def fast_path_sin(clean_registry: Any) -> Any:
    """A NumPy fast path that is right, and a generic path (every other library) that is wrong."""

    def fast_sin(x: Any) -> Any:
        return _xp(x).sin(x)

    def fast_sin_rrule(x: Any) -> Any:
        xp = _xp(x)

        def fast_sin_pullback(y_bar: Any) -> Any:
            if isinstance(x, np.ndarray):
                return cr.NoTangent(), y_bar * np.cos(x)
            return cr.NoTangent(), y_bar * xp.sin(x)  # the bug: sin for cos

        return xp.sin(x), fast_sin_pullback

    def fast_sin_frule(tangents: Any, x: Any) -> Any:
        xp = _xp(x)
        d = np.cos(x) if isinstance(x, np.ndarray) else xp.cos(x) * 1.01
        return xp.sin(x), d * tangents[1]

    _register(fast_sin, fast_sin_rrule, fast_sin_frule)
    return fast_sin


def test_a_wrong_generic_path_fails_the_comparison(fast_path_sin: Any, jax_numpy: Any) -> None:
    for check in (check_scalar_free, check_jit):
        with pytest.raises(AssertionError) as info:
            check(fast_path_sin, X)
        msg = str(info.value)
        assert f"{check.__name__}(" in msg and "fast_sin): the cotangent of argument 0" in msg
        assert "differs from the NumPy float64 reference" in msg


def test_a_wrong_frule_fails_the_comparison(fast_path_sin: Any) -> None:
    cr.register_rrule(fast_path_sin)(
        lambda x: (_xp(x).sin(x), lambda y_bar: (cr.NoTangent(), y_bar * _xp(x).cos(x)))
    )
    with pytest.raises(AssertionError, match="the output tangent differs from the NumPy"):
        check_scalar_free(fast_path_sin, X)


def test_zero_markers_must_match(clean_registry: Any, jax_numpy: Any) -> None:
    def stepped(x: Any) -> Any:
        return _xp(x).floor(x)

    def stepped_rrule(x: Any) -> Any:
        xp = _xp(x)
        marker = cr.ZeroTangent() if isinstance(x, np.ndarray) else cr.NoTangent()
        return xp.floor(x), lambda y_bar: (cr.NoTangent(), marker)

    _register(stepped, stepped_rrule)
    with pytest.raises(
        AssertionError, match=r"argument 0 is NoTangent\(\), but NumPy's gives Zero"
    ):
        check_scalar_free(stepped, X)
    with pytest.raises(AssertionError, match=r"argument 0 is NoTangent\(\)"):
        check_jit(stepped, X)


def test_an_all_zero_array_may_stand_for_zero_tangent(clean_registry: Any, jax_numpy: Any) -> None:
    def stepped(x: Any) -> Any:
        return _xp(x).floor(x)

    def stepped_rrule(x: Any) -> Any:
        xp = _xp(x)

        def stepped_pullback(y_bar: Any) -> Any:
            return cr.NoTangent(), (
                cr.ZeroTangent() if isinstance(x, np.ndarray) else xp.zeros_like(x)
            )

        return xp.floor(x), stepped_pullback

    _register(stepped, stepped_rrule)
    check_scalar_free(stepped, X)
    check_jit(stepped, X)


def test_keyword_arguments_reach_the_rule(clean_registry: Any, jax_numpy: Any) -> None:
    def scale(x: Any, *, by: float = 1.0) -> Any:
        return x * by

    def scale_rrule(x: Any, *, by: float = 1.0) -> Any:
        return x * by, lambda y_bar: (cr.NoTangent(), y_bar * by)

    _register(scale, scale_rrule)
    check_scalar_free(scale, X, by=3.0)
    check_jit(scale, X, by=3.0)


def _weighted(parts: Any) -> Any:
    """A generic function of a sequence of arrays: 2 * parts[0] + parts[1]."""
    return parts[0] * 2.0 + parts[1]


def _weighted_frule(dargs: Any, parts: Any) -> Any:
    t = dargs[1]
    return _weighted(parts), t[0] * 2.0 + t[1]


@pytest.fixture
def weighted(clean_registry: Any) -> Any:
    def rrule(parts: Any) -> Any:
        def pullback(y_bar: Any) -> Any:
            y_bar = cr.unthunk(y_bar)
            if cr.is_zero(y_bar):
                return cr.NoTangent(), y_bar
            return cr.NoTangent(), cr.Tangent(y_bar * 2.0, y_bar, primal_type=type(parts))

        return _weighted(parts), pullback

    _register(_weighted, rrule, _weighted_frule)
    return _weighted


@pytest.mark.parametrize("seq", [list, tuple])
def test_sequences_of_arrays_are_checked_element_by_element(
    weighted: Any, seq: Any, jax_numpy: Any
) -> None:
    parts = seq([X, X[::-1] * 1j])
    check_scalar_free(weighted, parts)
    check_scalar_free(weighted, parts, backing="array_api_strict")
    check_jit(weighted, parts)


def test_a_sequence_rule_that_reads_an_element_fails(clean_registry: Any, jax_numpy: Any) -> None:
    def rrule(parts: Any) -> Any:
        def pullback(y_bar: Any) -> Any:
            scale = float(parts[1][0])  # a host read: a GPU synchronisation
            return cr.NoTangent(), cr.Tangent(y_bar * 2.0, y_bar * (scale / scale))

        return _weighted(parts), pullback

    _register(_weighted, rrule)
    with pytest.raises(AssertionError, match=r"_weighted\): the pullback touched single"):
        check_scalar_free(_weighted, [X, X])
    with pytest.raises(AssertionError, match=r"the pullback is not traceable under jax\.jit"):
        check_jit(_weighted, (X, X))


def test_a_function_without_rules_raises_no_rule_error() -> None:
    def no_rules(x: Any) -> Any:
        return x

    with pytest.raises(cr.NoRuleError):
        check_scalar_free(no_rules, X)


def test_check_jit_without_jax_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)
    monkeypatch.setitem(sys.modules, "jax.numpy", None)
    with pytest.raises(ModuleNotFoundError, match="check_jit needs JAX"):
        check_jit(np.sin, X)


def test_check_scalar_free_needs_an_array() -> None:
    with pytest.raises(ValueError, match="at least one array argument"):
        check_scalar_free(np.sin, 0.5)


def test_zero_dimensional_arrays(jax_numpy: Any) -> None:
    check_scalar_free(np.sin, np.array(0.5))
    check_jit(np.sin, np.array(0.5))
    check_jit(np.sin, 0.5)  # everything static: still traced, still compared


def test_unknown_backing() -> None:
    with pytest.raises(ValueError, match="unknown backing"):
        check_scalar_free(np.sin, X, backing="cupy")
