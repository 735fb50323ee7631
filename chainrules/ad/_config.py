"""The engine's ``RuleConfig``: rules for higher-order functions (``scipy.integrate.odeint``)
differentiate the user's function through ``chainrules.ad`` itself.

Every transformation makes :data:`AD_CONFIG` current while it calls the user's function, so a
rule that asks ``chainrules.rule_config().rrule_via_ad(g, *args)`` there (and keeps the config for
its pullback) gets ``ad.vjp`` of ``g`` -- any Python function, traced like the user's own -- and
``frule_via_ad`` gets ``ad.jvp``, chunks of tangents included.

The engine's ``vjp`` and ``jvp`` are handed to :data:`AD_CONFIG` by ``_api`` when it defines
them (:meth:`ADConfig.use_engine`), so this module imports nothing of the engine's: ``_api``
imports ``_user_rules``, which imports this module, and no import leads back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.config import RuleConfig
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk

__all__ = ["AD_CONFIG", "ADConfig"]


class ADConfig(RuleConfig):
    """``rrule_via_ad`` is :func:`chainrules.ad.vjp`, ``frule_via_ad`` :func:`chainrules.ad.jvp`."""

    def __init__(self) -> None:
        self._vjp: Callable[..., Any] | None = None
        self._jvp: Callable[..., Any] | None = None

    def use_engine(self, vjp: Callable[..., Any], jvp: Callable[..., Any]) -> None:
        """Take the engine's ``vjp`` and ``jvp`` (``_api`` calls this once, at its import)."""
        self._vjp, self._jvp = vjp, jvp

    def rrule_via_ad(
        self, f: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
        vjp = self._vjp
        assert vjp is not None, "chainrules.ad._api hands ADConfig the engine at its import"
        y, pb = vjp(f, *args, **kwargs)

        def via_ad_pullback(y_bar: Any) -> tuple[Any, ...]:
            return (NoTangent(), *pb(y_bar))

        return y, via_ad_pullback

    def frule_via_ad(
        self, tangents: tuple[Any, ...], f: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        jvp = self._jvp
        assert jvp is not None, "chainrules.ad._api hands ADConfig the engine at its import"
        ts = [unthunk(t) for t in tangents[1:]]
        moving = [i for i, t in enumerate(ts) if not isinstance(t, AbstractZero)]
        if not moving:
            return f(*args, **kwargs), ZeroTangent()

        def along(*vals: Any) -> Any:  # f of the arguments that move, the others held
            full = list(args)
            for i, v in zip(moving, vals):
                full[i] = v
            return f(*full, **kwargs)

        return jvp(along, [args[i] for i in moving], [ts[i] for i in moving])


AD_CONFIG = ADConfig()
