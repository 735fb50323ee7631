"""The corpus's library part: the user-code suite's functions of SciPy, array-api-extra and
scikit-learn, unchanged (:class:`Case`, :func:`library`), as entries of the corpus."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .entry import Entry


# --- the user-code suite's functions of SciPy, array-api-extra and scikit-learn -----------------
@dataclass(frozen=True)
class Case:
    """A function of the user-code suite: ``fn(x, *consts)``, ``x`` differentiated."""

    name: str  # the function as a user imports it
    fn: Callable[..., Any]  # fn(x, *consts): the unchanged function at work
    x: np.ndarray  # the point (float64)
    consts: tuple[Any, ...] = ()  # further arguments: arrays are converted to each backend


def _truth_first(metric: Callable[..., Any]) -> Callable[[Any, Any], Any]:
    """``metric(y_true, y_pred)`` as a function of the prediction first."""
    return lambda x, y: metric(y, x)


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
        # the metrics take (y_true, y_pred): the prediction, differentiated, goes second
        *(
            Case(f"sklearn.metrics.{m}", _truth_first(getattr(metrics, m)), x, (y,))
            for m, x, y in (
                ("log_loss", PROBS, LABELS),
                ("mean_squared_error", V, Y),
                ("mean_absolute_error", V, Y),
                ("r2_score", V, Y),
                ("explained_variance_score", V, Y),
                ("mean_poisson_deviance", P, Q),
            )
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


_LIBRARY: list[Case] = []


def library() -> list[Case]:
    """The user-code suite's cases (imports SciPy, array-api-extra and scikit-learn)."""
    if not _LIBRARY:
        _LIBRARY.extend(_library_cases())
    return _LIBRARY
