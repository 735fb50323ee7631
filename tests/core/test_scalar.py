"""The scalar-indexing mode: modes, nesting, decorator use, restoration, warnings, isolation."""

from __future__ import annotations

import asyncio
import threading
import warnings

import pytest

from chainrules.core import scalar as sc
from chainrules.core.scalar import (
    ScalarIndexingError,
    ScalarIndexingWarning,
    allowscalar,
    check_scalar,
    scalar_mode,
    set_default_scalar_mode,
)


@pytest.fixture(autouse=True)
def _fresh_warnings():  # type: ignore[no-untyped-def]
    sc._reset_warnings()
    yield
    sc._reset_warnings()


def test_default_is_disallowed_and_raises_with_a_helpful_message() -> None:
    assert scalar_mode() == "disallowed"
    with pytest.raises(ScalarIndexingError) as info:
        check_scalar("x[2] (read of one element)")
    msg = str(info.value)
    assert "x[2] (read of one element)" in msg
    assert "with chainrules.allowscalar()" in msg
    assert "synchronisation" in msg
    assert isinstance(info.value, RuntimeError)


@pytest.mark.parametrize(
    ("arg", "mode"),
    [(True, "allowed"), (False, "disallowed"), ("allowed", "allowed"), ("warn", "warn")],
)
def test_modes_from_bools_and_names(arg: object, mode: str) -> None:
    with allowscalar(arg):  # type: ignore[arg-type]
        assert scalar_mode() == mode
    assert scalar_mode() == "disallowed"


def test_allowed_mode_is_silent() -> None:
    with allowscalar(), warnings.catch_warnings():
        warnings.simplefilter("error")
        check_scalar("float(x)")


def test_nesting_restores_each_level() -> None:
    with allowscalar():
        with allowscalar(False):
            assert scalar_mode() == "disallowed"
            with allowscalar("warn"):
                assert scalar_mode() == "warn"
            assert scalar_mode() == "disallowed"
        assert scalar_mode() == "allowed"
    assert scalar_mode() == "disallowed"


def test_the_same_object_can_be_entered_twice() -> None:
    cm = allowscalar()
    with cm, allowscalar(False), cm:
        assert scalar_mode() == "allowed"
    assert scalar_mode() == "disallowed"


def test_decorator() -> None:
    @allowscalar()
    def read() -> str:
        check_scalar("float(x)")
        return scalar_mode()

    assert read() == "allowed"
    assert scalar_mode() == "disallowed"


def test_decorator_of_a_recursive_function_restores_every_level() -> None:
    seen = []

    @allowscalar("warn")
    def rec(n: int) -> None:
        seen.append(scalar_mode())
        if n:
            with allowscalar(False):
                rec(n - 1)
                seen.append(scalar_mode())

    rec(2)
    assert seen == ["warn", "warn", "warn", "disallowed", "disallowed"]
    assert scalar_mode() == "disallowed"


def test_restores_on_exception() -> None:
    with pytest.raises(KeyError), allowscalar():
        raise KeyError("boom")
    assert scalar_mode() == "disallowed"

    @allowscalar()
    def fails() -> None:
        raise KeyError("boom")

    with pytest.raises(KeyError):
        fails()
    assert scalar_mode() == "disallowed"


@pytest.mark.parametrize("bad", ["yes", "Allowed", 1, 0, None, 2.0])
def test_invalid_arguments_name_the_allowed_values(bad: object) -> None:
    with pytest.raises(ValueError, match="'allowed', 'warn', 'disallowed'"):
        allowscalar(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid scalar-indexing mode"):
        set_default_scalar_mode(bad)  # type: ignore[arg-type]


def test_set_default_returns_the_previous_mode_and_is_overridden_by_allowscalar() -> None:
    previous = set_default_scalar_mode("allowed")
    try:
        assert previous == "disallowed"
        assert scalar_mode() == "allowed"
        check_scalar("float(x)")  # silent
        with allowscalar(False), pytest.raises(ScalarIndexingError):
            check_scalar("float(x)")
    finally:
        assert set_default_scalar_mode(previous) == "allowed"
    assert scalar_mode() == "disallowed"


def test_warn_mode_warns_once_per_kind() -> None:
    with allowscalar("warn"):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            check_scalar("x[0] (read of one element)", kind="read of one element")
            check_scalar("x[1] (read of one element)", kind="read of one element")
            check_scalar("float(x)")
            check_scalar("float(x)")
        assert all(w.category is ScalarIndexingWarning for w in rec)
        assert [str(w.message).split(":")[0] for w in rec] == [
            "x[0] (read of one element)",
            "float(x)",
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_scalar("float(x)")  # already warned in this process


def test_warn_points_at_the_caller_of_the_array_method() -> None:
    def getitem() -> None:  # stands for an array type's __getitem__
        check_scalar("x[0]")

    with allowscalar("warn"), pytest.warns(ScalarIndexingWarning) as rec:
        getitem()
    assert rec[0].filename == __file__


def test_threads_start_from_the_process_default_and_keep_their_own_mode() -> None:
    results: dict[str, str] = {}
    entered = threading.Event()
    release = threading.Event()

    def allowing() -> None:
        with allowscalar():
            entered.set()
            release.wait(5)
            results["allowing"] = scalar_mode()

    def plain() -> None:
        entered.wait(5)
        results["plain"] = scalar_mode()
        try:
            check_scalar("float(x)")
        except ScalarIndexingError:
            results["raised"] = "yes"
        release.set()

    with allowscalar():  # the main thread's mode is not inherited by new threads
        threads = [threading.Thread(target=allowing), threading.Thread(target=plain)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert scalar_mode() == "allowed"
    assert results == {"allowing": "allowed", "plain": "disallowed", "raised": "yes"}


def test_asyncio_tasks_each_see_their_own_mode() -> None:
    async def allowing(ready: asyncio.Event, go: asyncio.Event) -> str:
        with allowscalar():
            ready.set()
            await go.wait()
            check_scalar("float(x)")
            return scalar_mode()

    async def plain(ready: asyncio.Event, go: asyncio.Event) -> str:
        await ready.wait()
        mode = scalar_mode()
        go.set()
        return mode

    async def main() -> list[str]:
        ready, go = asyncio.Event(), asyncio.Event()
        return list(await asyncio.gather(allowing(ready, go), plain(ready, go)))

    assert asyncio.run(main()) == ["allowed", "disallowed"]


def test_decorating_a_coroutine_function_covers_its_body() -> None:
    @allowscalar()
    async def body() -> str:
        await asyncio.sleep(0)
        check_scalar("float(x)")
        return scalar_mode()

    assert asyncio.run(body()) == "allowed"
    assert scalar_mode() == "disallowed"


def test_repr() -> None:
    assert repr(allowscalar("warn")) == "allowscalar('warn')"
