"""``autograd.scipy.stats.dirichlet``: ``chainrules.ad.scipy.stats.dirichlet`` (under ``--plain``, ``scipy.stats.dirichlet`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.stats.dirichlet"))
