"""Programs from HIPS/autograd's examples (MIT licence, Copyright (c) 2025 by the President and
Fellows of Harvard University; github.com/HIPS/autograd at commit bff107b8d71a).

The function bodies are copied unchanged; the imports are written as a NumPy user writes them
(``import numpy as np``, ``from scipy.special import logsumexp``, ``from scipy.stats import
norm``) where the examples import ``autograd.numpy`` and ``autograd.scipy`` (the population's
loader gives autograd its own modules back). Where an example's objective is built inside its
``__main__`` block or needs autograd's ``flatten``, a short wrapper marked "adapted" calls the
copied functions the way the example does, on a small dataset made here.
"""

# the examples' own code, as written:
# ruff: noqa: RUF005, F402, B007
from __future__ import annotations

import itertools

import numpy as np
from scipy.special import gammaln, logsumexp
from scipy.stats import multivariate_normal as mvn
from scipy.stats import norm, t

REPO = "HIPS/autograd"
LICENCE = "MIT"


# --- examples/logistic_regression.py -------------------------------------------------------------
def sigmoid(x):
    return 0.5 * (np.tanh(x) + 1)


def logistic_predictions(weights, inputs):
    # Outputs probability of a label being true according to logistic model.
    return sigmoid(np.dot(inputs, weights))


def training_loss(weights):
    # Training loss is the negative log-likelihood of the training labels.
    preds = logistic_predictions(weights, inputs)
    label_probabilities = preds * targets + (1 - preds) * (1 - targets)
    return -np.sum(np.log(label_probabilities))


# Build a toy dataset.
inputs = np.array(
    [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]]
)
targets = np.array([True, True, False, True])


# --- examples/rosenbrock.py ----------------------------------------------------------------------
def rosenbrock(x):
    return 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2


# --- examples/tanh.py ----------------------------------------------------------------------------
def tanh(x):
    return (1.0 - np.exp(-2 * x)) / (1.0 + np.exp(-(2 * x)))


# --- examples/negative_binomial_maxlike.py -------------------------------------------------------
def negbin_loglike(r, p, x):
    return gammaln(r + x) - gammaln(r) - gammaln(x + 1) + x * np.log(p) + r * np.log(1 - p)


def negbin_objective(rp, x):  # adapted: fit_maxlike's ``loglike = lambda r, p: ...``
    loglike = lambda r, p: np.sum(negbin_loglike(r, p, x))
    return loglike(rp[0], rp[1])


# --- examples/gaussian_process.py ----------------------------------------------------------------
def make_gp_funs(cov_func, num_cov_params):
    """Functions that perform Gaussian process regression.
    cov_func has signature (cov_params, x, x')"""

    def unpack_kernel_params(params):
        mean = params[0]
        cov_params = params[2:]
        noise_scale = np.exp(params[1]) + 0.0001
        return mean, cov_params, noise_scale

    def predict(params, x, y, xstar):
        """Returns the predictive mean and covariance at locations xstar,
        of the latent function value f (without observation noise)."""
        mean, cov_params, noise_scale = unpack_kernel_params(params)
        cov_f_f = cov_func(cov_params, xstar, xstar)
        cov_y_f = cov_func(cov_params, x, xstar)
        cov_y_y = cov_func(cov_params, x, x) + noise_scale * np.eye(len(y))
        pred_mean = mean + np.dot(np.linalg.solve(cov_y_y, cov_y_f).T, y - mean)
        pred_cov = cov_f_f - np.dot(np.linalg.solve(cov_y_y, cov_y_f).T, cov_y_f)
        return pred_mean, pred_cov

    def log_marginal_likelihood(params, x, y):
        mean, cov_params, noise_scale = unpack_kernel_params(params)
        cov_y_y = cov_func(cov_params, x, x) + noise_scale * np.eye(len(y))
        prior_mean = mean * np.ones(len(y))
        return mvn.logpdf(y, prior_mean, cov_y_y)

    return num_cov_params + 2, predict, log_marginal_likelihood


# Define an example covariance function.
def rbf_covariance(kernel_params, x, xp):
    output_scale = np.exp(kernel_params[0])
    lengthscales = np.exp(kernel_params[1:])
    diffs = np.expand_dims(x / lengthscales, 1) - np.expand_dims(xp / lengthscales, 0)
    return output_scale * np.exp(-0.5 * np.sum(diffs**2, axis=2))


gp_log_marginal_likelihood = make_gp_funs(rbf_covariance, num_cov_params=1 + 1)[2]


def gp_predictive_mean(params, x, y, xstar):  # adapted: the predictive mean at xstar
    return make_gp_funs(rbf_covariance, num_cov_params=1 + 1)[1](params, x, y, xstar)[0]


# --- examples/gmm.py -----------------------------------------------------------------------------
def log_normalize(x):
    return x - logsumexp(x)


def unpack_gmm_params(params):
    normalized_log_proportions = log_normalize(params["log proportions"])
    return normalized_log_proportions, params["means"], params["lower triangles"]


def gmm_log_likelihood(params, data):
    cluster_lls = []
    for log_proportion, mean, cov_sqrt in zip(*unpack_gmm_params(params)):
        cov = np.dot(cov_sqrt.T, cov_sqrt)
        cluster_lls.append(log_proportion + mvn.logpdf(data, mean, cov))
    return np.sum(logsumexp(np.vstack(cluster_lls), axis=0))


# --- examples/ica.py -----------------------------------------------------------------------------
def make_ica_funs(observed_dimension, latent_dimension):
    def predict(weights, latents):
        return np.dot(weights, latents).T

    def logprob(weights, latents, noise_std, observed):
        preds = predict(weights, latents)
        log_lik = np.sum(t.logpdf(preds, 2.4, observed, noise_std))
        return log_lik

    num_weights = observed_dimension * latent_dimension

    def unpack_weights(weights):
        return np.reshape(weights, (observed_dimension, latent_dimension))

    return num_weights, predict, logprob, unpack_weights


def ica_objective(weights, latents, observed):  # adapted: logprob of unpacked weights
    _, _, logprob, unpack_weights = make_ica_funs(4, 2)
    return logprob(unpack_weights(weights), latents, 1.0, observed)


# --- examples/neural_net.py ----------------------------------------------------------------------
def neural_net_predict(params, inputs):
    """Implements a deep neural network for classification.
    params is a list of (weights, bias) tuples.
    inputs is an (N x D) matrix.
    returns normalized class log-probabilities."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


def neural_net_log_lik(params, inputs, targets):  # adapted: log_posterior without the prior
    log_lik = np.sum(neural_net_predict(params, inputs) * targets)
    return log_lik


# --- examples/neural_net_regression.py -----------------------------------------------------------
def nn_predict(params, inputs, nonlinearity=np.tanh):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = nonlinearity(outputs)
    return outputs


def logprob(weights, inputs, targets, noise_scale=0.1):
    predictions = nn_predict(weights, inputs)
    return np.sum(norm.logpdf(predictions, targets, noise_scale))


# --- examples/black_box_svi.py -------------------------------------------------------------------
def log_density(x, t):
    mu, log_sigma = x[:, 0], x[:, 1]
    sigma_density = norm.logpdf(log_sigma, 0, 1.35)
    mu_density = norm.logpdf(mu, 0, np.exp(log_sigma))
    return sigma_density + mu_density


def svi_log_density(x):  # adapted: the example's log_density at t = 0
    return log_density(x, 0)


# --- examples/rnn.py -----------------------------------------------------------------------------
def rnn_sigmoid(x):
    return 0.5 * (np.tanh(x) + 1.0)  # Output ranges from 0 to 1.


def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def rnn_predict(params, inputs):
    def update_rnn(input, hiddens):
        return np.tanh(concat_and_multiply(params["change"], input, hiddens))

    def hiddens_to_output_probs(hiddens):
        output = concat_and_multiply(params["predict"], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)  # Normalize log-probs.

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params["init hiddens"], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]

    for input in inputs:  # Iterate over time steps.
        hiddens = update_rnn(input, hiddens)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def rnn_log_likelihood(params, inputs, targets):
    logprobs = rnn_predict(params, inputs)
    loglik = 0.0
    num_time_steps, num_examples, _ = inputs.shape
    for t in range(num_time_steps):
        loglik += np.sum(logprobs[t] * targets[t])
    return loglik / (num_time_steps * num_examples)


# --- examples/fluidsim/fluidsim.py ---------------------------------------------------------------
def project(vx, vy):
    """Project the velocity field to be approximately mass-conserving,
    using a few iterations of Gauss-Seidel."""
    p = np.zeros(vx.shape)
    h = 1.0 / vx.shape[0]
    div = (
        -0.5
        * h
        * (
            np.roll(vx, -1, axis=0)
            - np.roll(vx, 1, axis=0)
            + np.roll(vy, -1, axis=1)
            - np.roll(vy, 1, axis=1)
        )
    )

    for k in range(10):
        p = (
            div
            + np.roll(p, 1, axis=0)
            + np.roll(p, -1, axis=0)
            + np.roll(p, 1, axis=1)
            + np.roll(p, -1, axis=1)
        ) / 4.0

    vx -= 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy -= 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


def advect(f, vx, vy):
    """Move field f according to x and y velocities (u and v)
    using an implicit Euler integrator."""
    rows, cols = f.shape
    cell_ys, cell_xs = np.meshgrid(np.arange(rows), np.arange(cols))
    center_xs = (cell_xs - vx).ravel()
    center_ys = (cell_ys - vy).ravel()

    # Compute indices of source cells.
    left_ix = np.floor(center_xs).astype(int)
    top_ix = np.floor(center_ys).astype(int)
    rw = center_xs - left_ix  # Relative weight of right-hand cells.
    bw = center_ys - top_ix  # Relative weight of bottom cells.
    left_ix = np.mod(left_ix, rows)  # Wrap around edges of simulation.
    right_ix = np.mod(left_ix + 1, rows)
    top_ix = np.mod(top_ix, cols)
    bot_ix = np.mod(top_ix + 1, cols)

    # A linearly-weighted sum of the 4 surrounding cells.
    flat_f = (1 - rw) * ((1 - bw) * f[left_ix, top_ix] + bw * f[left_ix, bot_ix]) + rw * (
        (1 - bw) * f[right_ix, top_ix] + bw * f[right_ix, bot_ix]
    )
    return np.reshape(flat_f, (rows, cols))


def fluid_step(v, smoke):  # adapted: one step of simulate's loop, the smoke's sum of squares
    vx, vy = v[0] + 0.0, v[1] + 0.0
    vx, vy = project(vx, vy)
    vx = advect(vx, vx, vy)
    vy = advect(vy, vx, vy)
    smoke = advect(smoke, vx, vy)
    return np.sum(smoke**2)


def fluid_project(v):  # adapted: project alone, its two fields' sum of squares
    vx, vy = project(v[0] + 0.0, v[1] + 0.0)
    return np.sum(vx**2) + np.sum(vy**2)


# --- the programs --------------------------------------------------------------------------------
def _rs(seed=0):
    return np.random.RandomState(seed)


def _layers(sizes, scale=0.5, seed=0):
    rs = _rs(seed)
    return [(rs.randn(m, n) * scale, rs.randn(n) * scale) for m, n in itertools.pairwise(sizes)]


def _onehot(rows, k, seed):
    return np.eye(k)[_rs(seed).randint(0, k, size=rows)]


def _gp_data():
    rs = _rs(0)
    x = np.linspace(-2, 2, 8)[:, None]
    y = (np.cos(x[:, 0]) + rs.randn(8) * 0.1) / 2.0
    return np.array([0.1, -1.0, 0.2, 0.3]), x, y


def _gmm_params():
    rs = _rs(1)
    return {
        "log proportions": rs.randn(3) * 0.5,
        "means": rs.randn(3, 2) * 0.5,
        "lower triangles": np.zeros((3, 2, 2)) + np.eye(2) + 0.1 * rs.randn(3, 2, 2),
    }


def _rnn_params():
    rs = _rs(2)
    return {
        "init hiddens": rs.randn(1, 4) * 0.3,
        "change": rs.randn(3 + 4 + 1, 4) * 0.3,
        "predict": rs.randn(4 + 1, 3) * 0.3,
    }


def _src(path):
    return f"{REPO}:examples/{path}"


PROGRAMS = [
    dict(
        name="autograd.logistic_regression",
        fn="training_loss",
        category="small model",
        source=_src("logistic_regression.py"),
        args=lambda: (np.array([0.1, -0.2, 0.3]),),
    ),
    dict(
        name="autograd.rosenbrock",
        fn="rosenbrock",
        category="test function",
        source=_src("rosenbrock.py"),
        args=lambda: (np.array([-0.7, 1.3]),),
    ),
    dict(
        name="autograd.tanh",
        fn="tanh",
        category="test function",
        output="vector",
        source=_src("tanh.py"),
        args=lambda: (np.linspace(-2, 2, 7),),
    ),
    dict(
        name="autograd.negative_binomial",
        fn="negbin_objective",
        category="likelihood",
        source=_src("negative_binomial_maxlike.py"),
        args=lambda: (np.array([4.0, 0.4]), _rs(0).poisson(3.0, size=10).astype(float)),
    ),
    dict(
        name="autograd.gp_log_marginal_likelihood",
        fn="gp_log_marginal_likelihood",
        category="likelihood",
        source=_src("gaussian_process.py"),
        args=_gp_data,
    ),
    dict(
        name="autograd.gp_predictive_mean",
        fn="gp_predictive_mean",
        category="small model",
        output="vector",
        source=_src("gaussian_process.py"),
        args=lambda: (*_gp_data(), np.linspace(-1.5, 1.5, 5)[:, None]),
    ),
    dict(
        name="autograd.gmm_log_likelihood",
        fn="gmm_log_likelihood",
        category="likelihood",
        source=_src("gmm.py"),
        args=lambda: (_gmm_params(), _rs(3).randn(10, 2)),
    ),
    dict(
        name="autograd.ica_logprob",
        fn="ica_objective",
        category="likelihood",
        source=_src("ica.py"),
        args=lambda: (_rs(4).randn(8) * 0.5, _rs(5).randn(2, 6), _rs(6).randn(6, 4)),
    ),
    dict(
        name="autograd.neural_net",
        fn="neural_net_log_lik",
        category="small model",
        source=_src("neural_net.py"),
        args=lambda: (_layers([4, 6, 3]), _rs(7).randn(10, 4), _onehot(10, 3, 8)),
    ),
    dict(
        name="autograd.neural_net_regression",
        fn="logprob",
        category="small model",
        source=_src("neural_net_regression.py"),
        args=lambda: (
            _layers([1, 8, 8, 1], seed=9),
            np.linspace(-2, 2, 10)[:, None],
            np.cos(np.linspace(-2, 2, 10))[:, None] / 2,
        ),
    ),
    dict(
        name="autograd.black_box_svi_log_density",
        fn="svi_log_density",
        category="likelihood",
        output="vector",
        source=_src("black_box_svi.py"),
        args=lambda: (_rs(10).randn(6, 2),),
    ),
    dict(
        name="autograd.rnn_log_likelihood",
        fn="rnn_log_likelihood",
        category="small model",
        source=_src("rnn.py"),
        args=lambda: (
            _rnn_params(),
            np.stack([_onehot(2, 3, s) for s in range(4)]),
            np.stack([_onehot(2, 3, s + 10) for s in range(4)]),
        ),
    ),
    dict(
        name="autograd.fluidsim_step",
        fn="fluid_step",
        category="indexing",
        source=_src("fluidsim/fluidsim.py"),
        args=lambda: (_rs(11).randn(2, 4, 4) * 0.3, _rs(12).rand(4, 4)),
    ),
    dict(
        name="autograd.fluidsim_project",
        fn="fluid_project",
        category="indexing",
        source=_src("fluidsim/fluidsim.py"),
        args=lambda: (_rs(13).randn(2, 4, 4) * 0.3,),
    ),
]


def programs():
    from ..programs import from_table

    return from_table(__name__, PROGRAMS, licence=LICENCE)
