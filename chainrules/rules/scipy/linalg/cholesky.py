"""``scipy.linalg``'s Cholesky factorisation and its solve: ``cholesky``, ``cho_factor``,
``cho_solve`` (``"scipy:linalg.NAME"``). The solves inside the pullbacks and pushforwards call the
same library's ``solve_triangular`` and ``cho_solve``; the maths notes are in
``docs/rules/scipy-linalg.md``.
"""

from __future__ import annotations

from typing import Any

from ....core.prelude import *
from ..._util import in_dtype
from ..._util.linalg import _cholesky_dot, _h, _herm, cholesky_back, positive_definite
from ..._util.scipy_linalg import (
    NO,
    ZERO,
    _first,
    _fold,
    _is_jax,
    _mat,
    _once,
    _outer,
    _pair_solve_bars,
    _pair_solve_dots,
    _register,
    _square,
    _square_call,
    _square_dot,
)


# --- cholesky, cho_factor, cho_solve -------------------------------------------------------------
def _cholesky_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, b, y = _square_call("cholesky", fn, sig, args, kwargs)
    upper = not b.get("lower", False)  # SciPy's default is the upper factor
    project = ProjectTo(a, xp)

    @pullback(y, args, name="cholesky")
    def cholesky_pullback(y_bar: Any) -> Any:
        return (project(cholesky_back(y, y_bar, upper=upper)), *[NO] * (len(args) - 1))

    return y, cholesky_pullback


def _cholesky_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, _, b, y, t = _square_dot("cholesky", fn, sig, tangents, args, kwargs)
    if t is None:
        return y, ZERO
    return y, in_dtype(xp, _cholesky_dot(xp, y, t[0], not b.get("lower", False)), y.dtype)


def _pd_ex(rng: Any, lower_key: bool = True) -> list[Any]:
    return [
        ((positive_definite(rng, (3, 3)),), {}),
        ((positive_definite(rng, (2, 2)),), {"lower": True}),
        ((positive_definite(rng, (2, 2), cplx=True),), {}),
    ]


_register(
    "cholesky", _cholesky_rrule, _cholesky_frule, _pd_ex, hermitian=(0,), zero_d=((0,), (1, 1))
)


def _other(xp: Any, x: Any, lower: bool) -> Any:
    """The strict triangle a factor of ``lower`` does not use."""
    return xp.triu(x, k=1) if lower else xp.tril(x, k=-1)


def _cho_factor_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, b, y = _square_call("cho_factor", fn, sig, args, kwargs)
    lower = bool(b.get("lower", False))
    factor = xp.tril(y[0]) if lower else xp.triu(y[0])
    keeps = not _is_jax(mod)  # SciPy leaves A's own entries in the unused triangle; JAX zeros
    project = ProjectTo(a, xp)

    @pullback(y, args, name="cho_factor")
    def cho_factor_pullback(y_bar: Any) -> Any:
        c_bar = y_bar[0]
        tri_bar = xp.tril(c_bar) if lower else xp.triu(c_bar)
        g = cholesky_back(factor, tri_bar, upper=not lower)
        if keeps:
            g = g + _herm(xp, _other(xp, c_bar, lower))
        return (project(g), *[NO] * (len(args) - 1))

    return y, cho_factor_pullback


def _cho_factor_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, _, b, y, t = _square_dot("cho_factor", fn, sig, tangents, args, kwargs)
    if t is None:
        return y, ZERO
    lower = bool(b.get("lower", False))
    factor = xp.tril(y[0]) if lower else xp.triu(y[0])
    dc = _cholesky_dot(xp, factor, t[0], not lower)
    if not _is_jax(mod):
        dc = dc + _other(xp, _herm(xp, t[0]), lower)
    return y, Tangent(in_dtype(xp, dc, y[0].dtype), NO, primal_type=type(y))


_register(
    "cho_factor",
    _cho_factor_rrule,
    _cho_factor_frule,
    _pd_ex,
    zero_d=((0,), (1, 1)),
    hermitian=(0,),
    expect=Expect(
        "jit",
        "jax.scipy.linalg.cho_factor zeros the unused triangle, where scipy.linalg.cho_factor "
        "leaves A's own entries: the jit check's NumPy reference differs there by design",
    ),
)


def _cho_solve_setup(sig: Any, args: Any, kwargs: Any) -> Any:
    (cl, rhs), _ = _first(sig, args, kwargs, 2)
    if not isinstance(cl, (tuple, list)) or len(cl) != 2:
        raise TypeError("cho_solve: the first argument must be the pair (c, lower) of cho_factor")
    c, lower = cl
    xp = namespace_of(c, rhs, fname="scipy.linalg.cho_solve")
    _square("cho_solve", c)
    return xp, cl, c, bool(lower), rhs


def _cho_solve_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, cl, c, lower, rhs = _cho_solve_setup(sig, args, kwargs)
    y = fn(*args, **kwargs)
    vec = rhs.ndim == 1
    pc, pb = ProjectTo(c, xp), ProjectTo(rhs, xp)
    factor = xp.tril(c) if lower else xp.triu(c)

    @pullback(y, args, name="cho_solve")
    def cho_solve_pullback(y_bar: Any) -> Any:
        b_bar = _once(lambda: fn(cl, y_bar))  # A is Hermitian: A^-H = A^-1

        def c_bar() -> Any:
            a_bar = -_outer(xp, b_bar(), y, vec)
            s = a_bar + _h(xp, a_bar)
            # A = L L^H: L_bar = (A_bar + A_bar^H) L;  A = U^H U: U_bar = U (A_bar + A_bar^H)
            return xp.tril(s @ factor) if lower else xp.triu(factor @ s)

        return _pair_solve_bars(pc, cl, c_bar, pb, b_bar, len(args))

    return y, cho_solve_pullback


def _cho_solve_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, cl, c, lower, rhs = _cho_solve_setup(sig, args, kwargs)
    y = fn(*args, **kwargs)
    dots = _pair_solve_dots("cho_solve", tangents, cl, c, rhs)
    if dots is None:
        return y, ZERO
    dc, db, extra = dots
    vec = rhs.ndim == 1
    r = None if isinstance(db, AbstractZero) else db
    if not isinstance(dc, AbstractZero):
        factor = xp.tril(c) if lower else xp.triu(c)
        dfac = xp.tril(dc) if lower else xp.triu(dc)
        ym = _mat(xp, y, vec)
        if lower:  # dA = dL L^H + L dL^H
            da_y = dfac @ (_h(xp, factor) @ ym) + factor @ (_h(xp, dfac) @ ym)
        else:  # dA = dU^H U + U^H dU
            da_y = _h(xp, dfac) @ (factor @ ym) + _h(xp, factor) @ (dfac @ ym)
        da_y = xp.squeeze(da_y, axis=-1) if vec else da_y
        r = -da_y if r is None else r - da_y
    if extra:
        folded, unfold = _fold(xp, r, extra, vec)
        y_dot = unfold(fn(cl, folded))
    else:
        y_dot = fn(cl, r)
    return y, in_dtype(xp, y_dot, y.dtype)


def _cho_solve_ex(rng: Any) -> list[Any]:
    import numpy as np
    import scipy.linalg as sl

    a = positive_definite(rng, (3, 3))
    b = positive_definite(rng, (2, 2), cplx=True)
    return [
        (((np.asarray(sl.cho_factor(a)[0]), False), rng.standard_normal((3, 2))), {}),
        (((np.linalg.cholesky(a), True), rng.standard_normal(3)), {}),
        (((np.linalg.cholesky(b), True), rng.standard_normal((2, 2)) + 1j), {}),
    ]


# the pair (c, lower) reaches the rules as the pair: an engine must not stack it into an array
_register("cho_solve", _cho_solve_rrule, _cho_solve_frule, _cho_solve_ex, kind="sequence")
