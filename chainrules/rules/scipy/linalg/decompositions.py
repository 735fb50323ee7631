"""``scipy.linalg``'s other decompositions, in SciPy's own signatures: ``eigh``,
``eigh_tridiagonal``, ``qr``, ``qr_multiply``, ``svd`` and ``polar`` (``"scipy:linalg.NAME"``).
Their derivatives are those of the standard's ``linalg`` rules (``chainrules/rules/linalg/``);
the maths notes are in ``docs/rules/scipy-linalg.md``.
"""

from __future__ import annotations

from typing import Any

from ....core.prelude import *
from ..._util import in_dtype, lazy
from ..._util.linalg import (
    _eigh_back,
    _eigh_dot,
    _h,
    _qr_back,
    _qr_dot,
    _svd_back,
    _svd_dot,
    _svd_factors,
    finite_svd,
    hermitian,
)
from ..._util.scipy_linalg import (
    NO,
    ZERO,
    _cplx,
    _first,
    _gather,
    _lapack_float,
    _nz,
    _refuse,
    _register,
    _square,
    _zeros_of,
)


# --- eigh, eigh_tridiagonal ----------------------------------------------------------------------
def _eigh_setup(fn: Any, sig: Any, args: Any, kwargs: Any) -> Any:
    (a,), b = _first(sig, args, kwargs)
    xp = namespace_of(a, fname="scipy.linalg.eigh")
    _square("eigh", a)
    for key in ("b", "subset_by_index", "subset_by_value", "eigvals"):
        if b.get(key) is not None:
            raise ValueError(
                f"eigh: the rule supports the standard problem over the whole spectrum; "
                f"{key}= is not supported"
            )
    if b.get("type", 1) != 1:
        raise ValueError(f"eigh: the rule supports type=1 only, got {b['type']!r}")
    kw = {k: v for k, v in kwargs.items() if k in ("driver", "check_finite", "turbo")}
    w, v = fn(a, lower=bool(b.get("lower", True)), **kw)  # the vectors, also for eigvals_only
    return xp, a, bool(b.get("eigvals_only", False)), w, v


def _eigh_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, only, w, v = _eigh_setup(fn, sig, args, kwargs)
    y = w if only else (w, v)
    project = ProjectTo(a, xp)

    @pullback(y, args, name="eigh")
    def eigh_pullback(y_bar: Any) -> Any:
        w_bar, v_bar = (y_bar, None) if only else (_nz(y_bar[0]), _nz(y_bar[1]))
        return (project(_eigh_back(xp, w, v, w_bar, v_bar)), *[NO] * (len(args) - 1))

    return y, eigh_pullback


def _eigh_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, only, w, v = _eigh_setup(fn, sig, args, kwargs)
    y = w if only else (w, v)
    t = tangents_in("eigh", tangents[:2], (a,))
    if t is None:
        return y, ZERO
    w_dot, v_dot = _eigh_dot(xp, w, v, t[0], vectors=not only)
    return y, w_dot if only else Tangent(w_dot, v_dot, primal_type=type(y))


def _eigh_ex(rng: Any) -> list[Any]:
    return [
        ((hermitian(rng, (3, 3)),), {}),
        ((hermitian(rng, (3, 3)),), {"eigvals_only": True, "lower": False}),
        ((hermitian(rng, (2, 2), cplx=True),), {"eigvals_only": True}),
        ((hermitian(rng, (3, 3)),), {"driver": "evd"}),
    ]


_SIGNS = "eigenvector signs are each library's (and LAPACK driver's) own choice"
_register(
    "eigh",
    _eigh_rrule,
    _eigh_frule,
    _eigh_ex,
    hermitian=(0,),
    gauge=True,
    expect=(
        Expect(
            "numpy",
            "scipy.linalg.eigh's default driver 'evr' picks eigenvector signs that flip under "
            "perturbations of 1e-3, so finite differences of the vectors are meaningless "
            "(example #3, driver='evd', checks them)",
            example="#0",
        ),
        Expect("jit", _SIGNS + ": the jit check's NumPy reference differs by a sign", example="#0"),
        Expect("jax", "jax.scipy.linalg.eigh has no driver=", kind="skip", example="#3"),
        Expect("jit", "jax.scipy.linalg.eigh has no driver=", kind="skip", example="#3"),
    ),
)


def _tridiagonal_index(n: int) -> Any:
    """Positions in ``concat(d, e, [0])`` of the symmetric tridiagonal matrix's entries."""
    import numpy as np

    idx = np.full((n, n), 2 * n - 1)
    idx[np.arange(n), np.arange(n)] = np.arange(n)
    idx[np.arange(n - 1), np.arange(1, n)] = n + np.arange(n - 1)
    idx[np.arange(1, n), np.arange(n - 1)] = n + np.arange(n - 1)
    return idx


def _tridiagonal_setup(fn: Any, sig: Any, args: Any, kwargs: Any) -> Any:
    (d, e), b = _first(sig, args, kwargs, 2)
    xp = namespace_of(d, e, fname="scipy.linalg.eigh_tridiagonal")
    if b.get("select", "a") != "a":
        raise ValueError("eigh_tridiagonal: the rule supports select='a' (the whole spectrum)")
    if d.ndim != 1 or e.shape != (d.shape[0] - 1,) or _cplx(xp, d) or _cplx(xp, e):
        raise ValueError("eigh_tridiagonal: the rule takes real 1-D d (n,) and e (n - 1,)")
    y = fn(*args, **kwargs)
    only = bool(b.get("eigvals_only", False))
    n = d.shape[0]
    idx = _tridiagonal_index(n)
    if only:
        z = xp.zeros((1,), dtype=d.dtype, device=device_of(d))
        w, v = xp.linalg.eigh(_gather(xp, xp.concat([d, e, z]), idx))  # the vectors
        w = y
    else:
        w, v = y
    return xp, d, e, only, y, w, v, idx


def _eigh_tridiagonal_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, d, e, only, y, w, v, _ = _tridiagonal_setup(fn, sig, args, kwargs)
    pd, pe = ProjectTo(d, xp), ProjectTo(e, xp)

    @pullback(y, args, name="eigh_tridiagonal")
    def eigh_tridiagonal_pullback(y_bar: Any) -> Any:
        w_bar, v_bar = (y_bar, None) if only else (_nz(y_bar[0]), _nz(y_bar[1]))
        g = _eigh_back(xp, w, v, w_bar, v_bar)  # symmetric
        e_bar = xp.linalg.diagonal(g, offset=1) + xp.linalg.diagonal(g, offset=-1)
        return (pd(xp.linalg.diagonal(g)), pe(e_bar), *[NO] * (len(args) - 2))

    return y, eigh_tridiagonal_pullback


def _eigh_tridiagonal_frule(
    fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any
) -> Any:
    xp, d, e, only, y, w, v, idx = _tridiagonal_setup(fn, sig, args, kwargs)
    t = tangents_in("eigh_tridiagonal", tangents[:3], (d, e))
    if t is None:
        return y, ZERO
    lead = t.lead()
    dd, de = (
        xp.zeros((*lead, *a.shape), dtype=d.dtype, device=device_of(d))
        if isinstance(x, AbstractZero)
        else x
        for x, a in zip(t, (d, e))
    )
    dt = _gather(xp, xp.concat([dd, de, _zeros_of(xp, dd, 1)], axis=-1), idx)
    w_dot, v_dot = _eigh_dot(xp, w, v, dt, vectors=not only)
    return y, w_dot if only else Tangent(w_dot, v_dot, primal_type=type(y))


def _tridiagonal_ex(rng: Any) -> list[Any]:
    import numpy as np

    return [
        (
            (np.arange(3.0) + rng.uniform(0, 0.2, 3), rng.uniform(0.1, 0.3, 2)),
            {"eigvals_only": True},
        ),
        ((np.arange(4.0) * 1.5 + rng.uniform(0, 0.2, 4), rng.uniform(0.1, 0.3, 3)), {}),
    ]


_register(
    "eigh_tridiagonal",
    _eigh_tridiagonal_rrule,
    _eigh_tridiagonal_frule,
    _tridiagonal_ex,
    gauge=True,
    expect=(
        Expect(
            "jax",
            "jax.scipy.linalg.eigh_tridiagonal's eigenvector signs flip under perturbations of "
            "1e-3, so finite differences of the vectors are meaningless",
            example="#1",
        ),
        Expect("jit", _SIGNS + ": the jit check's NumPy reference differs by a sign", example="#1"),
    ),
)


# --- qr, qr_multiply -----------------------------------------------------------------------------
def _qr_setup(fn: Any, mod: Any, sig: Any, args: Any, kwargs: Any) -> Any:
    (a,), b = _first(sig, args, kwargs)
    xp = namespace_of(a, fname="scipy.linalg.qr")
    if a.ndim < 2:
        raise ValueError(f"qr: expected a (stack of) matrices, got shape {tuple(a.shape)}")
    mode, piv = b.get("mode", "full"), bool(b.get("pivoting", False))
    _refuse("qr", "mode", mode, ("full", "economic", "r"))
    if piv and a.ndim != 2:
        raise ValueError("qr: the rule supports pivoting=True for one matrix (2-D)")
    y = fn(*args, **kwargs)
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    perm = y[-1] if piv else None
    x = xp.take(a, perm, axis=-1) if piv else a  # A[:, P] = Q R
    if mode == "r":
        q, r = mod.qr(x, mode="economic")[:2]
    else:
        q, r = y[0], y[1]
    q2 = q[..., :, k:] if mode == "full" and m > n else None
    return xp, a, x, y, mode, perm, (q[..., :, :k], r[..., :k, :], q2)


def _qr_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, x, y, mode, perm, f = _qr_setup(fn, mod, sig, args, kwargs)
    k = f[1].shape[-2]
    project = ProjectTo(a, xp)

    @pullback(y, args, name="qr")
    def qr_pullback(y_bar: Any) -> Any:
        q_bar, r_bar = (None, _nz(y_bar[0])) if mode == "r" else (_nz(y_bar[0]), _nz(y_bar[1]))
        if r_bar is not None and f[2] is None:
            r_bar = r_bar[..., :k, :]  # the rows below are 0 whatever A is
        g = _qr_back(xp, x, f, q_bar, r_bar, "qr")
        if g is None:
            g = xp.zeros_like(x)
        if perm is not None:
            g = xp.take(g, xp.argsort(perm), axis=-1)
        return (project(g), *[NO] * (len(args) - 1))

    return y, qr_pullback


def _qr_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, x, y, mode, perm, f = _qr_setup(fn, mod, sig, args, kwargs)
    t = tangents_in("qr", tangents[:2], (a,))
    if t is None:
        return y, ZERO
    dx = xp.take(t[0], perm, axis=-1) if perm is not None else t[0]
    dq, dr = _qr_dot(xp, x, f, dx, "qr")
    m, n = a.shape[-2], a.shape[-1]
    if f[2] is None and mode != "economic" and m > n:  # R is m x n: zero rows below
        dr = xp.concat(
            [dr, xp.zeros((*dr.shape[:-2], m - n, n), dtype=dr.dtype, device=device_of(dr))],
            axis=-2,
        )
    dq, dr = in_dtype(xp, dq, x.dtype), in_dtype(xp, dr, x.dtype)
    parts: tuple[Any, ...] = (dr,) if mode == "r" else (dq, dr)
    if perm is not None:
        parts = (*parts, NO)
    return y, Tangent(*parts, primal_type=type(y))


def _qr_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((3, 3)),), {}),
        ((rng.standard_normal((4, 2)),), {"mode": "economic"}),
        ((rng.standard_normal((3, 2)),), {"mode": "r"}),
        ((rng.standard_normal((3, 3)),), {"pivoting": True}),
        ((rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)),), {}),
    ]


_register("qr", _qr_rrule, _qr_frule, _qr_ex)


def _qr_multiply_setup(fn: Any, mod: Any, sig: Any, args: Any, kwargs: Any) -> Any:
    (a, c), b = _first(sig, args, kwargs, 2)
    xp = namespace_of(a, c, fname="scipy.linalg.qr_multiply")
    if b.get("pivoting", False) or b.get("conjugate", False):
        raise ValueError("qr_multiply: the rule supports pivoting=False, conjugate=False")
    if a.ndim != 2 or c.ndim != 2:
        raise ValueError("qr_multiply: the rule takes a matrix a and a matrix c (2-D)")
    right = b.get("mode", "right") == "right"
    y = fn(*args, **kwargs)
    q, r = mod.qr(a, mode="economic")[:2]
    return xp, a, c, y, right, (q, r, None)


def _qr_multiply_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, c, y, right, f = _qr_multiply_setup(fn, mod, sig, args, kwargs)
    pa, pc = ProjectTo(a, xp), ProjectTo(c, xp)
    q = f[0]

    @pullback(y, args, name="qr_multiply")
    def qr_multiply_pullback(y_bar: Any) -> Any:
        cq_bar, r_bar = _nz(y_bar[0]), _nz(y_bar[1])

        def a_bar() -> Any:
            q_bar = None
            if cq_bar is not None:  # right: C Q;  left: Q C
                q_bar = _h(xp, c) @ cq_bar if right else cq_bar @ _h(xp, c)
            g = _qr_back(xp, a, f, q_bar, r_bar, "qr_multiply")
            return pa(xp.zeros_like(a) if g is None else g)

        if cq_bar is None:
            c_bar: Any = ZERO
        else:
            c_bar = lazy(pc, lambda: pc(cq_bar @ _h(xp, q) if right else _h(xp, q) @ cq_bar))
        return (lazy(pa, a_bar), c_bar, *[NO] * (len(args) - 2))

    return y, qr_multiply_pullback


def _qr_multiply_frule(
    fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any
) -> Any:
    xp, a, c, y, right, f = _qr_multiply_setup(fn, mod, sig, args, kwargs)
    t = tangents_in("qr_multiply", tangents[:3], (a, c))
    if t is None:
        return y, ZERO
    da, dc = t
    q = f[0]
    cq_dot: Any = None
    r_dot: Any = ZERO
    if not isinstance(da, AbstractZero):
        dq, r_dot = _qr_dot(xp, a, f, da, "qr_multiply")
        cq_dot = c @ dq if right else dq @ c
        r_dot = in_dtype(xp, r_dot, y[1].dtype)
    if not isinstance(dc, AbstractZero):
        term = dc @ q if right else q @ dc
        cq_dot = term if cq_dot is None else cq_dot + term
    return y, Tangent(in_dtype(xp, cq_dot, y[0].dtype), r_dot, primal_type=type(y))


def _qr_multiply_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((4, 3)), rng.standard_normal((2, 4))), {}),
        ((rng.standard_normal((3, 3)), rng.standard_normal((3, 2))), {"mode": "left"}),
    ]


_register("qr_multiply", _qr_multiply_rrule, _qr_multiply_frule, _qr_multiply_ex)


# --- svd, polar ----------------------------------------------------------------------------------
def _svd_setup(fn: Any, sig: Any, args: Any, kwargs: Any) -> Any:
    (a,), b = _first(sig, args, kwargs)
    xp = namespace_of(a, fname="scipy.linalg.svd")
    if a.ndim < 2:
        raise ValueError(f"svd: expected a (stack of) matrices, got shape {tuple(a.shape)}")
    y = fn(*args, **kwargs)
    uv = bool(b.get("compute_uv", True))
    full = bool(b.get("full_matrices", True)) and uv
    res = y if uv else fn(a, full_matrices=False)
    return xp, a, y, uv, _svd_factors(res, full)


def _svd_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, y, uv, f = _svd_setup(fn, sig, args, kwargs)
    project = ProjectTo(a, xp)

    @pullback(y, args, name="svd")
    def svd_pullback(y_bar: Any) -> Any:
        parts = (_nz(y_bar[0]), _nz(y_bar[1]), _nz(y_bar[2])) if uv else (None, y_bar, None)
        return (project(_svd_back(xp, f, *parts)), *[NO] * (len(args) - 1))

    return y, svd_pullback


def _svd_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, y, uv, f = _svd_setup(fn, sig, args, kwargs)
    t = tangents_in("svd", tangents[:2], (a,))
    if t is None:
        return y, ZERO
    du, ds, dvh = _svd_dot(xp, f, t[0], vectors=uv)
    return y, Tangent(du, ds, dvh, primal_type=type(y)) if uv else ds


def _svd_ex(rng: Any) -> list[Any]:
    from ..._util.linalg import _general

    return [
        ((_general(rng, (3, 3)),), {}),
        ((_general(rng, (4, 3)),), {"full_matrices": False}),
        ((_general(rng, (2, 3)),), {"compute_uv": False}),
    ]


_register("svd", _svd_rrule, _svd_frule, _svd_ex, gauge=True)


def _polar_setup(fn: Any, sig: Any, args: Any, kwargs: Any) -> Any:
    (a,), b = _first(sig, args, kwargs)
    xp = namespace_of(a, fname="scipy.linalg.polar")
    side = b.get("side", "right")
    _refuse("polar", "side", side, ("right", "left"))
    if a.ndim == 2 and 0 in tuple(a.shape):  # no entries: U is empty, P zero, both constant
        return xp, a, fn(*args, **kwargs), side == "right", None
    if a.ndim != 2 or (a.shape[0] < a.shape[1] if side == "right" else a.shape[0] > a.shape[1]):
        raise ValueError(
            "polar: the rule takes a matrix with m >= n for side='right' (m <= n for 'left'), "
            f"got shape {tuple(a.shape)}"
        )
    y = fn(*args, **kwargs)
    # the guarded SVD: one with vectors of a matrix holding an inf never returns in some
    # OpenBLAS builds (SciPy's polar itself raises there)
    w, s, vh = finite_svd(xp, _lapack_float(xp, a), full_matrices=False)
    return xp, a, y, side == "right", _svd_factors((w, s, vh), False)


def _polar_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, y, right, f = _polar_setup(fn, sig, args, kwargs)
    project = ProjectTo(a, xp)
    if f is None:  # a zero-size a

        @pullback(y, args, name="polar")
        def polar_empty_pullback(y_bar: Any) -> Any:
            return (project(xp.zeros_like(a)), *[NO] * (len(args) - 1))

        return y, polar_empty_pullback
    w, s, vh = f[0], f[1], f[2]

    @pullback(y, args, name="polar")
    def polar_pullback(y_bar: Any) -> Any:
        # U = W Vh; P = V S V^H (right) or W S W^H (left): chain into svd's pullback
        u_bar, p_bar = _nz(y_bar[0]), _nz(y_bar[1])
        w_bar = vh_bar = s_bar = None
        if u_bar is not None:
            w_bar, vh_bar = u_bar @ _h(xp, vh), _h(xp, w) @ u_bar
        if p_bar is not None:
            sym = p_bar + _h(xp, p_bar)
            basis = _h(xp, vh) if right else w
            s_bar = xp.linalg.diagonal(_h(xp, basis) @ p_bar @ basis)
            s_bar = xp.real(s_bar) if _cplx(xp, s_bar) else s_bar
            b_bar = sym @ basis * xp.astype(s, basis.dtype)[..., None, :]
            if right:
                vh_bar = _h(xp, b_bar) if vh_bar is None else vh_bar + _h(xp, b_bar)
            else:
                w_bar = b_bar if w_bar is None else w_bar + b_bar
        return (project(_svd_back(xp, f, w_bar, s_bar, vh_bar)), *[NO] * (len(args) - 1))

    return y, polar_pullback


def _polar_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, y, right, f = _polar_setup(fn, sig, args, kwargs)
    t = tangents_in("polar", tangents[:2], (a,))
    if t is None or f is None:  # f None: a zero-size a, nothing moves
        return y, ZERO
    w, s, vh = f[0], f[1], f[2]
    dw, ds, dvh = _svd_dot(xp, f, t[0], vectors=True)
    u_dot = dw @ vh + w @ dvh
    basis, d_basis = (_h(xp, vh), _h(xp, dvh)) if right else (w, dw)
    sc = xp.astype(s, basis.dtype)[..., None, :]
    half = d_basis * sc @ _h(xp, basis)
    p_dot = half + _h(xp, half) + (basis * xp.astype(ds, basis.dtype)[..., None, :]) @ _h(xp, basis)
    return y, Tangent(
        in_dtype(xp, u_dot, y[0].dtype), in_dtype(xp, p_dot, y[1].dtype), primal_type=type(y)
    )


def _polar_ex(rng: Any) -> list[Any]:
    from ..._util.linalg import _general

    return [
        ((_general(rng, (3, 3)),), {}),
        ((_general(rng, (3, 2)),), {}),
        ((_general(rng, (2, 2)),), {"side": "left"}),
    ]


_QDWH = "jax.scipy.linalg.polar (method='qdwh') refuses a square matrix with side='left'"
_register(
    "polar",
    _polar_rrule,
    _polar_frule,
    _polar_ex,
    expect=(
        Expect("jax", _QDWH, kind="skip", example="#2"),
        Expect("jit", _QDWH, example="#2"),
    ),
)
