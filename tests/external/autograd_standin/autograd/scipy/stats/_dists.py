"""The distributions of ``autograd.scipy.stats`` as formulas of NumPy and ``scipy.special``
functions (autograd defines its own too): each function the engine meets has a rule. The values
are scipy.stats' (the suite checks gradients; tests/external checks values against SciPy)."""

import numpy as np
import scipy.special as sc

_LOG2PI = np.log(2 * np.pi)


def _z(x, loc, scale):
    return (x - loc) / scale


class norm:
    @staticmethod
    def logpdf(x, loc=0.0, scale=1.0):
        z = _z(x, loc, scale)
        return -0.5 * z**2 - np.log(scale) - 0.5 * _LOG2PI

    @staticmethod
    def pdf(x, loc=0.0, scale=1.0):
        return np.exp(norm.logpdf(x, loc, scale))

    @staticmethod
    def cdf(x, loc=0.0, scale=1.0):
        return sc.ndtr(_z(x, loc, scale))

    @staticmethod
    def logcdf(x, loc=0.0, scale=1.0):
        return sc.log_ndtr(_z(x, loc, scale))

    @staticmethod
    def sf(x, loc=0.0, scale=1.0):
        return sc.ndtr(-_z(x, loc, scale))

    @staticmethod
    def logsf(x, loc=0.0, scale=1.0):
        return sc.log_ndtr(-_z(x, loc, scale))


class t:
    @staticmethod
    def logpdf(x, df, loc=0.0, scale=1.0):
        z = _z(x, loc, scale)
        return (
            sc.gammaln((df + 1) / 2)
            - sc.gammaln(df / 2)
            - 0.5 * np.log(df * np.pi)
            - np.log(scale)
            - (df + 1) / 2 * np.log1p(z**2 / df)
        )

    @staticmethod
    def pdf(x, df, loc=0.0, scale=1.0):
        return np.exp(t.logpdf(x, df, loc, scale))

    @staticmethod
    def cdf(x, df, loc=0.0, scale=1.0):
        z = _z(x, loc, scale)
        tail = 0.5 * sc.betainc(df / 2, 0.5, df / (df + z**2))
        return np.where(z > 0, 1 - tail, tail)

    @staticmethod
    def logcdf(x, df, loc=0.0, scale=1.0):
        return np.log(t.cdf(x, df, loc, scale))


class chi2:
    @staticmethod
    def logpdf(x, df):
        k = df / 2
        return sc.xlogy(k - 1, x) - x / 2 - k * np.log(2) - sc.gammaln(k)

    @staticmethod
    def pdf(x, df):
        return np.exp(chi2.logpdf(x, df))

    @staticmethod
    def cdf(x, df):
        return sc.gammainc(df / 2, x / 2)


class gamma:
    @staticmethod
    def logpdf(x, a, loc=0.0, scale=1.0):
        z = _z(x, loc, scale)
        return sc.xlogy(a - 1, z) - z - sc.gammaln(a) - np.log(scale)

    @staticmethod
    def pdf(x, a, loc=0.0, scale=1.0):
        return np.exp(gamma.logpdf(x, a, loc, scale))

    @staticmethod
    def cdf(x, a, loc=0.0, scale=1.0):
        return sc.gammainc(a, _z(x, loc, scale))


class beta:
    @staticmethod
    def logpdf(x, a, b, loc=0.0, scale=1.0):
        z = _z(x, loc, scale)
        return sc.xlogy(a - 1, z) + sc.xlog1py(b - 1, -z) - sc.betaln(a, b) - np.log(scale)

    @staticmethod
    def pdf(x, a, b, loc=0.0, scale=1.0):
        return np.exp(beta.logpdf(x, a, b, loc, scale))

    @staticmethod
    def cdf(x, a, b, loc=0.0, scale=1.0):
        return sc.betainc(a, b, _z(x, loc, scale))


class poisson:
    @staticmethod
    def logpmf(k, mu, loc=0):
        k = k - loc
        return sc.xlogy(k, mu) - mu - sc.gammaln(k + 1)

    @staticmethod
    def pmf(k, mu, loc=0):
        return np.exp(poisson.logpmf(k, mu, loc))

    @staticmethod
    def cdf(k, mu, loc=0):
        return sc.gammaincc(np.floor(k - loc) + 1, mu)


class dirichlet:
    @staticmethod
    def logpdf(x, alpha):
        return (
            np.sum(sc.xlogy(alpha - 1, x), axis=0)
            + sc.gammaln(np.sum(alpha, axis=0))
            - np.sum(sc.gammaln(alpha), axis=0)
        )

    @staticmethod
    def pdf(x, alpha):
        return np.exp(dirichlet.logpdf(x, alpha))


class multivariate_normal:
    @staticmethod
    def logpdf(x, mean, cov, allow_singular=False):
        d = np.shape(cov)[-1]
        diff = x - mean
        if allow_singular:
            inv = np.linalg.pinv(cov)
            eig = np.linalg.eigvalsh(cov)
            logdet = np.sum(np.log(np.where(eig > 1e-8 * np.max(eig), eig, 1.0)))
            rank = np.sum(eig > 1e-8 * np.max(eig))
            maha = np.einsum("...i,ij,...j->...", diff, inv, diff)
            return -0.5 * (rank * _LOG2PI + logdet + maha)
        sol = np.linalg.solve(cov, np.swapaxes(np.atleast_2d(diff), -1, -2))
        maha = np.sum(np.swapaxes(sol, -1, -2) * np.atleast_2d(diff), axis=-1)
        maha = np.reshape(maha, np.shape(diff)[:-1])
        _, logdet = np.linalg.slogdet(cov)
        return -0.5 * (d * _LOG2PI + logdet + maha)

    @staticmethod
    def pdf(x, mean, cov, allow_singular=False):
        return np.exp(multivariate_normal.logpdf(x, mean, cov, allow_singular))

    @staticmethod
    def entropy(mean, cov):
        d = np.shape(cov)[-1]
        _, logdet = np.linalg.slogdet(cov)
        return 0.5 * (d * (1 + _LOG2PI) + logdet)
