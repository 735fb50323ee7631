"""Helpers of the creation rules (:mod:`chainrules.rules.creation`): which library a creation
call computes in, the module holding the function called, and the registration of a pair of
rules with its examples. Its ``__all__`` is the creation modules' vocabulary: they begin with
``from .._util.creation import *`` after core's prelude.

Which library a call belongs to
-------------------------------
A named rule sees the arguments, not which library's function was called. With an array among
the arguments, that array's library computes; otherwise a ``dtype=`` or ``device=`` of PyTorch or
array-api-strict decides; otherwise NumPy (``torch.zeros(3)`` through the rule gives a NumPy
array: a limitation of named rules for functions without array arguments, see the docs page).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.namespaces import namespace_of_dtype
from ...core.prelude import *
from .numpy_like import numpy_like_module

__all__ = [
    "Rules",
    "call_module",
    "call_namespace",
    "fixed_examples",
    "forced_tangent",
    "has_tangent_space",
    "is_array_arg",
    "register_pair",
    "tangent_args",
]

Rules = tuple[Callable[..., Any], Callable[..., Any]]


def call_namespace(args: tuple[Any, ...], kwargs: dict[str, Any], fname: str) -> Any:
    """The namespace a creation call computes in: its arrays' library; else the library of a
    PyTorch or array-api-strict ``dtype=``/``device=``; else NumPy's."""
    arrays = [a for a in (*args, *kwargs.values()) if is_array_arg(a)]
    if arrays:
        return namespace_of(*arrays, fname=fname)
    for key in ("dtype", "device"):
        xp = namespace_of_dtype(kwargs.get(key))
        if xp is not None:
            return xp
    return namespace_of()


def call_module(
    numpy: bool, xp: Any, args: tuple[Any, ...], kwargs: dict[str, Any], dispatched: bool = True
) -> Any:
    """The module holding the function called: NumPy's-signature module for ``numpy:`` names
    (``dispatched``: whether NumPy's function dispatches through ``__array_function__``)."""
    if not numpy:
        return xp
    arr = next((a for a in (*args, *kwargs.values()) if is_array_arg(a)), None)
    return numpy_like_module(arr, xp, dispatched)


def is_array_arg(a: Any) -> bool:
    """An array argument (a dtype such as ``np.float64`` -- a class -- is not one)."""
    return not isinstance(a, type) and is_array(a)


def has_tangent_space(v: Any, xp: Any) -> bool:
    """Whether ``v`` is given and has a tangent space (a floating or complex value)."""
    return v is not None and ProjectTo(v, xp).differentiable


def tangent_args(args: tuple[Any, ...], differentiable: bool = True) -> tuple[Any, ...]:
    """The positional arguments as a pullback's zero short-circuit reads them: ``None`` (no
    tangent) for a dtype given as a class (``np.float64``), and for every argument where the
    output has no tangent space."""
    return tuple(a if differentiable and not isinstance(a, type) else None for a in args)


def forced_tangent(t: Any, v: Any, xp: Any) -> Any:
    """A forced tangent, or None when it is zero or ``v`` has no tangent space. (The rules whose
    Python-scalar arguments take tangents that broadcast -- ``linspace``, ``arange``, ``full`` --
    check them with ``lift_tangent`` instead of ``tangents_in``.)"""
    t = unthunk(t)
    if isinstance(t, AbstractZero) or not has_tangent_space(v, xp):
        return None
    return t


def register_pair(
    target: str,
    rules: Rules,
    examples: Callable[[Any], list[Any]],
    *expect: Expect,
    kind: str | None = None,
    linear: bool = False,
) -> None:
    """Register ``rules`` for ``target``; ``kind`` is what the function is for engines
    (``"creation"``, ``"like"``, ``"conversion"``, ``"sequence"``: registry.KINDS), ``linear``
    the registrations' ``linear=``."""
    meta = {"examples": examples, "expect": expect, "kind": kind, "linear": linear}
    register_rrule(target, **meta)(rules[0])
    register_frule(target, **meta)(rules[1])


def fixed_examples(*calls: tuple[tuple[Any, ...], dict[str, Any]]) -> Callable[[Any], list[Any]]:
    """Examples that are the same calls whatever the random generator (integer sizes)."""
    return lambda rng: list(calls)
