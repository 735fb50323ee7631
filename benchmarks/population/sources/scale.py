"""Programs at scale (issue 27, item 2: 1e5-1e6 elements, an MLP of 1024x512), each beside a
hand-written NumPy value and gradient: the baseline for ``value_and_grad`` at scale. Written
here; the data are constants drawn from fixed seeds. Not part of the population's categories
or split: reported in a section of their own.
"""

from __future__ import annotations

import numpy as np


# --- logistic regression, X of 1e5 x 10 ----------------------------------------------------------
def logistic(w, X, y):
    return np.sum(np.logaddexp(0.0, -y * (X @ w)))


def logistic_hand(w, X, y):
    m = -y * (X @ w)
    value = np.sum(np.logaddexp(0.0, m))
    s = 0.5 * (1.0 + np.tanh(0.5 * m))  # expit(m)
    return value, X.T @ (-y * s)


# --- least squares, X of 1e5 x 10 ----------------------------------------------------------------
def least_squares(w, X, y):
    r = X @ w - y
    return r @ r


def least_squares_hand(w, X, y):
    r = X @ w - y
    return r @ r, 2.0 * (X.T @ r)


# --- softmax cross-entropy, X of 1e5 x 10, W of 10 x 10 ------------------------------------------
def softmax_xent(W, X, Y):
    Z = X @ W
    return np.sum(np.log(np.sum(np.exp(Z), axis=1))) - np.sum(Y * Z)


def softmax_xent_hand(W, X, Y):
    Z = X @ W
    E = np.exp(Z)
    S = np.sum(E, axis=1, keepdims=True)
    value = np.sum(np.log(S)) - np.sum(Y * Z)
    return value, X.T @ (E / S - Y)


# --- a tanh MLP, X of 1024 x 512, W of 512 x 512 -------------------------------------------------
def mlp(W, X, v, y):
    r = np.tanh(X @ W) @ v - y
    return np.sum(r**2)


def mlp_hand(W, X, v, y):
    H = np.tanh(X @ W)
    r = H @ v - y
    g = (2.0 * r)[:, None] * v[None, :] * (1.0 - H * H)
    return np.sum(r**2), X.T @ g


# --- elementwise: a Huber loss over 1e6 residuals ------------------------------------------------
def huber(p, y):
    r = p - y
    a = np.abs(r)
    return np.sum(np.where(a < 1.0, 0.5 * r * r, a - 0.5))


def huber_hand(p, y):
    r = p - y
    a = np.abs(r)
    small = a < 1.0
    return np.sum(np.where(small, 0.5 * r * r, a - 0.5)), np.where(small, r, np.sign(r))


# --- elementwise: a chain of transcendental functions over 1e6 -----------------------------------
def chain(x):
    return np.sum(np.sin(x) * np.exp(-x * x) + np.tanh(x))


def chain_hand(x):
    s, e, t = np.sin(x), np.exp(-x * x), np.tanh(x)
    return np.sum(s * e + t), np.cos(x) * e - 2.0 * x * s * e + (1.0 - t * t)


def _r(seed):
    return np.random.default_rng(seed)


def _lin(n, d, seed):
    r = _r(seed)
    return r.standard_normal(d) * 0.1, r.standard_normal((n, d)), r.standard_normal(n)


def _labels_args(n, d, seed):
    w, X, y = _lin(n, d, seed)
    return w, X, np.where(y < 0, -1.0, 1.0)


def _softmax_args(n, d, k, seed):
    r = _r(seed)
    return (
        r.standard_normal((d, k)) * 0.1,
        r.standard_normal((n, d)),
        np.eye(k)[r.integers(0, k, n)],
    )


def _mlp_args(seed):
    r = _r(seed)
    X = r.standard_normal((1024, 512))
    return (
        r.standard_normal((512, 512)) / 512**0.5,
        X,
        r.standard_normal(512) / 512**0.5,
        r.standard_normal(1024),
    )


# name -> (function, hand-written value and gradient, arguments, elements of the largest array)
SCALE = {
    "scale.logistic_1e5x10": ("logistic", "logistic_hand", lambda: _labels_args(100_000, 10, 1)),
    "scale.least_squares_1e5x10": (
        "least_squares",
        "least_squares_hand",
        lambda: _lin(100_000, 10, 2),
    ),
    "scale.softmax_xent_1e5x10": (
        "softmax_xent",
        "softmax_xent_hand",
        lambda: _softmax_args(100_000, 10, 10, 3),
    ),
    "scale.mlp_1024x512": ("mlp", "mlp_hand", lambda: _mlp_args(4)),
    "scale.huber_1e6": (
        "huber",
        "huber_hand",
        lambda: (_r(5).standard_normal(1_000_000) * 2, _r(6).standard_normal(1_000_000)),
    ),
    "scale.chain_1e6": ("chain", "chain_hand", lambda: (_r(7).standard_normal(1_000_000),)),
}
