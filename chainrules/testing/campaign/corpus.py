"""The campaign's second source: a corpus of code that others wrote.

Programs generated from the registry compose registered functions with glue the campaign wrote.
The defects of issue 26 came from elsewhere: from user code that calls scikit-learn and SciPy
functions written in Python, writes into arrays in place, and mixes in lists and Python scalars.
Each :class:`Entry` here is such a function, unchanged, at one point:

* :func:`library`: the user-code suite's 73 functions of SciPy, array-api-extra and scikit-learn
  (``tests/external/user_code/cases.py`` re-exports them as ``CASES``), each called as a user
  does (``scipy.stats.skew(x)``), with its first floating constant as the second argument;
* :data:`USER`: plain user code in NumPy's own idioms -- ``out = np.zeros(n); out[1:] = ...``,
  ``+=`` on slices, boolean masks, ``x[0] - [3, 5, 2]``, Python scalars, ``np.dot``/``np.outer``/
  ``np.where``/``np.clip``, log-likelihoods through ``logsumexp``, ``GaussianMixture``,
  ``scipy.optimize.rosen``, ``scipy.special`` -- taking its arguments by position, by keyword,
  as a tuple or as a dict.

:func:`program` turns an entry into a :class:`CorpusProgram`, a :class:`~.programs.Program`
whose ``run`` calls the entry, so the very same relations of :func:`.oracles.native` check it
(argument against closure, ``grad``/``vjp``/``jvp``/both Jacobians, the Hessian's symmetry and
``jacobian(grad)`` both ways, finite differences, purity). Only the native engine: the entries
are NumPy code, which JAX and torch cannot run as written.

SciPy runs in its array-API mode (``SCIPY_ARRAY_API=1``, read once when SciPy is imported) and
scikit-learn with ``array_api_dispatch=True`` (set around each entry, not process-wide), as
issue 26's reproducers do. ``python -m chainrules.testing.campaign --source corpus`` sets the
variable for its own process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .programs import Program

__all__ = ["USER", "Case", "CorpusProgram", "Entry", "entries", "library", "program", "run"]


# --- the user-code suite's functions of SciPy, array-api-extra and scikit-learn -----------------
@dataclass(frozen=True)
class Case:
    """A function of the user-code suite: ``fn(x, *consts)``, ``x`` differentiated."""

    name: str  # the function as a user imports it
    fn: Callable[..., Any]  # fn(x, *consts): the unchanged function at work
    x: np.ndarray  # the point (float64)
    consts: tuple[Any, ...] = ()  # further arguments: arrays are converted to each backend


def _library_cases() -> list[Case]:
    import array_api_extra as xpx
    import scipy.cluster.vq as vq
    import scipy.integrate as integrate
    import scipy.optimize as optimize
    import scipy.spatial.distance as distance
    import scipy.special as special
    import scipy.stats as stats
    import sklearn.decomposition as decomposition
    import sklearn.metrics as metrics
    import sklearn.metrics.pairwise as pairwise
    import sklearn.preprocessing as preprocessing
    import sklearn.utils.extmath as extmath
    from array_api_compat import array_namespace, is_jax_array

    _rng = np.random.default_rng(0)
    V = np.array([0.3, -1.2, 0.7, 2.0, 0.1])  # a vector
    P = np.array([0.4, 1.3, 0.8, 2.1, 0.6])  # a positive vector
    Q = np.array([0.9, 0.5, 1.7, 0.3, 1.1])  # a second positive vector (a constant)
    U = np.array([0.15, 0.35, 0.6, 0.8, 0.45])  # in (0, 1)
    M = np.array([[0.3, -1.2, 0.7], [2.0, 0.1, -0.4], [0.5, 0.9, -1.5], [1.1, -0.2, 0.6]])
    D = _rng.standard_normal((8, 3))  # data a model is fitted on
    Y = np.array([0.1, -1.0, 0.9, 1.8, 0.4])  # targets
    LABELS = np.array([0, 1, 2, 1])
    PROBS = np.array([[0.5, 0.3, 0.2], [0.1, 0.7, 0.2], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])

    def _apply_where(x: Any) -> Any:
        if is_jax_array(x):
            # JAX's path, jnp.where(x > 0, sqrt(x), 0), has the gradient nan * 0 = nan where
            # x < 0 (sqrt's derivative at a negative x); the masked entries do not reach the
            # output, so the right derivative there is 0. Refusing JAX arrays makes run.py
            # compare with finite differences (no point of V lies within the stencil's reach of 0)
            raise NotImplementedError("apply_where: JAX's derivative is NaN where x < 0")
        return xpx.apply_where(x > 0, x, lambda v: array_namespace(v).sqrt(v), fill_value=0.0)

    def _add_at(x: Any) -> Any:
        return xpx.at(x, slice(1, 3)).add(x[:2] ** 2)

    return [
        # scipy.special
        Case("scipy.special.logsumexp", special.logsumexp, V),
        Case("scipy.special.softmax", special.softmax, V),
        Case("scipy.special.log_softmax", special.log_softmax, V),
        Case("scipy.special.entr", special.entr, P),
        Case("scipy.special.rel_entr", special.rel_entr, P, (Q,)),
        Case("scipy.special.xlogy", lambda x, c: special.xlogy(c, x), P, (Q,)),
        Case("scipy.special.xlog1py", lambda x, c: special.xlog1py(c, x), P, (Q,)),
        Case("scipy.special.kl_div", special.kl_div, P, (Q,)),
        Case("scipy.special.expit", special.expit, V),
        Case("scipy.special.log_expit", special.log_expit, V),
        Case("scipy.special.logit", special.logit, U),
        Case("scipy.special.erf", special.erf, V),
        Case("scipy.special.ndtr", special.ndtr, V),
        Case("scipy.special.log_ndtr", special.log_ndtr, V),
        Case("scipy.special.gammaln", special.gammaln, P),
        Case("scipy.special.digamma", special.digamma, P),
        # scipy.stats
        Case("scipy.stats.entropy", stats.entropy, P),
        Case("scipy.stats.zscore", stats.zscore, V),
        Case("scipy.stats.zmap", stats.zmap, V, (Y,)),
        Case("scipy.stats.moment", lambda x: stats.moment(x, order=3), V),
        Case("scipy.stats.skew", stats.skew, V),
        Case("scipy.stats.kurtosis", stats.kurtosis, V),
        Case("scipy.stats.variation", stats.variation, V),
        Case("scipy.stats.pmean", lambda x: stats.pmean(x, 1.5), P),
        Case("scipy.stats.gmean", stats.gmean, P),
        Case("scipy.stats.hmean", stats.hmean, P),
        Case("scipy.stats.sem", stats.sem, V),
        Case("scipy.stats.tmean", stats.tmean, V),
        Case("scipy.stats.tvar", stats.tvar, V),
        Case("scipy.stats.tstd", stats.tstd, V),
        Case("scipy.stats.iqr", stats.iqr, V),
        # scipy.spatial, optimize, integrate, cluster
        Case("scipy.spatial.distance.euclidean", distance.euclidean, V, (Y,)),
        Case("scipy.spatial.distance.cosine", distance.cosine, V, (Y,)),
        Case("scipy.spatial.distance.braycurtis", distance.braycurtis, P, (Q,)),
        Case("scipy.spatial.distance.cdist", distance.cdist, M, (D[:2],)),
        Case("scipy.optimize.rosen", optimize.rosen, V),
        Case("scipy.optimize.rosen_der", optimize.rosen_der, V),
        Case("scipy.optimize.rosen_hess", optimize.rosen_hess, V),
        Case("scipy.integrate.trapezoid", integrate.trapezoid, V),
        Case("scipy.integrate.simpson", integrate.simpson, V),
        Case("scipy.integrate.cumulative_trapezoid", integrate.cumulative_trapezoid, V),
        Case("scipy.cluster.vq.whiten", vq.whiten, M),
        # array-api-extra
        Case("array_api_extra.cov", xpx.cov, M),
        Case("array_api_extra.sinc", xpx.sinc, V),
        Case("array_api_extra.kron", xpx.kron, V[:3], (Q[:2],)),
        Case("array_api_extra.atleast_nd", lambda x: xpx.atleast_nd(x, ndim=3), V),
        Case("array_api_extra.pad", lambda x: xpx.pad(x, 2), V),
        Case("array_api_extra.expand_dims", lambda x: xpx.expand_dims(x, axis=(0, 2)), V),
        Case("array_api_extra.create_diagonal", xpx.create_diagonal, V),
        Case("array_api_extra.nan_to_num", xpx.nan_to_num, V),
        Case("array_api_extra.nanmean", xpx.nanmean, V),
        Case("array_api_extra.apply_where", _apply_where, V),
        Case("array_api_extra.at.set", lambda x: xpx.at(x, slice(1, 3)).set(x[3:] * 2.0), V),
        Case("array_api_extra.at.add", _add_at, V),
        Case("array_api_extra.at.multiply", lambda x: xpx.at(x, slice(0, 2)).multiply(x[2:4]), V),
        # scikit-learn
        Case("sklearn.metrics.log_loss", lambda x, y: metrics.log_loss(y, x), PROBS, (LABELS,)),
        Case(
            "sklearn.metrics.mean_squared_error",
            lambda x, y: metrics.mean_squared_error(y, x),
            V,
            (Y,),
        ),
        Case(
            "sklearn.metrics.mean_absolute_error",
            lambda x, y: metrics.mean_absolute_error(y, x),
            V,
            (Y,),
        ),
        Case("sklearn.metrics.r2_score", lambda x, y: metrics.r2_score(y, x), V, (Y,)),
        Case(
            "sklearn.metrics.explained_variance_score",
            lambda x, y: metrics.explained_variance_score(y, x),
            V,
            (Y,),
        ),
        Case(
            "sklearn.metrics.mean_poisson_deviance",
            lambda x, y: metrics.mean_poisson_deviance(y, x),
            P,
            (Q,),
        ),
        Case("sklearn.utils.extmath.softmax", extmath.softmax, M),
        Case("sklearn.utils.extmath.row_norms", extmath.row_norms, M),
        Case(
            "sklearn.preprocessing.StandardScaler.transform",
            lambda x, d: preprocessing.StandardScaler().fit(d).transform(x),
            M,
            (D,),
        ),
        Case(
            "sklearn.preprocessing.MinMaxScaler.transform",
            lambda x, d: preprocessing.MinMaxScaler().fit(d).transform(x),
            M,
            (D,),
        ),
        Case("sklearn.preprocessing.normalize", preprocessing.normalize, M),
        Case(
            "sklearn.decomposition.PCA.transform",
            lambda x, d: decomposition.PCA(2, svd_solver="full").fit(d).transform(x),
            M,
            (D,),
        ),
        Case("sklearn.metrics.pairwise.rbf_kernel", pairwise.rbf_kernel, M),
        Case("sklearn.metrics.pairwise.polynomial_kernel", pairwise.polynomial_kernel, M),
        Case("sklearn.metrics.pairwise.linear_kernel", pairwise.linear_kernel, M),
        Case("sklearn.metrics.pairwise.sigmoid_kernel", pairwise.sigmoid_kernel, M),
        Case(
            "sklearn.metrics.pairwise.euclidean_distances",
            lambda x, d: pairwise.euclidean_distances(x, d),
            M,
            (D[:2],),
        ),
        Case("sklearn.metrics.pairwise.cosine_similarity", pairwise.cosine_similarity, M),
    ]


# --- entries ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One function of the corpus at one point: ``fn(x, d)`` (``fn(x)`` where ``d`` is None),
    called the way ``signature`` says (see :attr:`.programs.Program.as_user_function`)."""

    name: str
    fn: Callable[..., Any]
    x: np.ndarray
    d: np.ndarray | None = None
    signature: str = "args"  # args / kwarg / tuple / dict
    tags: frozenset[str] = frozenset()  # what the code does, for the report's coverage

    def call(self, x: Any, d: Any) -> Any:
        return self.fn(x) if self.d is None else self.fn(x, d)


def _from_case(case: Case) -> Entry:
    """A case as an entry: its first floating array constant becomes ``d`` (passed, so the
    argument-versus-closure relation sees it), the others stay closed over."""
    library = case.name.split(".", 1)[0]
    tags = {library, "library"}
    consts = case.consts
    if consts and isinstance(consts[0], np.ndarray) and consts[0].dtype.kind == "f":
        rest = consts[1:]
        return Entry(
            case.name,
            lambda x, d: case.fn(x, d, *rest),
            case.x,
            consts[0],
            tags=frozenset(tags | {"several arguments"}),
        )
    return Entry(case.name, lambda x: case.fn(x, *consts), case.x, tags=frozenset(tags))


_R = np.random.default_rng(26)
_X43 = _R.standard_normal((4, 3))  # a design matrix
_W3 = np.array([0.4, -0.7, 1.1])
_V5 = np.array([0.3, -1.2, 0.7, 2.0, 0.1])
_P5 = np.array([0.4, 1.3, 0.8, 2.1, 0.6])
_SERIES = np.array([0.2, 0.5, 0.1, -0.3, 0.4, 0.9, 0.6])
_XQ = np.random.default_rng(0).normal(size=(4, 3))
_XT = np.random.default_rng(0).normal(size=(16, 3))[4:]  # issue 26's training data

USER: list[Entry] = []


def _user(
    x: np.ndarray, d: np.ndarray | None = None, signature: str = "args", tags: str = ""
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        t = set(tags.split(",")) - {""}
        if d is not None:
            t.add("several arguments")
        USER.append(Entry(fn.__name__, fn, x, d, signature, frozenset(t | {"user"})))
        return fn

    return deco


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


# List operands and Python scalars -------------------------------------------------------------
@_user(_X43[:2], tags="list operand")
def list_offsets(x: Any) -> Any:
    y = x[0] - [3, 5, 2]
    return np.sum(y**2) + x[1] @ [1, 2, 3]


@_user(_W3, _X43, tags="list operand,python scalar")
def ridge_loss(w: Any, X: Any) -> Any:
    r = X @ w - [1.0, 2.0, 0.5, -1.0]
    return r @ r + 0.1 * np.dot(w, w)


@_user(_V5, tags="python scalar")
def scalar_arithmetic(x: Any) -> Any:
    return 2.0**x + abs(x) * 3 - 1 / (x * x + 1) + (x > 0) * 0.5


@_user(_V5, tags="python scalar")
def builtin_sum_of_terms(x: Any) -> Any:
    return sum(x[i] * i for i in range(len(x))) + sum([x[0], 1.5])


@_user(_V5, tags="list operand")
def concatenate_with_list(x: Any) -> Any:
    z = np.concatenate([x, [1.0, 2.0]])
    return z @ [1, -1, 2, 0.5, 1, 3, -2]


@_user(_V5, tags="list operand")
def hstack_and_polyval(x: Any) -> Any:
    return np.polyval([1, -2, 0.5], np.hstack([x, [0.3]]))


@_user(np.array([1.0, -2.0, 0.5]), tags="list operand")
def polyval_coefficients(c: Any) -> Any:
    return np.polyval(c, [0.5, 1.0, 2.0, -1.5])


@_user(_V5, tags="list operand")
def interpolate(fp: Any) -> Any:
    return np.interp([0.5, 1.25, 3.7], [0, 1, 2, 3, 4], fp)


@_user(_V5, tags="list operand")
def trapezoid_with_grid(y: Any) -> Any:
    return np.trapezoid(y**2, x=[0, 0.5, 1.5, 2, 3])


@_user(_V5, tags="list operand")
def norm_of_shift(x: Any) -> Any:
    return np.linalg.norm(x - [1, 1, 1, 1, 1])


@_user(np.array([[1.0 + 0.5j, -0.3j], [0.2, 0.7 - 0.1j]]), tags="list operand")
def complex_weights(z: Any) -> Any:
    return np.sum(np.abs(z * [1 + 1j, 2]) ** 2) + np.real(np.sum(z**2))


@_user(_V5, tags="python scalar")
def python_float_of_array(x: Any) -> Any:
    scale = float(np.max(np.abs(x)))
    return x / scale


@_user(_V5, tags="python scalar")
def math_exp_of_element(x: Any) -> Any:
    return x * math.exp(x[0])


# NumPy idioms ---------------------------------------------------------------------------------
@_user(_V5, tags="mask")
def leaky_relu(x: Any) -> Any:
    return np.where(x > 0, x, 0.01 * x)


@_user(_V5)
def clipped_square(x: Any) -> Any:
    return np.clip(x, -1.0, 1.5) ** 2


@_user(_V5, tags="mask")
def sum_of_positive_cubes(x: Any) -> Any:
    return np.sum(x[x > 0.2] ** 3)


@_user(_V5, tags="mask")
def huber(r: Any) -> Any:
    a = np.abs(r)
    return np.where(a < 1, 0.5 * r**2, a - 0.5)


@_user(_W3, np.diag([1.0, 2.0, 3.0]) + 0.3, signature="kwarg")
def quadratic_form(x: Any, A: Any) -> Any:
    return np.sum(A * np.outer(x, x))


@_user(_X43, _W3)
def einsum_matvec(A: Any, v: Any) -> Any:
    return np.einsum("ij,j->i", A, v)


@_user(_V5)
def trimmed_mean(x: Any) -> Any:
    return np.sort(x)[1:-1].mean()


@_user(_V5)
def growth(x: Any) -> Any:
    return np.diff(np.cumprod(1 + 0.1 * x))


@_user(_V5, tags="list operand")
def maximum_minimum(x: Any) -> Any:
    return np.maximum(x, 0.35) + np.minimum(x, [0.15] * 5)


@_user(_X43)
def methods_style(X: Any) -> Any:
    C = X.T @ X
    return C.sum(axis=0) + X.mean(axis=0) * X.std(axis=0)


@_user(np.array([0.3, -0.2, 0.5, 0.9]))
def kernel_logdet(x: Any) -> Any:
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2)
    return np.linalg.slogdet(K + 0.1 * np.eye(4))[1]


@_user(_X43[:3].ravel(), tags="list operand,python scalar")
def solve_shifted(a: Any) -> Any:
    A = a.reshape(3, 3)
    return np.linalg.solve(A + 3 * np.eye(3), [1.0, 2.0, 3.0])


@_user(_V5)
def tile_repeat_reshape(x: Any) -> Any:
    return np.tile(x[:2], 3) * np.repeat(x[2:4], 3) + x.reshape(-1)[:1]


@_user(_V5)
def fft_power(x: Any) -> Any:
    return np.abs(np.fft.fft(x)) ** 2


@_user(_V5, tags="python scalar")
def branch_on_value(x: Any) -> Any:
    if x.sum() > 0:
        return x**2
    return -x


@_user(_V5, tags="list operand")
def mean_of_list_of_arrays(x: Any) -> Any:
    return np.mean([x, 2 * x, x**2], axis=0)


@_user(_V5, tags="mask")
def sum_where(x: Any) -> Any:
    return np.sum(x**2, where=x > 0) + np.max(x, initial=-5.0)


@_user(_V5, tags="python scalar")
def builtin_max_min(x: Any) -> Any:
    return max(x[0], x[2]) * min(x[1], x[3]) + x


@_user(_V5, tags="list operand")
def stack_of_elements(x: Any) -> Any:
    return np.stack([x[0] * x[1], x[2], np.sin(x[3])])


@_user(_X43)
def inverse_and_pinv(X: Any) -> Any:
    C = X.T @ X + np.eye(3)
    return np.linalg.inv(C) + np.linalg.pinv(X) @ X


@_user(_X43[:3], tags="python scalar")
def matrix_power_trace(A: Any) -> Any:
    return np.trace(np.linalg.matrix_power(A, 3)) + np.linalg.det(A) ** 2


@_user(_X43)
def block_matrix(X: Any) -> Any:
    return np.block([[X[:2, :2], X[:2, 2:]], [X[2:, :2] * 2, X[2:, 2:]]])


@_user(_X43)
def block_row(X: Any) -> Any:
    return np.block([X[:, :2] ** 2, X[:, 2:]])


# Small losses with SciPy and scikit-learn -----------------------------------------------------
@_user(_W3, _X43, signature="dict", tags="scipy,list operand")
def logistic_nll(w: Any, X: Any) -> Any:
    z = X @ w
    y = np.array([0, 1, 1, 0])
    return np.sum(np.logaddexp(0, z) - y * z)


@_user(_W3, _X43, signature="tuple", tags="scipy,list operand")
def logistic_nll_expit(w: Any, X: Any) -> Any:
    from scipy.special import expit

    p = expit(X @ w)
    y = np.array([0, 1, 1, 0])
    return -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))


@_user(_R.standard_normal((3, 3)), _X43, signature="tuple", tags="scipy")
def softmax_cross_entropy(W: Any, X: Any) -> Any:
    from scipy.special import logsumexp

    logits = X @ W
    labels = [0, 2, 1, 1]
    return -np.sum(logits[np.arange(4), labels] - logsumexp(logits, axis=1))


@_user(np.array([[0.0, 0.5], [-1.0, 1.0]]), _X43[:, :2], signature="dict", tags="scipy")
def mixture_loglik(means: Any, data: Any) -> Any:
    from scipy.special import logsumexp

    ll = -0.5 * ((data[:, None, :] - means[None]) ** 2).sum(-1) + np.log([0.3, 0.7])
    return logsumexp(ll, axis=1).sum()


@_user(_V5[:4], tags="scipy,list operand")
def logsumexp_weights(x: Any) -> Any:
    from scipy.special import logsumexp

    return logsumexp(x, b=[1, 2, 0.5, 1])


@_user(_XQ, _XT, tags="sklearn")
def gaussian_mixture_score(xq: Any, x_train: Any) -> Any:
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(n_components=2, random_state=0, init_params="random_from_data")
    return np.sum(gm.fit(x_train).score_samples(xq))


@_user(_XQ, _XT, signature="kwarg", tags="sklearn")
def gaussian_mixture_diag(xq: Any, x_train: Any) -> Any:
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(2, covariance_type="diag", random_state=0, init_params="random_from_data")
    return gm.fit(x_train).score_samples(xq)


@_user(_V5[:4], tags="scipy,list operand")
def rosen_shifted(x: Any) -> Any:
    from scipy.optimize import rosen

    return rosen(x + [0.1, 0, 0, 0.2])  # noqa: RUF005  (x is an array: NumPy adds)


@_user(_V5[:4], tags="scipy,list operand")
def rosen_der_dot(x: Any) -> Any:
    from scipy.optimize import rosen_der

    return np.dot(rosen_der(x), [1, 2, 3, 4])


@_user(_P5, tags="scipy,python scalar")
def special_mix(x: Any) -> Any:
    from scipy.special import erf, gammaln, xlogy

    return np.sum(gammaln(x) + 0.5 * erf(x) - xlogy(x, x + 1))


@_user(_V5, np.array([0.5]), signature="dict", tags="scipy,python scalar")
def normal_logpdf(x: Any, loc: Any) -> Any:
    from scipy.stats import norm

    return norm.logpdf(x, loc=loc, scale=2.0)


@_user(_X43, tags="sklearn")
def standard_scaler_fit_transform(X: Any) -> Any:
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(X)


@_user(_X43, _X43[:2] + 0.5, signature="kwarg", tags="sklearn")
def rbf_kernel_gamma(X: Any, Y: Any) -> Any:
    from sklearn.metrics.pairwise import rbf_kernel

    return rbf_kernel(X, Y, gamma=0.5).sum()


@_user(_X43, tags="scipy")
def softmax_rows_squared(X: Any) -> Any:
    from scipy.special import softmax

    return softmax(X, axis=1) ** 2


@_user(_R.standard_normal((3, 2)), _X43, signature="dict", tags="python scalar")
def two_layer_net(W: Any, X: Any) -> Any:
    h = np.tanh(X @ W)
    return np.sum((h @ [1.0, -0.5] - 0.25) ** 2) / 4


@_user(_V5[:3], np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.0]]), tags="scipy")
def multivariate_normal_logpdf(x: Any, cov: Any) -> Any:
    from scipy.stats import multivariate_normal

    return multivariate_normal.logpdf(x, mean=[0.1, 0.0, -0.2], cov=cov)


@_user(_X43, _W3 @ _X43.T, signature="tuple", tags="sklearn")
def linear_regression_predict(X: Any, y: Any) -> Any:
    from sklearn.linear_model import LinearRegression

    return LinearRegression().fit(X, y).predict(X[:2] + 0.1)


@_user(_X43, _W3 @ _X43.T, signature="dict", tags="sklearn")
def ridge_predict(X: Any, y: Any) -> Any:
    from sklearn.linear_model import Ridge

    return Ridge(alpha=0.5, solver="svd").fit(X, y).predict(X)


@_user(np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.0]]), tags="scipy")
def cho_solve_user(A: Any) -> Any:
    from scipy.linalg import cho_factor, cho_solve

    return cho_solve(cho_factor(A), np.array([1.0, -1.0, 0.5]))


# More user code: single precision, decompositions, statistics, kernels --------------------------
@_user(_V5.astype(np.float32), tags="single precision,list operand,python scalar")
def float32_with_lists(x: Any) -> Any:
    y = x - [0.1, 0.2, 0.3, 0.4, 0.5]  # NumPy: the list is float64, so is y
    return np.tanh(y) * 2.5 + x**2


@_user(_X43.astype(np.float32), _W3.astype(np.float32), signature="tuple", tags="single precision")
def float32_linear_model(X: Any, w: Any) -> Any:
    z = X @ w
    return np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0)


@_user(_X43)
def eigenvalues_of_gram(X: Any) -> Any:
    return np.linalg.eigvalsh(X.T @ X + np.eye(3))


@_user(_X43)
def singular_values(X: Any) -> Any:
    return np.linalg.svd(X, compute_uv=False)


@_user(_X43, np.array([0.5, -1.0, 2.0, 0.3]), signature="kwarg")
def least_squares(X: Any, y: Any) -> Any:
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    return X @ coef - y


@_user(_V5, tags="python scalar")
def statistics(x: Any) -> Any:
    return np.var(x, ddof=1) + np.median(x) + np.quantile(x, 0.3) + np.std(x) * 0.5


@_user(_X43)
def covariance_and_correlation(X: Any) -> Any:
    return np.cov(X.T) + np.corrcoef(X.T) ** 2


@_user(_V5)
def stable_softmax(x: Any) -> Any:
    e = np.exp(x - x.max())
    return e / e.sum()


@_user(_V5, tags="python scalar")
def clip_method_with_keywords(x: Any) -> Any:
    return x.clip(min=-1.0, max=1.5) * np.sum(x > 0) + np.round(x) * x


@_user(_V5, np.array([1.0, -2.0, 1.0]))
def convolution(x: Any, k: Any) -> Any:
    return np.convolve(x, k, mode="valid")


@_user(_V5, tags="in-place")
def mutates_its_argument(x: Any) -> Any:
    x[0] = 0.0  # NumPy would change the caller's array; the engine's input is its own
    x *= 2
    return x**2


@_user(_V5, tags="list operand")
def fft_filter(x: Any) -> Any:
    return np.fft.ifft(np.fft.fft(x) * np.array([1, 0.5, 0.25, 0.25, 0.5])).real


@_user(np.array([0.3 + 0.4j, -1.2 + 0.1j, 0.7 - 0.8j]), tags="python scalar")
def complex_user_code(z: Any) -> Any:
    return (z * z.conj()).real + np.abs(z - 1j) + np.angle(z) * 0.5 + np.vdot(z, z).real


@_user(_XQ, _XT, signature="dict", tags="sklearn")
def gaussian_mixture_dict(xq: Any, x_train: Any) -> Any:
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(n_components=2, random_state=1, init_params="random_from_data")
    return gm.fit(x_train).score(xq)


@_user(_X43, tags="sklearn")
def pairwise_manhattan_and_kernels(X: Any) -> Any:
    from sklearn.metrics.pairwise import manhattan_distances, pairwise_kernels

    return manhattan_distances(X, X[:2] + 0.05) + pairwise_kernels(X, X[:2], metric="laplacian")


@_user(_X43, np.array([0, 1, 1, 0]).astype(float), tags="sklearn")
def logistic_regression_proba(X: Any, y: Any) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression().fit(X, y).predict_proba(X)


@_user(_V5, tags="scipy")
def logsumexp_keywords(x: Any) -> Any:
    from scipy.special import logsumexp, softmax

    lse, sign = logsumexp(x, b=np.array([1, -0.2, 1, 1, 1]), return_sign=True)
    return lse * sign + logsumexp(x, keepdims=True) + softmax(x, axis=0)


@_user(np.array([-1.0, 0.4, 2.0, -0.3]), tags="mask")
def safe_sqrt_where(x: Any) -> Any:
    return np.where(x > 0, np.sqrt(x), 0.0)  # sqrt(x) is nan where x < 0, masked out


@_user(np.array([0.2, -0.5, 0.7, 1.3]), tags="mask")
def entropy_terms_where(p: Any) -> Any:
    return np.where(p > 0, -p * np.log(p), 0.0)


@_user(np.array([-1.0, 0.5, 2.0, -0.2]), tags="in-place,mask")
def log_then_overwrite(x: Any) -> Any:
    y = np.log(x)
    y[x <= 0] = 0.0  # scikit-learn's pattern: compute, then overwrite the invalid entries
    return y * x


@_user(_X43, _X43[:, 0] * 2 - _X43[:, 1], signature="tuple", tags="sklearn")
def kernel_ridge_predict(X: Any, y: Any) -> Any:
    from sklearn.kernel_ridge import KernelRidge

    return KernelRidge(alpha=0.3, kernel="rbf").fit(X, y).predict(X[:2] + 0.2)


@_user(_R.standard_normal((6, 3)), tags="sklearn")
def pca_fit_transform(X: Any) -> Any:
    from sklearn.decomposition import PCA

    return PCA(2, svd_solver="full").fit_transform(X) ** 2


@_user(_X43, tags="sklearn")
def scalers(X: Any) -> Any:
    from sklearn.preprocessing import MaxAbsScaler, Normalizer

    return MaxAbsScaler().fit_transform(X) + Normalizer().fit_transform(X)


@_user(_R.standard_normal((6, 2)), tags="sklearn")
def lda_proba(X: Any) -> Any:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    y = np.array([0, 0, 1, 1, 0, 1])  # labels: data, never differentiated
    return LinearDiscriminantAnalysis().fit(X, y).predict_proba(X)


@_user(_P5, tags="scipy")
def scipy_fft_and_stats(x: Any) -> Any:
    import scipy.fft
    import scipy.stats

    power = np.abs(scipy.fft.rfft(x)) ** 2
    return power[:2] + scipy.stats.circmean(x) + scipy.stats.gstd(x) + scipy.stats.trim_mean(x, 0.2)


@_user(_XQ[:3], _XT, signature="tuple", tags="sklearn")
def gaussian_mixture_spherical_proba(xq: Any, x_train: Any) -> Any:
    from sklearn.mixture import GaussianMixture

    gm = GaussianMixture(
        2, covariance_type="spherical", random_state=0, init_params="random_from_data"
    )
    return gm.fit(x_train).predict_proba(xq)


@_user(_R.standard_normal((6, 3)), tags="sklearn")
def pca_whiten(X: Any) -> Any:
    from sklearn.decomposition import PCA

    return PCA(2, whiten=True, svd_solver="full").fit_transform(X)


@_user(_R.standard_normal((6, 3)), tags="sklearn")
def pca_covariance_eigh(X: Any) -> Any:
    from sklearn.decomposition import PCA

    return PCA(2, svd_solver="covariance_eigh").fit(X).transform(X[:2])


@_user(_X43, _XQ, signature="kwarg", tags="sklearn")
def kernels_and_centering(X: Any, Q: Any) -> Any:
    from sklearn.metrics.pairwise import chi2_kernel, pairwise_distances
    from sklearn.preprocessing import KernelCenterer

    K = KernelCenterer().fit_transform(X @ X.T)
    return K + chi2_kernel(np.abs(X) + 0.1, np.abs(Q) + 0.1) + pairwise_distances(X, Q)


# --- programs ---------------------------------------------------------------------------------
@dataclass
class _Whole:
    """The entry as one step, for the relations that look at the first step (``hermitian``)."""

    hermitian: bool = False


@dataclass
class CorpusProgram(Program):
    """A :class:`~.programs.Program` whose ``run`` is a corpus entry."""

    entry: Entry | None = None
    index: int = 0
    tags: frozenset[str] = field(default_factory=frozenset)

    @property
    def names(self) -> list[str]:
        return [self._entry.name]

    @property
    def _entry(self) -> Entry:
        assert self.entry is not None
        return self.entry

    def features(self) -> set[str]:
        return set(self.tags) | {f"signature {self.signature}"}

    def describe(self) -> str:
        d = "" if self.d is None else f", d{self.d.shape}"
        return f"corpus {self._entry.name} [{self.dtype}, {self.signature}, x{self.x.shape}{d}]"

    def run(self, x: Any, d: Any, fn_of: Any, asarray: Any, namespace: Any) -> Any:
        return self._entry.call(x, d)

    def loss_of(self, y: Any, asarray: Any, namespace: Any) -> Any:
        if isinstance(y, float | int | np.generic):  # a library's Python float or NumPy scalar
            y = np.asarray(y)
        return super().loss_of(y, asarray, namespace)

    def in_double(self) -> Program:
        """The entry at its point in float64/complex128 (the reference of a float32 one)."""
        if self.dtype in ("float64", "complex128"):
            return self
        dt = np.complex128 if self.dtype == "complex64" else np.float64
        return dataclasses.replace(
            self,
            dtype=np.dtype(dt).name,
            x=self.x.astype(dt),
            d=None if self.d is None else self.d.astype(dt),
        )


@contextlib.contextmanager
def _library_modes() -> Iterator[None]:
    """scikit-learn's array-API dispatch for the duration of the call (where SciPy runs in its
    array-API mode, which scikit-learn's dispatch requires), and warnings off."""
    with contextlib.ExitStack() as stack:
        if _scipy_array_api():
            import sklearn

            stack.enter_context(sklearn.config_context(array_api_dispatch=True))
        stack.enter_context(warnings.catch_warnings())
        stack.enter_context(np.errstate(all="ignore"))
        warnings.simplefilter("ignore")
        yield


def _scipy_array_api() -> bool:
    from scipy._lib._array_api import SCIPY_ARRAY_API

    return bool(SCIPY_ARRAY_API)


def require_array_api_mode() -> None:
    """Raise unless SciPy runs in its array-API mode (read once, when SciPy is imported)."""
    if not _scipy_array_api():
        raise RuntimeError(
            "chainrules.testing.campaign.corpus: the corpus runs SciPy in its array-API mode; "
            "set SCIPY_ARRAY_API=1 before SciPy is imported (python -m "
            "chainrules.testing.campaign --source corpus does it for its own process)"
        )


def program(entry: Entry, index: int = 0) -> CorpusProgram:
    """``entry`` as a campaign program: run once in NumPy for its output's shape and dtype, with
    a loss weight drawn from ``index``."""
    with _library_modes():
        y = np.asarray(entry.call(np.array(entry.x, copy=True), _copy(entry.d)))
    if y.dtype.kind not in "fc" or not np.all(np.isfinite(y)):
        raise ValueError(f"corpus entry {entry.name}: output {y.dtype} {y!r} is not finite")
    rng = np.random.default_rng([index, 26])
    real = np.float64
    dtype = np.dtype(entry.x.dtype).name  # float64, float32, complex128, complex64
    return CorpusProgram(
        seed=index,
        steps=cast(Any, [_Whole()]),
        dtype=dtype,
        signature=entry.signature,
        x=entry.x,
        d=entry.d,
        w=rng.standard_normal(y.shape).astype(real),
        w_imag=rng.standard_normal(y.shape).astype(real),
        y_shape=tuple(y.shape),
        y_complex=y.dtype.kind == "c",
        entry=entry,
        index=index,
        tags=entry.tags,
    )


def _copy(a: np.ndarray | None) -> np.ndarray | None:
    return None if a is None else np.array(a, copy=True)


_ENTRIES: list[Entry] = []


def entries() -> list[Entry]:
    """Every entry: :func:`library`'s, then :data:`USER`'s."""
    if not _ENTRIES:
        _ENTRIES.extend(_from_case(c) for c in library())
        _ENTRIES.extend(USER)
    return _ENTRIES


_LIBRARY: list[Case] = []


def library() -> list[Case]:
    """The user-code suite's cases (imports SciPy, array-api-extra and scikit-learn)."""
    if not _LIBRARY:
        _LIBRARY.extend(_library_cases())
    return _LIBRARY


def run(selected: list[Entry] | None = None, progress: bool = False) -> Any:
    """Check every entry (or ``selected``) with the native relations; a
    :class:`~chainrules.testing.campaign.Report` keyed by the entry's index."""
    from . import Report
    from .oracles import Outcome, check

    require_array_api_mode()
    chosen = entries() if selected is None else selected
    rep = Report(source="corpus")
    t0 = time.perf_counter()
    for i, e in enumerate(chosen):
        rep.seeds.append(i)
        try:
            p = program(e, i)
        except Exception as exc:  # noqa: BLE001  (an entry NumPy cannot run: the corpus is wrong)
            rep.programs[i] = f"corpus {e.name}"
            rep.outcomes.append(
                (i, Outcome("native", "primal", "primal", "wrong", f"{type(exc).__name__}: {exc}"))
            )
            continue
        rep.programs[i] = p.describe()
        rep.features.update(p.features())
        rep.calls.update(p.names)
        with _library_modes():
            rep.outcomes.extend((i, o) for o in check(p, ()))
        if progress:
            print(f"\r{i + 1}/{len(chosen)} corpus entries", end="", file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    rep.seconds = time.perf_counter() - t0
    return rep
