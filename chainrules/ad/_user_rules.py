"""Rules registered for a user's plain Python function that the engine cannot use.

``chainrules.ad`` sees a call only when it reaches a tracer (operators, NumPy's protocols, the
traced namespace) or a ``@chainrules.traceable`` function. A plain Python ``f`` with a registered
rule runs its body instead, so its rule is silently bypassed. While a transformation calls the
user's function, and only if such functions are registered, a profile hook watches for calls of
them with traced arguments and warns once per function, naming it and the fix. Under a
profiler of the user's (``sys.getprofile()`` set) it stays out of the way and does not warn.
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

from ..core import registry
from ..core.config import RULE_CONFIG
from ._config import AD_CONFIG

__all__ = ["UntracedRuleWarning", "call_user"]


class UntracedRuleWarning(UserWarning):
    """A function with a registered rule was traced through instead of using the rule."""


_cache: tuple[Any, dict[Any, Any]] = (None, {})
_warned: set[Any] = set()


def _plain_targets() -> dict[Any, Any]:
    """``{code object: function}`` of the registered plain Python functions of users' code."""
    global _cache
    callables = registry.registered_callables()
    if _cache[0] is callables:
        return _cache[1]
    found = {}
    for target in callables:
        if type(target) is not types.FunctionType:
            continue
        if getattr(target, "__chainrules_traceable__", False):
            continue
        found[target.__code__] = target
    _cache = (callables, found)
    return found


def _has_tracer(frame: types.FrameType, tracer: type) -> bool:
    code = frame.f_code
    n = code.co_argcount + code.co_kwonlyargcount
    for name in code.co_varnames[:n]:
        v: Any = frame.f_locals.get(name)
        for e in v if type(v) in (tuple, list) else (v,):
            if isinstance(e, tracer):
                return True
    return False


def _inside_own_rule(fn: Any, frame: types.FrameType) -> bool:
    reg = registry.registration_of(fn)
    rules = [r for r in (reg.rrule, reg.frule) if r is not None] if reg is not None else []
    names = [(getattr(r, "__code__", None), getattr(r, "__qualname__", "")) for r in rules]
    f: types.FrameType | None = frame.f_back
    while f is not None:
        code = f.f_code
        for rcode, qual in names:
            if rcode is None or code.co_filename != rcode.co_filename:
                continue
            if code is rcode or getattr(code, "co_qualname", "").startswith(qual + "."):
                return True
        f = f.f_back
    return False


def call_user(f: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """``f(*args, **kwargs)`` with its trace running (``_core.enter``: arrays the code creates
    and data arguments are constants of it) and the engine's RuleConfig current (rules of
    higher-order functions differentiate through ad), warning when a registered plain function
    is traced through."""
    if _HOT is None:
        _bind()
    install, enter, active = _HOT  # type: ignore[misc]
    install()  # array_namespace of every array-api-compat copy sees the traced namespace
    trace, args, kwargs = enter(args, kwargs)
    # use_rule_config(AD_CONFIG) without the context manager's generator (once per call)
    token = RULE_CONFIG.set(AD_CONFIG)
    try:
        if trace is None:
            return _call_user(f, args, kwargs)
        active.append(trace)
        try:
            return _call_user(f, args, kwargs)
        finally:
            active.pop()
    finally:
        RULE_CONFIG.reset(token)


_HOT: tuple[Any, Any, Any] | None = None


def _bind() -> None:
    """Bind the engine's helpers once (``_core`` imports this module: a cycle at import)."""
    global _HOT
    from ._compat import install
    from ._core import ACTIVE, enter

    _HOT = (install, enter, ACTIVE)


def _call_user(f: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    targets = _plain_targets()
    if not targets or sys.getprofile() is not None:  # never displace the user's profiler
        return f(*args, **kwargs)
    from ._core import Tracer

    def hook(frame: types.FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        fn = targets.get(frame.f_code)
        if fn is None or fn in _warned or not _has_tracer(frame, Tracer):
            return
        if _inside_own_rule(fn, frame):  # the rule computing f's value (or its pullback)
            return
        _warned.add(fn)
        name = registry.function_name(fn)
        warnings.warn(
            f"chainrules.ad: {name} has a registered rule, but it is a plain Python function, "
            f"so the engine traced its body instead of using the rule. Decorate {name} with "
            "@chainrules.traceable (before registering its rules) for the rule to be used",
            UntracedRuleWarning,
            stacklevel=2,
        )

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        return f(*args, **kwargs)
    finally:
        sys.setprofile(previous)
