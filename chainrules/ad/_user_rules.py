"""How a transformation calls the user's function, and where a user's registered rule is used.

``chainrules.ad`` sees a call when it reaches a tracer (operators, NumPy's protocols, the traced
namespace) or a ``@chainrules.traceable`` function, whose wrapper hands the call to the engine.
A plain Python function's calls cannot be seen without introspection (profile hooks, frames or
code objects, which issue 27 rules out): inside traced code a call of a plain ``f`` runs its body
on tracers, whatever rules ``f`` has. So:

* the function given to a transformation (``ad.grad(f)``, ``ad.vjp(f, x)``, ``ad.jacobian(f)``,
  and the ``g`` of ``rrule_via_ad(g, ...)``) is the one call the engine always sees: when it has
  rules of its own (``register_rrule(f)`` on the object) and is not ``traceable``, the call is
  recorded as one operation differentiated by them -- the rule of the trace's mode
  (``rrule`` in reverse mode, ``frule`` in forward mode); with no rule of that mode the body is
  traced, as before. While ``f``'s own rule runs, a transformation of ``f`` inside it traces the
  body (a rule that differentiates its own body with ``ad.vjp(f, ...)`` does not recurse).
* for calls inside the user's code, ``@chainrules.traceable`` above the function is the way
  (``docs/ad.md``, "Your own function, your own rule"); it costs one type lookup per argument.

Registering a rule costs a later gradient nothing: one look-up of ``f`` among the registered
callables per call of the user's function (an earlier version ran every transformation under a
``sys.setprofile`` hook that warned when a registered plain function was traced through, which
doubled the time of a gradient while any such rule was registered).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from ..core import registry
from ..core.config import RULE_CONFIG
from ._compat import late_ruled_imports, scope_enter, scope_exit
from ._config import AD_CONFIG
from ._errors import element_write
from ._forward import ForwardTrace
from ._lift import enter
from ._tracer import ACTIVE

__all__ = ["call_user"]


class UntracedRuleWarning(UserWarning):
    """Deprecated: nothing raises it. It told that a registered plain Python function was traced
    through instead of using its rule; a transformation now uses the rule of the function it is
    given, and ``@chainrules.traceable`` makes calls inside code use it."""


# {registered callable that is not traceable: its traceable(...) wrapper, made on first use},
# rebuilt when the registered callables change
_ops: tuple[Any, dict[Any, Any]] = (None, {})
# the callables whose own rule is running in this context (a transformation of one inside it
# traces its body)
_OWN_RULE: ContextVar[frozenset[Any]] = ContextVar("chainrules_ad_own_rule", default=frozenset())


def _operation_of(f: Any) -> Any:
    """``traceable(f)`` when ``f`` is a registered callable that is not ``traceable``, else
    ``None``."""
    global _ops
    callables = registry.registered_callables()
    if _ops[0] is not callables:
        table: dict[Any, Any] = {}
        for target in callables:
            if not getattr(target, "__chainrules_traceable__", False):
                try:
                    table[target] = None
                except TypeError:  # unhashable: it is never looked up either
                    continue
        _ops = (callables, table)
    table = _ops[1]
    try:
        if f not in table:
            return None
    except TypeError:  # an unhashable callable has no registration
        return None
    op = table[f]
    if op is None:
        op = table[f] = registry.traceable(f)
    return op


def _through_rule(f: Any, op: Any, forward: bool, args: Any, kwargs: dict[str, Any]) -> Any:
    """``f(*args, **kwargs)`` recorded as one operation through ``f``'s rule of the trace's mode
    (``op`` is ``traceable(f)``), or its body when there is no such rule or ``f``'s own rule is
    running already."""
    rule = registry.find_frule(f) if forward else registry.find_rrule(f)
    running = _OWN_RULE.get()
    if rule is None or f in running:
        return f(*args, **kwargs)
    token = _OWN_RULE.set(running | {f})
    try:
        return op(*args, **kwargs)
    finally:
        _OWN_RULE.reset(token)


def call_user(f: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> Any:
    """``f(*args, **kwargs)`` with its trace running (``_core.enter``: arrays the code creates
    and data arguments are constants of it), the engine's RuleConfig current (rules of
    higher-order functions differentiate through ad) and the scoped ``array_namespace``
    wrappers in place (``_compat``); a registered ``f`` goes through its rule."""
    trace, args, kwargs = enter(args, kwargs)
    # use_rule_config(AD_CONFIG) without the context manager's generator (once per call)
    token = RULE_CONFIG.set(AD_CONFIG)
    scope = scope_enter()  # array_namespace of every array-api-compat copy sees the tracers
    try:
        if trace is None:
            return f(*args, **kwargs)
        op = _operation_of(f)
        active = ACTIVE
        active.append(trace)
        try:
            if op is None:
                return f(*args, **kwargs)
            return _through_rule(f, op, isinstance(trace, ForwardTrace), args, kwargs)
        finally:  # its own trace (another thread's transformation may have pushed one since)
            if active[-1] is trace:
                active.pop()
            else:
                active.remove(trace)
    except ValueError as err:  # NumPy's own error for a traced value written into an element
        better = element_write(err)
        if better is None:
            raise
        raise better from err
    except TypeError as err:  # a conversion inside a module imported during this call
        late = late_ruled_imports() if getattr(err, "chainrules_host_read", None) else []
        if not late:
            raise
        raise TypeError(
            f"{err}\n{' and '.join(late)} was imported during this call, after the "
            "transformation began (an import inside the function): its functions reach their "
            "rules from the transformation's next call on. Import it before calling the "
            "transformation."
        ) from err
    finally:
        scope_exit(scope)
        RULE_CONFIG.reset(token)
