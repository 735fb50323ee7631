"""Regression: a rule's primal is the function's own result, named tuples included.

The rule of ``linalg.qr`` returned ``(Q, R)`` as a plain tuple, so in traced code
``xp.linalg.qr(x).R`` raised "'tuple' object has no attribute 'R'" (campaign seed 4815: the
Hessian of ``numpy:polyfit``, whose pullback reads ``qr(...).R``). Parametrised over every
registration whose NumPy function returns a named tuple: the rrule's and the frule's primal have
its fields, and the fields are readable on the engine's traced arrays.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.testing.backends import BACKENDS
from chainrules.testing.examples import examples_for


def _named_tuple_cases() -> list[Any]:
    numpy = BACKENDS["numpy"]
    out = []
    for reg in cr.registrations():
        f = None if reg.non_differentiable else numpy.function(reg)
        if f is None:
            continue
        for ex in examples_for(reg, 0)[:1]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    want = f(*ex.args, **ex.kwargs)
                except TypeError:  # an example NumPy's own function refuses (inplace=False)
                    continue
            if hasattr(want, "_fields"):
                out.append(pytest.param(f, ex, want._fields, id=reg.name))
    return out


CASES = _named_tuple_cases()


def test_the_named_tuple_functions_are_found() -> None:
    names = {p.id for p in CASES}
    assert {"linalg.qr", "numpy:linalg.qr", "linalg.svd", "linalg.eigh", "unique_all"} <= names


@pytest.mark.parametrize(("f", "ex", "fields"), CASES)
def test_rule_primal_keeps_the_named_tuple(f: Any, ex: Any, fields: tuple[str, ...]) -> None:
    y, _ = cr.rrule(f, *ex.args, **ex.kwargs)
    assert getattr(y, "_fields", None) == fields
    zeros = (cr.NoTangent(), *(cr.ZeroTangent() for _ in ex.args))
    y, _ = cr.frule(zeros, f, *ex.args, **ex.kwargs)
    assert getattr(y, "_fields", None) == fields


def test_qr_fields_in_traced_code_and_polyfit_hessian() -> None:
    import array_api_compat

    rng = np.random.default_rng(5)
    x0 = rng.standard_normal((4, 3))

    def r_sum(x: Any) -> Any:
        xp = array_api_compat.array_namespace(x)
        return xp.sum(xp.linalg.qr(x).R ** 2)  # = ||x||_F^2

    np.testing.assert_allclose(ad.grad(r_sum)(x0), 2 * x0, rtol=1e-12)

    t = np.linspace(0.0, 1.0, 6)

    def fit(y: Any) -> Any:
        return np.sum(np.polyfit(t, y, 2) ** 2)

    y0 = rng.standard_normal(6)
    hess = np.asarray(ad.hessian(fit)(y0))
    # polyfit is linear in y (P y): the Hessian of |P y|^2 is 2 P^T P
    p = np.stack([np.polyfit(t, e, 2) for e in np.eye(6)], axis=1)
    np.testing.assert_allclose(hess, 2 * p.T @ p, rtol=1e-8, atol=1e-10)
