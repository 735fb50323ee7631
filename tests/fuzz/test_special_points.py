"""Second derivatives at special points, for every elementwise registration with a JAX
counterpart: ``hessian(sum(f(x)))`` (and ``sum(f(x, q))`` for a few constants ``q``) at
``x = 0, ±1, ±2, 0.5, 3`` against ``jax.hessian`` of JAX's function, where JAX's is finite and
ours is at all defined.

Random points never land on these, and a rule written with a mask that picks one of two
expressions equal in value there but not in derivative (``where(p == 0, p, y * p)``, a clip's
tie, ``x / 1`` at 0) is silently wrong only there: ``x**2.0``'s Hessian was 1 at 0, ``atan''``
and ``asinh''`` half at ±1, ``abs''`` 1 and ``sinc''`` 0 at 0. The points where our value
differs from JAX's by design, or where JAX's is wrong, are listed with the reason (a new
difference fails until it is fixed or listed)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from chainrules import ad

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)

POINTS = np.array([0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0])
CONSTANTS = (2.0, 0.5, 0.0)

# registration name -> why its second derivative differs from JAX's at some special point
KNOWN: dict[str, str] = {
    "hypot": "JAX's hypot is wrong where |x| = |q| (0 for q^2 / hypot^3: jax-ml/jax's "
    "where-based rule); ours is the closed form",
    "numpy:i0": "jax.numpy.i0's second derivative at 0 is 0; i0 = 1 + x^2 / 4 + ..., so 1/2 (ours)",
    "scipy:special.i0": "jax.scipy.special.i0's second derivative at 0 is 3/2; it is 1/2 (ours)",
    "scipy:special.i1": "jax.scipy.special.i1's second derivative at 0 is 1; i1 = x / 2 + x^3 / 16 "
    "+ ..., so 0 (ours)",
    "scipy:special.beta": "JAX's second derivative in a at a = b = 1/2 is not psi'(a) - psi'(a + "
    "b) (plus the first derivative's square); ours is",
    "scipy:special.betaln": "the same: d^2/da^2 betaln = psi'(a) - psi'(a + b), 3.29 at a = b = "
    "1/2 (ours); JAX's 0.82",
    "scipy:special.kl_div": "at x = 0, d^2/dx^2 x log(x / y) = 1 / x -> inf (ours, the limit); "
    "JAX's 0",
    "scipy:special.rel_entr": "the same as kl_div at x = 0",
    "scipy:special.spence": "at 0, spence'' = -1 / (z (1 - z)) - ... diverges: NaN (ours), JAX's 0",
    "scipy:stats.poisson.pmf": "the count k is not differentiated (conventions: discrete "
    "arguments get zero derivatives); JAX differentiates through gamma",
    "scipy:stats.poisson.logpmf": "the same as pmf: k is discrete",
}


def _cases() -> list[Any]:
    from chainrules.testing.backends import BACKENDS
    from chainrules.testing.campaign.oracles import native_function
    from chainrules.testing.campaign.programs import differentiable_registrations

    out = []
    for reg in differentiable_registrations():
        if reg.name in KNOWN:
            continue
        try:
            fj = BACKENDS["jax"].function(reg)
        except Exception:  # noqa: BLE001  (no JAX counterpart)
            continue
        if fj is not None:
            out.append((reg.name, native_function(reg), fj))
    return out


def _hessian_diagonals(f: Any, fj: Any, q: Any) -> tuple[np.ndarray, ...] | None:
    """(ours, JAX's) Hessian diagonals of sum(f(x[, q])) over POINTS, and f's values there;
    None where the function does not take such arguments."""
    jnp = jax.numpy
    args = () if q is None else (q,)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            value = np.asarray(f(POINTS, *args))
            if value.shape != POINTS.shape or value.dtype.kind != "f":
                return None  # not elementwise in x
            ref = np.diag(np.asarray(jax.hessian(lambda x: jnp.sum(fj(x, *args)))(POINTS)))
            ours = np.diag(ad.hessian(lambda x: np.sum(f(x, *args)))(POINTS))
    except Exception:  # noqa: BLE001  (outside the function's signature or domain)
        return None
    return ours, ref, value


def test_second_derivatives_at_special_points_agree_with_jax() -> None:
    wrong: list[str] = []
    checked = 0
    for name, f, fj in _cases():
        for q in (None, *CONSTANTS):
            got = _hessian_diagonals(f, fj, q)
            if got is None:
                continue
            ours, ref, value = got
            keep = np.isfinite(ref) & np.isfinite(value)
            checked += int(keep.sum())
            bad = keep & ~np.isclose(ours, ref, rtol=1e-7, atol=1e-9)
            for i in np.flatnonzero(bad):
                wrong.append(f"{name}(x={POINTS[i]}, q={q}): ours {ours[i]}, JAX {ref[i]}")
    assert checked > 1000, checked  # the comparison reaches the registrations
    assert not wrong, "\n".join(wrong)
