"""pytest tests generated from the rule table: the check command's cells, one test each.

``rule_tests(module)`` returns a pytest test function parametrized over every registration defined
in ``module`` (and its submodules) and every column of ``python -m chainrules check`` -- the
backends and the ``scalar-free`` and ``jit`` device checks. Each test runs the same cell the check
command runs (:mod:`chainrules.testing.runner`), judged against the same declarations
(``chainrules.Expect``), so the test suite and the main job cannot disagree:

* a cell that fails, or refuses an example nobody declared, fails the test with every message;
* a cell whose only failures are declared is reported as ``xfail`` with the reasons, and one
  whose every example is a declared skip as skipped, with the reasons;
* a column whose library is not installed (or that needs an absent GPU) is skipped, with a
  reason of type ``BackendMissing``; the library's own ``tests/conftest.py`` deselects those tests
  and prints one line per missing backend instead of one skip per test.

Use it for your own rules as the library does for its own::

    # tests/test_my_rules.py
    from chainrules.testing.suite import rule_tests
    import mypkg.rules

    test_rule = rule_tests(mypkg.rules)
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..core.registry import Registration, registrations
from .backends import BACKENDS
from .runner import DEVICE_CHECKS, Cell, check_device, check_registration

__all__ = ["COLUMNS", "BackendMissing", "defined_in", "rule_tests", "run_cell"]

COLUMNS = (*BACKENDS, *DEVICE_CHECKS)


def defined_in(reg: Registration, module: str) -> bool:
    """Whether ``reg`` was registered by ``module`` or one of its submodules."""
    where = str(reg.module or "")
    return where == module or where.startswith(module + ".")


def run_cell(reg: Registration, column: str) -> Cell:
    """The check command's cell of ``reg`` in ``column`` (a backend or a device check)."""
    if column in DEVICE_CHECKS:
        return check_device(reg, column)
    return check_registration(reg, BACKENDS[column])


class BackendMissing(str):
    """A skip reason saying that a backend is absent here: the reason's text, and ``backend``,
    the backend's name. A test suite's ``pytest_collection_modifyitems`` can tell these skips
    from all others by their type (``isinstance(mark.kwargs["reason"], BackendMissing)``) and
    report them per backend."""

    backend: str

    def __new__(cls, backend: str, reason: str) -> BackendMissing:
        self = super().__new__(cls, reason)
        self.backend = backend
        return self


def _missing(column: str) -> BackendMissing | None:
    """Why ``column`` cannot run here, or ``None``."""
    if column == "jit":
        module = "jax"
    elif column == "scalar-free":
        return None
    else:
        module = BACKENDS[column].module.split(".")[0]
    if importlib.util.find_spec(module) is None:
        return BackendMissing(module, f"{module} is not installed")
    if column in BACKENDS and BACKENDS[column].needs_gpu and not BACKENDS[column].available():
        return BackendMissing(column, f"{column} needs a GPU")
    return None


def rule_tests(
    module: ModuleType | str, columns: tuple[str, ...] = COLUMNS
) -> Callable[[Registration, str], None]:
    """A pytest test of every registration of ``module`` in every column (see the module docs)."""
    import pytest

    name = module if isinstance(module, str) else module.__name__
    regs = [
        r for r in registrations() if defined_in(r, name) and (r.family != "callable" or r.generic)
    ]
    if not regs:
        raise ValueError(f"rule_tests: no rule is registered in module {name}")
    params = []
    for reg in regs:
        for column in columns:
            why = _missing(column)
            marks: Any = pytest.mark.skip(reason=why) if why else ()
            params.append(pytest.param(reg, column, id=f"{reg.name}-{column}", marks=marks))

    @pytest.mark.parametrize(("reg", "column"), params)
    def test_rule(reg: Registration, column: str) -> None:
        if column == "jit":
            BACKENDS["jax"].namespace()  # float64 references
        cell = run_cell(reg, column)
        assert not cell.failed, "\n".join(cell.errors + cell.undeclared)
        if cell.status in ("n/a", "none"):
            assert cell.status == "n/a" or reg.non_differentiable, f"{reg.name}: no examples"
            return
        if cell.status == "skip":  # declared: the library cannot take any example there
            pytest.skip("; ".join(cell.skip_reasons()))
        assert cell.checks > 0, f"{reg.name} on {column}: no check ran"
        if cell.status == "xfail":
            pytest.xfail(
                "; ".join(dict.fromkeys(x.split(": xfail: ", 1)[-1] for x in cell.xfailed))
            )

    test_rule.__doc__ = (
        f"The check command's cells of every rule registered in {name}: finite differences on "
        "each backend, scalar-free on guarded device arrays, jax.jit; declared limits xfail."
    )
    return test_rule
