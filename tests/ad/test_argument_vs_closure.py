"""Passing an argument and closing over it must give the same value and derivative (issue 26,
defect 1).

With ``argnums=0`` the other arguments (data) enter the trace as constant tracers, so that
``array_namespace(data, x)`` sees one kind of array; closed over, they stay the library's arrays.
So every operation must behave on a constant tracer as on the array it stands for -- above all
the writes: which arrays a write is seen through (a copy, a view, the array itself) must be
NumPy's. ``GaussianMixture.fit`` through scikit-learn's ``_logsumexp`` wrote ``-inf`` into
``xp.asarray(a, copy=True)``, which the engine returned as ``a`` itself: the fit's E-step read
the written array, and the value came out -2978023.03 instead of -13.0845.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from array_api_compat import array_namespace

from chainrules import ad

# --- the reported case, in a subprocess: SciPy reads SCIPY_ARRAY_API=1 once, at its import ------
_GAUSSIAN_MIXTURE = """
import numpy as np, sklearn
from sklearn.mixture import GaussianMixture
sklearn.set_config(array_api_dispatch=True)
from chainrules import ad

def score(xq, x_train):
    gm = GaussianMixture(n_components=2, random_state=0, init_params="random_from_data")
    return np.sum(gm.fit(x_train).score_samples(xq))

rng = np.random.default_rng(0)
xq, xt = rng.normal(size=(4, 3)), rng.normal(size=(12, 3))
want = score(xq, xt)
v_arg, g_arg = ad.value_and_grad(score, argnums=0)(xq, xt)
v_clo, g_clo = ad.value_and_grad(lambda q: score(q, xt))(xq)
eps = 1e-6
fd = np.array(
    [(score(xq + eps * e, xt) - score(xq - eps * e, xt)) / (2 * eps)
     for e in np.eye(12).reshape(12, 4, 3)]
).reshape(4, 3)
np.testing.assert_allclose([v_arg, v_clo], [want, want], rtol=1e-12)
np.testing.assert_allclose(g_arg, g_clo, rtol=1e-10, atol=1e-12)
np.testing.assert_allclose(g_arg, fd, rtol=1e-6, atol=1e-7)
print("ok", want, v_arg)
"""


def test_defect1_gaussian_mixture_argnums_equals_closure() -> None:
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    r = subprocess.run(
        [sys.executable, "-c", _GAUSSIAN_MIXTURE],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0 and r.stdout.startswith("ok"), r.stdout[-2000:] + r.stderr[-3000:]


# --- the shrunk reproducer: scikit-learn's _logsumexp, in a few lines -------------------------
def _logsumexp_shape(x: Any, a: Any) -> Any:
    """What ``_logsumexp`` does: mask the maxima in a copy of ``a``, then use ``a`` again."""
    xp = array_namespace(x, a)
    c = xp.asarray(a, copy=True)
    c[a == xp.max(a)] = -xp.inf
    return xp.sum(x * a) + xp.sum(x * xp.exp(c))


def test_defect1_asarray_copy_is_a_new_array() -> None:
    x, a = np.array([0.5, 1.5, 2.0]), np.array([1.0, 3.0, 2.0])
    want = _logsumexp_shape(x, a)
    v, g = ad.value_and_grad(_logsumexp_shape, argnums=0)(x, a)
    assert v == pytest.approx(want, rel=1e-14)
    np.testing.assert_allclose(g, a + np.exp(np.where(a == 3.0, -np.inf, a)), rtol=1e-14)


# --- the relation over programs that copy, alias, write and branch ----------------------------
# Written the way NumPy code is: closed over, the data are NumPy arrays, which cannot hold a
# traced value, so the programs write traced values only into arrays of the traced namespace.
# Each mechanism's variants: where NumPy makes a new array the write must not be seen through the
# original, where NumPy returns the array itself or a view it must be.
def copy_asarray(x: Any, d: Any) -> Any:  # xp.asarray(copy=True): a new array
    xp = array_namespace(x, d)
    c = xp.asarray(d, copy=True)
    c[0] = 100.0
    return xp.sum(x * d) + xp.sum(x * c)


def copy_asarray_of_input(x: Any, d: Any) -> Any:  # the same, of the differentiated argument
    xp = array_namespace(x, d)
    c = xp.asarray(x, copy=True)
    c[1:] = d[1:]
    return xp.sum(x * c)


def copy_np_array(x: Any, d: Any) -> Any:  # np.array(t): copy=True through __array__
    c = np.array(d)
    c *= 3.0
    return np.sum(x * d) + np.sum(x * c)


def copy_method(x: Any, d: Any) -> Any:  # t.copy()
    c = d.copy()
    c[c > 1.5] = 0.0
    return np.sum(x * d) + np.sum(x * c)


def copy_np_copy(x: Any, d: Any) -> Any:  # np.copy(t)
    c = np.copy(d)
    c[1:] = 0.5
    return np.sum(x * d) + np.sum(x * c)


def alias_asarray(x: Any, d: Any) -> Any:  # xp.asarray(t): t itself
    xp = array_namespace(x, d)
    c = xp.asarray(d)
    c[0] = 10.0
    return xp.sum(x * d)


def alias_astype_no_copy(x: Any, d: Any) -> Any:  # xp.astype(t, t.dtype, copy=False): t itself
    xp = array_namespace(x, d)
    c = xp.astype(d, d.dtype, copy=False)
    c[0] = 10.0
    return xp.sum(x * d)


def alias_astype_method_no_copy(x: Any, d: Any) -> Any:  # t.astype(t.dtype, copy=False)
    c = d.astype(d.dtype, copy=False)
    c += 1.0
    return np.sum(x * d)


def alias_np_astype_no_copy(x: Any, d: Any) -> Any:  # np.astype(t, t.dtype, copy=False)
    c = np.astype(d, d.dtype, copy=False)
    c[2] = 7.0
    return np.sum(x * d)


def copy_astype(x: Any, d: Any) -> Any:  # astype's default copies
    xp = array_namespace(x, d)
    c = xp.astype(d, d.dtype)
    c[0] = 10.0
    return xp.sum(x * d) + xp.sum(x * c)


def view_numpy_integer_row(x: Any, d: Any) -> Any:  # m[np.int64(i)]: a view of a row
    m = np.stack([d, 2.0 * d])
    row = m[np.argmax(np.array([0.0, 1.0]))]
    row[0] = 7.0
    return np.sum(x * m[1])


def view_numpy_integer_inplace(x: Any, d: Any) -> Any:  # data added into a traced row's view
    m = np.stack([x, x * x])
    row = m[np.int64(1)]
    row += d
    return np.sum(x * m[1])


def view_slice_inplace(x: Any, d: Any) -> Any:  # d[1:] *= x[1:]: d itself changes
    v = d[1:]
    v *= 2.0
    return np.sum(x * d)


def branch_on_data(x: Any, d: Any) -> Any:  # control flow on data (a host read of a constant)
    if np.sum(d) > 3.0:
        return np.sum(np.sin(x) * d)
    return np.sum(x * x)


def mask_write_of_traced(x: Any, d: Any) -> Any:  # a mask from data selects traced values
    c = array_namespace(x, d).zeros_like(d)
    c[d > 1.5] = x[d > 1.5]
    return np.sum(c * c * d)


# NumPy's out= and op= write into the array given: its views, its base and its other names see it.
def out_into_data(x: Any, d: Any) -> Any:  # np.multiply(d, 2, out=d): d changes
    np.multiply(d, 2.0, out=d)
    return np.sum(x * d)


def out_into_data_where(x: Any, d: Any) -> Any:  # where=: the rest of out keeps its values
    np.add(d, 1.0, out=d, where=d > 1.5)
    return np.sum(x * d)


def out_of_traced_into_created(x: Any, d: Any) -> Any:  # a traced result into a created array
    c = array_namespace(x, d).zeros(3)
    r = np.multiply(x, d, out=c)
    return np.sum(c * c) + np.sum(r)


def out_into_created_view(x: Any, d: Any) -> Any:  # into a row view: the base sees it
    m = array_namespace(x, d).ones((2, 3))
    np.exp(x, out=m[0])
    return np.sum(m * m * d)


def inplace_created_alias(x: Any, d: Any) -> Any:  # c = xp.asarray(d); c += 1: d changes
    c = array_namespace(x, d).asarray(d)
    c += 1.0
    return np.sum(x * d)


def inplace_created_view(x: Any, d: Any) -> Any:  # a view multiplied in place: the base sees it
    buf = array_namespace(x, d).ones((2, 3))
    row = buf[1]
    row *= d
    return np.sum(x * buf[1])


# A ufunc's methods on data: NumPy's own on the values, as closed over.
def at_on_data(x: Any, d: Any) -> Any:  # np.add.at(d, ...): d changes, repeated indices add
    np.add.at(d, [0, 0, 2], 1.0)
    return np.sum(x * d)


def reduce_and_accumulate_on_data(x: Any, d: Any) -> Any:
    return np.sum(x) * np.add.reduce(d) + np.sum(x * np.maximum.accumulate(d[::-1]))


def at_on_created(x: Any, d: Any) -> Any:  # counts into a created array, then used
    counts = array_namespace(x, d).zeros(3)
    np.add.at(counts, [0, 2, 2], d[:3])
    return np.sum(x * counts)


# A created array written in place after a rule was given it: the pullback must keep the value it
# was given, and every view of the array must see the write, as in NumPy.
def written_after_use(x: Any, d: Any) -> Any:
    buf = array_namespace(x, d).ones(3)
    y = x * buf
    buf[0] = 5.0
    return np.sum(y * y) + np.sum(buf * d)


def written_after_use_through_base(x: Any, d: Any) -> Any:  # the rule got a view; base written
    xp = array_namespace(x, d)
    m = xp.ones((2, 3))
    row = m[1]
    y = x * row
    m[1, 0] = 5.0
    return xp.sum(y * y) + xp.sum(row * d)


def written_after_use_of_reshape(x: Any, d: Any) -> Any:  # the rule got a reshaped view
    xp = array_namespace(x, d)
    m = xp.ones((2, 3))
    flat = xp.reshape(m, (-1,))
    y = x * flat[:3]
    m[0, 0] = 5.0
    return xp.sum(y * y) + xp.sum(flat * 2.0)


def written_between_uses(x: Any, d: Any) -> Any:  # the second use sees the write
    buf = array_namespace(x, d).ones(3)
    y = x * buf
    buf[0] = 5.0
    z = x * buf
    return np.sum(y * y) + np.sum(z * z * d)


WRITTEN_AFTER_USE = [
    written_after_use,
    written_after_use_through_base,
    written_after_use_of_reshape,
    written_between_uses,
]
PROGRAMS = [
    copy_asarray,
    copy_asarray_of_input,
    copy_np_array,
    copy_method,
    copy_np_copy,
    copy_astype,
    alias_asarray,
    alias_astype_no_copy,
    alias_astype_method_no_copy,
    alias_np_astype_no_copy,
    view_numpy_integer_row,
    view_numpy_integer_inplace,
    view_slice_inplace,
    branch_on_data,
    mask_write_of_traced,
    out_into_data,
    out_into_data_where,
    out_of_traced_into_created,
    out_into_created_view,
    inplace_created_alias,
    inplace_created_view,
    at_on_data,
    reduce_and_accumulate_on_data,
    at_on_created,
]
X = np.array([0.5, 1.5, -2.0])
DATA = np.array([1.0, 2.0, 3.0])


def _fd(f: Callable[[np.ndarray], Any], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_defect1_argnums_equals_closure_equals_finite_differences(f: Callable[..., Any]) -> None:
    if f is alias_np_astype_no_copy and not hasattr(np, "astype"):
        pytest.skip("np.astype is NumPy 2.1's")
    _check_relation(f)


@pytest.mark.parametrize("f", WRITTEN_AFTER_USE, ids=lambda f: f.__name__)
def test_created_array_written_after_use_keeps_its_pullback(f: Callable[..., Any]) -> None:
    """The engine wrote into the array a pullback held: ``y = x * buf; buf[0] = 5`` gave 5, not
    1, as the derivative of ``y[0]``."""
    _check_relation(f)


def _check_relation(f: Callable[..., Any]) -> None:
    # every call gets its own copy of the data: the aliasing programs write into it, as NumPy's
    want = f(X.copy(), DATA.copy())
    v_arg, g_arg = ad.value_and_grad(f, argnums=0)(X.copy(), DATA.copy())
    v_clo, g_clo = ad.value_and_grad(lambda x: f(x, DATA.copy()))(X.copy())
    fd = _fd(lambda x: f(x, DATA.copy()), X.copy())
    assert float(v_arg) == pytest.approx(float(want), rel=1e-14)
    assert float(v_clo) == pytest.approx(float(want), rel=1e-14)
    np.testing.assert_allclose(g_arg, g_clo, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(g_arg, fd, rtol=1e-7, atol=1e-8)
    # forward mode: the same constants, another trace
    j = ad.jacobian(f, argnums=0, mode="fwd")(X.copy(), DATA.copy())
    np.testing.assert_allclose(j, g_arg, rtol=1e-14, atol=1e-14)


def test_defect1_constant_read_out_with_np_array_is_a_copy() -> None:
    """``np.array(t)`` of a constant is a new NumPy array: writing it leaves ``t``'s value (the
    caller's data, here) alone, and ``np.asarray(t)`` is the value itself, as for NumPy's."""
    data = DATA.copy()

    def f(x: Any, d: Any) -> Any:
        np.array(d)[0] = 50.0
        assert np.shares_memory(np.asarray(d), data)
        return np.sum(x * d)

    ad.grad(f, argnums=0)(X, data)
    np.testing.assert_array_equal(data, DATA)


def test_ufunc_method_of_a_differentiated_array_names_it() -> None:
    with pytest.raises(TypeError, match=r"numpy\.add\.reduce of a traced array"):
        ad.grad(lambda x: np.add.reduce(x))(X)
    with pytest.raises(TypeError, match=r"numpy\.multiply\.at of a traced array"):
        ad.grad(lambda x, d: np.sum(np.multiply.at(d, [0], x[0]) or d), argnums=0)(X, DATA)
