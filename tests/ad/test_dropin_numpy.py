"""The drop-in namespace ``chainrules.ad.numpy`` (issue 29, points 1 and 3).

* Outside a transformation every function is NumPy's: the same values, dtypes and types (a
  plain ndarray in, a plain ndarray out), ufuncs NumPy's own objects.
* Inside one, programs written with it -- arrays of nested lists of traced values, ``r_``/``c_``,
  joining traced values with arrays, lists and numbers, writes into buffers it allocates -- have
  gradients and Hessians equal to finite differences of the program (5-point central
  differences of its value, and of ``ad.grad`` for the Hessian), in reverse and forward mode,
  through ``ad.jit`` and on the guarded device array where a NumPy function takes it.
* Which arrays are created is the engine's state in this context: another thread's
  transformation leaves this thread's ``zeros`` a plain ndarray.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy
import pytest

import chainrules.ad.numpy as np
from chainrules import ad
from chainrules.testing import device_array, gradient, to_numpy

X = numpy.array([0.4, 1.3, -0.7])


def fd_grad(f: Callable[[Any], Any], x: numpy.ndarray) -> Any:
    return gradient(lambda xs: float(f(xs[0])), [x], 0, 1e-3)


def fd_jacobian(g: Callable[[Any], Any], x: numpy.ndarray) -> Any:
    """Rows: d g(x)[i] / dx, by central differences of each output."""
    y = numpy.asarray(g(x))
    rows = [gradient(lambda xs, i=i: float(numpy.asarray(g(xs[0]))[i]), [x], 0, 1e-3)
            for i in range(y.size)]  # fmt: skip
    return numpy.stack(rows)


# --- outside a transformation: NumPy's ----------------------------------------------------------
A = numpy.arange(6.0).reshape(2, 3)
OUTSIDE: list[tuple[str, Callable[[Any], Any]]] = [
    ("array", lambda m: m.array([[1, 2], [3, 4]])),
    ("array dtype", lambda m: m.array([[1, 2], [3, 4]], dtype=m.float32)),
    ("array ndmin", lambda m: m.array([1.0, 2.0], ndmin=3)),
    ("array of array", lambda m: m.array(A)),
    ("asarray", lambda m: m.asarray([1.5, 2.5])),
    ("asarray same", lambda m: m.asarray(A)),
    ("asanyarray", lambda m: m.asanyarray((1, 2))),
    ("zeros", lambda m: m.zeros((2, 3))),
    ("ones int", lambda m: m.ones(3, dtype=int)),
    ("full", lambda m: m.full((2, 2), 7.0)),
    ("zeros_like", lambda m: m.zeros_like(A)),
    ("eye", lambda m: m.eye(3)),
    ("arange", lambda m: m.arange(0.0, 1.0, 0.25)),
    ("linspace", lambda m: m.linspace(0, 1, 5)),
    ("r_", lambda m: m.r_[A[0], 9.0, 1:4]),
    ("r_ directive", lambda m: m.r_["0,2", A[0], A[1]]),
    ("c_", lambda m: m.c_[A[0], A[1]]),
    ("concatenate", lambda m: m.concatenate([A, A], axis=1)),
    ("stack", lambda m: m.stack([A[0], A[1]])),
    ("vstack", lambda m: m.vstack([A[0], [1.0, 2.0, 3.0]])),
    ("hstack", lambda m: m.hstack([A[0], 1.0])),
    ("column_stack", lambda m: m.column_stack([A[0], A[1]])),
    ("mean of list", lambda m: m.mean([1.0, 2.0, 4.0])),
    ("std of list", lambda m: m.std([1.0, 2.0, 4.0])),
    ("sum", lambda m: m.sum(A, axis=0)),
    ("where", lambda m: m.where(A > 2, A, 0.0)),
    ("where of one", lambda m: m.where(A > 2)),
    ("norm", lambda m: m.linalg.norm([3.0, 4.0])),
    ("solve", lambda m: m.linalg.solve(numpy.eye(2) * 2, [1.0, 3.0])),
    ("fft", lambda m: m.fft.fft(A[0])),
    ("sin", lambda m: m.sin(A)),
    ("add.reduce", lambda m: m.add.reduce(A)),
]


@pytest.mark.parametrize("call", [c for _, c in OUTSIDE], ids=[n for n, _ in OUTSIDE])
def test_outside_a_transformation_it_is_numpy(call: Callable[[Any], Any]) -> None:
    got, want = call(np), call(numpy)
    assert type(got) is type(want)
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            numpy.testing.assert_array_equal(g, w)
        return
    assert numpy.asarray(got).dtype == numpy.asarray(want).dtype
    numpy.testing.assert_array_equal(got, want)


def test_every_numpy_name_is_there_and_ufuncs_are_numpys_own() -> None:
    missing = [n for n in numpy.__all__ if not hasattr(np, n)]
    assert missing == []
    assert set(numpy.__all__) <= set(np.__all__)
    assert np.sin is numpy.sin and np.add is numpy.add  # ufuncs, with their methods
    assert np.float64 is numpy.float64 and np.ndarray is numpy.ndarray and np.pi == numpy.pi
    # the submodules are the drop-in's own, importable as autograd.numpy's are
    import chainrules.ad.numpy.fft
    import chainrules.ad.numpy.linalg
    import chainrules.ad.numpy.random as npr

    assert np.linalg is chainrules.ad.numpy.linalg and np.fft is chainrules.ad.numpy.fft
    assert npr.randn is numpy.random.randn


def test_its_functions_find_numpys_rules() -> None:
    import chainrules as cr

    for name in ("sum", "mean", "zeros_like", "concatenate", "vstack"):
        assert cr.find_rrule(getattr(np, name)) is cr.find_rrule(getattr(numpy, name)), name
    y, pullback = cr.rrule(np.sum, X)
    assert y == numpy.sum(X)
    numpy.testing.assert_array_equal(pullback(1.0)[1], numpy.ones(3))


def test_importing_the_engine_imports_neither_namespace() -> None:
    code = (
        "import sys, chainrules.ad\n"
        "assert 'chainrules.ad.numpy' not in sys.modules\n"
        "assert 'chainrules.ad.scipy' not in sys.modules\n"
        "import chainrules.ad.numpy, chainrules.ad.scipy\n"
        "assert 'scipy' not in sys.modules, 'the drop-in namespaces imported scipy'\n"
        # NumPy's submodules that NumPy loads on first use are loaded on first use here too
        "assert 'numpy.f2py' not in sys.modules and 'numpy.ma' not in sys.modules\n"
        "assert chainrules.ad.numpy.ma.masked_array is sys.modules['numpy.ma'].masked_array\n"
        "import chainrules.ad.scipy.special\n"
        "assert 'scipy.special' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- inside: programs written with the drop-in namespace ------------------------------------
def nested_array(x: Any) -> Any:
    m = np.array([[x[0], 1.0, x[1] ** 2], [2.0, x[2] * x[0], np.sin(x[1])]])
    return np.sum(m @ m.T)


def array_dtype_and_ndmin(x: Any) -> Any:
    m = np.array([[x[0], 2], [x[1], x[2]]], dtype=np.complex128, ndmin=3)
    assert m.dtype == np.complex128 and m.shape == (1, 2, 2)
    return np.sum(np.real(np.exp(m) * (1.5 + 0.5j)))


def asarray_of_tuple(x: Any) -> Any:
    v = np.asarray((x[0] ** 2, x[1] * x[2], 3.0))
    return np.dot(v, v)


def r_mixed(x: Any) -> Any:
    c = numpy.array([0.5, -1.0])
    v = np.r_[x, c, x[0], 1:3, [x[1], 2.0]]
    assert v.shape == (3 + 2 + 1 + 2 + 2,)
    return np.sum(v**2 * np.arange(1.0, 11.0))


def c_mixed(x: Any) -> Any:
    c = numpy.array([0.5, -1.0, 2.0])
    m = np.c_[x, c, x**2]
    assert m.shape == (3, 3)
    return np.sum(np.tanh(m @ c))


def join_mixed(x: Any) -> Any:
    a = numpy.array([1.0, 2.0, 3.0])
    v = np.vstack([x, a, [x[0], 0.5, x[1]]])
    h = np.hstack([x, a, 4.0])
    c = np.concatenate([x, [x[2], 1.0], a])
    s = np.stack([a, x * x])
    cs = np.column_stack([x, a])
    return np.sum(v**2) + np.sum(h**3) + np.sum(c * c) + np.sum(s) + np.sum(np.sin(cs))


def functions_of_lists(x: Any) -> Any:
    return (
        np.mean([x[0], x[1], 2.0])
        + np.std([x[0], x[2], 1.0])
        + np.linalg.norm([x[0], x[1]])
        + np.var([x[1], x[2]])
        + np.sum(np.where(x > 0, x, [x[1], 0.0, x[0]]))
    )


def joined_array_as_sequence(x: Any) -> Any:
    m = np.reshape(x, (3, 1)) * x
    return np.sum(np.vstack(m) ** 2) + np.sum(np.hstack(x) * 2.0) + np.sum(np.concatenate(m))


def zeros_int_writes(x: Any) -> Any:
    out = np.zeros(4)
    out[0] = x[0] * x[1]
    out[2] = np.sin(x[2])
    out[-1] = 3.0  # a plain value into the buffer too
    return np.sum(out**2 * np.arange(1.0, 5.0))


def slice_writes(x: Any) -> Any:
    out = np.ones((3, 4))
    out[0, :3] = x**2
    out[1:, 1:3] = np.reshape(x[:2] * x[2], (2, 1))
    out[2, ::3] = x[1]
    return np.sum(np.exp(out / 4.0) * out)


def every_creation_function(x: Any) -> Any:
    a = np.empty(3)
    a[:] = x * 2.0
    b = np.full((2,), 0.5)
    b[1] = x[0] ** 3
    c = np.zeros_like(X)
    c[1:] = x[:2]
    d = np.eye(3)
    d[0, 2] = x[2]
    e = np.array([0.0, 1.0])  # from plain values: a buffer too
    e[0] = x[1]
    f = np.linspace(0.0, 1.0, 3)
    f[1] = x[0]
    return np.sum(a * c) + np.sum(b**2) + np.sum(d @ d) + np.sum(e**3) + np.sum(f * a)


def buffer_accumulated(x: Any) -> Any:
    out = np.zeros(3)
    for k in range(3):
        out[k] = x[k] * (k + 1.0)
        out += 0.1 * x  # an in-place update of the whole buffer
    return np.sum(out**2)


PROGRAMS = [
    nested_array,
    array_dtype_and_ndmin,
    asarray_of_tuple,
    r_mixed,
    c_mixed,
    join_mixed,
    functions_of_lists,
    joined_array_as_sequence,
    zeros_int_writes,
    slice_writes,
    every_creation_function,
    buffer_accumulated,
]


@pytest.mark.parametrize("f", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_gradient_and_hessian_agree_with_finite_differences(f: Callable[[Any], Any]) -> None:
    want = fd_grad(f, X)
    value, g = ad.value_and_grad(f)(X)
    numpy.testing.assert_allclose(float(value), float(f(X)), rtol=1e-12)  # NumPy's own value
    numpy.testing.assert_allclose(g, want, rtol=1e-7, atol=1e-9)
    # forward mode: a Jacobian of a scalar by jvps
    numpy.testing.assert_allclose(ad.jacobian(f, mode="fwd")(X), want, rtol=1e-7, atol=1e-9)
    h = ad.hessian(f)(X)
    numpy.testing.assert_allclose(h, fd_jacobian(ad.grad(f), X), rtol=1e-6, atol=1e-8)
    numpy.testing.assert_allclose(h, h.T, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [zeros_int_writes, slice_writes, r_mixed, nested_array])
def test_through_the_engines_jit(f: Callable[[Any], Any]) -> None:
    g = ad.jit(ad.grad(f))
    for x in (X, X * 1.5 + 0.1):
        numpy.testing.assert_allclose(g(x), ad.grad(f)(x), rtol=1e-12)
        numpy.testing.assert_allclose(g(x), fd_grad(f, x), rtol=1e-7, atol=1e-9)
    # recorded and replayed, not rerun
    assert g.recordings and all(callable(r) for r in g.recordings.values())


def test_array_of_traced_values_in_float32() -> None:
    def f(x: Any) -> Any:
        m = np.array([x[0], 2, [x[1]][0]], dtype=np.float32)
        assert m.dtype == np.float32
        return np.sum(np.exp(m))

    g = ad.grad(f)(X)
    assert g.dtype == numpy.float64  # the cotangent of x, in x's dtype
    numpy.testing.assert_allclose(g, [numpy.exp(X[0]), numpy.exp(X[1]), 0.0], rtol=1e-6)


def test_jacobian_of_an_array_of_traced_values() -> None:
    def f(x: Any) -> Any:
        return np.array([x[0], x[0] * x[1], 1.0, [x[2]][0] ** 2])

    want = numpy.array([[1, 0, 0], [X[1], X[0], 0], [0, 0, 0], [0, 0, 2 * X[2]]])
    numpy.testing.assert_allclose(ad.jacobian(f)(X), want, rtol=1e-14)
    numpy.testing.assert_allclose(ad.jacobian(f, mode="fwd")(X), want, rtol=1e-14)


def test_on_the_guarded_device_array() -> None:
    """The device array's tracers take NumPy's functions; ``zeros_like`` of one is its own
    library's buffer, written into with traced values."""

    def f(x: Any) -> Any:
        out = np.zeros_like(x)
        out[0] = x[1] * x[2]
        out[1:] = np.sin(x[:2])
        m = np.array([[x[0], x[1]], [x[2], x[0]]])
        return np.sum(out**2) + np.sum(m @ m) + np.sum(np.vstack([x, x**2]))

    g = ad.grad(f)(device_array(X))
    assert type(g) is type(device_array(X))
    numpy.testing.assert_allclose(to_numpy(g), fd_grad(f, X), rtol=1e-7, atol=1e-9)


def test_buffers_depend_on_this_context_only() -> None:
    """While another thread's transformation runs, ``zeros`` here is a plain ndarray; in the
    thread that runs it, a created array."""
    started, release = threading.Event(), threading.Event()
    seen: list[Any] = []

    def f(x: Any) -> Any:
        buf = np.zeros(3)
        seen.append(type(buf))
        started.set()
        assert release.wait(10)
        buf[:] = x
        return np.sum(buf**2)

    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(ad.grad(f)(X)))
    t.start()
    try:
        assert started.wait(10)
        here = np.zeros(3)
        assert type(here) is numpy.ndarray
        assert type(np.array([1.0, 2.0])) is numpy.ndarray
    finally:
        release.set()
        t.join(10)
    assert issubclass(seen[0], ad.Tracer)
    numpy.testing.assert_allclose(out[0], 2 * X, rtol=1e-14)
    assert type(np.zeros(3)) is numpy.ndarray  # after it, too


def test_plain_numpy_buffer_is_refused_and_the_dropin_one_works() -> None:
    def plain(x: Any) -> Any:
        out = numpy.zeros(3)
        out[0] = x[0]
        return numpy.sum(out)

    with pytest.raises((TypeError, ValueError)):
        ad.grad(plain)(X)

    def dropin(x: Any) -> Any:
        out = np.zeros(3)
        out[0] = x[0]
        return np.sum(out)

    numpy.testing.assert_array_equal(ad.grad(dropin)(X), [1.0, 0.0, 0.0])


def test_a_traced_array_given_to_array_is_copied_and_asarray_keeps_it() -> None:
    def f(x: Any) -> Any:
        y = x * 1.0
        a = np.array(y)
        a[0] = 10.0  # a copy: y keeps its value
        b = np.asarray(y)
        assert b is y
        return np.sum(y * a)

    numpy.testing.assert_allclose(ad.grad(f)(X), fd_grad(f, X), rtol=1e-7, atol=1e-9)


# --- errors -----------------------------------------------------------------------------------
def test_errors_name_the_function_and_what_was_expected() -> None:
    with pytest.raises(TypeError, match=r"chainrules\.ad\.numpy\.r_\['0,2', \.\.\.\]: a string"):
        ad.grad(lambda x: np.sum(np.r_["0,2", x, x]))(X)
    with pytest.raises(TypeError, match=r"chainrules\.ad\.numpy\.where\(\).*keyword argument 'z'"):
        np.where(X > 0, x=X, z=X)
    with pytest.raises(TypeError, match=r"where\(\): either both or neither of x and y"):
        np.where(X > 0, x=X)
    with pytest.raises(NotImplementedError, match=r"make_diagonal: only offset=0"):
        np.make_diagonal(X)
    with pytest.raises(ValueError, match="one shape"):  # a ragged list: no array
        ad.grad(lambda x: np.sum(np.array([[x[0], x[1]], [x[2]]])))(X)


def test_where_by_keyword_and_make_diagonal() -> None:
    c = X > 0
    numpy.testing.assert_array_equal(np.where(c, x=X, y=-X), numpy.where(c, X, -X))
    numpy.testing.assert_array_equal(np.where(condition=c, x=X, y=0.0), numpy.where(c, X, 0.0))
    d = np.make_diagonal(A, axis1=-1, axis2=-2)
    numpy.testing.assert_array_equal(d[1], numpy.diag(A[1]))

    def f(x: Any) -> Any:
        return np.sum(np.make_diagonal(x, axis1=-1, axis2=-2) @ np.ones((3, 3)) * x)

    numpy.testing.assert_allclose(ad.grad(f)(X), fd_grad(f, X), rtol=1e-7, atol=1e-9)
