"""Thread and task safety: the registry under concurrent registration and lookup, and the
``allowscalar`` mode isolated per thread and per asyncio task."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import pytest

import chainrules as cr
from chainrules.core import registry

N_NAMES = 400  # functions in each fresh namespace: enough that resolving it takes a while
N_THREADS = 16


def _array_rule(*args: Any) -> Any:  # the standard-name rule: precedence 1
    raise AssertionError("never called")


def _numpy_rule(*args: Any) -> Any:  # the "numpy:" rule: precedence 2, so it wins
    raise AssertionError("never called")


def _run_threads(n: int, target: Callable[[int], None]) -> list[BaseException]:
    errors: list[BaseException] = []

    def body(i: int) -> None:
        try:
            target(i)
        except BaseException as exc:  # noqa: BLE001 -- reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def _fresh_namespace(tag: str) -> tuple[str, types.ModuleType, list[str]]:
    """A namespace not imported yet, answering for ``N_NAMES`` names under both families."""
    name = f"_chainrules_stress_{tag}"
    names = [f"stress_fn_{tag}_{i}" for i in range(N_NAMES)]
    mod = types.ModuleType(name)
    for n in names:
        setattr(mod, n, types.FunctionType(_array_rule.__code__, {}, n))
    registry.register_namespace(name, "array_api")
    registry.register_namespace(name, "numpy")
    return name, mod, names


@pytest.mark.parametrize("round_", range(4))
def test_first_lookups_in_a_new_namespace_from_many_threads(
    clean_registry: Any, round_: int
) -> None:
    # Every thread looks a function up in a namespace that was just imported, while one of them
    # resolves it (it holds the lock for the whole namespace) and others register rules. No lookup
    # may miss or see the standard-name rule where the NumPy-name rule outranks it.
    name, mod, names = _fresh_namespace(f"{round_}")
    cr.register_rrule(*names)(_array_rule)
    cr.register_rrule(*(f"numpy:{n}" for n in names))(_numpy_rule)
    barrier = threading.Barrier(N_THREADS + 2)
    seen: list[Any] = []

    def lookup(i: int) -> None:
        barrier.wait()
        for n in names[i::3] if i % 2 else reversed(names[i::3]):
            seen.append(cr.find_rrule(getattr(mod, n)))

    def register(i: int) -> None:
        barrier.wait()
        for k in range(50):
            cr.register_rrule(f"stress_extra_{round_}_{i}_{k}")(_array_rule)

    sys.modules[name] = mod
    try:
        errors = _run_threads(N_THREADS + 2, lambda i: (lookup if i < N_THREADS else register)(i))
    finally:
        del sys.modules[name]
    assert not errors, errors[:3]
    missed = sum(rule is None for rule in seen)
    outranked = sum(rule is _array_rule for rule in seen)
    assert (missed, outranked) == (0, 0), (
        f"of {len(seen)} lookups, {missed} found no rule and {outranked} the "
        "standard-name rule that the NumPy-name rule outranks"
    )


def test_lookups_while_another_thread_unregisters(clean_registry: Any) -> None:
    # unregister rebuilds the table; a lookup of an unrelated function meanwhile still finds it
    import numpy as np

    stop = threading.Event()
    misses: list[int] = []

    def look(i: int) -> None:
        n = 0
        while not stop.is_set():
            n += cr.find_rrule(np.sin) is None or cr.find_rrule(np.cumsum) is None
        misses.append(n)

    def churn(i: int) -> None:
        try:
            for k in range(30):
                cr.register_rrule(f"stress_churn_{k}")(_array_rule)
                registry.unregister(f"stress_churn_{k}")
        finally:
            stop.set()

    errors = _run_threads(5, lambda i: (churn if i == 0 else look)(i))
    assert not errors, errors[:3]
    assert sum(misses) == 0, f"{sum(misses)} lookups of np.sin/np.cumsum missed during unregister"


def test_one_shared_allowscalar_object_across_16_threads() -> None:
    # one object entered and left by many threads at once: each thread restores its own mode
    from chainrules.core.scalar import allowscalar, scalar_mode

    allow, refuse = allowscalar(), allowscalar(False)
    barrier = threading.Barrier(N_THREADS)
    wrong: list[str] = []

    def body(i: int) -> None:
        outer = ("warn", "disallowed")[i % 2]  # each thread's own mode, set by its own object
        with allowscalar(outer):
            barrier.wait()
            shared_blocks(i, outer)

    def shared_blocks(i: int, outer: str) -> None:
        for k in range(300):
            with allow:
                time.sleep(0)  # hand the GIL over inside the block
                if scalar_mode() != "allowed":
                    wrong.append(f"in: {scalar_mode()}")
                if k % 3 == i % 3:
                    with refuse:
                        time.sleep(0)
                        if scalar_mode() != "disallowed":
                            wrong.append(f"nested: {scalar_mode()}")
                    if scalar_mode() != "allowed":
                        wrong.append(f"after nested: {scalar_mode()}")
            if scalar_mode() != outer:
                wrong.append(f"after: {scalar_mode()} for {outer}")

    errors = _run_threads(N_THREADS, body)
    assert not errors, errors[:3]
    assert not wrong, f"{len(wrong)} wrong modes, e.g. {wrong[:3]}"


def test_one_shared_allowscalar_object_across_100_asyncio_tasks() -> None:
    from chainrules.core.scalar import allowscalar, scalar_mode

    allow, refuse = allowscalar(), allowscalar(False)
    wrong: list[str] = []

    async def task(i: int) -> None:
        outer = ("warn", "allowed", "disallowed")[i % 3]
        with allowscalar(outer):
            await shared_blocks(i, outer)

    async def shared_blocks(i: int, outer: str) -> None:
        for k in range(20):
            with allow if (i + k) % 2 else refuse:
                want = "allowed" if (i + k) % 2 else "disallowed"
                await asyncio.sleep(0)  # every other task enters and leaves meanwhile
                if scalar_mode() != want:
                    wrong.append(f"in: {scalar_mode()} for {want}")
            await asyncio.sleep(0)
            if scalar_mode() != outer:
                wrong.append(f"after: {scalar_mode()} for {outer}")

    async def main() -> None:
        with allowscalar("warn"):
            await asyncio.gather(*(task(i) for i in range(100)))

    asyncio.run(main())
    assert scalar_mode() == "disallowed"
    assert not wrong, f"{len(wrong)} wrong modes, e.g. {wrong[:3]}"
