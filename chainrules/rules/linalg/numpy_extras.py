"""Rules for NumPy's ``linalg`` functions beyond the standard (``"numpy:linalg.NAME"``, which
covers NumPy, ``jax.numpy`` and CuPy where they have the function): ``eig``, ``eigvals``,
``lstsq``, ``multi_dot``, ``cond``, ``tensorsolve``, ``tensorinv``.

Maths notes
-----------
``A^H`` is the conjugate transpose, ``∘`` the elementwise product; cotangents follow DESIGN.md
(``x_bar = dL/dRe + i dL/dIm``).

* ``eig`` (``A = V diag(w) V^-1``): ``K = V^-1 dA V``, ``dw = diag(K)``,
  ``dV = V (F ∘ K + diag(c))`` with ``F_ij = 1 / (w_j - w_i)`` off the diagonal (0 on it and
  at degenerate eigenvalues). ``c`` fixes the gauge to LAPACK's (``geev``): every eigenvector
  has unit norm (``Re c_j = -Re (V^H V (F ∘ K))_jj``) and its largest-modulus entry ``k_j`` real
  (``Im c_j = -Im (V (F ∘ K))_{k_j j} / V_{k_j j}``). The pullback is the adjoint: with
  ``W = V^H V_bar``, ``G = W - V^H V diag(Re diag W) - V^H Q`` (``Q`` holds
  ``i Im W_jj / V_{k_j j}`` at ``(k_j, j)``), ``A_bar = V^-H (conj(F) ∘ G + diag(w_bar)) V^H``.
  ``eigvals``: ``A_bar = V^-H diag(w_bar) V^H``.
* ``lstsq`` (``x = P b``, ``P = pinv(A)`` at the cutoff ``rcond``, from the SVD
  ``A = U S V^H``; ``r = b - A x``): ``b_bar = P^H x_bar``, ``A_bar = -b_bar x^H + r (P b_bar)^H
  + (P^H x) ((I - P A) x_bar)^H`` (the pinv rule of Golub and Pereyra applied to ``P b``); the
  residuals ``||r_j||^2``: ``b_bar += 2 r res_bar``, ``A_bar -= 2 (r res_bar) x^H`` and
  ``x_bar -= 2 A^H (r res_bar)`` before the above; the singular values: ``A_bar += U diag(s_bar)
  V^H``. ``rank`` is an integer: no tangent. The rank is fixed (the cutoff decides it).
* ``multi_dot``: the product is evaluated in the optimal order of the matrix chain (the same
  dynamic programme as NumPy's, on shapes only) and every node ``C = L R`` pulls back
  ``L_bar = C_bar R^H``, ``R_bar = L^H C_bar``: the pullback costs about twice the product.
* ``cond``: ``p`` in ``(None, 2, -2)``: ``s_max / s_min`` (or its inverse) from the singular
  values, ``A_bar = U diag(s_bar) V^H``; any other ``p``: ``norm(x, p) * norm(inv(x), p)``
  differentiated through the rules of ``numpy:linalg.norm`` and ``linalg.inv``.
* ``tensorsolve`` / ``tensorinv``: NumPy reshapes to one square matrix; the rules are those of
  ``solve`` / ``inv`` on that matrix, reshaped (and permuted for ``axes``) back.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from ...core.examples import Expect
from ...core.namespaces import device_of, namespace_of
from ...core.projection import ProjectTo
from ...core.registry import frule, register_frule, register_rrule, rrule
from ...core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent
from ...core.toolkit import pullback, signature, tangents_in
from .._util import axis_ints, in_dtype, lazy
from .decompositions import _solve, finite_svd
from .solvers import _numpy_module

_NO = NoTangent()
_ZERO = ZeroTangent()


# --- small helpers -------------------------------------------------------------------------------
def _complex(xp: Any, x: Any) -> bool:
    return bool(xp.isdtype(x.dtype, "complex floating"))


def _h(xp: Any, x: Any) -> Any:
    t = xp.matrix_transpose(x)
    return xp.conj(t) if _complex(xp, t) else t


def _conj(xp: Any, x: Any) -> Any:
    return xp.conj(x) if _complex(xp, x) else x


def _re(xp: Any, x: Any) -> Any:
    return xp.real(x) if _complex(xp, x) else x


def _as(xp: Any, x: Any, dtype: Any) -> Any:
    """``x`` in ``dtype``, without the copy ``astype`` makes when it already is."""
    return x if x.dtype == dtype else xp.astype(x, dtype)


def _diag(xp: Any, m: Any) -> Any:
    return xp.linalg.diagonal(m)


def _eye_times(xp: Any, v: Any, dtype: Any) -> Any:
    n = v.shape[-1]
    return xp.eye(n, dtype=dtype, device=device_of(v)) * xp.astype(v, dtype)[..., None, :]


def _square(name: str, x: Any) -> None:
    if getattr(x, "ndim", 0) < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"{name}: expected a (stack of) square matrices, got shape "
            f"{tuple(getattr(x, 'shape', ()))}"
        )


def _matrix2(name: str, what: str, x: Any) -> None:
    if getattr(x, "ndim", 0) != 2:
        raise ValueError(
            f"{name}: {what} must be a matrix (2-D), got shape {tuple(getattr(x, 'shape', ()))}"
        )


# --- eig, eigvals --------------------------------------------------------------------------------
_EIG = signature("linalg.eig", lambda a, /: None)
_EIGVALS = signature("linalg.eigvals", lambda a, /: None)


def _eig(name: str, sig: Any, args: Any, kwargs: Any) -> tuple[Any, Any, Any]:
    a = sig.bind(args, kwargs)["a"]
    xp = namespace_of(a, fname=name)
    _square(name, a)
    return xp, a, _numpy_module(xp).linalg.eig(a)


def _eig_gaps(xp: Any, w: Any, conj: bool = False) -> Any:
    """``F_ij = 1 / (w_j - w_i)`` (its conjugate with ``conj``), 0 on the diagonal and where
    ``|w_j - w_i| <= 10 n eps max|w|`` (degenerate eigenvalues: the rotation within the
    eigenspace is dropped). Computed as ``conj(d) / |d|^2``: a real division, no square root."""
    n = w.shape[-1]
    d = w[..., None, :] - w[..., :, None]
    mag = xp.abs(w)
    eps = float(xp.finfo(mag.dtype).eps)
    if n == 0:
        return d
    tol = (10.0 * n * eps) * xp.max(mag, axis=-1, keepdims=True)[..., None]
    m = _numpy_module(xp)  # NumPy's where takes the scalars: no full-size zeros and ones
    if _complex(xp, d):
        d2 = xp.real(d) ** 2 + xp.imag(d) ** 2
        small = d2 <= tol * tol
        num = d if conj else xp.conj(d)
        return m.where(small, 0, num / m.where(small, 1, d2))
    small = xp.abs(d) <= tol
    return m.where(small, 0, 1 / m.where(small, 1, d))


def _gauge(xp: Any, v: Any) -> tuple[Any, Any]:
    """LAPACK's gauge: the mask ``E`` (``E_ij``: ``i`` is column ``j``'s largest-modulus entry,
    the first one on a tie) and that entry's value, real (``(..., n)``). ``argmax`` and a
    comparison: nothing reaches the host."""
    n = v.shape[-2]
    k = xp.argmax(xp.abs(v), axis=-2, keepdims=True)  # (..., 1, n)
    rows = xp.reshape(xp.arange(n, device=device_of(v)), (n, 1))
    mask = rows == k
    top = xp.sum(_numpy_module(xp).where(mask, v, 0), axis=-2)
    return mask, _re(xp, top)


def _eig_back(xp: Any, w: Any, v: Any, w_bar: Any, v_bar: Any) -> Any:
    """``A_bar`` of ``eig`` (maths notes); ``None`` is a zero cotangent."""
    g = None
    vh = _h(xp, v)
    if v_bar is not None:
        wm = vh @ _as(xp, v_bar, v.dtype)
        dw = _diag(xp, wm)
        g = wm - (vh @ v) * _re(xp, dw)[..., None, :]
        if _complex(xp, v):
            mask, top = _gauge(xp, v)
            q = _numpy_module(xp).where(mask, (1j * xp.imag(dw) / top)[..., None, :], 0)
            g = g - vh @ q
        g = _eig_gaps(xp, w, conj=True) * g
    if w_bar is not None:
        d = _eye_times(xp, w_bar, v.dtype)
        g = d if g is None else g + d
    return _numpy_module(xp).linalg.solve(vh, g @ vh)  # NumPy's: no compat wrapper (square b)


def _eig_dot(xp: Any, w: Any, v: Any, a_dot: Any, vectors: bool) -> tuple[Any, Any]:
    k = _solve(xp, v, _as(xp, a_dot, v.dtype) @ v)  # V^-1 dA V (chunk axes lead)
    w_dot = in_dtype(xp, _diag(xp, k), w.dtype)
    if not vectors:
        return w_dot, None
    dv0 = v @ (_eig_gaps(xp, w) * k)
    c = -_re(xp, xp.sum(_conj(xp, v) * dv0, axis=-2))  # unit norm
    if _complex(xp, v):
        mask, top = _gauge(xp, v)
        im = -xp.imag(xp.sum(xp.where(mask, dv0, xp.zeros_like(dv0)), axis=-2)) / top
        c = xp.astype(c, v.dtype) + 1j * im  # the largest entry stays real
    return w_dot, in_dtype(xp, dv0 + v * c[..., None, :], v.dtype)


def _eig_ex(rng: Any) -> list[Any]:
    import numpy as np

    def well(n: int, *batch: int, cplx: bool = False) -> Any:
        # well-separated eigenvalues 1, 2.5, 4, ... under a random similarity
        z = rng.standard_normal((*batch, n, n)) + (
            1j * rng.standard_normal((*batch, n, n)) if cplx else 0
        )
        s = z + 2 * np.eye(n)
        d = 1.0 + 1.5 * np.arange(n)
        return s @ (d[:, None] * np.linalg.inv(s))

    rot = np.array([[0.3, -2.0, 0.1], [2.0, 0.2, 0.4], [0.0, 0.3, 3.0]])  # a complex pair
    return [
        ((well(3),), {}),
        ((rot,), {}),
        ((well(2, 2),), {}),
        ((well(3, cplx=True),), {}),
    ]


@register_rrule("numpy:linalg.eig", examples=_eig_ex)
def eig_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, a, res = _eig("linalg.eig", _EIG, args, kwargs)
    w, v = res[0], res[1]
    project = ProjectTo(a, xp)

    @pullback(res, args, name="linalg.eig")
    def eig_pullback(y_bar: tuple[Any, Any]) -> Any:
        w_bar, v_bar = (None if isinstance(p, AbstractZero) else p for p in y_bar)
        return project(_eig_back(xp, w, v, w_bar, v_bar))

    return res, eig_pullback


@register_frule("numpy:linalg.eig", examples=_eig_ex)
def eig_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, res = _eig("linalg.eig", _EIG, args, kwargs)
    t = tangents_in("linalg.eig", tangents, (a,))
    if t is None:
        return res, _ZERO
    w_dot, v_dot = _eig_dot(xp, res[0], res[1], t[0], vectors=True)
    return res, Tangent(w_dot, v_dot, primal_type=type(res))


@register_rrule("numpy:linalg.eigvals", examples=_eig_ex)
def eigvals_rrule(*args: Any, **kwargs: Any) -> Any:
    # eig's eigenvalues: the same LAPACK call, and the eigenvectors the derivative needs
    xp, a, (w, v) = _eig("linalg.eigvals", _EIGVALS, args, kwargs)
    project = ProjectTo(a, xp)

    @pullback(w, args, name="linalg.eigvals")
    def eigvals_pullback(w_bar: Any) -> Any:
        return project(_eig_back(xp, w, v, w_bar, None))

    return w, eigvals_pullback


@register_frule("numpy:linalg.eigvals", examples=_eig_ex)
def eigvals_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, (w, v) = _eig("linalg.eigvals", _EIGVALS, args, kwargs)
    t = tangents_in("linalg.eigvals", tangents, (a,))
    if t is None:
        return w, _ZERO
    return w, _eig_dot(xp, w, v, t[0], vectors=False)[0]


# --- lstsq ---------------------------------------------------------------------------------------
# NumPy's lstsq(a, b, rcond=None); JAX's adds numpy_resid= (keyword-only)
_LSTSQ = signature("linalg.lstsq", lambda a, b, rcond=None, *, numpy_resid=False: None)


def _lstsq(args: Any, kwargs: Any) -> tuple[Any, ...]:
    p = _LSTSQ.bind(args, kwargs)
    a, b, rcond = p["a"], p["b"], p["rcond"]
    xp = namespace_of(a, b, fname="linalg.lstsq")
    _matrix2("linalg.lstsq", "a", a)
    if getattr(b, "ndim", 0) not in (1, 2):
        raise ValueError(
            f"linalg.lstsq: b must be 1-D or 2-D, got shape {tuple(getattr(b, 'shape', ()))}"
        )
    y = _numpy_module(xp).linalg.lstsq(*args, **kwargs)
    return xp, a, b, rcond, tuple(y)


def _lstsq_factors(xp: Any, a: Any, rcond: Any) -> tuple[Any, Any, Any, Any, Any]:
    """``(U, s, Vh, mask, 1/s)`` of ``a``: the reduced SVD and the singular values kept by the
    cutoff ``rcond * s_max`` (``rcond=None``: ``eps max(m, n)``; negative: ``eps``), as LAPACK's
    ``gelsd`` decides the rank. Masks and ``where``: nothing is read on the host."""
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    eps = float(xp.finfo(s.dtype).eps)
    if rcond is None:
        cut: Any = eps * max(a.shape)
    elif isinstance(rcond, (int, float)):
        cut = eps if rcond < 0 else float(rcond)
    else:  # an array cutoff (JAX)
        cut = xp.where(rcond < 0, eps, rcond)
    mask = s > 0 if s.shape[-1] == 0 else s > cut * xp.max(s, axis=-1, keepdims=True)
    sinv = xp.where(mask, 1 / xp.where(mask, s, xp.ones_like(s)), xp.zeros_like(s))
    return u, s, vh, mask, sinv


def _col(xp: Any, v: Any, vec: bool) -> Any:
    return xp.expand_dims(v, axis=-1) if vec else v


def _lstsq_back(
    xp: Any,
    a: Any,
    b: Any,
    y: tuple[Any, ...],
    f: tuple[Any, ...],
    bars: list[Any],
    need_a: bool = True,
) -> tuple[Any, Any]:
    """``(A_bar, b_bar)`` of ``lstsq`` (maths notes); ``None`` entries of ``bars`` are zero.
    Without ``need_a``, ``A_bar`` is not computed (``None``)."""
    u, _, vh, mask, sinv = f
    x_bar, res_bar, _, s_bar = bars
    vec = b.ndim == 1
    dt = u.dtype
    xm = _as(xp, _col(xp, y[0], vec), dt)
    bm = _as(xp, _col(xp, b, vec), dt)
    v, uh = _h(xp, vh), _h(xp, u)
    a_bar: Any = None
    b_bar: Any = None
    xb: Any = None if x_bar is None else _as(xp, _col(xp, x_bar, vec), dt)
    r = bm - _as(xp, a, dt) @ xm
    if res_bar is not None and y[1].shape[-1] != 0:
        rr = r * _as(xp, res_bar, dt)  # r diag(res_bar)
        b_bar = 2 * rr
        if need_a:
            a_bar = -2 * (rr @ _h(xp, xm))
        t = -2 * (_h(xp, _as(xp, a, dt)) @ rr)
        xb = t if xb is None else xb + t
    if xb is not None:
        bx = u @ (sinv[:, None] * (vh @ xb))  # P^H xb
        if need_a:
            pb = v @ (sinv[:, None] * (uh @ bx))  # P bx
            px = u @ (sinv[:, None] * (vh @ xm))  # P^H x
            rest = xb - v @ (xp.astype(mask, dt)[:, None] * (vh @ xb))  # (I - P A) xb
            g = -(bx @ _h(xp, xm)) + r @ _h(xp, pb) + px @ _h(xp, rest)
            a_bar = g if a_bar is None else a_bar + g
        b_bar = bx if b_bar is None else b_bar + bx
    if s_bar is not None and need_a:
        g = (u * _as(xp, s_bar, dt)[None, :]) @ vh
        a_bar = g if a_bar is None else a_bar + g
    if vec and b_bar is not None:
        b_bar = b_bar[:, 0]
    return (_ZERO if a_bar is None else a_bar), (_ZERO if b_bar is None else b_bar)


def _lstsq_dot(
    xp: Any, a: Any, b: Any, y: tuple[Any, ...], f: tuple[Any, ...], da: Any, db: Any
) -> tuple[Any, Any, Any]:
    """``(x_dot, residuals_dot, s_dot)``; chunk axes lead in ``da`` / ``db`` (``None``: 0)."""
    u, s, vh, mask, sinv = f
    vec = b.ndim == 1
    dt = u.dtype
    am = _as(xp, a, dt)
    xm = _as(xp, _col(xp, y[0], vec), dt)
    r = _as(xp, _col(xp, b, vec), dt) - am @ xm
    v, uh = _h(xp, vh), _h(xp, u)

    def p(z: Any) -> Any:
        return v @ (sinv[:, None] * (uh @ z))

    def ph(z: Any) -> Any:
        return u @ (sinv[:, None] * (vh @ z))

    dx: Any = None
    dr: Any = None
    ds: Any = None
    if da is not None:
        da = _as(xp, da, dt)
        dah = _h(xp, da)
        t = dah @ ph(xm)
        dx = -p(da @ xm) + p(ph(dah @ r)) + t - v @ (xp.astype(mask, dt)[:, None] * (vh @ t))
        dr = -(da @ xm)
        ds = in_dtype(xp, _re(xp, xp.sum(_conj(xp, u) * (da @ v), axis=-2)), s.dtype)
    if db is not None:
        dbm = _as(xp, _col(xp, db, vec), dt)
        dx = p(dbm) if dx is None else dx + p(dbm)
        dr = dbm if dr is None else dr + dbm
    dr = dr - am @ dx
    res = y[1]
    d_res: Any = _ZERO
    if res.shape[-1] != 0:
        d_res = in_dtype(xp, 2 * _re(xp, xp.sum(_conj(xp, r) * dr, axis=-2)), res.dtype)
    if vec:
        dx = dx[..., 0]
    return in_dtype(xp, dx, y[0].dtype), d_res, (_ZERO if ds is None else ds)


def _lstsq_ex(rng: Any) -> list[Any]:
    import numpy as np

    r = rng.standard_normal
    return [
        ((r((4, 2)), r(4)), {}),  # tall, full rank: residuals
        ((r((4, 3)), r((4, 2))), {"rcond": None}),
        ((r((2, 3)), r((2, 2))), {}),  # wide: no residuals
        ((r((3, 2)) + 1j * r((3, 2)), r(3) + 1j * r(3)), {}),
        ((np.eye(3)[:, :2] * 2.0 + 0.1 * r((3, 2)), r((3, 1))), {"rcond": -1}),
    ]


_LSTSQ_WIDE = (
    Expect(
        "jit",
        "jax.numpy.linalg.lstsq gives a wide system residuals of shape (k,) where NumPy gives "
        "(0,): the jit check's cotangent, shaped as NumPy's output, does not fit JAX's",
        example="#2",
    ),
)


@register_rrule("numpy:linalg.lstsq", examples=_lstsq_ex, expect=_LSTSQ_WIDE)
def lstsq_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, a, b, rcond, y = _lstsq(args, kwargs)
    pa, pb = ProjectTo(a, xp), ProjectTo(b, xp)
    rest = (_ZERO if isinstance(rcond, float) else _NO,) * (len(args) - 2)

    @pullback(y, args, name="linalg.lstsq")
    def lstsq_pullback(y_bar: tuple[Any, ...]) -> tuple[Any, ...]:
        bars = [None if isinstance(p, AbstractZero) else p for p in y_bar]
        bars[2] = None  # rank: an integer
        if all(p is None for p in bars):
            return (pa(_ZERO), pb(_ZERO), *rest)
        # deferred (docs/conventions.md, only the cotangents asked for): the factors are shared,
        # b's cotangent alone skips A's products, and A's computes b's with it
        memo: dict[str, Any] = {}

        def factors() -> Any:
            if "f" not in memo:
                memo["f"] = _lstsq_factors(xp, a, rcond)
            return memo["f"]

        def both() -> Any:
            if "both" not in memo:
                memo["both"] = _lstsq_back(xp, a, b, y, factors(), bars)
            return memo["both"]

        def b_bar() -> Any:
            if "both" in memo:
                return pb(memo["both"][1])
            return pb(_lstsq_back(xp, a, b, y, factors(), bars, need_a=False)[1])

        return (lazy(pa, lambda: pa(both()[0])), lazy(pb, b_bar), *rest)

    return y, lstsq_pullback


@register_frule("numpy:linalg.lstsq", examples=_lstsq_ex, expect=_LSTSQ_WIDE)
def lstsq_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, b, rcond, y = _lstsq(args, kwargs)
    t = tangents_in("linalg.lstsq", tangents[:3], (a, b))  # rcond: a static cutoff
    if t is None:
        return y, _ZERO
    da, db = (None if isinstance(d, AbstractZero) else d for d in t)
    f = _lstsq_factors(xp, a, rcond)
    dx, d_res, ds = _lstsq_dot(xp, a, b, y, f, da, db)
    return y, Tangent(dx, d_res, _NO, ds, primal_type=type(y))


# --- multi_dot -----------------------------------------------------------------------------------
_MULTI_DOT = signature("linalg.multi_dot", lambda arrays, *, out=None, precision=None: None)


def _chain_order(dims: list[int]) -> Any:
    """The optimal parenthesisation of a matrix chain with shapes ``dims[i] x dims[i + 1]``
    (NumPy's dynamic programme, on host shapes): a leaf index or a pair ``(left, right)``."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf  # type: ignore[call-overload]
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def tree(i: int, j: int) -> Any:
        if i == j:
            return i
        k = split[i][j]
        return (tree(i, k), tree(k + 1, j))

    return tree(0, n - 1)


def _multi_dot(args: Any, kwargs: Any) -> tuple[Any, ...]:
    p = _MULTI_DOT.bind(args, kwargs)
    arrays = p["arrays"]
    if p["precision"] is not None:
        raise TypeError("linalg.multi_dot: the rule does not support precision=")
    if not isinstance(arrays, (list, tuple)) or len(arrays) < 2:
        raise ValueError("linalg.multi_dot: expected a sequence of at least two arrays")
    xp = namespace_of(*arrays, fname="linalg.multi_dot")
    n = len(arrays)
    mats = []
    for i, m in enumerate(arrays):
        nd = getattr(m, "ndim", 0)
        if nd == 1 and i == 0:
            m = xp.reshape(m, (1, m.shape[0]))
        elif nd == 1 and i == n - 1:
            m = xp.reshape(m, (m.shape[0], 1))
        elif nd != 2:
            raise ValueError(
                f"linalg.multi_dot: array {i} has shape {tuple(getattr(m, 'shape', ()))}; "
                "expected matrices (the first and last may be vectors)"
            )
        mats.append(m)
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise ValueError(
                f"linalg.multi_dot: shapes {tuple(mats[i].shape)} and "
                f"{tuple(mats[i + 1].shape)} (arrays {i} and {i + 1}) do not align"
            )
    order = _chain_order([mats[0].shape[0], *(m.shape[1] for m in mats)])
    values: dict[Any, Any] = {}

    def evaluate(node: Any) -> Any:
        if isinstance(node, int):
            return mats[node]
        v = evaluate(node[0]) @ evaluate(node[1])
        values[node] = v
        return v

    out = evaluate(order)
    shape = tuple(
        d
        for d, keep in ((out.shape[0], arrays[0].ndim != 1), (out.shape[1], arrays[-1].ndim != 1))
        if keep
    )
    y = xp.reshape(out, shape) if shape != tuple(out.shape) else out
    return xp, arrays, mats, order, values, y


def _node_value(mats: Any, values: Any, node: Any) -> Any:
    return mats[node] if isinstance(node, int) else values[node]


def _multi_dot_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        (([r((2, 3)), r((3, 4))],), {}),
        (([r((3, 1)), r((1, 4)), r((4, 2)), r((2, 2))],), {}),
        (([r(3), r((3, 2)), r(2)],), {}),  # vectors at both ends: a 0-d result
        (([r(2), r((2, 3)), r((3, 2))],), {}),
        (((r((2, 2)) + 1j * r((2, 2)), r((2, 3)), r((3, 1))),), {}),
    ]


@register_rrule("numpy:linalg.multi_dot", examples=_multi_dot_ex, kind="sequence")
def multi_dot_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, arrays, mats, order, values, y = _multi_dot(args, kwargs)
    projects = [ProjectTo(m, xp) for m in arrays]
    kind = type(arrays)

    @pullback(y, args, name="linalg.multi_dot")
    def multi_dot_pullback(y_bar: Any) -> Any:
        bars: list[Any] = [None] * len(mats)
        stack = [(order, xp.reshape(y_bar, tuple(_node_value(mats, values, order).shape)))]
        while stack:
            node, g = stack.pop()
            if isinstance(node, int):
                bars[node] = g
                continue
            left, right = (_node_value(mats, values, c) for c in node)
            stack.append((node[0], g @ _h(xp, right)))
            stack.append((node[1], _h(xp, left) @ g))
        out = [
            p(xp.reshape(g, tuple(m.shape))) if p.differentiable else _NO
            for p, g, m in zip(projects, bars, arrays)
        ]
        return Tangent(*out, primal_type=kind)

    return y, multi_dot_pullback


@register_frule("numpy:linalg.multi_dot", examples=_multi_dot_ex, kind="sequence")
def multi_dot_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, arrays, mats, order, values, y = _multi_dot(args, kwargs)
    t = tangents[1] if len(tangents) > 1 else _ZERO
    if isinstance(t, AbstractZero):
        return y, _ZERO
    dots: list[Any] = []
    extra = None
    for i, m in enumerate(arrays):
        d = t[i]
        if isinstance(d, AbstractZero) or not ProjectTo(m, xp).differentiable:
            dots.append(None)
            continue
        k = d.ndim - m.ndim
        if k < 0 or tuple(d.shape[k:]) != tuple(m.shape) or (extra is not None and k != extra):
            raise ValueError(
                f"linalg.multi_dot: tangent {i} of shape {tuple(d.shape)} does not fit an "
                f"array of shape {tuple(m.shape)}"
            )
        extra = k
        dots.append(xp.reshape(d, (*tuple(d.shape[:k]), *tuple(mats[i].shape))))
    if extra is None:
        return y, _ZERO

    def push(node: Any) -> Any:
        if isinstance(node, int):
            return dots[node]
        dl, dr = push(node[0]), push(node[1])
        left, right = (_node_value(mats, values, c) for c in node)
        out = None if dl is None else dl @ right
        if dr is not None:
            out = left @ dr if out is None else out + left @ dr
        return out

    dy = push(order)
    if dy is None:
        return y, _ZERO
    dy = xp.reshape(dy, (*tuple(dy.shape[:extra]), *tuple(y.shape)))
    return y, in_dtype(xp, dy, y.dtype)


# --- cond ----------------------------------------------------------------------------------------
_COND = signature("linalg.cond", lambda x, p=None: None)
_SVD_P = (None, 2, -2)


def _cond(args: Any, kwargs: Any) -> tuple[Any, Any, Any, Any, Any]:
    a = _COND.bind(args, kwargs)
    x, p = a["x"], a["p"]
    xp = namespace_of(x, fname="linalg.cond")
    if getattr(x, "ndim", 0) < 2:
        raise ValueError(f"linalg.cond: x must be a (stack of) matrices, got shape {x.shape}")
    npm = _numpy_module(xp)
    return xp, npm, x, p, npm.linalg.cond(x, p)


def _cond_svd_weights(xp: Any, s: Any, p: Any) -> Any:
    """``d cond / d s`` for ``cond = s_max / s_min`` (``p=-2``: ``s_min / s_max``). The ratio is
    taken first: ``(s_max / s_min) / s_min``, not ``s_max / s_min**2``, whose square underflows
    to 0 at ``s ~ 1e-300`` (``inf * 0``: NaN where the derivative, ~1e300, is finite)."""
    k = s.shape[-1]
    idx = xp.arange(k, device=device_of(s))
    first = xp.astype(idx == 0, s.dtype)
    last = xp.astype(idx == k - 1, s.dtype)
    hi, lo = s[..., :1], s[..., k - 1 :]
    if p == -2:
        return last / hi - first * ((lo / hi) / hi)
    return first / lo - last * ((hi / lo) / lo)


def _cond_norm_parts(npm: Any, x: Any, p: Any) -> tuple[Any, Any, Any, Any, Any]:
    """``norm(x, p)``, ``norm(inv(x), p)`` with their pullbacks and ``inv``'s."""
    n1, pb1 = rrule(npm.linalg.norm, x, p, (-2, -1))
    xi, pbi = rrule(npm.linalg.inv, x)
    n2, pb2 = rrule(npm.linalg.norm, xi, p, (-2, -1))
    return n1, n2, pb1, pbi, pb2


@register_rrule("numpy:linalg.cond", examples=lambda rng: _cond_ex(rng))
def cond_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, npm, x, p, y = _cond(args, kwargs)
    project = ProjectTo(x, xp)
    # p selects the norm: piecewise constant where it is a float (inf), opaque otherwise
    rest = tuple(_ZERO if isinstance(q, float) else _NO for q in args[1:])

    @pullback(y, args, name="linalg.cond")
    def cond_pullback(y_bar: Any) -> tuple[Any, ...]:
        if p in _SVD_P:
            u, s, vh = finite_svd(xp, x, False)  # NaN at a non-finite x, never a hang
            sb = _cond_svd_weights(xp, s, p) * y_bar[..., None]
            return (project((u * xp.astype(sb, u.dtype)[..., None, :]) @ vh), *rest)
        n1, n2, pb1, pbi, pb2 = _cond_norm_parts(npm, x, p)
        g1 = pb1(y_bar * n2)[1]
        g2 = pbi(pb2(y_bar * n1)[1])[1]
        return (project(g1 + g2), *rest)

    return y, cond_pullback


@register_frule("numpy:linalg.cond", examples=lambda rng: _cond_ex(rng))
def cond_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, npm, x, p, y = _cond(args, kwargs)
    t = tangents_in("linalg.cond", tangents[:2], (x,))
    if t is None:
        return y, _ZERO
    dx = t[0]
    if p in _SVD_P:
        u, s, vh = finite_svd(xp, x, False)
        ds = _re(xp, xp.sum(_conj(xp, u) * (dx @ _h(xp, vh)), axis=-2))
        dy = xp.sum(_cond_svd_weights(xp, s, p) * ds, axis=-1)
        return y, in_dtype(xp, dy, y.dtype)
    n1, d1 = frule((_NO, dx, _NO, _NO), npm.linalg.norm, x, p, (-2, -1))
    xi, dxi = frule((_NO, dx), npm.linalg.inv, x)
    n2, d2 = frule((_NO, dxi, _NO, _NO), npm.linalg.norm, xi, p, (-2, -1))
    return y, in_dtype(xp, d1 * n2 + n1 * d2, y.dtype)


def _cond_ex(rng: Any) -> list[Any]:
    import numpy as np

    r = rng.standard_normal
    well = r((3, 3)) + 3 * np.eye(3)
    return [
        ((well,), {}),
        ((r((4, 3)), 2), {}),  # non-square: the 2-norm only
        ((r((2, 3, 3)) + 2 * np.eye(3), -2), {}),
        ((well, "fro"), {}),
        ((well,), {"p": 1}),
        ((r((2, 2, 2)) + 2 * np.eye(2), -np.inf), {}),
        ((r((3, 3)) + 1j * r((3, 3)) + 3 * np.eye(3), np.inf), {}),
    ]


# --- tensorsolve, tensorinv ----------------------------------------------------------------------
_TENSORSOLVE = signature("linalg.tensorsolve", lambda a, b, axes=None: None)
_TENSORINV = signature("linalg.tensorinv", lambda a, ind=2: None)


def _tensorsolve(args: Any, kwargs: Any) -> tuple[Any, ...]:
    p = _TENSORSOLVE.bind(args, kwargs)
    a, b, axes = p["a"], p["b"], p["axes"]
    xp = namespace_of(a, b, fname="linalg.tensorsolve")
    nd = a.ndim
    if axes is not None:  # a sequence of axes, as NumPy's (an int or a bool is no sequence)
        if hasattr(axes, "__index__"):
            raise TypeError(f"linalg.tensorsolve: axes must be a tuple of ints, got {axes!r}")
        axes = axis_ints(axes, "linalg.tensorsolve", "axes", ndim=nd)
    y = _numpy_module(xp).linalg.tensorsolve(*args, **kwargs)  # the library checks the shapes
    perm = list(range(nd))
    if axes is not None:
        for k in axes:
            perm.remove(k % nd)
            perm.append(k % nd)
    n = math.prod(y.shape)
    return xp, a, b, y, tuple(perm), n


def _inverse_perm(perm: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, q in enumerate(perm):
        inv[q] = i
    return tuple(inv)


def _tensorsolve_ex(rng: Any) -> list[Any]:
    import numpy as np

    r = rng.standard_normal
    a = r((2, 3, 6)) + 3 * np.eye(6).reshape(2, 3, 6)
    c = r((2, 2, 2, 2)) + 3 * np.eye(4).reshape(2, 2, 2, 2)
    return [
        ((a, r((2, 3))), {}),
        ((c, r((2, 2))), {"axes": (0,)}),
        ((c + 1j * r((2, 2, 2, 2)), r((2, 2)) + 1j * r((2, 2))), {}),
    ]


@register_rrule("numpy:linalg.tensorsolve", examples=_tensorsolve_ex)
def tensorsolve_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, a, b, y, perm, n = _tensorsolve(args, kwargs)
    pa, pb = ProjectTo(a, xp), ProjectTo(b, xp)
    rest = (_NO,) * (len(args) - 2)

    @pullback(y, args, name="linalg.tensorsolve")
    def tensorsolve_pullback(y_bar: Any) -> tuple[Any, ...]:
        memo: list[Any] = []

        def solved() -> Any:  # shared by the two deferred cotangents, computed once
            if not memo:
                am = xp.reshape(xp.permute_dims(a, perm), (n, n))
                memo.append(xp.linalg.solve(_h(xp, am), xp.reshape(y_bar, (n,))))
            return memo[0]

        def a_bar() -> Any:
            g = -(solved()[:, None] * _conj(xp, xp.reshape(y, (n,)))[None, :])
            shape = tuple(a.shape[q] for q in perm)
            return pa(xp.permute_dims(xp.reshape(g, shape), _inverse_perm(perm)))

        return (
            lazy(pa, a_bar),
            lazy(pb, lambda: pb(xp.reshape(solved(), tuple(b.shape)))),
            *rest,
        )

    return y, tensorsolve_pullback


@register_frule("numpy:linalg.tensorsolve", examples=_tensorsolve_ex)
def tensorsolve_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, b, y, perm, n = _tensorsolve(args, kwargs)
    t = tangents_in("linalg.tensorsolve", tangents[:3], (a, b))
    if t is None:
        return y, _ZERO
    da, db = t
    e = t.extra
    lead = t.lead()
    am = xp.reshape(xp.permute_dims(a, perm), (n, n))
    rhs: Any = None
    if not isinstance(da, AbstractZero):
        dperm = (*range(e), *(q + e for q in perm))
        dam = xp.reshape(xp.permute_dims(da, dperm), (*lead, n, n))
        rhs = -(dam @ xp.reshape(y, (n, 1)))
    if not isinstance(db, AbstractZero):
        dbm = xp.reshape(db, (*lead, n, 1))
        rhs = dbm if rhs is None else rhs + dbm
    dy = _solve(xp, am, rhs)
    return y, in_dtype(xp, xp.reshape(dy, (*lead, *tuple(y.shape))), y.dtype)


def _tensorinv(args: Any, kwargs: Any) -> tuple[Any, ...]:
    p = _TENSORINV.bind(args, kwargs)
    a, ind = p["a"], p["ind"]
    xp = namespace_of(a, fname="linalg.tensorinv")
    y = _numpy_module(xp).linalg.tensorinv(*args, **kwargs)
    n = math.prod(a.shape[operator.index(ind) :])
    return xp, a, y, n


def _tensorinv_ex(rng: Any) -> list[Any]:
    import numpy as np

    r = rng.standard_normal
    return [
        ((r((2, 3, 6)) + 3 * np.eye(6).reshape(2, 3, 6), 2), {}),
        ((r((4, 2, 2)) + 3 * np.eye(4).reshape(4, 2, 2),), {"ind": 1}),
        ((r((2, 2, 2, 2)) + 1j * r((2, 2, 2, 2)) + 3 * np.eye(4).reshape(2, 2, 2, 2),), {}),
    ]


@register_rrule("numpy:linalg.tensorinv", examples=_tensorinv_ex)
def tensorinv_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, a, y, n = _tensorinv(args, kwargs)
    project = ProjectTo(a, xp)
    rest = (_NO,) * (len(args) - 1)

    @pullback(y, args, name="linalg.tensorinv")
    def tensorinv_pullback(y_bar: Any) -> tuple[Any, ...]:
        ym = _h(xp, xp.reshape(y, (n, n)))  # Y^H
        g = -(ym @ xp.reshape(y_bar, (n, n)) @ ym)
        return (project(xp.reshape(g, tuple(a.shape))), *rest)

    return y, tensorinv_pullback


@register_frule("numpy:linalg.tensorinv", examples=_tensorinv_ex)
def tensorinv_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, y, n = _tensorinv(args, kwargs)
    t = tangents_in("linalg.tensorinv", tangents[:2], (a,))
    if t is None:
        return y, _ZERO
    lead = t.lead()
    ym = xp.reshape(y, (n, n))
    dy = -(ym @ xp.reshape(t[0], (*lead, n, n)) @ ym)
    return y, in_dtype(xp, xp.reshape(dy, (*lead, *tuple(y.shape))), y.dtype)
