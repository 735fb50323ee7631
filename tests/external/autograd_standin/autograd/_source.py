"""Where the stand-in's ``autograd.numpy`` and ``autograd.scipy`` modules come from: the public
drop-in namespaces ``chainrules.ad.numpy`` / ``chainrules.ad.scipy`` (the default), or NumPy's
and SciPy's own modules when ``CR_AG_PLAIN=1`` (``run_autograd_suite.py --plain``, issue 29: the
suite with plain NumPy/SciPy imports and ``SCIPY_ARRAY_API=1``)."""

import importlib
import os
import sys

PLAIN = os.environ.get("CR_AG_PLAIN") == "1"


def exports(name, module=None):
    """The names ``from <source of name> import *`` would bind (plus ``__version__``): ``name`` is
    ``numpy.linalg``, ``scipy.special``, ``scipy.stats.norm`` (a distribution object of
    ``scipy.stats`` under ``--plain``). Under ``--plain``, a SciPy subpackage given its stand-in
    ``module`` name *is* that module (``sys.modules``): ``import autograd.scipy.linalg as spla``
    is then ``import scipy.linalg as spla``, whose attributes are looked up at each call, as in
    code written with plain imports. A distribution's stand-in module (``scipy.stats.norm``)
    is likewise the distribution object: ``norm.logpdf`` is looked up at each call, as after
    ``from scipy.stats import norm``."""
    if PLAIN and module is not None and name.startswith("scipy.stats."):
        stats = importlib.import_module("scipy.stats")
        sys.modules[module] = getattr(stats, name.rsplit(".", 1)[1])
        return {}
    if PLAIN and module is not None and name.startswith("scipy."):
        sys.modules[module] = importlib.import_module(name)
        return {}
    if not PLAIN:
        source = importlib.import_module(f"chainrules.ad.{name}")
    elif name.startswith("scipy.stats."):
        source = getattr(importlib.import_module("scipy.stats"), name.rsplit(".", 1)[1])
    else:
        source = importlib.import_module(name)
    names = getattr(source, "__all__", None)
    if names is None or name.startswith("scipy.stats."):
        names = [n for n in dir(source) if not n.startswith("_")]
    out = {n: getattr(source, n) for n in names}
    if hasattr(source, "__version__"):
        out["__version__"] = source.__version__
    return out
