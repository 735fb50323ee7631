"""``scipy.linalg``'s LU factorisation and its solve: ``lu``, ``lu_factor``, ``lu_solve``
(``"scipy:linalg.NAME"``). The maths notes are in ``docs/rules/scipy-linalg.md``; the short form:

* ``lu`` (``P^T A = L U``, padded to square ``L_p``, ``U_p``): ``X = L_p^-1 P^T dA U_p^-1``,
  ``dL = L_p tril(X, -1)``, ``dU = triu(X) U_p``; the permutation is piecewise constant.
* ``lu_factor``/``lu_solve`` use ``lu_solve`` for every product with ``P`` (no permutation is
  built from the pivots): ``L^-1 P^T dA = U A^-1 dA``.
"""

from __future__ import annotations

from typing import Any

from ....core.prelude import *
from ..._util import in_dtype
from ..._util.linalg import _h, named_singular
from ..._util.scipy_linalg import (
    NO,
    ZERO,
    _conj,
    _first,
    _fold,
    _general_ex,
    _mat,
    _once,
    _pair_solve_bars,
    _pair_solve_dots,
    _register,
    _square,
    _t,
    _trans,
    _trsm,
)


# --- lu_factor, lu_solve, lu ---------------------------------------------------------------------
def _unit_lower(xp: Any, lu: Any) -> Any:
    return xp.tril(lu, k=-1) + xp.eye(
        lu.shape[-2], lu.shape[-1], dtype=lu.dtype, device=device_of(lu)
    )


def _right_solve(
    mod: Any, xp: Any, t: Any, x: Any, extra: int, lower: bool, unit: bool = False
) -> Any:
    """``X T^-1`` for the triangle of ``t``: ``(T^-H X^H)^H``."""
    kw = {"trans": 2, "lower": lower, "unit_diagonal": unit}
    return _h(xp, _trsm(mod, xp, t, _h(xp, x), extra, False, **kw))


def _lu_solve_chunk(
    mod: Any, xp: Any, lu_piv: Any, r: Any, extra: int, vec: bool, trans: int
) -> Any:
    if extra:
        folded, unfold = _fold(xp, r, extra, vec)
        return unfold(mod.lu_solve(lu_piv, folded, trans=trans))
    return mod.lu_solve(lu_piv, r, trans=trans)


def _lu_factor_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    (a,), _ = _first(sig, args, kwargs)
    xp = namespace_of(a, fname="scipy.linalg.lu_factor")
    trivial = _trivial_lu("lu_factor", a)
    y = fn(*args, **kwargs)
    lu = y[0]
    project = ProjectTo(a, xp)

    @pullback(y, args, name="lu_factor")
    def lu_factor_pullback(y_bar: Any) -> Any:
        rest = [NO] * (len(args) - 1)
        if not project.differentiable:
            return (NO, *rest)
        lu_bar = y_bar[0]
        if trivial:  # a 0-d a is its own LU (L = 1, U = a); a zero-size one has no entries
            return (project(lu_bar if a.ndim == 0 else xp.zeros_like(a)), *rest)
        f_bar = xp.tril(_h(xp, _unit_lower(xp, lu)) @ xp.tril(lu_bar, k=-1), k=-1)
        f_bar = f_bar + xp.triu(xp.triu(lu_bar) @ _h(xp, xp.triu(lu)))
        # A_bar = P L^-H F_bar U^-H = A^-H U^H (F_bar U^-H)
        g = _singular("lu_factor", lambda: mod.solve_triangular(lu, _h(xp, f_bar), lower=False))
        g = _h(xp, g)
        w = _h(xp, xp.triu(lu)) @ g
        return (project(mod.lu_solve((lu, y[1]), w, trans=2)), *rest)

    return y, lu_factor_pullback


def _lu_factor_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    (a,), _ = _first(sig, args, kwargs)
    xp = namespace_of(a, fname="scipy.linalg.lu_factor")
    trivial = _trivial_lu("lu_factor", a)
    y = fn(*args, **kwargs)
    t = tangents_in("lu_factor", tangents[:2], (a,))
    if t is None:
        return y, ZERO
    lu = y[0]
    if trivial:  # 0-d: dlu = da; zero-size: nothing moves
        dlu = (
            t[0]
            if a.ndim == 0
            else xp.zeros((*t[0].shape[: t.extra], *lu.shape), dtype=lu.dtype, device=device_of(a))
        )
        return y, Tangent(in_dtype(xp, dlu, lu.dtype), NO, primal_type=type(y))
    u = xp.triu(lu)
    # F = L^-1 P^T dA U^-1 = U (A^-1 dA) U^-1
    z = _lu_solve_chunk(mod, xp, y, t[0], t.extra, False, 0)
    f = _right_solve(mod, xp, lu, u @ z, t.extra, False)
    dlu = _unit_lower(xp, lu) @ xp.tril(f, k=-1) + xp.triu(f) @ u
    return y, Tangent(in_dtype(xp, dlu, lu.dtype), NO, primal_type=type(y))


def _trivial_lu(name: str, a: Any) -> bool:
    """Whether ``a`` is 0-d or zero-size (SciPy factors both: a 0-d ``a`` is its own LU);
    otherwise ``a`` must be a (stack of) square matrices."""
    if getattr(a, "ndim", 0) == 0 or 0 in tuple(a.shape):
        return True
    _square(name, a)  # the pullback's products with P go through lu_solve
    return False


def _singular(name: str, solve: Any) -> Any:
    """``solve()``, a singular ``U``'s LinAlgError re-raised naming the rule."""
    return named_singular(name, "the pullback needs U^-1", solve)


def _lu_factor_ex(rng: Any) -> list[Any]:
    return [((_general_ex(rng, 3),), {}), ((_general_ex(rng, 2, True),), {})]


_register("lu_factor", _lu_factor_rrule, _lu_factor_frule, _lu_factor_ex)


def _lu_solve_setup(sig: Any, args: Any, kwargs: Any) -> Any:
    (lp, rhs), b = _first(sig, args, kwargs, 2)
    if not isinstance(lp, (tuple, list)) or len(lp) != 2:
        raise TypeError("lu_solve: the first argument must be the pair (lu, piv) of lu_factor")
    lu = lp[0]
    xp = namespace_of(lu, rhs, fname="scipy.linalg.lu_solve")
    _square("lu_solve", lu)
    return xp, lp, lu, rhs, _trans("lu_solve", b.get("trans", 0))


def _lu_solve_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, lp, lu, rhs, tr = _lu_solve_setup(sig, args, kwargs)
    y = fn(*args, **kwargs)
    vec = rhs.ndim == 1
    pl, pb = ProjectTo(lu, xp), ProjectTo(rhs, xp)

    def inv_lu_h(v: Any) -> Any:  # L^-H U^-H v (= P^T A^-H v)
        w = mod.solve_triangular(lu, v, trans=2, lower=False)
        return mod.solve_triangular(lu, w, trans=2, lower=True, unit_diagonal=True)

    def inv_lu_t(v: Any) -> Any:  # L^-T U^-T v (= P^T A^-T v)
        w = mod.solve_triangular(lu, v, trans=1, lower=False)
        return mod.solve_triangular(lu, w, trans=1, lower=True, unit_diagonal=True)

    @pullback(y, args, name="lu_solve")
    def lu_solve_pullback(y_bar: Any) -> Any:
        # W = P^T A_bar as p q^H, then lu_bar = tril(W U^H, -1) + triu(L^H W)
        def solved() -> Any:
            if tr == 0:
                return mod.lu_solve(lp, y_bar, trans=2)
            if tr == 1:
                return _conj(xp, mod.lu_solve(lp, _conj(xp, y_bar), trans=0))
            return mod.lu_solve(lp, y_bar, trans=0)

        b_bar = _once(solved)

        def lu_bar() -> Any:
            if tr == 0:
                p, q = inv_lu_h(y_bar), y
            elif tr == 1:
                p, q = _conj(xp, inv_lu_t(rhs)), _conj(xp, b_bar())
            else:
                p, q = inv_lu_h(rhs), b_bar()
            u = xp.triu(lu)
            pm, qm = _mat(xp, p, vec), _mat(xp, q, vec)
            return -xp.tril(pm @ _h(xp, u @ qm), k=-1) - xp.triu(
                (_h(xp, _unit_lower(xp, lu)) @ pm) @ _h(xp, qm)
            )

        return _pair_solve_bars(pl, lp, lu_bar, pb, b_bar, len(args))

    return y, lu_solve_pullback


def _lu_solve_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, lp, lu, rhs, tr = _lu_solve_setup(sig, args, kwargs)
    y = fn(*args, **kwargs)
    dots = _pair_solve_dots("lu_solve", tangents, lp, lu, rhs)
    if dots is None:
        return y, ZERO
    dlu, db, extra = dots
    vec = rhs.ndim == 1
    dl, du = xp.tril(dlu, k=-1) if not isinstance(dlu, AbstractZero) else None, None
    low, u = _unit_lower(xp, lu), xp.triu(lu)
    if tr == 0:
        y_dot = None
        if not isinstance(db, AbstractZero):
            y_dot = _lu_solve_chunk(mod, xp, lp, db, extra, vec, 0)
        if dl is not None:
            du = xp.triu(dlu)
            ym = _mat(xp, y, vec)
            # A^-1 dA x = U^-1 (L^-1 dL U x + dU x)
            v = _trsm(mod, xp, lu, dl @ (u @ ym), extra, False, lower=True, unit_diagonal=True)
            v = _trsm(mod, xp, lu, v + du @ ym, extra, False, lower=False)
            v = xp.squeeze(v, axis=-1) if vec else v
            y_dot = -v if y_dot is None else y_dot - v
        return y, in_dtype(xp, y_dot, y.dtype)
    r = None if isinstance(db, AbstractZero) else db
    if dl is not None:
        du = xp.triu(dlu)
        op = _t if tr == 1 else _h
        z = mod.solve_triangular(lu, rhs, trans=tr, lower=False)
        z = _mat(xp, mod.solve_triangular(lu, z, trans=tr, lower=True, unit_diagonal=True), vec)
        term = op(xp, dl @ u + low @ du) @ z  # op(L^-1... ) = op(P^T dA) applied to P^T x
        term = xp.squeeze(term, axis=-1) if vec else term
        r = -term if r is None else r - term
    return y, in_dtype(xp, _lu_solve_chunk(mod, xp, lp, r, extra, vec, tr), y.dtype)


def _lu_solve_ex(rng: Any) -> list[Any]:
    import scipy.linalg as sl

    a, c = _general_ex(rng, 3), _general_ex(rng, 2, True)
    return [
        ((sl.lu_factor(a), rng.standard_normal((3, 2))), {}),
        ((sl.lu_factor(a), rng.standard_normal(3)), {"trans": 1}),
        ((sl.lu_factor(c), rng.standard_normal(2) + 1j), {"trans": 2}),
        ((sl.lu_factor(c), rng.standard_normal((2, 2)) + 1j), {"trans": 0}),
    ]


_PIV32 = (
    "jax.scipy.linalg.lu_solve takes int32 pivots only (jax.lax.linalg.lu_pivots_to_permutation), "
    "and the checker hands integer arrays over as int64 (tests/rules/scipy/linalg/test_lu.py "
    "checks JAX's own pivots)"
)
_register(
    "lu_solve",
    _lu_solve_rrule,
    _lu_solve_frule,
    _lu_solve_ex,
    expect=(*(Expect("jax", _PIV32, kind="skip", example=f"#{i}") for i in range(4)),),
    kind="sequence",  # the pair (lu, piv) reaches the rules as the pair, never stacked
)


def _pad_eye(xp: Any, x: Any, rows: int, cols: int, axis: int) -> Any:
    """``x`` extended to a square matrix with ``[0 I]`` rows (``axis=-2``) or columns (``-1``)."""
    if axis == -1:
        extra = cols - x.shape[-1]
        if not extra:
            return x
        e = xp.eye(rows, extra, k=-(rows - extra), dtype=x.dtype, device=device_of(x))
        return xp.concat([x, xp.broadcast_to(e, (*x.shape[:-2], rows, extra))], axis=-1)
    extra = rows - x.shape[-2]
    if not extra:
        return x
    e = xp.eye(extra, cols, k=cols - extra, dtype=x.dtype, device=device_of(x))
    return xp.concat([x, xp.broadcast_to(e, (*x.shape[:-2], extra, cols))], axis=-2)


def _lu_setup(fn: Any, mod: Any, sig: Any, args: Any, kwargs: Any) -> Any:
    """``(xp, a, y, P, L, U, permute_l)`` of an ``lu`` call (``P`` as a matrix)."""
    (a,), b = _first(sig, args, kwargs)
    xp = namespace_of(a, fname="scipy.linalg.lu")
    if a.ndim < 2:
        raise ValueError(f"lu: expected a (stack of) matrices, got shape {tuple(a.shape)}")
    y = fn(*args, **kwargs)
    permute_l, indices = bool(b.get("permute_l", False)), bool(b.get("p_indices", False))
    if permute_l:
        p, low, u = fn(a)  # the factors apart, for the derivative
    else:
        p, low, u = y
    if indices and not permute_l:
        m = a.shape[-2]
        ar = xp.arange(m, device=device_of(a))
        p = xp.astype(xp.expand_dims(p, axis=-1) == ar, low.dtype)  # P[i, p_i] = 1
    m = a.shape[-2]
    if tuple(p.shape) != (*a.shape[:-2], m, m):  # SciPy's P of a (0, m, n) stack is (0, 0, 0)
        p = xp.zeros((*a.shape[:-2], m, m), dtype=low.dtype, device=device_of(a))
    return xp, a, y, p, low, u, permute_l


def _lu_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, y, p, low, u, permute_l = _lu_setup(fn, mod, sig, args, kwargs)
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    lp, up = _pad_eye(xp, low, m, m, -1), _pad_eye(xp, u, n, n, -2)
    project = ProjectTo(a, xp)

    @pullback(y, args, name="lu")
    def lu_pullback(y_bar: Any) -> Any:
        if not project.differentiable:  # a bool / int a
            return (NO, *[NO] * (len(args) - 1))
        l_bar, u_bar = (y_bar[0], y_bar[1]) if permute_l else (y_bar[1], y_bar[2])
        if permute_l and not isinstance(l_bar, AbstractZero):
            l_bar = _h(xp, p) @ l_bar  # PL_bar -> L_bar
        lau_bar = None
        if not isinstance(l_bar, AbstractZero):
            if n > k:
                z = xp.zeros((*l_bar.shape[:-1], n - k), dtype=l_bar.dtype, device=device_of(a))
                l_bar = xp.concat([l_bar, z], axis=-1)
            lau_bar = xp.tril(_h(xp, lp) @ l_bar, k=-1)
        if not isinstance(u_bar, AbstractZero):
            if m > k:
                z = xp.zeros((*u_bar.shape[:-2], m - k, n), dtype=u_bar.dtype, device=device_of(a))
                u_bar = xp.concat([u_bar, z], axis=-2)
            term = xp.triu(u_bar @ _h(xp, up))
            lau_bar = term if lau_bar is None else lau_bar + term
        if lau_bar is None:  # only P's cotangent: P is piecewise constant, A's is zero
            return (ZERO, *[NO] * (len(args) - 1))
        x_bar = mod.solve_triangular(lp, lau_bar, trans=2, lower=True, unit_diagonal=True)
        xh = _h(xp, x_bar)
        x_bar = _h(xp, _singular("lu", lambda: mod.solve_triangular(up, xh, lower=False)))  # XU^-H
        return (project(p @ x_bar), *[NO] * (len(args) - 1))

    return y, lu_pullback


def _lu_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, y, p, low, u, permute_l = _lu_setup(fn, mod, sig, args, kwargs)
    t = tangents_in("lu", tangents[:2], (a,))
    if t is None:
        return y, ZERO
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    lp, up = _pad_eye(xp, low, m, m, -1), _pad_eye(xp, u, n, n, -2)
    x = _h(xp, p) @ t[0]
    lau = _trsm(mod, xp, lp, x, t.extra, False, lower=True, unit_diagonal=True)
    lau = _right_solve(mod, xp, up, lau, t.extra, False)
    dl = (lp @ xp.tril(lau, k=-1))[..., :, :k]
    du = (xp.triu(lau) @ up)[..., :k, :]
    dl, du = in_dtype(xp, dl, low.dtype), in_dtype(xp, du, u.dtype)
    if permute_l:
        return y, Tangent(p @ dl, du, primal_type=type(y))
    p_dot = NO if xp.isdtype(y[0].dtype, "integral") else ZERO
    return y, Tangent(p_dot, dl, du, primal_type=type(y))


def _lu_ex(rng: Any) -> list[Any]:
    return [
        ((_general_ex(rng, 3),), {}),
        ((rng.standard_normal((4, 3)),), {}),
        ((rng.standard_normal((2, 3)),), {"permute_l": True}),
        ((_general_ex(rng, 2, True),), {}),
    ]


_register("lu", _lu_rrule, _lu_frule, _lu_ex)
