from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

import chainrules as cr


def apply_twice(g, x):  # type: ignore[no-untyped-def]
    """A higher-order function: g(g(x))."""
    return g(g(x))


@cr.register_rrule(apply_twice)
def _apply_twice_rrule(g, x):  # type: ignore[no-untyped-def]
    config = cr.rule_config()
    y1, pb1 = config.rrule_via_ad(g, x)
    y2, pb2 = config.rrule_via_ad(g, y1)

    def apply_twice_pullback(y_bar):  # type: ignore[no-untyped-def]
        _, y1_bar = pb2(y_bar)
        _, x_bar = pb1(y1_bar)
        return cr.NoTangent(), cr.NoTangent(), x_bar

    return y2, apply_twice_pullback


def test_default_config_uses_the_registry() -> None:
    x = np.array([0.3, 0.4])
    y, pb = cr.rrule(apply_twice, np.sin, x)
    assert np.allclose(y, np.sin(np.sin(x)))
    assert np.allclose(pb(np.ones(2))[2], np.cos(np.sin(x)) * np.cos(x))
    assert isinstance(cr.rule_config(), cr.RuleConfig)


def test_an_engine_config_is_called_back() -> None:
    calls = []

    class CountingEngine(cr.RuleConfig):
        def rrule_via_ad(self, f, *args, **kwargs):  # type: ignore[no-untyped-def]
            calls.append(f)
            return super().rrule_via_ad(f, *args, **kwargs)

    def plain(x):  # type: ignore[no-untyped-def]  # no rule: only the engine can differentiate it
        return x

    with cr.use_rule_config(CountingEngine()) as cfg:
        assert cr.rule_config() is cfg
        cr.rrule(apply_twice, np.sin, np.ones(2))
    assert calls == [np.sin, np.sin]
    assert not isinstance(cr.rule_config(), CountingEngine)
    with pytest.raises(cr.NoRuleError):
        cr.rrule(apply_twice, plain, np.ones(2))


def test_config_is_restored_on_error_and_validated() -> None:
    with pytest.raises(RuntimeError), cr.use_rule_config(cr.RuleConfig()):
        raise RuntimeError
    assert type(cr.rule_config()) is cr.RuleConfig
    with pytest.raises(TypeError, match="expects a RuleConfig"), cr.use_rule_config(3):  # type: ignore[arg-type]
        pass


def test_each_thread_and_task_has_its_own_config() -> None:
    class A(cr.RuleConfig):
        pass

    seen = []

    def worker() -> None:
        seen.append(type(cr.rule_config()).__name__)

    with cr.use_rule_config(A()):
        t = threading.Thread(target=worker)
        t.start()
        t.join()

        async def task(cfg: cr.RuleConfig | None) -> str:
            if cfg is None:
                return type(cr.rule_config()).__name__
            with cr.use_rule_config(cfg):
                await asyncio.sleep(0)
                return type(cr.rule_config()).__name__

        async def main() -> list[str]:
            return list(await asyncio.gather(task(cr.RuleConfig()), task(None)))

        seen.extend(asyncio.run(main()))
        seen.append(type(cr.rule_config()).__name__)
    assert seen == ["RuleConfig", "RuleConfig", "A", "A"]


def test_frule_via_ad_default() -> None:
    _, y_dot = cr.rule_config().frule_via_ad((cr.NoTangent(), np.ones(2)), np.exp, np.zeros(2))
    assert np.allclose(y_dot, 1.0)
