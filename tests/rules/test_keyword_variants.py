"""Every registration's examples, varied the ways users vary a call, over the registry: the axis
counted from the other end (``axis=1`` as ``axis=-1`` of a 2-d array), ``keepdims`` flipped
(given where the example leaves it out), the arrays in single precision, and the first array made
complex; and each later array made complex. Where NumPy computes the variant, the rule gives
NumPy's value -- shape and dtype included -- and a pullback and a pushforward that agree with
central finite differences (taken in double precision; for complex values through the real
pairing ``Re <a, b>``, DESIGN's convention); or it refuses, in the rule or in its pullback, with
an error that names the function. Nothing here depends on a function's name: the variants come
from each NumPy function's own signature and each registration's own examples. Found by it:
``cholesky(upper=True)``'s value, ``digamma``'s complex derivative, ``dirichlet``'s
conjugation, the pushforwards of ``nanvar``/``nanstd`` and ``fiedler`` at complex arrays,
``gradient``'s complex coordinates and SciPy's distributions with complex parameters. And a 0-d
array with an axis, which NumPy's reductions take or refuse one by one."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import examples_for
from chainrules.testing.backends import get_backend

H = 1e-6  # the central differences' step, in double precision


def _flipped_axis(axis: Any, ndim: int) -> Any:
    """``axis`` counted from the other end, or None where it is not an int or a tuple of ints."""
    if type(axis) is int:
        return axis - ndim if axis >= 0 else axis + ndim
    if isinstance(axis, tuple) and axis and all(type(a) is int for a in axis):
        return tuple(a - ndim if a >= 0 else a + ndim for a in axis)
    return None


def _variants(f: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):  # a ufunc or builtin without a signature
        params = {}
    out = []
    axis = _flipped_axis(kw.get("axis"), args[0].ndim)
    if axis is not None:
        out.append(("axis", args, {**kw, "axis": axis}))
    if "keepdims" in params:
        out.append(("keepdims", args, {**kw, "keepdims": not kw.get("keepdims", False)}))
    single = tuple(
        a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a
        for a in args
    )
    out.append(("float32", single, kw))
    out.append(("complex", _complex_at(args, 0), kw))
    return out


def _complex_at(args: tuple[Any, ...], pos: int) -> tuple[Any, ...]:
    """``args`` with the array at ``pos`` made complex (a fixed imaginary part)."""
    a = args[pos]
    noise = np.random.default_rng(a.size).standard_normal(a.shape)
    return (*args[:pos], a + 0.3j * noise, *args[pos + 1 :])


def _cases() -> list[Any]:
    """``(registration, function, args, kwargs, pos)``: the variants of the first array (its
    position ``pos = 0``), and each later double-precision array made complex."""
    numpy = get_backend("numpy")
    out = []
    for reg in cr.registrations():
        f = numpy.function(reg) if reg.rrule is not None and not reg.non_differentiable else None
        if f is None:
            continue
        for i, ex in enumerate(examples_for(reg)):
            x = ex.args[0] if ex.args else None
            if isinstance(x, np.ndarray) and x.dtype == np.float64:
                for tag, args, kw in _variants(f, ex.args, dict(ex.kwargs)):
                    out.append(pytest.param(reg, f, args, kw, 0, id=f"{reg.name}-{i}-{tag}"))
            for pos, a in enumerate(ex.args[1:], 1):
                if isinstance(a, np.ndarray) and a.dtype == np.float64:
                    args, kw = _complex_at(ex.args, pos), dict(ex.kwargs)
                    out.append(
                        pytest.param(reg, f, args, kw, pos, id=f"{reg.name}-{i}-complex{pos}")
                    )
    return out


def _in_double(v: Any) -> Any:
    if isinstance(v, np.ndarray) and v.dtype in (np.float32, np.complex64):
        return v.astype(np.complex128 if v.dtype.kind == "c" else np.float64)
    return v


def _numpys(f: Any, args: Any, kw: Any) -> Any:
    """NumPy's (or SciPy's) floating value of the variant, or None where it refuses the variant
    or gives something else: nothing to compare then."""
    try:
        want = f(*args, **kw)
    except Exception:  # noqa: BLE001  (refused by the library itself)
        return None
    ok = isinstance(want, np.ndarray | np.generic) and want.dtype.kind in "fc"
    return want if ok else None


def _refusal(short: str, call: Any) -> tuple[Any, str | None]:
    """``call()``, or the message of the TypeError, ValueError or NotImplementedError it raised,
    which must name the function (``short``)."""
    try:
        return call(), None
    except (TypeError, ValueError, NotImplementedError) as e:
        refusal = str(e)
    assert short in refusal, f"{short} refused the variant unnamed: {refusal}"
    return None, refusal


@pytest.mark.parametrize(("reg", "f", "args", "kw", "pos"), _cases())
def test_a_varied_call_is_numpys_value_and_derivative(
    reg: Any, f: Any, args: Any, kw: Any, pos: int
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _numpys(f, args, kw)
        if want is None:
            return
        short = reg.name.split(":")[-1].split(".")[-1]
        out, refusal = _refusal(short, lambda: cr.rrule(f, *args, **kw))
        if refusal is not None:
            return
        y, pb = out
        assert np.shape(y) == np.shape(want) and np.asarray(y).dtype == want.dtype
        tol = 1e-6 if want.dtype in (np.float64, np.complex128) else 1e-4
        np.testing.assert_allclose(y, want, rtol=tol, atol=tol)

        rng = np.random.default_rng(0)
        x = args[pos]
        y_bar = rng.standard_normal(np.shape(y))
        if want.dtype.kind == "c":
            y_bar = y_bar + 1j * rng.standard_normal(np.shape(y))
        y_bar = np.asarray(y_bar, dtype=want.dtype)
        bars, refusal = _refusal(short, lambda: pb(y_bar if np.ndim(y) else y_bar[()]))
        if refusal is not None:
            return
        x_bar = cr.unthunk(bars[pos + 1])
        if isinstance(x_bar, cr.AbstractZero):
            x_bar = np.zeros(x.shape, x.dtype)
        assert np.shape(x_bar) == x.shape and np.asarray(x_bar).dtype == x.dtype
        d = _direction(x, rng)
        slope = _slope(f, args, kw, pos, d)
        if slope is None:
            return
        fd = np.real(np.sum(np.conj(y_bar) * slope))
        got = np.real(np.sum(np.conj(np.asarray(x_bar, dtype=np.complex128)) * d))
        assert abs(fd - got) <= (1e-5 if tol == 1e-6 else 1e-3) * (1 + abs(fd)), (
            f"{reg.name} {kw}: <x_bar, d> = {got}, finite differences {fd}"
        )


@pytest.mark.parametrize(("reg", "f", "args", "kw", "pos"), _cases())
def test_a_varied_call_pushes_forward_as_finite_differences(
    reg: Any, f: Any, args: Any, kw: Any, pos: int
) -> None:
    """The same variants through the frule: the tangent of the output along a tangent of the
    varied array is the central differences' slope (complex tangents included)."""
    if reg.frule is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _numpys(f, args, kw)
        if want is None:
            return
        x = args[pos]
        d = _direction(x, np.random.default_rng(0))
        tangents = [cr.NoTangent(), *(cr.ZeroTangent() for _ in args)]
        tangents[pos + 1] = d.astype(x.dtype)
        short = reg.name.split(":")[-1].split(".")[-1]
        out, refusal = _refusal(short, lambda: cr.frule(tuple(tangents), f, *args, **kw))
        if refusal is not None:
            return
        y, y_dot = out
        assert np.shape(y) == np.shape(want) and np.asarray(y).dtype == want.dtype
        y_dot = cr.unthunk(y_dot)
        if isinstance(y_dot, cr.AbstractZero):
            y_dot = np.zeros(np.shape(want), want.dtype)
        assert np.shape(y_dot) == np.shape(want) and np.asarray(y_dot).dtype == want.dtype
        slope = _slope(f, args, kw, pos, d)
        if slope is None:
            return
        tol = 1e-5 if want.dtype in (np.float64, np.complex128) else 1e-3
        err = np.max(np.abs(np.asarray(y_dot, dtype=np.complex128) - slope), initial=0.0)
        assert err <= tol * (1 + np.max(np.abs(slope), initial=0.0)), (
            f"{reg.name} {kw}: the pushforward is {err} away from finite differences"
        )


def _direction(x: Any, rng: np.random.Generator) -> Any:
    """A direction for ``x`` in double precision: complex for complex ``x``, Hermitian for a
    square ``x`` (the rules of Hermitian matrices: cholesky, eigh)."""
    d = rng.standard_normal(x.shape)
    if x.dtype.kind == "c":
        d = d + 1j * rng.standard_normal(x.shape)
    if x.ndim >= 2 and x.shape[-1] == x.shape[-2]:
        d = d + np.conj(np.swapaxes(d, -1, -2))
    return d


def _slope(f: Any, args: Any, kw: Any, pos: int, d: Any) -> Any:
    """The central differences of ``f`` along ``d`` in argument ``pos``, in double precision;
    None where ``f`` is not continuous along ``d`` there (an output order that follows the
    values, as NumPy's ``unique_values`` of complex numbers)."""
    base = [_in_double(a) for a in args]

    def at(t: float) -> Any:
        moved = np.asarray(base[pos] + t * d)
        return np.asarray(f(*base[:pos], moved, *base[pos + 1 :], **kw))

    lo, mid, hi = at(-H), at(0.0), at(H)
    if np.shape(lo) != np.shape(mid) or np.max(np.abs(hi - lo), initial=0.0) > 1e-3:
        return None
    return (hi - lo) / (2 * H)


def _zero_d_cases() -> list[Any]:
    """The registrations whose NumPy function takes ``axis`` and whose first example is one
    floating array: called on a 0-d array with ``axis=0`` and ``axis=-1``."""
    numpy = get_backend("numpy")
    out = []
    for reg in cr.registrations():
        f = numpy.function(reg) if reg.rrule is not None else None
        exs = examples_for(reg) if f is not None else []
        if not exs or len(exs[0].args) != 1:
            continue
        try:
            takes_axis = "axis" in inspect.signature(f).parameters
        except (TypeError, ValueError):  # a ufunc or builtin without a signature
            continue
        x = exs[0].args[0]
        if takes_axis and isinstance(x, np.ndarray) and x.dtype.kind == "f":
            out += [pytest.param(reg, f, axis, id=f"{reg.name}-axis={axis}") for axis in (0, -1)]
    return out


@pytest.mark.parametrize(("reg", "f", "axis"), _zero_d_cases())
def test_a_zero_d_array_with_an_axis_is_what_numpy_makes_it(reg: Any, f: Any, axis: int) -> None:
    """Some of NumPy's reductions take ``axis=0`` or ``-1`` on a 0-d array and reduce nothing
    (``np.sum``, ``np.nanvar``, ``np.ptp``), others refuse it (``np.mean``, ``np.var``). A rule
    does what NumPy does, decided by NumPy's call and by no list of names: where NumPy accepts,
    NumPy's value and the derivative of finite differences; where NumPy refuses, so does the
    rule. (A list of names decided it before, and missed nanvar, nanstd, nanmax, nanmin and ptp;
    np.gradient and np.trapezoid raised ZeroDivisionError; scipy.special.logsumexp and softmax
    failed where SciPy computes.)"""
    x = np.array(0.7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = f(x, axis=axis)
        except (ValueError, IndexError, TypeError):  # NumPy refuses (AxisError: the first two)
            with pytest.raises((ValueError, IndexError, TypeError)):
                cr.rrule(f, x, axis=axis)
            return
        y, pb = cr.rrule(f, x, axis=axis)
        if np.asarray(want).dtype.kind != "f":  # an index or a count: its value only
            np.testing.assert_array_equal(y, want)
            return
        np.testing.assert_allclose(y, want, rtol=1e-15)
        assert np.shape(y) == np.shape(want)
        fd = (np.asarray(f(x + H, axis=axis)) - np.asarray(f(x - H, axis=axis))) / (2 * H)
        ones = np.ones_like(np.asarray(want))
        (_, x_bar) = pb(ones if np.ndim(want) else np.float64(1.0))
        np.testing.assert_allclose(x_bar, np.sum(fd), rtol=1e-6, atol=1e-8)
