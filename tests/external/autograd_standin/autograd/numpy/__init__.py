"""``autograd.numpy``: ``chainrules.ad.numpy`` (under ``--plain``, ``numpy`` itself)."""

from autograd._source import exports

globals().update(exports("numpy"))
