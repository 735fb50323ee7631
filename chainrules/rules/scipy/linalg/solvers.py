"""``scipy.linalg``'s solvers, in SciPy's own signatures: ``solve``, ``inv``, ``det``,
``solve_triangular``, ``solve_banded`` and ``solve_sylvester`` (``"scipy:linalg.NAME"``). The
maths notes are in ``docs/rules/scipy-linalg.md``; the short form:

* ``solve_triangular``: ``B_bar = op(T)^-H X_bar`` (the same function, the other ``trans``),
  ``T_bar = -tri(op*(B_bar X^H))`` on the triangle read (strict with ``unit_diagonal``).
* ``solve_sylvester`` (``AX + XB = Q``): ``Q_bar`` solves ``A^H Q_bar + Q_bar B^H = X_bar``,
  ``A_bar = -Q_bar X^H``, ``B_bar = -X^H Q_bar``.
* ``solve_banded`` (SciPy's and CuPy's; JAX has none): ``B_bar`` by ``solve_banded`` with the
  band storage of ``A^H`` (shifted rows), ``ab_bar = -B_bar X^H`` read on the band.
"""

from __future__ import annotations

from typing import Any

from ....core.prelude import *
from ..._util import in_dtype, lazy
from ..._util.adjugate import adjugate
from ..._util.linalg import _h, positive_definite
from ..._util.scipy_linalg import (
    NO,
    ZERO,
    _conj,
    _cplx,
    _first,
    _fold,
    _general_ex,
    _is_jax,
    _keep,
    _lapack_float,
    _mat,
    _once,
    _op,
    _outer,
    _register,
    _square,
    _square_call,
    _square_dot,
    _t,
    _trans,
    _trsm,
)

# --- solve_triangular ----------------------------------------------------------------------------


def _trsm_setup(sig: Any, args: Any, kwargs: Any) -> Any:
    (a, rhs), b = _first(sig, args, kwargs, 2)
    xp = namespace_of(a, rhs, fname="scipy.linalg.solve_triangular")
    _square("solve_triangular", a)
    tr = _trans("solve_triangular", b["trans"])
    return xp, a, rhs, tr, bool(b["lower"]), bool(b["unit_diagonal"])


def _solve_triangular_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, rhs, tr, lower, unit = _trsm_setup(sig, args, kwargs)
    y = fn(*args, **kwargs)
    vec = rhs.ndim == a.ndim - 1
    pa, pb = ProjectTo(a, xp), ProjectTo(rhs, xp)

    @pullback(y, args, name="solve_triangular")
    def solve_triangular_pullback(y_bar: Any) -> Any:
        # B_bar = op(T)^-H Y_bar: op = N -> C, T -> conj(T^-1 conj(.)), C -> N
        kw = {"lower": lower, "unit_diagonal": unit}

        def solved() -> Any:
            if tr == 0:
                return mod.solve_triangular(a, y_bar, trans=2 if _cplx(xp, a) else 1, **kw)
            if tr == 1:
                return _conj(xp, mod.solve_triangular(a, _conj(xp, y_bar), trans=0, **kw))
            return mod.solve_triangular(a, y_bar, trans=0, **kw)

        b_bar = _once(solved)

        def a_bar() -> Any:
            m_bar = -_outer(xp, b_bar(), y, vec)  # the cotangent of op(T)
            t_bar = m_bar if tr == 0 else (_t(xp, m_bar) if tr == 1 else _h(xp, m_bar))
            return pa(_keep(xp, t_bar, lower, unit))

        return (lazy(pa, a_bar), lazy(pb, lambda: pb(b_bar())), *[NO] * (len(args) - 2))

    return y, solve_triangular_pullback


def _solve_triangular_frule(
    fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any
) -> Any:
    xp, a, rhs, tr, lower, unit = _trsm_setup(sig, args, kwargs)
    y = fn(*args, **kwargs)
    t = tangents_in("solve_triangular", tangents[:3], (a, rhs))
    if t is None:
        return y, ZERO
    vec = rhs.ndim == a.ndim - 1
    da, db = t
    r = None if isinstance(db, AbstractZero) else db
    if not isinstance(da, AbstractZero):
        dm = _op(xp, _keep(xp, da, lower, unit), tr)
        if tuple(a.shape) == (1, 1):  # x = b / a, whatever b's rows (SciPy's 1x1 path)
            term = dm[..., 0] * y if vec else dm * y
        else:
            term = xp.squeeze(dm @ _mat(xp, y, True), axis=-1) if vec else dm @ y
        r = -term if r is None else r - term
    kw = {"trans": tr, "lower": lower, "unit_diagonal": unit}
    return y, in_dtype(xp, _trsm(mod, xp, a, r, t.extra, vec, **kw), y.dtype)


def _triangular(rng: Any, n: int, lower: bool, cplx: bool = False) -> Any:
    import numpy as np

    a = rng.standard_normal((n, n)) * 0.3 + (1j * rng.standard_normal((n, n)) * 0.3 if cplx else 0)
    a = a + 2 * np.eye(n)
    return np.tril(a) if lower else np.triu(a)


def _solve_triangular_ex(rng: Any) -> list[Any]:
    return [
        ((_triangular(rng, 3, False), rng.standard_normal((3, 2))), {}),
        ((_triangular(rng, 3, True), rng.standard_normal(3)), {"lower": True, "trans": 1}),
        (
            (rng.standard_normal((3, 3)) + 2 * __import__("numpy").eye(3), rng.standard_normal(3)),
            {"lower": True, "unit_diagonal": True},
        ),
        (
            (_triangular(rng, 2, False, True), rng.standard_normal((2, 2)) + 1j),
            {"trans": "C"},
        ),
    ]


_register(
    "solve_triangular", _solve_triangular_rrule, _solve_triangular_frule, _solve_triangular_ex
)


# --- solve, inv, det -----------------------------------------------------------------------------
_ASSUME = {
    None: "gen",
    "gen": "gen",
    "general": "gen",
    "sym": "sym",
    "symmetric": "sym",
    "her": "her",
    "hermitian": "her",
    "pos": "her",
    "positive definite": "her",
    "upper triangular": "triu",
    "lower triangular": "tril",
    "diagonal": "diag",
}


def _diagonal(xp: Any, a: Any, real: bool = False) -> Any:
    """``a``'s diagonal as a matrix (zeros elsewhere), with only its real part when ``real``."""
    d = a * xp.eye(a.shape[-1], dtype=a.dtype, device=device_of(a))
    if real and xp.isdtype(a.dtype, "complex floating"):
        d = xp.astype(xp.real(d), a.dtype)
    return d


def _effective(xp: Any, a: Any, kind: str, lower: bool) -> Any:
    """The matrix a solver reads from ``a``: one triangle mirrored (``sym``/``her``), a
    triangle, the diagonal, or all of it. A Hermitian solver (``her``, ``pos``: LAPACK's
    ``?hesv``/``?potrf``) reads only the real part of the diagonal."""
    if kind == "gen":
        return a
    if kind in ("triu", "tril"):
        return xp.triu(a) if kind == "triu" else xp.tril(a)
    if kind == "diag":
        return _diagonal(xp, a)
    strict = xp.tril(a, k=-1) if lower else xp.triu(a, k=1)
    mirrored = _t(xp, strict) if kind == "sym" else _h(xp, strict)
    return strict + _diagonal(xp, a, real=kind == "her") + mirrored


def _effective_back(xp: Any, g: Any, kind: str, lower: bool) -> Any:
    """The adjoint of :func:`_effective` (the imaginary part of a Hermitian solver's diagonal
    gets no cotangent: the solver never reads it)."""
    if kind in ("gen", "triu", "tril", "diag"):
        return _effective(xp, g, kind, lower)
    mirrored = _t(xp, g) if kind == "sym" else _h(xp, g)
    k = -1 if lower else 1
    tri = xp.tril if lower else xp.triu
    return tri(g, k=k) + _diagonal(xp, g, real=kind == "her") + tri(mirrored, k=k)


def _solve_setup(mod: Any, sig: Any, args: Any, kwargs: Any) -> Any:
    (a, rhs), b = _first(sig, args, kwargs, 2)
    xp = namespace_of(a, rhs, fname="scipy.linalg.solve")
    _square("solve", a)
    assume = b.get("assume_a", None)
    if assume not in _ASSUME:
        raise ValueError(
            f"solve: the rule supports assume_a in {sorted(k for k in _ASSUME if k)} (and None), "
            f"got {assume!r}"
        )
    kind = _ASSUME[assume]
    if _is_jax(mod) and assume not in ("pos", "positive definite"):
        kind = "gen"  # JAX's solve reads the whole matrix except for assume_a='pos'
    return xp, a, rhs, kind, bool(b.get("lower", False)), bool(b.get("transposed", False))


def _solve_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, rhs, kind, lower, transposed = _solve_setup(mod, sig, args, kwargs)
    y = fn(*args, **kwargs)
    vec = rhs.ndim == 1
    scalar = tuple(a.shape) == (1, 1)  # x = b / a, whatever b's rows (SciPy's 1x1 path)
    pa, pb = ProjectTo(a, xp), ProjectTo(rhs, xp)
    m = _effective(xp, a, kind, lower)
    m = _t(xp, m) if transposed else m

    @pullback(y, args, name="solve")
    def solve_pullback(y_bar: Any) -> Any:
        b_bar = _once(lambda: fn(_h(xp, m), y_bar))

        def a_bar() -> Any:
            if scalar:  # SciPy's 1x1 a divides any b: x = b / a
                g = -xp.reshape(xp.sum(b_bar() * xp.conj(y)), (1, 1))
            else:
                g = -_outer(xp, b_bar(), y, vec)
            g = _t(xp, g) if transposed else g
            return pa(_effective_back(xp, g, kind, lower))

        return (lazy(pa, a_bar), lazy(pb, lambda: pb(b_bar())), *[NO] * (len(args) - 2))

    return y, solve_pullback


def _solve_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, rhs, kind, lower, transposed = _solve_setup(mod, sig, args, kwargs)
    y = fn(*args, **kwargs)
    t = tangents_in("solve", tangents[:3], (a, rhs))
    if t is None:
        return y, ZERO
    vec = rhs.ndim == 1
    da, db = t
    r = None if isinstance(db, AbstractZero) else db
    if not isinstance(da, AbstractZero):
        dm = _effective(xp, da, kind, lower)
        dm = _t(xp, dm) if transposed else dm
        if tuple(a.shape) == (1, 1):  # x = b / a, whatever b's rows (SciPy's 1x1 path)
            term = dm[..., 0] * y if vec else dm * y
        else:
            term = xp.squeeze(dm @ _mat(xp, y, True), axis=-1) if vec else dm @ y
        r = -term if r is None else r - term
    if t.extra and a.ndim == 2:
        folded, unfold = _fold(xp, r, t.extra, vec)
        y_dot = unfold(fn(a, folded, **{k: v for k, v in kwargs.items()}))
    else:
        y_dot = fn(a, r, **kwargs)
    return y, in_dtype(xp, y_dot, y.dtype)


def _solve_ex(rng: Any) -> list[Any]:
    return [
        ((_general_ex(rng, 3), rng.standard_normal((3, 2))), {}),
        ((_general_ex(rng, 3), rng.standard_normal(3)), {"assume_a": "sym", "lower": True}),
        ((positive_definite(rng, (3, 3)), rng.standard_normal(3)), {"assume_a": "pos"}),
        ((_general_ex(rng, 2, True), rng.standard_normal(2) + 1j), {}),
    ]


_register(
    "solve",
    _solve_rrule,
    _solve_frule,
    _solve_ex,
    zero_d=((0,), (1, 1)),  # SciPy divides by a 0-d (or 1x1) a
    expect=Expect(
        "jit",
        "jax.scipy.linalg.solve reads the whole matrix for assume_a='sym', scipy.linalg.solve one "
        "triangle: the jit check's NumPy reference differs by design",
        example="#1",
    ),
)


def _inv_setup(sig: Any, args: Any, kwargs: Any) -> Any:
    (a,), b = _first(sig, args, kwargs)
    if b.get("assume_a", None) not in (None, "gen", "general"):
        raise ValueError(
            f"inv: the rule supports assume_a=None or 'general', got {b['assume_a']!r}"
        )
    xp = namespace_of(a, fname="scipy.linalg.inv")
    _square("inv", a)
    return xp, a


def _inv_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a = _inv_setup(sig, args, kwargs)
    y = fn(*args, **kwargs)
    project = ProjectTo(a, xp)

    @pullback(y, args, name="inv")
    def inv_pullback(y_bar: Any) -> Any:
        yh = _h(xp, y)
        return (project(-(yh @ (y_bar @ yh))), *[NO] * (len(args) - 1))

    return y, inv_pullback


def _inv_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a = _inv_setup(sig, args, kwargs)
    y = fn(*args, **kwargs)
    t = tangents_in("inv", tangents[:2], (a,))
    if t is None:
        return y, ZERO
    return y, in_dtype(xp, -(y @ (t[0] @ y)), y.dtype)


def _inv_ex(rng: Any) -> list[Any]:
    return [
        ((_general_ex(rng, 3),), {}),
        ((_general_ex(rng, 2)[None] * [[[1.0]], [[-1.2]]],), {}),
        ((_general_ex(rng, 2, True),), {}),
    ]


_register("inv", _inv_rrule, _inv_frule, _inv_ex)


def _det_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, _, y = _square_call("det", fn, sig, args, kwargs)
    project = ProjectTo(a, xp)

    @pullback(y, args, name="det")
    def det_pullback(y_bar: Any) -> Any:
        adj = adjugate(_lapack_float(xp, a))
        g = xp.expand_dims(xp.expand_dims(y_bar, axis=-1), axis=-1) * _h(xp, adj)
        return (project(g), *[NO] * (len(args) - 1))

    return y, det_pullback


def _det_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, _, y, t = _square_dot("det", fn, sig, tangents, args, kwargs)
    if t is None:
        return y, ZERO
    # tr(adj(A) dA): no inverse, so a singular A has its finite derivative
    y_dot = xp.sum(_t(xp, adjugate(_lapack_float(xp, a))) * t[0], axis=(-2, -1))
    return y, in_dtype(xp, y_dot, xp.asarray(y).dtype)


_register("det", _det_rrule, _det_frule, _inv_ex)


# --- solve_sylvester ------------------------------------------------------------------------------
def _sylvester_setup(sig: Any, args: Any, kwargs: Any) -> Any:
    """``(xp, a, b, q)``, in one dtype where real and complex arguments mix.

    SciPy 1.17.1's own ``solve_sylvester`` is wrong there: it takes the real Schur form of a real
    ``a`` (or ``b``), quasi-triangular with 2x2 blocks for complex-conjugate eigenvalues, and hands
    it to the complex ``?trsyl``, which reads it as triangular and drops the blocks' subdiagonal
    (residuals ``|AX + XB - Q|`` of 0.2 on campaign seeds 5366 and 7809). The rule solves in the
    arguments' common dtype instead, where SciPy is right, so its primal differs from SciPy's own
    by design there (docs/conventions.md, "Where the library's own primal is wrong")."""
    (a, b, q), _ = _first(sig, args, kwargs, 3)
    xp = namespace_of(a, b, q, fname="scipy.linalg.solve_sylvester")
    given = (a, b, q)
    cplx = [_complex_dtype(xp, v) for v in given]
    if any(cplx) and not all(cplx):
        dt = xp.result_type(a, b, q)
        a, b, q = (v if v.dtype == dt else xp.astype(v, dt) for v in given)
    return xp, a, b, q, given


def _complex_dtype(xp: Any, v: Any) -> bool:
    return bool(xp.isdtype(v.dtype, "complex floating"))


def _solve_sylvester_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, b, q, given = _sylvester_setup(sig, args, kwargs)
    extra = {k: v for k, v in kwargs.items() if k not in ("a", "b", "q", "A", "B", "C")}
    y = fn(a, b, q, **extra)
    pa, pb, pq = (ProjectTo(v, xp) for v in given)

    @pullback(y, args, name="solve_sylvester")
    def solve_sylvester_pullback(y_bar: Any) -> Any:
        q_bar = _once(lambda: fn(_h(xp, a), _h(xp, b), y_bar, **extra))
        yh = _h(xp, y)
        return (
            lazy(pa, lambda: pa(-(q_bar() @ yh))),
            lazy(pb, lambda: pb(-(yh @ q_bar()))),
            lazy(pq, lambda: pq(q_bar())),
            *[NO] * (len(args) - 3),
        )

    return y, solve_sylvester_pullback


def _solve_sylvester_frule(
    fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any
) -> Any:
    xp, a, b, q, given = _sylvester_setup(sig, args, kwargs)
    extra = {k: v for k, v in kwargs.items() if k not in ("a", "b", "q", "A", "B", "C")}
    y = fn(a, b, q, **extra)
    t = tangents_in("solve_sylvester", tangents[:4], given)
    if t is None:
        return y, ZERO
    da, db, dq = t
    r: Any = None if isinstance(dq, AbstractZero) else dq
    for term in (
        None if isinstance(da, AbstractZero) else da @ y,
        None if isinstance(db, AbstractZero) else y @ db,
    ):
        if term is not None:
            r = -term if r is None else r - term
    r = xp.astype(r, y.dtype) if r.dtype != y.dtype else r
    return y, fn(xp.broadcast_to(a, r.shape), xp.broadcast_to(b, r.shape), r, **extra)


def _sylvester_ex(rng: Any) -> list[Any]:
    import numpy as np

    return [
        (
            (
                np.eye(3) * 2 + 0.3 * rng.standard_normal((3, 3)),
                np.eye(3) + 0.3 * rng.standard_normal((3, 3)),
                rng.standard_normal((3, 3)),
            ),
            {},
        ),
        (
            (
                np.eye(2) * 2 + 0.3 * rng.standard_normal((2, 2)) + 0.2j,
                np.eye(2) + 0.3 * rng.standard_normal((2, 2)),
                rng.standard_normal((2, 2)) + 1j,
            ),
            {},
        ),
    ]


_register(
    "solve_sylvester",
    _solve_sylvester_rrule,
    _solve_sylvester_frule,
    _sylvester_ex,
    # example #1 mixes complex a and q with a real b: SciPy's own is wrong there (the jit check
    # once declared JAX 3e-3 off; it was SciPy), the rule is not (_sylvester_setup)
)


# --- solve_banded --------------------------------------------------------------------------------
# A is stored by diagonals: ab[u + i - j, j] = A[i, j] (row k of ab is the diagonal i - j = k - u,
# read at column j). Its transpose has the bands swapped, (u, l), and is stored as
# abT[r, j] = ab[l + u - r, j + r - l] (shifted rows, zeros outside). X = A^-1 B gives
# B_bar = A^-H X_bar (a banded solve with conj(abT)) and A_bar = -B_bar X^H read on the band:
# ab_bar[k, j] = -sum_K B_bar[j + k - u, K] conj(X[j, K]).
# dX = A^-1 (dB - dA X), (dA X)[i] = sum_k dab[k, i + u - k] X[i + u - k].
def _shift(xp: Any, v: Any, d: int, axis: int) -> Any:
    """``w[..., j, ...] = v[..., j + d, ...]`` along ``axis`` (negative), zeros outside."""
    if d == 0:
        return v
    n = v.shape[axis]
    tail = (slice(None),) * (-axis - 1)

    def take(s: slice) -> Any:
        return v[(..., s, *tail)]

    if abs(d) >= n:
        return xp.zeros_like(v)
    zeros = xp.zeros_like(take(slice(0, abs(d))))
    if d > 0:
        return xp.concat([take(slice(d, None)), zeros], axis=axis)
    return xp.concat([zeros, take(slice(None, d))], axis=axis)


def _banded_setup(sig: Any, args: Any, kwargs: Any) -> Any:
    import operator

    (lu_, ab, rhs), b = _first(sig, args, kwargs, 3)
    xp = namespace_of(ab, rhs, fname="scipy.linalg.solve_banded")
    try:
        lo, up = (operator.index(n) for n in lu_)
    except (TypeError, ValueError):
        raise TypeError(
            f"solve_banded: (l, u) must be a pair of Python integers, got {lu_!r}"
        ) from None
    if getattr(ab, "ndim", 0) < 2 or ab.shape[-2] != lo + up + 1:
        raise ValueError(
            f"solve_banded: ab must have l + u + 1 = {lo + up + 1} rows (its axis -2), got shape "
            f"{tuple(getattr(ab, 'shape', ()))}"
        )
    # never let SciPy overwrite what the pullback reads (rules do not mutate their inputs);
    # overwrite_* is a permission, so leaving it unused keeps SciPy's semantics
    kw = {k: v for k, v in b.items() if k not in ("l_and_u", "ab", "b")}
    kw.update({k: False for k in ("overwrite_ab", "overwrite_b") if k in kw})
    return xp, lo, up, ab, rhs, kw


def _band_transpose(xp: Any, ab: Any, lo: int, up: int) -> Any:
    """The band storage of ``A^T`` (bands ``(u, l)``) from that of ``A``: one shifted row per
    diagonal."""
    rows = [_shift(xp, ab[..., lo + up - r, :], r - lo, -1) for r in range(lo + up + 1)]
    return xp.stack(rows, axis=-2)


def _solve_banded_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, lo, up, ab, rhs, kw = _banded_setup(sig, args, kwargs)
    y = fn((lo, up), ab, rhs, **kw)
    vec = rhs.ndim == 1
    p_ab, p_b = ProjectTo(ab, xp), ProjectTo(rhs, xp)
    pargs = (NO, *args[1:])

    @pullback(y, pargs, name="solve_banded")
    def solve_banded_pullback(y_bar: Any) -> Any:
        def solved() -> Any:
            abh = _conj(xp, _band_transpose(xp, ab, lo, up))  # A^H, bands (u, l)
            if vec and y_bar.ndim > 1:  # a batch of vectors: SciPy reads a 2-D b as (M, K)
                r = fn((up, lo), abh, xp.expand_dims(y_bar, axis=-1), **kw)
                return xp.squeeze(r, axis=-1)
            return fn((up, lo), abh, y_bar, **kw)

        b_bar = _once(solved)

        def ab_bar() -> Any:
            xc = _conj(xp, y)
            ax = -1 if vec else -2
            rows = []
            for k in range(lo + up + 1):
                prod = _shift(xp, b_bar(), k - up, ax) * xc
                rows.append(-(prod if vec else xp.sum(prod, axis=-1)))
            return p_ab(xp.stack(rows, axis=-2))

        return (
            NO,
            lazy(p_ab, ab_bar),
            lazy(p_b, lambda: p_b(b_bar())),
            *[NO] * (len(args) - 3),
        )

    return y, solve_banded_pullback


def _solve_banded_frule(
    fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any
) -> Any:
    xp, lo, up, ab, rhs, kw = _banded_setup(sig, args, kwargs)
    y = fn((lo, up), ab, rhs, **kw)
    t = tangents_in("solve_banded", (tangents[0], *tangents[2:4]), (ab, rhs))
    if t is None:
        return y, ZERO
    dab, db = t
    extra = t.extra
    vec = rhs.ndim == 1
    lead = tuple((db if isinstance(dab, AbstractZero) else dab).shape[:extra])
    r: Any = None
    if not isinstance(db, AbstractZero):
        # align db's axes with y's (its batch may be broadcast): chunk axes, then y's shape
        s = tuple(db.shape)
        db = xp.reshape(db, s[:extra] + (1,) * (y.ndim - rhs.ndim) + s[extra:])
        r = db
    if not isinstance(dab, AbstractZero):
        # align dab's batch axes with y's batch (its chunk axes stay in front)
        s = tuple(dab.shape)
        ins = (y.ndim - (1 if vec else 2)) - (ab.ndim - 2)
        dab = xp.reshape(dab, s[:extra] + (1,) * ins + s[extra:])
        ax = -1 if vec else -2
        dax: Any = None
        for k in range(lo + up + 1):
            row = dab[..., k, :] if vec else dab[..., k, :, None]
            term = _shift(xp, row * y, up - k, ax)
            dax = term if dax is None else dax + term
        r = -dax if r is None else r - dax
    r = xp.broadcast_to(r, (*lead, *y.shape))
    rm = xp.expand_dims(r, axis=-1) if vec else r
    if ab.ndim == 2 and rm.ndim > 2:  # one solve for the whole chunk (and batch) of columns
        folded, unfold = _fold(xp, rm, rm.ndim - 2, False)
        dx = unfold(fn((lo, up), ab, folded, **kw))
    else:
        dx = fn((lo, up), ab, rm, **kw)
    if vec:
        dx = xp.squeeze(dx, axis=-1)
    return y, in_dtype(xp, dx, y.dtype)


def _banded(
    rng: Any, lo: int, up: int, m: int, batch: tuple[int, ...] = (), cplx: bool = False
) -> Any:
    """Band storage of a diagonally dominant matrix (the unused corners hold junk, as SciPy
    allows: their cotangent is 0)."""
    ab = rng.standard_normal((*batch, lo + up + 1, m)) * 0.3
    if cplx:
        ab = ab + 0.3j * rng.standard_normal(ab.shape)
    ab[..., up, :] += 2.0 + lo + up
    return ab


def _solve_banded_ex(rng: Any) -> list[Any]:
    return [
        (((1, 1), _banded(rng, 1, 1, 4), rng.standard_normal(4)), {}),
        (((2, 1), _banded(rng, 2, 1, 4), rng.standard_normal((4, 2))), {}),
        (((0, 2), _banded(rng, 0, 2, 3, (2,)), rng.standard_normal(3)), {}),
        (((1, 0), _banded(rng, 1, 0, 3, cplx=True), rng.standard_normal((3, 2)) + 0.5j), {}),
    ]


_register("solve_banded", _solve_banded_rrule, _solve_banded_frule, _solve_banded_ex)
