"""``RuleConfig``: how a rule for a higher-order function calls back into the engine using it.

A rule for ``map``-like or ``reduce``-with-a-callable functions needs the derivative of a function
*it was given*, which may have no registered rule: only the engine running the rule can
differentiate it. Engines subclass ``RuleConfig`` and make their instance current while
they call rules::

    class MyEngineConfig(cr.RuleConfig):
        def rrule_via_ad(self, f, *args, **kwargs):
            return my_engine.vjp(f, *args, **kwargs)

    with cr.use_rule_config(MyEngineConfig()):
        y, pullback = rule(*args)

and the rule asks for it with ``rule_config``::

    y, g_pullback = cr.rule_config().rrule_via_ad(g, x)

The current config lives in a ``contextvars.ContextVar``: each thread and asyncio task has its
own. The default config differentiates through the registry only.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Any

from .registry import frule, rrule

__all__ = ["RULE_CONFIG", "RuleConfig", "rule_config", "use_rule_config"]


class RuleConfig:
    """The engine's services to rules. The base class uses registered rules only.

    ``has_reverse_mode`` / ``has_forward_mode`` tell a rule which of the hooks the engine really
    provides (a rule may pick a cheaper strategy when one is missing).

    ``linear_tangents`` is True where the engine transposes a rule's linear map (the JAX bridge's
    ``jvp`` mode: JAX linearizes an frule's pushforward and transposes it for reverse mode, or
    transposes an rrule's pullback for forward mode where there is no frule). The map must then
    be linear *as traced*: it may not read its tangent's (cotangent's) values, so a strong-zero
    rule multiplies plainly (``0 * inf`` is NaN there, as in JAX's own rules;
    docs/conventions.md).
    """

    has_reverse_mode: bool = True
    has_forward_mode: bool = True
    linear_tangents: bool = False

    def rrule_via_ad(
        self, f: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
        """``(y, pullback)`` of ``f`` at ``args``, as the engine computes it."""
        return rrule(f, *args, **kwargs)

    def frule_via_ad(
        self, tangents: tuple[Any, ...], f: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        """``(y, y_dot)`` of ``f`` at ``args`` pushed along ``tangents``."""
        return frule(tangents, f, *args, **kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


_DEFAULT = RuleConfig()
#: The context variable behind :func:`rule_config` and :func:`use_rule_config` (``None``: the
#: default configuration). An engine that sets a configuration on every call may ``set`` and
#: ``reset`` it directly, without the context manager's generator.
RULE_CONFIG: contextvars.ContextVar[RuleConfig | None] = contextvars.ContextVar(
    "chainrules_rule_config", default=None
)


def rule_config() -> RuleConfig:
    """The ``RuleConfig`` of the engine that is calling rules now (the default otherwise)."""
    cfg = RULE_CONFIG.get()
    return _DEFAULT if cfg is None else cfg


@contextlib.contextmanager
def use_rule_config(config: RuleConfig) -> Iterator[RuleConfig]:
    """Make ``config`` current inside the ``with`` block (restored on exit, also on errors)."""
    if not isinstance(config, RuleConfig):
        raise TypeError(f"use_rule_config expects a RuleConfig, got {type(config).__name__}")
    token = RULE_CONFIG.set(config)
    try:
        yield config
    finally:
        RULE_CONFIG.reset(token)
