"""Derivatives at ±inf and strong zeros (docs/conventions.md), generated from the registry: every
elementwise registration with a real domain, every argument at ``+inf`` and ``-inf``."""

from __future__ import annotations

import importlib
import math
import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.registry import Registration, registrations

BIG = (1e100, 1e300)  # where the derivative's limit at infinity is read, with the same formula


def _function(reg: Registration) -> Any:
    if reg.family == "callable":
        return reg.target
    head, _, tail = str(reg.target).rpartition(".")
    mod: Any = np
    if reg.family == "scipy":
        mod = importlib.import_module(f"scipy.{head}")
    elif head:
        mod = getattr(np, head)
    return getattr(mod, tail, None)


def _elementwise() -> list[Registration]:
    return [
        r
        for r in registrations()
        if r.domain is not None
        and not r.non_differentiable
        and r.rrule is not None
        and r.frule is not None
        and any(isinstance(d, tuple) for d in r.domain)
        and _function(r) is not None
    ]


ELEMENTWISE = _elementwise()


def _points(reg: Registration, i: int, sign: int) -> list[list[Any]]:
    """Argument lists with argument ``i`` at ``sign * inf`` and each other argument at two
    finite points of its domain (an integer argument at 2)."""
    others: list[list[Any]] = []
    for j, d in enumerate(reg.domain or ()):
        if j == i:
            others.append([sign * math.inf])
        elif isinstance(d, tuple):
            lo, hi = d
            others.append([lo + (hi - lo) / 4, hi - (hi - lo) / 4])
        else:
            others.append([2])
    out: list[list[Any]] = [[]]
    for vals in others:
        out = [[*p, v] for p in out for v in vals]
    return out


def _arrays(args: list[Any]) -> list[Any]:
    return [np.array([a]) if isinstance(a, float) else np.array([a], dtype=np.int64) for a in args]


def _derivatives(f: Any, args: list[Any], j: int) -> tuple[float, float]:
    """d f / d args[j] through the rrule's pullback and through the frule."""
    arrs = _arrays(args)
    _, pb = cr.rrule(f, *arrs)
    r = cr.unthunk(pb(np.ones(1))[1 + j])
    tangents = [cr.NoTangent()] + [
        np.ones(1) if k == j else cr.ZeroTangent() for k in range(len(arrs))
    ]
    _, t = cr.frule(tuple(tangents), f, *arrs)

    def value(v: Any) -> float:
        return 0.0 if isinstance(v, cr.AbstractZero) else float(np.asarray(v).ravel()[0])

    return value(r), value(t)


def _limit(values: list[float]) -> float | None:
    """The limit the derivatives at ``BIG`` points to, ``None`` where it has none (they
    oscillate: ``sin``), NaN where they are NaN (outside the domain)."""
    a, b = values
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return b
    if abs(b) < abs(a) < 1e-20:  # decays to 0 (1e-100, 1e-300: 1 / x)
        return 0.0
    if abs(b) > abs(a) > 1e20 and (a > 0) == (b > 0):  # grows without bound (2x, e^x)
        return math.copysign(math.inf, b)
    if math.isclose(a, b, rel_tol=1e-9):
        return b
    return None


def _cases() -> list[Any]:
    cases = []
    for reg in ELEMENTWISE:
        for i, d in enumerate(reg.domain or ()):
            if isinstance(d, tuple):
                for sign in (1, -1):
                    cases.append(
                        pytest.param(reg, i, sign, id=f"{reg.name}-x{i}-{'+-'[sign < 0]}inf")
                    )
    return cases


@pytest.mark.parametrize(("reg", "i", "sign"), _cases())
def test_defect7_derivative_limit_at_inf(reg: Registration, i: int, sign: int) -> None:
    """Argument ``i`` at ``sign * inf``: where the library's primal is a number there, each
    partial is the limit of the derivative (the same formula at 1e100 and 1e300), and NaN
    where the derivative has no limit (``sin``, ``cos``); never NaN where the limit exists."""
    f = _function(reg)
    for args in _points(reg, i, sign):
        for j, d in enumerate(reg.domain or ()):
            if not isinstance(d, tuple):
                continue
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                primal = float(np.asarray(f(*_arrays(args))).ravel()[0])
                got, pushed = _derivatives(f, args, j)
                near = []
                for big in BIG:
                    b = list(args)
                    b[i] = sign * big
                    near.append(_derivatives(f, b, j)[0])
            where = f"{reg.name} at {args}, d/dx{j}"
            assert got == pushed or (math.isnan(got) and math.isnan(pushed)), (where, got, pushed)
            if math.isnan(primal):
                continue  # no value to differentiate there (sqrt(-inf), sin(inf))
            limit = _limit(near)
            if limit is None:
                assert math.isnan(got), f"{where}: {got}, but the derivative has no limit: {near}"
            elif math.isnan(limit):
                continue
            else:
                assert got == limit or math.isclose(got, limit, rel_tol=1e-9), (where, got, near)


# --- strong zero --------------------------------------------------------------------------------
STRONG = [r for r in ELEMENTWISE if r.strong_zero]
# where partials are inf or NaN: poles, branch points, overflow, non-finite operands
SPECIAL = (0.0, 1.0, -1.0, 1000.0, -1000.0, math.inf, -math.inf, math.nan)


def test_strong_zero_is_declared() -> None:
    names = {r.name for r in STRONG}
    assert {"sqrt", "log", "divide", "multiply", "pow", "exp"} <= names


@pytest.mark.parametrize("reg", STRONG, ids=lambda r: r.name)
def test_strong_zero_where_the_partial_is_not_finite(reg: Registration) -> None:
    """Every rule declared ``strong_zero``: at each point where a partial is ``inf`` or NaN (the
    cotangent 1 pulls back a non-finite value), a zero cotangent pulls back 0, and a zero
    tangent pushes forward 0 -- never ``0 * inf = NaN``. Both paths: NumPy's fast pullback and
    the generic one (a cotangent of another dtype)."""
    f = _function(reg)
    domain = reg.domain or ()
    grids = [list(SPECIAL) if isinstance(d, tuple) else [2] for d in domain]
    points: list[list[Any]] = [[]]
    for vals in grids:
        points = [[*p, v] for p in points for v in vals]
    found = 0
    for args in points:
        arrs = _arrays(args)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            _, pb = cr.rrule(f, *arrs)
            ones = [cr.unthunk(v) for v in pb(np.ones(1))[1:]]
            zeros = [cr.unthunk(v) for v in pb(np.zeros(1))[1:]]
            zeros32 = [cr.unthunk(v) for v in pb(np.zeros(1, dtype=np.float32))[1:]]
            for j, (one, zero, zero32) in enumerate(zip(ones, zeros, zeros32)):
                if isinstance(one, cr.AbstractZero) or not isinstance(domain[j], tuple):
                    continue
                if np.all(np.isfinite(one)):
                    continue
                found += 1
                where = f"{reg.name} at {args}, argument {j}: partial {one}"
                assert np.all(np.asarray(zero) == 0), (where, zero)
                assert np.all(np.asarray(zero32) == 0), (where, zero32)
                tangents = [cr.NoTangent()] + [
                    np.zeros(1) if k == j else cr.ZeroTangent() for k in range(len(arrs))
                ]
                _, t = cr.frule(tuple(tangents), f, *arrs)
                assert isinstance(t, cr.AbstractZero) or np.all(np.asarray(t) == 0), (where, t)
    assert found, f"{reg.name} is declared strong_zero but no partial is inf or NaN at {SPECIAL}"


def test_strong_zero_standard_scaler_gradient() -> None:
    """scikit-learn's ``StandardScaler`` through ``chainrules.ad`` (issue 26): its incremental
    variance computes ``0 / 0`` in a branch that a masked write then overwrites, and
    ``scale[scale == 0] = 1`` overwrites ``sqrt(0)``, whose partial is ``inf``. The zero
    cotangents of the overwritten elements pull back to 0 through ``multiply``, ``pow``,
    ``divide`` and ``sqrt`` (strong zero), so the gradient is finite: finite differences' on
    the columns that vary, and 0 on the constant column (its scale is the constant 1, and its
    centred values are 0, where ``z**3`` has derivative 0). SciPy reads ``SCIPY_ARRAY_API`` at
    its import: a subprocess."""
    pytest.importorskip("sklearn")
    import os
    import subprocess
    import sys
    import textwrap

    code = """
        import warnings
        import numpy as np, sklearn
        from sklearn.preprocessing import StandardScaler
        from chainrules import ad
        sklearn.set_config(array_api_dispatch=True)

        def loss(x):
            return np.sum(StandardScaler().fit_transform(x) ** 3)

        rng = np.random.default_rng(0)
        for constant in (False, True):
            x = rng.normal(size=(6, 3))
            if constant:
                x[:, 1] = 2.0
            with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)  # sqrt's partial at 0 is inf
                g = np.asarray(ad.grad(loss)(x))
            assert np.all(np.isfinite(g)), g
            varying = [0, 2] if constant else [0, 1, 2]
            h = 1e-6
            for i in range(x.shape[0]):
                for j in varying:
                    e = np.zeros_like(x)
                    e[i, j] = h
                    fd = (loss(x + e) - loss(x - e)) / (2 * h)
                    assert abs(g[i, j] - fd) <= 1e-5 * max(1.0, abs(fd)), (i, j, g[i, j], fd)
            if constant:
                assert np.all(g[:, 1] == 0), g[:, 1]
        print("ok")
    """
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def _strong_hessian_cases() -> list[Any]:
    return [
        pytest.param(reg, j, id=f"{reg.name}-arg{j}")
        for reg in STRONG
        for j, d in enumerate(reg.domain or ())
        if isinstance(d, tuple)
    ]


@pytest.mark.parametrize(("reg", "j"), _strong_hessian_cases())
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_strong_zero_hessian_where_the_cotangent_is_zero(
    reg: Registration, j: int, mode: str
) -> None:
    """The strong zero differentiated again (issue 26, a silent wrong Hessian): ``f(x) =
    sum(g(x) * (x - x0))`` at ``x = x0``, where the cotangent reaching ``g``'s pullback is exactly
    0 and its derivative is not. The Hessian is ``2 g'(x0)`` on the diagonal. Before, the
    pullback masked ``where(v == 0, 0, v * d)`` with the cotangent ``v``, and differentiating the
    mask dropped ``dv * d``: ``hessian(lambda x: sum(exp(x) * (x - 1)))`` at 1 gave ``e``, not
    ``2e``. ``mode``: forward over reverse (``ad.hessian``) and reverse over reverse."""
    from chainrules import ad

    f = _function(reg)
    domain = reg.domain or ()
    args: list[Any] = []
    for d in domain:
        if isinstance(d, tuple):
            lo, hi = d
            args.append(np.array([lo + (hi - lo) / 4, hi - (hi - lo) / 3]))
        else:
            args.append(np.array([2, 2], dtype=np.int64))
    x0 = args[j]

    def loss(x: Any) -> Any:
        call = [x if k == j else a for k, a in enumerate(args)]
        return np.sum(f(*call) * (x - x0))

    _, pb = cr.rrule(f, *args)
    slope = np.asarray(cr.unthunk(pb(np.ones(2))[1 + j]))  # g'(x0), first order
    want = np.diag(2 * slope)
    with np.errstate(all="ignore"):
        hessian = ad.hessian(loss) if mode == "fwd" else ad.jacobian(ad.grad(loss), mode="rev")
        got = hessian(x0)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=reg.name)
