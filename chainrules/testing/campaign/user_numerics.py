"""User code of the corpus that computes: list operands and Python scalars, NumPy idioms, small
losses with SciPy and scikit-learn, single precision, decompositions, statistics and kernels
(each function is an entry of ``USER``, ``chainrules.testing.campaign.entry``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .entry import _P5, _R, _V5, _W3, _X43, _XQ, _XT, _user


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


@_user(
    _V5[:3],
    np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.0]]),
    tags="scipy",
    hermitian_d=True,  # SciPy reads one triangle of cov (its eigh)
)
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

    # cho_factor reads one triangle, and its rules (reached since issue 29: scipy.linalg's
    # functions with rules are recorded through them) return the symmetrised cotangent (DESIGN),
    # which finite differences along a non-symmetric direction do not measure: the matrix is made
    # symmetric first, as eigenvalues_of_gram's X.T @ X is
    return cho_solve(cho_factor((A + A.T) / 2), np.array([1.0, -1.0, 0.5]))


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
