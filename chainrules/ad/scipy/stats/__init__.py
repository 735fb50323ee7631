"""``chainrules.ad.scipy.stats``: ``scipy.stats`` for code that ``chainrules.ad`` differentiates.
The distributions whose methods have rules (autograd.scipy.stats's: ``norm``, ``t``, ``chi2``,
``gamma``, ``beta``, ``poisson``, ``multivariate_normal``, ``dirichlet``) are modules here, as in
autograd (``import chainrules.ad.scipy.stats.norm as norm``): each holds the distribution's
attributes, its methods with rules (``logpdf``, ``pdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``,
``logpmf``, ``pmf``, ``entropy``) :func:`chainrules.traceable` and taking their parameters by
keyword too (``norm.logpdf(x, loc=m, scale=s)``). Every other name is ``scipy.stats``'s own."""

from __future__ import annotations

from typing import Any

from . import beta, chi2, dirichlet, gamma, multivariate_normal, norm, poisson, t

__all__ = ["beta", "chi2", "dirichlet", "gamma", "multivariate_normal", "norm", "poisson", "t"]


def __getattr__(name: str) -> Any:
    import scipy.stats

    return getattr(scipy.stats, name)
