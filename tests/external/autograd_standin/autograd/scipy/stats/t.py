"""``autograd.scipy.stats.t``: ``chainrules.ad.scipy.stats.t`` (under ``--plain``, ``scipy.stats.t`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.stats.t"))
