"""``autograd.scipy.linalg``: ``chainrules.ad.scipy.linalg`` (under ``--plain``, ``scipy.linalg`` itself)."""

from autograd._source import exports

globals().update(exports("scipy.linalg"))
