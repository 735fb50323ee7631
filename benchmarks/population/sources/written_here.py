"""Programs written here, as users write them: the same model in several spellings (``@``,
``np.dot``, ``einsum``, method calls, ``x**2`` / ``x*x`` / ``np.square``), losses, likelihoods
with linear algebra, and code that indexes and writes into arrays. Each program's parameter has
2-10 elements; the data are constants drawn from fixed seeds.
"""

# `sign, logdet = np.linalg.slogdet(K)`, as users write it:
# ruff: noqa: RUF059
from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular


# --- the sum of squares, eight ways (family "sumsq") ---------------------------------------------
def sumsq_pow(x):
    return np.sum(x**2)


def sumsq_mul(x):
    return np.sum(x * x)


def sumsq_square(x):
    return np.sum(np.square(x))


def sumsq_matmul(x):
    return x @ x


def sumsq_dot(x):
    return np.dot(x, x)


def sumsq_method(x):
    return (x**2).sum()


def sumsq_einsum(x):
    return np.einsum("i,i->", x, x)


def sumsq_norm(x):
    return np.linalg.norm(x) ** 2


# --- least squares (family "linreg") -------------------------------------------------------------
def linreg_matmul(w, X, y):
    r = X @ w - y
    return np.mean(r**2)


def linreg_dot(w, X, y):
    r = np.dot(X, w) - y
    return np.dot(r, r) / len(y)


def linreg_einsum(w, X, y):
    r = np.einsum("ij,j->i", X, w) - y
    return np.einsum("i,i->", r, r) / len(y)


def linreg_method(w, X, y):
    r = X.dot(w) - y
    return (r * r).mean()


def linreg_square(w, X, y):
    return np.sum(np.square(np.matmul(X, w) - y), axis=0) / len(y)


# --- logistic regression (family "logreg") -------------------------------------------------------
def logreg_matmul(w, X, y):
    return np.sum(np.logaddexp(0.0, -y * (X @ w)))


def logreg_dot(w, X, y):
    return np.sum(np.logaddexp(0.0, -y * np.dot(X, w)))


def logreg_einsum(w, X, y):
    return np.sum(np.logaddexp(0.0, -y * np.einsum("ij,j->i", X, w)))


def logreg_method(w, X, y):
    return np.log1p(np.exp(-y * X.dot(w))).sum()


# --- a tanh MLP (family "mlp") -------------------------------------------------------------------
def mlp_matmul(W, X, v, y):
    return np.sum((np.tanh(X @ W) @ v - y) ** 2)


def mlp_dot(W, X, v, y):
    return np.sum((np.dot(np.tanh(np.dot(X, W)), v) - y) ** 2)


def mlp_einsum(W, X, v, y):
    h = np.tanh(np.einsum("ij,jk->ik", X, W))
    return np.sum((np.einsum("ik,k->i", h, v) - y) ** 2)


def mlp_method(W, X, v, y):
    return ((np.tanh(X.dot(W)).dot(v) - y) ** 2).sum()


def mlp_np_matmul(W, X, v, y):
    r = np.matmul(np.tanh(np.matmul(X, W)), v) - y
    return np.sum(r * r)


# --- softmax regression (family "softmax") -------------------------------------------------------
def softmax_matmul(W, X, Y):
    Z = X @ W
    return np.sum(np.log(np.sum(np.exp(Z), axis=1))) - np.sum(Y * Z)


def softmax_dot(W, X, Y):
    Z = np.dot(X, W)
    return np.sum(np.log(np.sum(np.exp(Z), axis=1))) - np.sum(Y * Z)


def softmax_einsum(W, X, Y):
    Z = np.einsum("ij,jk->ik", X, W)
    return np.sum(np.log(np.einsum("ik->i", np.exp(Z)))) - np.einsum("ik,ik->", Y, Z)


def softmax_method(W, X, Y):
    Z = X.dot(W)
    return np.log(np.exp(Z).sum(axis=1)).sum() - (Y * Z).sum()


# --- a quadratic form (family "quadratic") -------------------------------------------------------
def quadratic_matmul(x, A, b):
    return 0.5 * x @ A @ x - b @ x


def quadratic_dot(x, A, b):
    return 0.5 * np.dot(x, np.dot(A, x)) - np.dot(b, x)


def quadratic_einsum(x, A, b):
    return 0.5 * np.einsum("i,ij,j->", x, A, x) - np.einsum("i,i->", b, x)


def quadratic_method(x, A, b):
    return 0.5 * x.dot(A).dot(x) - b.dot(x)


# --- a Gaussian negative log-likelihood with a covariance from the parameter (family "gauss") ----
def gauss_slogdet(s, A, y):
    K = A + np.diag(np.exp(s))
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * logdet + 0.5 * y @ np.linalg.solve(K, y)


def gauss_cholesky(s, A, y):
    K = A + np.diag(np.exp(s))
    L = np.linalg.cholesky(K)
    a = solve_triangular(L, y, lower=True)
    return np.sum(np.log(np.diag(L))) + 0.5 * np.dot(a, a)


def gauss_inv(s, A, y):
    K = A + np.diag(np.exp(s))
    return 0.5 * np.log(np.linalg.det(K)) + 0.5 * y.dot(np.linalg.inv(K)).dot(y)


def gauss_cholesky_solve(s, A, y):
    K = A + np.diag(np.exp(s))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return np.sum(np.log(np.diagonal(L))) + 0.5 * np.einsum("i,i->", y, alpha)


# --- more likelihoods ----------------------------------------------------------------------------
def bayes_linreg_evidence(log_alpha, X, y):
    alpha, beta = np.exp(log_alpha[0]), np.exp(log_alpha[1])
    n, d = X.shape
    A = alpha * np.eye(d) + beta * X.T @ X
    m = beta * np.linalg.solve(A, X.T @ y)
    E = beta / 2 * np.sum((y - X @ m) ** 2) + alpha / 2 * m @ m
    return -(d / 2 * np.log(alpha) + n / 2 * np.log(beta) - E - 0.5 * np.linalg.slogdet(A)[1])


def mvn_nll_params(theta, Y):
    d = Y.shape[1]
    mu = theta[:d]
    L = np.diag(np.exp(theta[d : 2 * d]))
    S = L @ L.T + 0.1 * np.ones((d, d))
    R = Y - mu
    return 0.5 * np.sum(R * np.linalg.solve(S, R.T).T) + 0.5 * len(Y) * np.linalg.slogdet(S)[1]


def student_t_regression(w, X, y):
    nu = 4.0
    r = y - X @ w
    return np.sum((nu + 1) / 2 * np.log1p(r**2 / nu))


def poisson_glm_nll(w, X, counts):
    eta = X @ w
    return np.sum(np.exp(eta) - counts * eta)


def ar1_nll(x, phi):
    e = x[1:] - phi * x[:-1]
    return 0.5 * np.sum(e**2) + 0.5 * (1 - phi**2) * x[0] ** 2


# --- losses --------------------------------------------------------------------------------------
def huber(p, y):
    r = np.abs(p - y)
    return np.sum(np.where(r < 1.0, 0.5 * r**2, r - 0.5))


def log_cosh(p, y):
    return np.mean(np.log(np.cosh(p - y)))


def pinball(p, y):
    r = y - p
    return np.mean(np.maximum(0.3 * r, (0.3 - 1) * r))


def hinge(w, X, y):
    return np.mean(np.maximum(0, 1 - y * (X @ w))) + 0.01 * np.sum(w**2)


def binary_cross_entropy(z, y):
    p = 1 / (1 + np.exp(-z))
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def kl_softmax(z, q):
    p = np.exp(z - np.max(z))
    p = p / p.sum()
    return np.sum(p * (np.log(p) - np.log(q)))


def cosine_loss(x, t):
    return 1 - x @ t / (np.linalg.norm(x) * np.linalg.norm(t))


def smooth_l1(p, y):
    d = p - y
    return np.sum(np.where(np.abs(d) < 1, 0.5 * d * d, np.abs(d) - 0.5))


def elastic_net(w, X, y):
    r = y - X @ w
    return 0.5 * r @ r / len(y) + 0.1 * np.sum(np.abs(w)) + 0.05 * np.sum(w**2)


# --- code that indexes and writes ----------------------------------------------------------------
def roughness(x):
    return np.sum((x[1:] - x[:-1]) ** 2)


def second_difference(x):
    return np.sum((x[2:] - 2 * x[1:-1] + x[:-2]) ** 2)


def ar_residual_write(x):
    out = np.zeros_like(x)
    out[0] = x[0]
    out[1:] = x[1:] - 0.9 * x[:-1]
    return np.sum(out**2)


def recurrence_loop(x):
    s = 0.0
    for i in range(1, len(x)):
        s = s + (x[i] - x[i - 1]) ** 2 * (1 + 0.1 * i)
    return s


def gather(x, idx):
    return np.sum(np.sin(x[idx]) * x[idx[::-1]])


def masked(x):
    return np.sum(x[x > 0] ** 2) + np.sum(np.exp(x[x <= 0]))


def strided(x):
    return np.sum(x[::2] * x[1::2])


def rolled(x):
    return np.sum((x - np.roll(x, 1)) ** 2)


def laplacian_2d(x):
    u = x.reshape(3, 3)
    lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    return np.sum(lap**2) + np.sum(u[0, :] ** 2)


def accumulate_write(x):
    out = np.zeros(len(x) + 1)
    for i in range(len(x)):
        out[i] += x[i]
        out[i + 1] += 0.5 * x[i] ** 2
    return np.sum(out**2)


def diff_trapezoid(x):
    t = np.linspace(0.0, 1.0, len(x))
    return np.sum((x[1:] + x[:-1]) / 2 * np.diff(t)) + np.sum(np.diff(x) ** 2)


def concat_boundary(x):
    padded = np.concatenate([x[:1], x, x[-1:]])
    return np.sum((padded[2:] - padded[:-2]) ** 2)


def set_slice_vector(x):
    y = np.empty(2 * len(x))
    y[::2] = np.sin(x)
    y[1::2] = np.cos(x)
    return y


def cumulative_vector(x):
    return np.cumsum(x**2) - x[0] * x


# --- vector outputs (their Jacobians) ------------------------------------------------------------
def layer_matmul(x, W, b):
    return np.tanh(W @ x + b)


def layer_dot(x, W, b):
    return np.tanh(np.dot(W, x) + b)


def layer_einsum(x, W, b):
    return np.tanh(np.einsum("ij,j->i", W, x) + b)


def rosenbrock_residuals(x):
    return np.concatenate([10 * (x[1:] - x[:-1] ** 2), 1 - x[:-1]])


def broyden_tridiagonal(x):
    xp = np.concatenate([np.zeros(1), x[:-1]])
    xn = np.concatenate([x[1:], np.zeros(1)])
    return (3 - 2 * x) * x - xp - 2 * xn + 1


def softmax_vector(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def lorenz96(x):
    return (np.roll(x, -1) - np.roll(x, 2)) * np.roll(x, 1) - x + 8.0


def heat_rhs(u):
    padded = np.concatenate([u[:1], u, u[-1:]])
    return padded[:-2] - 2 * padded[1:-1] + padded[2:] - u**3


def regression_residuals(w, X, y):
    return X @ w - y


def kernel_rows(x):
    d = x[:, None] - x[None, :]
    return np.exp(-0.5 * d**2).sum(axis=1)


def normalized(x):
    return x / np.linalg.norm(x)


def logistic_map(x):
    out = [x]
    for _ in range(5):
        x = 3.7 * x * (1 - x)
        out.append(x)
    return np.stack(out).ravel()


# --- the programs --------------------------------------------------------------------------------
def _r(seed):
    return np.random.default_rng(seed)


def _vec(n, seed):
    return _r(seed).standard_normal(n)


def _reg(n, d, seed):
    r = _r(seed)
    return r.standard_normal((n, d)), r.standard_normal(n)


def _labels(n, seed):
    return np.where(_r(seed).random(n) < 0.5, -1.0, 1.0)


def _spd(d, seed):
    B = _r(seed).standard_normal((d, d))
    return B @ B.T / d + np.eye(d)


def _mlp_args():
    r = _r(21)
    return (
        r.standard_normal((2, 4)) * 0.5,
        r.standard_normal((12, 2)),
        r.standard_normal(4),
        r.standard_normal(12),
    )


def _softmax_args():
    r = _r(22)
    return (
        r.standard_normal((3, 3)) * 0.3,
        r.standard_normal((10, 3)),
        np.eye(3)[r.integers(0, 3, 10)],
    )


def _gauss_args():
    return _vec(5, 23) * 0.3, _spd(5, 24), _vec(5, 25)


_SPELL = {
    "pow": "x**2",
    "mul": "x*x",
    "square": "np.square",
    "matmul": "@",
    "dot": "np.dot",
    "method": "method",
    "einsum": "einsum",
    "norm": "np.linalg.norm",
    "np_matmul": "np.matmul",
    "slogdet": "slogdet+solve",
    "cholesky": "cholesky+solve_triangular",
    "inv": "inv+det",
    "cholesky_solve": "cholesky+solve",
}


def _family(prefix, spellings, category, args):
    return [
        dict(
            name=f"here.{prefix}_{s}",
            fn=f"{prefix}_{s}",
            category=category,
            family=prefix,
            spelling=_SPELL[s],
            args=args,
        )
        for s in spellings
    ]


PROGRAMS = [
    *_family(
        "sumsq",
        ["pow", "mul", "square", "matmul", "dot", "method", "einsum", "norm"],
        "loss",
        lambda: (_vec(10, 1),),
    ),
    *_family(
        "linreg",
        ["matmul", "dot", "einsum", "method", "square"],
        "small model",
        lambda: (_vec(5, 2), *_reg(20, 5, 3)),
    ),
    *_family(
        "logreg",
        ["matmul", "dot", "einsum", "method"],
        "small model",
        lambda: (_vec(6, 4) * 0.3, _reg(20, 6, 5)[0], _labels(20, 6)),
    ),
    *_family("mlp", ["matmul", "dot", "einsum", "method", "np_matmul"], "small model", _mlp_args),
    *_family("softmax", ["matmul", "dot", "einsum", "method"], "small model", _softmax_args),
    *_family(
        "quadratic",
        ["matmul", "dot", "einsum", "method"],
        "test function",
        lambda: (_vec(8, 7), _spd(8, 8), _vec(8, 9)),
    ),
    *_family("gauss", ["slogdet", "cholesky", "inv", "cholesky_solve"], "likelihood", _gauss_args),
    dict(
        name="here.bayes_linreg_evidence",
        fn="bayes_linreg_evidence",
        category="likelihood",
        args=lambda: (np.array([0.1, 0.5]), *_reg(15, 4, 10)),
    ),
    dict(
        name="here.mvn_nll_params",
        fn="mvn_nll_params",
        category="likelihood",
        args=lambda: (_vec(6, 11) * 0.3, _r(12).standard_normal((10, 3))),
    ),
    dict(
        name="here.student_t_regression",
        fn="student_t_regression",
        category="likelihood",
        args=lambda: (_vec(5, 13), *_reg(20, 5, 14)),
    ),
    dict(
        name="here.poisson_glm_nll",
        fn="poisson_glm_nll",
        category="likelihood",
        args=lambda: (_vec(4, 15) * 0.2, _reg(20, 4, 16)[0], _r(17).poisson(2.0, 20).astype(float)),
    ),
    dict(name="here.ar1_nll", fn="ar1_nll", category="indexing", args=lambda: (_vec(10, 18), 0.7)),
    dict(
        name="here.huber",
        fn="huber",
        category="loss",
        args=lambda: (_vec(10, 30) * 2, _vec(10, 31)),
    ),
    dict(
        name="here.log_cosh",
        fn="log_cosh",
        category="loss",
        args=lambda: (_vec(9, 32), _vec(9, 33)),
    ),
    dict(
        name="here.pinball", fn="pinball", category="loss", args=lambda: (_vec(8, 34), _vec(8, 35))
    ),
    dict(
        name="here.hinge",
        fn="hinge",
        category="loss",
        args=lambda: (_vec(5, 36), _reg(20, 5, 37)[0], _labels(20, 38)),
    ),
    dict(
        name="here.binary_cross_entropy",
        fn="binary_cross_entropy",
        category="loss",
        args=lambda: (_vec(10, 39), (_r(40).random(10) < 0.5).astype(float)),
    ),
    dict(
        name="here.kl_softmax",
        fn="kl_softmax",
        category="loss",
        args=lambda: (_vec(7, 41), np.full(7, 1 / 7)),
    ),
    dict(
        name="here.cosine_loss",
        fn="cosine_loss",
        category="loss",
        args=lambda: (_vec(6, 42), _vec(6, 43)),
    ),
    dict(
        name="here.smooth_l1",
        fn="smooth_l1",
        category="loss",
        args=lambda: (_vec(10, 44) * 2, _vec(10, 45)),
    ),
    dict(
        name="here.elastic_net",
        fn="elastic_net",
        category="loss",
        args=lambda: (_vec(6, 46) + 0.5, *_reg(20, 6, 47)),
    ),
    dict(name="here.roughness", fn="roughness", category="indexing", args=lambda: (_vec(10, 50),)),
    dict(
        name="here.second_difference",
        fn="second_difference",
        category="indexing",
        args=lambda: (_vec(9, 51),),
    ),
    dict(
        name="here.ar_residual_write",
        fn="ar_residual_write",
        category="indexing",
        args=lambda: (_vec(8, 52),),
    ),
    dict(
        name="here.recurrence_loop",
        fn="recurrence_loop",
        category="indexing",
        args=lambda: (_vec(7, 53),),
    ),
    dict(
        name="here.gather",
        fn="gather",
        category="indexing",
        args=lambda: (_vec(6, 54), np.array([0, 2, 2, 5, 1, 3])),
    ),
    dict(name="here.masked", fn="masked", category="indexing", args=lambda: (_vec(10, 55),)),
    dict(name="here.strided", fn="strided", category="indexing", args=lambda: (_vec(10, 56),)),
    dict(name="here.rolled", fn="rolled", category="indexing", args=lambda: (_vec(8, 57),)),
    dict(
        name="here.laplacian_2d",
        fn="laplacian_2d",
        category="indexing",
        args=lambda: (_vec(9, 58),),
    ),
    dict(
        name="here.accumulate_write",
        fn="accumulate_write",
        category="indexing",
        args=lambda: (_vec(5, 59),),
    ),
    dict(
        name="here.diff_trapezoid",
        fn="diff_trapezoid",
        category="indexing",
        args=lambda: (_vec(10, 60),),
    ),
    dict(
        name="here.concat_boundary",
        fn="concat_boundary",
        category="indexing",
        args=lambda: (_vec(7, 61),),
    ),
    *[
        {**row, "output": "vector"}
        for row in _family(
            "layer",
            ["matmul", "dot", "einsum"],
            "small model",
            lambda: (_vec(6, 70), _r(71).standard_normal((8, 6)) * 0.5, _vec(8, 72)),
        )
    ],
    dict(
        name="here.rosenbrock_residuals",
        fn="rosenbrock_residuals",
        category="test function",
        output="vector",
        args=lambda: (_vec(6, 73),),
    ),
    dict(
        name="here.broyden_tridiagonal",
        fn="broyden_tridiagonal",
        category="test function",
        output="vector",
        args=lambda: (_vec(8, 74),),
    ),
    dict(
        name="here.softmax_vector",
        fn="softmax_vector",
        category="small model",
        output="vector",
        args=lambda: (_vec(7, 75),),
    ),
    dict(
        name="here.lorenz96",
        fn="lorenz96",
        category="indexing",
        output="vector",
        args=lambda: (_vec(8, 76) + 8.0,),
    ),
    dict(
        name="here.heat_rhs",
        fn="heat_rhs",
        category="indexing",
        output="vector",
        args=lambda: (_vec(9, 77),),
    ),
    dict(
        name="here.regression_residuals",
        fn="regression_residuals",
        category="small model",
        output="vector",
        args=lambda: (_vec(4, 78), *_reg(10, 4, 79)),
    ),
    dict(
        name="here.kernel_rows",
        fn="kernel_rows",
        category="likelihood",
        output="vector",
        args=lambda: (_vec(6, 80),),
    ),
    dict(
        name="here.normalized",
        fn="normalized",
        category="loss",
        output="vector",
        args=lambda: (_vec(5, 81),),
    ),
    dict(
        name="here.logistic_map",
        fn="logistic_map",
        category="test function",
        output="vector",
        args=lambda: (np.linspace(0.2, 0.8, 4),),
    ),
    dict(
        name="here.set_slice_vector",
        fn="set_slice_vector",
        category="indexing",
        output="vector",
        args=lambda: (_vec(5, 62),),
    ),
    dict(
        name="here.cumulative_vector",
        fn="cumulative_vector",
        category="indexing",
        output="vector",
        args=lambda: (_vec(6, 63),),
    ),
]


def programs():
    from ..programs import WRITTEN_HERE, from_table

    return from_table(__name__, PROGRAMS, source=WRITTEN_HERE, licence="this project's")
