"""``chainrules.ad.scipy``: SciPy for code that ``chainrules.ad`` differentiates (what
``autograd.scipy`` is to autograd). Its submodules ``special``, ``linalg``, ``signal``,
``integrate`` and ``stats`` hold SciPy's names; a function with a registered rule that NumPy does
not hand to the engine by itself (``logsumexp``, ``cho_solve``, ``odeint``, ``norm.logpdf``) is
:func:`chainrules.traceable`, so that a call on traced values reaches its rule. Outside a
transformation every function is SciPy's, with SciPy's results. The submodules are imported when
first used: ``import chainrules.ad.scipy`` imports no part of SciPy. See ``docs/dropin.md``."""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["integrate", "linalg", "signal", "special", "stats"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
