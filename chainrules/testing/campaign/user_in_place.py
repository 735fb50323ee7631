"""User code of the corpus that writes into arrays: in-place writes, ufuncs with ``out=``, views
that see their base's writes (each function is an entry of ``USER``, ``chainrules.testing
.campaign.entry``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .entry import _SERIES, _V5, _W3, _X43, _user


# In-place writes ------------------------------------------------------------------------------
@_user(_V5, tags="in-place")
def shifted_cumsum(x: Any) -> Any:
    out = np.zeros(5)
    out[1:] = np.cumsum(x[:-1])
    out += x
    return out


@_user(_V5, tags="in-place,python scalar")
def exponential_smoothing(x: Any) -> Any:
    out = np.zeros_like(x)
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = 0.7 * out[i - 1] + 0.3 * x[i]
    return out


@_user(_V5, tags="in-place,python scalar")
def slice_updates(x: Any) -> Any:
    y = x.copy()
    y[1:] += y[:-1] * 0.5
    y[::2] *= 2.0
    y[-1] -= 1
    return y


@_user(_V5, tags="in-place,mask")
def relu_by_mask(x: Any) -> Any:
    y = x.copy()
    y[y < 0] = 0.0
    return y * y


@_user(_V5, tags="in-place,python scalar")
def whole_array_augmented(x: Any) -> Any:
    y = x * 1.0
    y -= y.mean()
    y **= 2
    y /= 3
    return y


@_user(_V5, tags="in-place,list operand")
def polynomial_features(x: Any) -> Any:
    F = np.empty((5, 3))
    F[:, 0] = 1
    F[:, 1] = x
    F[:, 2] = x**2
    return F @ [0.5, -1, 2]


@_user(np.array([0.8, -0.6]), _SERIES, tags="in-place")
def ar2_residuals(phi: Any, series: Any) -> Any:
    res = np.zeros_like(series)
    res[2:] = series[2:] - phi[0] * series[1:-1] - phi[1] * series[:-2]
    return res @ res


@_user(_X43, tags="in-place")
def normalize_rows_inplace(X: Any) -> Any:
    Y = X.copy()
    Y /= np.linalg.norm(Y, axis=1)[:, None]
    return Y


@_user(_V5, tags="in-place,list operand")
def fancy_index_add(x: Any) -> Any:
    y = x.copy()
    y[[0, 2]] += x[[1, 3]] ** 2
    return y


@_user(_V5, tags="in-place,list operand")
def ufunc_add_at(x: Any) -> Any:
    out = np.zeros(3)
    np.add.at(out, [0, 1, 1, 2, 0], x)
    return out * out


@_user(_X43, _W3, signature="kwarg", tags="in-place")
def column_scaling(X: Any, scale: Any) -> Any:
    Z = np.array(X, copy=True)
    Z[:, 1:] *= scale[1:]
    Z[:, 0] = Z[:, 0] + scale[0]
    return np.sum(Z**2, axis=0)


@_user(_V5, tags="in-place,list operand")
def repeated_index_write(x: Any) -> Any:
    y = x.copy()
    y[[0, 0, 2]] += x[[1, 3, 4]] ** 2  # NumPy: the last write to y[0] wins, no accumulation
    return y


@_user(_V5, tags="in-place")
def view_writes(x: Any) -> Any:
    y = x.copy()
    v = y[::2]
    v += 1.0
    v *= x[:3]
    return y


@_user(_V5, tags="in-place")
def overlapping_shift(x: Any) -> Any:
    y = x.copy()
    y[1:] = y[:-1]  # NumPy copies an overlapping right-hand side first
    return y * x


@_user(_V5, tags="in-place")
def reverse_in_place(x: Any) -> Any:
    y = x * 2
    y[:] = y[::-1]
    return y * x


@_user(_X43, tags="in-place")
def transposed_view_write(X: Any) -> Any:
    A = X.copy()
    A.T[0] = A[:, 1] * 2
    return A * X


@_user(_V5, tags="in-place,mask")
def mask_assign_traced(x: Any) -> Any:
    y = x.copy()
    m = x > 0.2
    y[m] = x[m] ** 2
    return y


@_user(_V5, tags="in-place,mask")
def copyto_where(x: Any) -> Any:
    y = x * 0.5
    np.copyto(y, x**3, where=x < 0.5)
    return y


@_user(_V5, tags="in-place")
def ufunc_out(x: Any) -> Any:
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    np.add(y, 1.0, out=y)
    return y


@_user(_V5, tags="in-place")
def in_place_sort(x: Any) -> Any:
    y = x * 1.5
    y.sort()
    return y * [1.0, 2.0, 3.0, 4.0, 5.0]


@_user(_X43, _W3, tags="in-place")
def broadcast_iadd(X: Any, b: Any) -> Any:
    Y = X.copy()
    Y += b
    Y[:, 0] -= Y[:, 2]
    return Y


@_user(_V5, tags="in-place,python scalar")
def ellipsis_and_newaxis_write(x: Any) -> Any:
    Y = x[:, None] * x[None, :]
    Y[..., 0] = 1.0
    Y[1, ...] *= 3
    return Y


@_user(_V5, tags="in-place")
def cumsum_out(x: Any) -> Any:
    y = x * 1.0
    np.cumsum(x, out=y)
    return y * x


@_user(_V5, tags="in-place")
def view_sees_base_write(x: Any) -> Any:
    y = x * 1.0
    v = y[1:3]
    y[1] = 100 * x[0]  # NumPy: v shows it
    return v * x[1:3]


@_user(_V5, tags="in-place")
def view_sees_in_place_operator(x: Any) -> Any:
    y = x * 1.0
    v = y[::2]
    y *= x
    return v


@_user(_V5, tags="in-place")
def overlapping_views(x: Any) -> Any:
    y = x * 1.0
    a, b = y[:3], y[2:]
    a[2] = x[0] * 7
    return b * x[2:]


@_user(_X43, tags="in-place")
def row_views_in_a_loop(X: Any) -> Any:
    Y = X.copy()
    rows = [Y[i] for i in range(4)]
    for i in range(1, 4):
        Y[i] += Y[i - 1] * 0.5
    return sum(r * r for r in rows)


@_user(_V5, tags="in-place")
def reshape_view_sees_base_write(x: Any) -> Any:
    y = x * 1.0
    v = y.reshape(5, 1)
    y[0] = x[1] ** 2  # NumPy: v (a view of the contiguous y) shows it
    return v[:, 0] * 2


@_user(_X43, tags="in-place")
def transpose_view_sees_base_write(X: Any) -> Any:
    Y = X * 1.0
    T = Y.T
    Y += X**2
    return T @ X
