"""Cases for the bridge tests: every GPU-safe registration at a few of its examples.

A test that asks for the ``gpu_safe_case`` fixture runs once per case (``standard_case``: the
same without the ``numpy:`` registrations, for engines other than NumPy and JAX).
``Case.split()`` gives the
floating positional array leaves (what the engines differentiate) and a function of them that
rebuilds the full call.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import chainrules as cr
from chainrules.core.registry import resolve_name
from chainrules.testing import examples_for
from chainrules.testing.suite import defined_in

GPU_SAFE_MODULES = (
    "chainrules.rules.linalg.norms",
    "chainrules.rules.indexing.getitem",
    "chainrules.core.scatter",
)
# and, in chainrules.rules.statistical, the standard's reductions (under their names and NumPy's)
# with NumPy's ptp, nansum, nanmean and average
GPU_SAFE_STATISTICAL = frozenset(
    (
        *("sum", "mean", "prod", "max", "min", "var", "std", "cumulative_sum", "cumulative_prod"),
        *(
            f"numpy:{n}"
            for n in (
                *("sum", "mean", "prod", "max", "amax", "min", "amin", "var", "std"),
                *("cumsum", "cumprod", "ptp", "nansum", "nanmean", "average"),
            )
        ),
    )
)


def gpu_safe(reg: cr.Registration) -> bool:
    """A registration of the GPU-safe rules (``GPU_SAFE_MODULES``, ``GPU_SAFE_STATISTICAL``)."""
    if reg.module in GPU_SAFE_MODULES:
        return True
    return defined_in(reg, "chainrules.rules.statistical") and reg.name in GPU_SAFE_STATISTICAL


# examples per registration (spread over the list; the full lists are the rule tests' job):
# the engines' checkers compile a lot, and the whole directory should run in about 3 minutes
PER_REGISTRATION = int(os.environ.get("CHAINRULES_INTEROP_EXAMPLES", "1"))

ZERO_SENSITIVE = {"cumulative_prod", "numpy:cumprod"}


@dataclass
class Case:
    reg: str
    f: Any
    registration: cr.Registration
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    note: str

    def split(
        self,
    ) -> tuple[list[np.ndarray], Callable[..., tuple[tuple[Any, ...], dict[str, Any]]]]:
        """The floating positional array leaves, and ``leaves -> (args, kwargs)``."""
        leaves: list[np.ndarray] = []

        def walk(a: Any) -> Any:
            if isinstance(a, (tuple, list)):
                parts = [walk(e) for e in a]
                return lambda it: type(a)(p(it) for p in parts)
            if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
                leaves.append(a)
                return lambda it: next(it)
            return lambda it: a

        builders = [walk(a) for a in self.args]

        def rebuild(*vals: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
            it = iter(vals)
            return tuple(b(it) for b in builders), self.kwargs

        return leaves, rebuild

    def second_order_xfail(self, through: str) -> str | None:
        """Why a second derivative through this case's ``"frule"`` or ``"rrule"`` is known to be
        wrong, or None."""
        # none today: cumulative_prod's pushforward, like its pullback, divides by nothing and
        # masks only overflows, so both are exact at second order through an exact zero
        return None

    def function_in(self, module: Any) -> Any:
        """The function this case's registration covers in ``module`` (a namespace such as
        ``array_api_compat.torch``); the callable itself for a callable target."""
        reg = self.registration
        if reg.family == "callable":
            return reg.target
        return resolve_name(reg.family, reg.target, module)

    @property
    def complex(self) -> bool:
        return any(x.dtype.kind == "c" for x in self.split()[0])


def _function(reg: cr.Registration) -> Any:
    if reg.family == "callable":
        return reg.target
    module = np if reg.family == "numpy" else cnp
    return resolve_name(reg.family, reg.target, module)


def gpu_safe_cases(
    per_registration: int = PER_REGISTRATION,
    numpy: bool = True,
    where: Callable[[cr.Registration], bool] | None = None,
) -> list[Any]:
    """Parameters for the GPU-safe registrations (``numpy=False``: without the ``numpy:`` family,
    whose rules cover NumPy, CuPy and ``jax.numpy`` only); ``where``: the registrations for
    which it is true instead of the GPU-safe modules'."""
    out = []
    for reg in cr.registrations():
        if reg.rrule is None:
            continue
        if (not gpu_safe(reg)) if where is None else not where(reg):
            continue
        if not numpy and reg.family == "numpy":
            continue
        exs = examples_for(reg)
        if not exs:
            continue
        k = min(per_registration, len(exs))
        if k == 1:
            picks = [len(exs) // 2]
        else:
            picks = sorted({round(i * (len(exs) - 1) / (k - 1)) for i in range(k)})
        f = _function(reg)
        for i in picks:
            e = exs[i]
            case = Case(reg.name, f, reg, tuple(e.args), dict(e.kwargs), e.note)
            if not case.split()[0]:
                continue
            out.append(pytest.param(case, id=f"{reg.name}-{i}"))
    return out


def _has_frule(reg: cr.Registration) -> bool:
    return reg.frule is not None


def _output(case: Case) -> Any:
    """The case's output, or None where its example is written for the rule alone (``put``'s
    ``inplace=``)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an example's own warning (a complex -> real cast)
        try:
            return case.f(*case.args, **case.kwargs)
        except (TypeError, ValueError):
            return None


def _list_output(case: Case) -> bool:
    """The case's function returns a list of arrays (``split``), or a tuple holding one
    (``histogramdd``'s edges)."""
    y = _output(case)
    if isinstance(y, list):
        return len(y) > 0
    return isinstance(y, tuple) and any(isinstance(e, list) for e in y)


def _numpy_family(reg: cr.Registration) -> bool:
    return reg.family in ("numpy", "array_api")


def _named_output(case: Case) -> bool:
    """The case's function returns a named tuple with a floating field."""
    y = _output(case)
    return hasattr(y, "_fields") and any(np.asarray(v).dtype.kind in "fc" for v in y)


def _mixed_outputs(case: Case) -> bool:
    """The case's function returns a tuple with an integer array beside a floating one."""
    y = _output(case)
    if not isinstance(y, tuple):
        return False
    kinds = {np.asarray(v).dtype.kind for v in y}
    return bool(kinds & set("iub")) and bool(kinds & set("fc"))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "gpu_safe_case" in metafunc.fixturenames:
        metafunc.parametrize("gpu_safe_case", gpu_safe_cases())
    if "standard_case" in metafunc.fixturenames:
        metafunc.parametrize("standard_case", gpu_safe_cases(numpy=False))
    if "integer_output_case" in metafunc.fixturenames:  # an integer output beside a floating one
        metafunc.parametrize(
            "integer_output_case",
            [c for c in gpu_safe_cases(where=_has_frule) if _mixed_outputs(c.values[0])],
        )
    if "list_output_case" in metafunc.fixturenames:  # a list (split), or one in a tuple
        metafunc.parametrize(
            "list_output_case",
            [c for c in gpu_safe_cases(where=_has_frule) if _list_output(c.values[0])],
        )
    if "named_tuple_output_case" in metafunc.fixturenames:  # slogdet, eigh, svd, qr, ...
        metafunc.parametrize(
            "named_tuple_output_case",
            [c for c in gpu_safe_cases(where=_numpy_family) if _named_output(c.values[0])],
        )
    if "strong_zero_case" in metafunc.fixturenames:  # every rule declared strong_zero=True
        metafunc.parametrize(
            "strong_zero_case",
            gpu_safe_cases(where=lambda r: r.strong_zero and r.frule is not None),
        )


# run by test_keras.py in a process per Keras backend (Keras fixes its backend at its import)
collect_ignore = ["keras_checks.py"]
