"""``autograd.scipy.stats``: the distributions of ``chainrules.ad.scipy.stats``."""

from . import beta, chi2, dirichlet, gamma, multivariate_normal, norm, poisson, t

__all__ = ["beta", "chi2", "dirichlet", "gamma", "multivariate_normal", "norm", "poisson", "t"]
