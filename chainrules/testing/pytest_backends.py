"""A pytest plugin: tests that need a backend absent here are deselected and counted, one line per
backend in the terminal summary, instead of one skip per test.

A test "needs an absent backend" when it carries a ``skip`` mark (or a ``skipif`` whose condition
is ``True``) whose reason is a :class:`chainrules.testing.suite.BackendMissing` -- as
``rule_tests`` gives the columns whose library is not installed or that need an absent GPU. Such a
test cannot run on this machine, so hundreds of them as skips would bury the few skips that say
something. Deselected, they are never run and never counted as passed or skipped; the summary
says what was left out::

    ==================== not run here: missing backends ====================
    580 tests need cupy: cupy is not installed (deselected, not counted as passed or skipped)

Use it with ``-p chainrules.testing.pytest_backends``, ``pytest_plugins`` in a top-level
``conftest.py``, or by importing its four hooks into a conftest (as chainrules' own tests do).
Under pytest-xdist each worker collects the whole suite and sends its counts to the controller,
which prints them.
"""

from __future__ import annotations

from typing import Any

import pytest

from .suite import BackendMissing

__all__ = [
    "backend_missing",
    "pytest_collection_modifyitems",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "pytest_testnodedown",
]

_NOT_HERE = pytest.StashKey[dict[str, tuple[int, str]]]()


def backend_missing(item: pytest.Item) -> BackendMissing | None:
    """The ``BackendMissing`` reason that keeps ``item`` from running here, or ``None``."""
    for mark in item.iter_markers():
        if mark.name not in ("skip", "skipif"):
            continue
        reason = mark.kwargs.get("reason")
        condition = mark.args[0] if mark.args else mark.kwargs.get("condition", True)
        if isinstance(reason, BackendMissing) and condition is True:
            return reason
    return None


@pytest.hookimpl(trylast=True)  # after -k and -m: count only what they left to run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept, left_out = [], []
    counts = config.stash.setdefault(_NOT_HERE, {})
    for item in items:
        why = backend_missing(item)
        if why is None:
            kept.append(item)
            continue
        left_out.append(item)
        n, _ = counts.get(why.backend, (0, ""))
        counts[why.backend] = (n + 1, str(why))
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the counts to the controller
        counts: dict[str, tuple[int, str]] = session.config.stash.get(_NOT_HERE, {})
        workeroutput["chainrules_not_here"] = dict(counts)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist's controller: keep a worker's counts (every worker collects the same tests)."""
    counts = getattr(node, "workeroutput", {}).get("chainrules_not_here")
    if counts:
        node.config.stash[_NOT_HERE] = {k: (int(n), str(w)) for k, (n, w) in counts.items()}


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    counts = config.stash.get(_NOT_HERE, {})
    if not counts:
        return
    terminalreporter.section("not run here: missing backends")
    for backend, (n, why) in sorted(counts.items()):
        terminalreporter.write_line(
            f"{n} tests need {backend}: {why} (deselected, not counted as passed or skipped)"
        )
