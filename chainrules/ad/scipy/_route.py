"""How ``chainrules.ad.scipy`` makes SciPy's functions reach their rules: a function with a
registered rule that NumPy does not hand to the engine by itself (a Python function such as
``logsumexp`` or ``cho_solve``, a distribution's method such as ``norm.logpdf``; not a ufunc,
which NumPy dispatches already) is wrapped with :func:`chainrules.traceable`. Called on traced
values, the call is one operation of the engine, differentiated by the function's rules; called
on anything else, it is SciPy's function itself, with SciPy's result. Which functions: those for
which :func:`chainrules.find_rrule` finds a rule -- the registry's answer, never a name."""

from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from ...core.registry import find_rrule, traceable

__all__ = ["distribution", "method_route", "routed"]


def _public(module: Any) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return list(names)


def _has_rule(f: Any) -> bool:
    return callable(f) and not isinstance(f, (type, np.ufunc)) and find_rrule(f) is not None


def routed(module: Any) -> dict[str, Any]:
    """``module``'s public names, each function with a rule made :func:`traceable`."""
    out: dict[str, Any] = {}
    for name in _public(module):
        if not hasattr(module, name):
            continue
        f = getattr(module, name)
        out[name] = traceable(f) if _has_rule(f) else f
    return out


def _parameters(dist: Any) -> tuple[str, tuple[str, ...], dict[str, Any]]:
    """The name of a univariate distribution's first argument, the names of the parameters that
    follow it in SciPy's order (its ``shapes``, then ``loc`` and, for a continuous one,
    ``scale``) and their defaults."""
    import scipy.stats as st

    shapes = tuple(s.strip() for s in (dist.shapes or "").split(",") if s.strip())
    if isinstance(dist, st.rv_continuous):
        return "x", (*shapes, "loc", "scale"), {"loc": 0.0, "scale": 1.0}
    return "k", (*shapes, "loc"), {"loc": 0}


def _positional(
    first: str, names: tuple[str, ...], defaults: dict[str, Any], args: Any, kwargs: Any
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(args, kwargs)`` with the keyword arguments among ``names`` moved to their positions
    (a parameter left out before a given one takes its default): the engine differentiates
    positional arguments, and SciPy's methods take these either way."""
    original = (tuple(args), kwargs)
    kwargs = dict(kwargs)
    given = list(args)
    if not given and first in kwargs:
        given.append(kwargs.pop(first))
    if not given:
        return original
    rest = names[len(given) - 1 :]
    last = max((i for i, n in enumerate(rest) if n in kwargs), default=-1)
    for n in rest[: last + 1]:
        if n in kwargs:
            given.append(kwargs.pop(n))
        elif n in defaults:
            given.append(defaults[n])
        else:  # a shape parameter left out: SciPy says what is missing
            return original
    return tuple(given), kwargs


def method_route(dist: Any, method: Any) -> Any:
    """``method``, a method with a rule of SciPy's distribution object ``dist`` (bound to it),
    made :func:`traceable`, its keyword parameters taken positionally (``norm.logpdf(x, loc=m,
    scale=s)`` with a traced ``m``)."""
    traced = traceable(method)
    import scipy.stats as st

    if not isinstance(dist, (st.rv_continuous, st.rv_discrete)):
        return traced  # the multivariate distributions' methods have explicit signatures
    first, names, defaults = _parameters(dist)

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args, kwargs = _positional(first, names, defaults, args, kwargs)
        return traced(*args, **kwargs)

    # a lookup of its rules finds the method's (chainrules.core.table: a traceable wrapper
    # answers with the function it wraps)
    call.__chainrules_traceable__ = True  # type: ignore[attr-defined]
    return call


def distribution(dist: Any) -> dict[str, Any]:
    """The public attributes of SciPy's distribution object ``dist``, each method with a rule
    made :func:`traceable` (:func:`method_route`)."""
    out: dict[str, Any] = {}
    for name in dir(dist):
        if name.startswith("_"):
            continue
        try:
            attr = getattr(dist, name)
        except AttributeError:  # a property that needs what the object has not got
            continue
        out[name] = method_route(dist, attr) if inspect.ismethod(attr) and _has_rule(attr) else attr
    return out
