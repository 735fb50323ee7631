"""Regression: Hessians through SciPy's rules (campaign, native engine: about 790 Hessian cells of
seeds 4000-7999 raised "numpy.asarray(x) of a traced array").

A rule bound to a SciPy function computes its primal with that function, and its pullback with
SciPy's module functions (``scipy.linalg.solve_triangular``, ``scipy.signal.correlate``). For a
Hessian the engine runs the rule on its traced arrays, and SciPy's Python functions convert their
inputs with ``numpy.asarray``. The rules now call them traceable (``TraceableModule``, and the
bound primal through ``cr.traceable``), so each call reaches the engine as one operation with its
own rules. A primal the rule computes its own way (``comb`` with ``scipy.special.binom``, which
has no rule) is handed to the engine as a call of the function itself (``traceable_running``).

Parametrised over every registration of ``chainrules.rules.scipy``: the Hessian of a loss of each
function at its first float64 example equals central differences of the gradient, column by
column. Square matrix inputs are symmetrised first (``eigh``, ``cho_factor`` read one triangle,
whose full-matrix finite differences differ from the symmetric gradient by DESIGN).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from chainrules import ad
from chainrules.testing.campaign.cells import native_function
from chainrules.testing.campaign.programs import _slots, differentiable_registrations
from chainrules.testing.examples import examples_for

_MAX = 12  # elements of the differentiated argument: a Hessian of at most 12 x 12


def _case(reg: Any) -> tuple[Any, int] | None:
    """The first example with a nonempty float64 array argument of at most _MAX elements, and
    that argument's position."""
    for ex in examples_for(reg, 0):
        for i, *rest in _slots(ex):
            a = ex.args[i]
            if not rest and a.dtype == np.float64 and 0 < a.size <= _MAX:
                return ex, i
    return None


REGS = [
    r
    for r in differentiable_registrations()
    if (r.module or "").startswith("chainrules.rules.scipy") and _case(r) is not None
]


@pytest.mark.parametrize("reg", [pytest.param(r, id=r.name) for r in REGS])
def test_hessian_through_scipy_rule_equals_finite_differences_of_the_gradient(reg: Any) -> None:
    ex, i = _case(reg)  # type: ignore[misc]
    f = native_function(reg)  # the user's spelling: ufuncs as they are, the rest cr.traceable
    x0 = np.asarray(ex.args[i], dtype=np.float64)
    square = x0.ndim == 2 and x0.shape[0] == x0.shape[1]

    def loss(x: Any) -> Any:
        if square:
            x = (x + np.swapaxes(x, -1, -2)) / 2
        args = list(ex.args)
        args[i] = x
        y = f(*args, **ex.kwargs)
        y = y[0] if isinstance(y, (tuple, list)) else y
        return np.sum(np.real(y * np.conj(y)))

    with np.errstate(all="ignore"):
        hess = np.asarray(ad.hessian(loss)(x0)).reshape(x0.size, x0.size)

        def grad(x: Any) -> Any:
            return np.asarray(ad.grad(loss)(x)).ravel()

        h = 1e-5
        steps = np.eye(x0.size).reshape(x0.size, *x0.shape)
        fd = np.stack([(grad(x0 + h * e) - grad(x0 - h * e)) / (2 * h) for e in steps], axis=1)
    scale = 1.0 + np.max(np.abs(fd))
    assert np.all(np.isfinite(hess)), f"{reg.name}: non-finite Hessian"
    assert np.max(np.abs(hess - fd)) <= 1e-5 * scale, (
        f"{reg.name}: Hessian differs from central differences of the gradient by "
        f"{np.max(np.abs(hess - fd)):.3g} (scale {scale:.3g})"
    )


def test_every_scipy_family_is_in_the_parametrisation() -> None:
    modules = {r.module for r in REGS}
    for family in ("linalg", "stats", "signal", "special", "integrate"):
        assert any(m.startswith(f"chainrules.rules.scipy.{family}") for m in modules), family
    assert len(REGS) >= 60
