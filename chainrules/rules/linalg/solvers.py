"""Rules for the solvers and determinants of the ``linalg`` extension -- ``solve``, ``inv``,
``det``, ``slogdet``, ``matrix_power`` -- and NumPy's ``linalg.tensorsolve``, ``linalg.tensorinv``
and ``linalg.cond`` (the condition number of a system).

Maths notes
-----------
``A^H`` is the conjugate transpose; cotangents follow DESIGN.md (``x_bar = dL/dRe + i dL/dIm``,
the conjugate of JAX's), so every formula below is ChainRules.jl's with ``'`` read as ``^H``.
Every rule works on stacks of matrices (leading batch axes) and on zero-size matrices.

=================  ==========================================================================
function           pullback / pushforward
=================  ==========================================================================
``solve(A, B)``    ``B_bar = solve(A^H, Y_bar)``, ``A_bar = -B_bar Y^H``;
                   ``Y_dot = solve(A, B_dot - A_dot Y)``. ``B`` is a vector exactly when
                   ``B.ndim == 1`` (the standard's and NumPy 2's rule); batch axes broadcast, and
                   the cotangent of a broadcast operand is summed back to its shape.
``inv(A)``         ``A_bar = -Y^H Y_bar Y^H``; ``Y_dot = -Y A_dot Y``.
``det(A)``         ``A_bar = y_bar * adj(A)^H``, ``y_dot = tr(adj(A) A_dot)``, with the adjugate
                   from the SVD ``A = U S V^H``: ``adj(A) = det(U) det(V^H) V diag(p) U^H``,
                   ``p_i = prod_{j != i} s_j``. No inverse is taken, so the gradient of a singular
                   matrix is the finite, exact adjugate (0 when the rank is below ``n - 1``).
``slogdet(A)``     ``(sign, logabsdet)``: ``A_bar = (l_bar + i Im(s_bar conj(sign))) A^{-H}``;
                   ``l_dot = Re t``, ``sign_dot = i Im(t) sign`` with ``t = tr(A^{-1} A_dot)``.
                   For real ``A`` the sign is piecewise constant: its cotangent contributes
                   nothing and its tangent is ``ZeroTangent()``. A singular matrix has no finite
                   derivative of ``log|det|``: the backend's ``LinAlgError`` is re-raised
                   naming ``linalg.slogdet`` (JAX, which does not raise, gives inf / NaN).
``matrix_power``   ``n`` is a static int: the rule runs the repeated-squaring program (a Python
                   loop over the bits of ``n``, never over array values) and differentiates it
                   step by step (``C = P Q``: ``P_bar = C_bar Q^H``, ``Q_bar = P^H C_bar``).
                   Negative ``n`` powers ``B = inv(A)`` and ends with ``A_bar = -B^H B_bar B^H``;
                   ``n = 0`` gives the identity and no derivative (``ZeroTangent()``).
=================  ==========================================================================

``solve`` and ``inv`` of a singular matrix raise the backend's own error unchanged
(``numpy.linalg.LinAlgError``) from the primal. Every pullback is built from ``linalg.solve``,
``linalg.inv``, ``matmul``, ``matrix_transpose``, ``conj``, ``expand_dims``, ``squeeze`` and sums
(the projection), functions with rules of their own, so the pullbacks can be differentiated again
(``det``'s also needs ``svd``'s rule, defined for distinct singular values).

* ``tensorsolve`` / ``tensorinv``: NumPy reshapes to one square matrix; the rules are those of
  ``solve`` / ``inv`` on that matrix, reshaped (and permuted for ``axes``) back.
* ``cond``: ``p`` in ``(None, 2, -2)``: ``s_max / s_min`` (or its inverse) from the singular
  values, ``A_bar = U diag(s_bar) V^H``; any other ``p``: ``norm(x, p) * norm(inv(x), p)``
  differentiated through the rules of ``numpy:linalg.norm`` and ``linalg.inv``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from ...core.prelude import *
from ...core.registry import frule, rrule
from .._util import axis_ints, in_dtype, lazy
from .._util.adjugate import adjugate
from .._util.linalg import (
    _bcast,
    _complex,
    _conj,
    _h,
    _matrix_arg,
    _normal,
    _re,
    _solve,
    _well,
    finite_svd,
    named_singular,
)
from .._util.numpy_like import numpy_module


# --- small helpers -------------------------------------------------------------------------------
def _lift(xp: Any, t: Any, extra: int, ndim: int) -> Any:
    """``t`` (``extra`` chunk axes, then a primal of lower rank) with length-1 axes inserted after
    the chunk axes, to rank ``extra + ndim``: its batch axes then broadcast against the output's
    and the chunk axes stay in front."""
    missing = extra + ndim - t.ndim
    if missing <= 0:
        return t
    shape = tuple(t.shape)
    return xp.reshape(t, shape[:extra] + (1,) * missing + shape[extra:])


def _trace_product(xp: Any, m: Any, t: Any) -> Any:
    """``tr(m t)`` per matrix, chunk axes of ``t`` kept: ``sum(m^T * t)`` over the last two
    axes (no matmul, so a chunk of tangents costs one elementwise product)."""
    return xp.sum(xp.matrix_transpose(m) * t, axis=(-2, -1))


# --- solve ---------------------------------------------------------------------------------------
def _solve_back(xp: Any, a: Any, y: Any, y_bar: Any, vec: bool) -> tuple[Any, Any]:
    """``(A_bar, B_bar)`` of ``Y = solve(A, B)`` before projection (batch axes not summed), each
    a ``Thunk`` (the contract's "only the cotangents asked for"): ``B_bar`` is one solve with
    ``A^H``, ``A_bar = -B_bar Y^H`` reuses it (computed once for the two)."""
    one = vec and a.ndim == 2  # one vector: LAPACK's vector solve and an outer product
    if vec and not one:  # b (M,) against A (..., M, M): y is (..., M); work with (..., M, 1)
        y_bar = xp.expand_dims(y_bar, axis=-1)
        y = xp.expand_dims(y, axis=-1)
    memo: list[Any] = []

    def solved() -> Any:
        if not memo:
            memo.append(xp.linalg.solve(_h(xp, a), y_bar))
        return memo[0]

    def a_bar() -> Any:
        if one:
            y_h = xp.conj(y) if _complex(xp, y) else y
            return xp.expand_dims(-solved(), axis=-1) * xp.expand_dims(y_h, axis=-2)
        return -xp.matmul(solved(), _h(xp, y))

    def b_bar() -> Any:
        return xp.squeeze(solved(), axis=-1) if vec and not one else solved()

    return Thunk(a_bar), Thunk(b_bar)


def _solve_setup(x1: Any, x2: Any) -> tuple[Any, Any, bool]:
    xp = namespace_of(x1, x2, fname="linalg.solve")
    _matrix_arg("linalg.solve", x1)
    return xp, xp.linalg.solve(x1, x2), getattr(x2, "ndim", 0) == 1


@register_rrule("linalg.solve", examples=lambda rng: _solve_ex(rng))
def _solve_rrule(x1: Any, x2: Any, /) -> Any:
    xp, y, vec = _solve_setup(x1, x2)
    pa, pb = ProjectTo(x1, xp), ProjectTo(x2, xp)

    @pullback(y, (x1, x2), name="linalg.solve")
    def solve_pullback(y_bar: Any) -> tuple[Any, Any]:
        a_bar, b_bar = _solve_back(xp, x1, y, y_bar, vec)
        return lazy(pa, lambda: pa(a_bar())), lazy(pb, lambda: pb(b_bar()))

    return y, solve_pullback


@register_frule("linalg.solve", examples=lambda rng: _solve_ex(rng))
def _solve_frule(tangents: Any, x1: Any, x2: Any, /) -> Any:
    xp, y, vec = _solve_setup(x1, x2)
    t = tangents_in("linalg.solve", tangents, (x1, x2))  # the same chunk axes in both
    if t is None:
        return y, ZERO
    da, db = t
    ym = xp.expand_dims(y, axis=-1) if vec else y
    r: Any = None
    if not isinstance(da, AbstractZero):
        r = -xp.matmul(_lift(xp, da, t.extra, ym.ndim), ym)
    if not isinstance(db, AbstractZero):
        dbm = _lift(xp, xp.expand_dims(db, axis=-1) if vec else db, t.extra, ym.ndim)
        r = dbm if r is None else dbm + r
    # r has rank >= 2: always the matrix form of solve. One matrix A against the chunk is one
    # 2-D solve with the chunk's columns side by side (one factorisation; dask's lu is 2-D
    # only); a stack A is broadcast over the chunk axes (CuPy's solve does not broadcast)
    y_dot = _solve(xp, x1, r)
    if vec:
        y_dot = xp.squeeze(y_dot, axis=-1)
    return y, in_dtype(xp, y_dot, y.dtype)


# --- inv, det -----------------------------------------------------------------------------------
def _register_matrix_function(name: str, back: Any, push: Any, examples: Any) -> None:
    """Register the rules of ``y = linalg.<name>(x)``, a function of one (stack of) square
    matrices, from its two formulas: ``back(xp, x, y, y_bar)``, the cotangent before
    projection, and ``push(xp, x, y, x_dot)``, the tangent (chunk axes lead)."""
    target = f"linalg.{name}"

    def matrix_rrule(x: Any, /) -> Any:
        xp = namespace_of(x, fname=target)
        y = getattr(xp.linalg, name)(x)
        project = ProjectTo(x, xp)

        @pullback(y, (x,), name=target)
        def matrix_pullback(y_bar: Any) -> Any:
            return project(back(xp, x, y, y_bar))

        return y, matrix_pullback

    def matrix_frule(tangents: Any, x: Any, /) -> Any:
        xp = namespace_of(x, fname=target)
        y = getattr(xp.linalg, name)(x)
        t = tangents_in(target, tangents, (x,))
        if t is None:
            return y, ZERO
        return y, in_dtype(xp, push(xp, x, y, t[0]), y.dtype)

    register_rrule(target, examples=examples)(matrix_rrule)
    register_frule(target, examples=examples)(matrix_frule)


def _inv_back(xp: Any, x: Any, y: Any, y_bar: Any) -> Any:
    """``A_bar = -Y^H Y_bar Y^H``."""
    yh = _h(xp, y)
    return -xp.matmul(yh, xp.matmul(y_bar, yh))


def _inv_push(xp: Any, x: Any, y: Any, t: Any) -> Any:
    """``Y_dot = -Y A_dot Y``."""
    return -xp.matmul(y, xp.matmul(t, y))


def _det_back(xp: Any, x: Any, y: Any, y_bar: Any) -> Any:
    """``A_bar = y_bar * adj(A)^H``."""
    return _bcast(xp, y_bar) * _h(xp, adjugate(x))


def _det_push(xp: Any, x: Any, y: Any, t: Any) -> Any:
    """``y_dot = tr(adj(A) A_dot)``."""
    return _trace_product(xp, adjugate(x), t)


_register_matrix_function("inv", _inv_back, _inv_push, lambda rng: _inv_ex(rng))
_register_matrix_function("det", _det_back, _det_push, lambda rng: _det_ex(rng))


# --- slogdet -------------------------------------------------------------------------------------
# log|det A| -> -inf at a singular A and its derivative A^-H has no finite limit: a clear error
_SLOGDET_WHY = "the derivative of log|det A| is A^-H"


@register_rrule("linalg.slogdet", examples=lambda rng: _slogdet_ex(rng))
def _slogdet_rrule(x: Any, /) -> Any:
    xp = namespace_of(x, fname="linalg.slogdet")
    y = xp.linalg.slogdet(x)
    sign = y[0]
    project = ProjectTo(x, xp)
    cplx = _complex(xp, x)

    @pullback(y, (x,), name="linalg.slogdet")
    def slogdet_pullback(y_bar: tuple[Any, Any]) -> Any:
        s_bar, l_bar = y_bar
        coeff: Any = None if isinstance(l_bar, AbstractZero) else l_bar
        if cplx and not isinstance(s_bar, AbstractZero):
            # the sign moves only along i * sign: what reaches A is i Im(s_bar conj(sign))
            z = s_bar * xp.conj(sign)
            rot = (z - xp.conj(z)) / 2
            coeff = rot if coeff is None else coeff + rot
        if coeff is None:  # the real sign is piecewise constant: nothing flows back
            return project(ZERO)
        inv = named_singular("linalg.slogdet", _SLOGDET_WHY, lambda: xp.linalg.inv(x))
        return project(_bcast(xp, coeff) * _h(xp, inv))

    return y, slogdet_pullback


@register_frule("linalg.slogdet", examples=lambda rng: _slogdet_ex(rng))
def _slogdet_frule(tangents: Any, x: Any, /) -> Any:
    xp = namespace_of(x, fname="linalg.slogdet")
    y = xp.linalg.slogdet(x)
    sign, logabsdet = y
    t = tangents_in("linalg.slogdet", tangents, (x,))
    if t is None:
        return y, ZERO
    inv = named_singular("linalg.slogdet", _SLOGDET_WHY, lambda: xp.linalg.inv(x))
    tr = _trace_product(xp, inv, t[0])
    if _complex(xp, tr):
        l_dot = in_dtype(xp, xp.real(tr), logabsdet.dtype)
        s_dot: Any = in_dtype(xp, sign * ((tr - xp.conj(tr)) / 2), sign.dtype)
    else:
        l_dot, s_dot = in_dtype(xp, tr, logabsdet.dtype), ZERO
    return y, Tangent(s_dot, l_dot, primal_type=type(y))


# --- matrix_power --------------------------------------------------------------------------------
def _static_power(n: Any) -> int:
    if isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power: n must be an integer, got {n!r}")
    try:
        return operator.index(n)
    except TypeError:
        raise TypeError(
            f"linalg.matrix_power: n must be a Python integer (a static argument), got {n!r}"
        ) from None


def _power_program(xp: Any, b: Any, m: int) -> tuple[list[int], list[Any], list[Any]]:
    """``B^m`` (``m >= 1``) by repeated squaring, with every intermediate kept: the set bits of
    ``m``, the squares ``S_0 = B, S_{j+1} = S_j S_j`` and the running products ``P`` over the
    set bits (the last is ``B^m``). The loops run over the bits of the static integer ``m``,
    never over array values."""
    bits = [j for j in range(m.bit_length()) if m >> j & 1]
    squares = [b]
    for _ in range(m.bit_length() - 1):
        s = squares[-1]
        squares.append(xp.matmul(s, s))
    products = [squares[bits[0]]]
    for j in bits[1:]:
        products.append(xp.matmul(products[-1], squares[j]))
    return bits, squares, products


def _power_back(xp: Any, program: Any, y_bar: Any) -> Any:
    """``B_bar`` for the cotangent ``y_bar`` of ``B^m`` (``program``: :func:`_power_program`)."""
    bits, sq, products = program
    s_bar: list[Any] = [None] * len(sq)

    def add(j: int, v: Any) -> None:
        s_bar[j] = v if s_bar[j] is None else s_bar[j] + v

    p_bar = y_bar
    for t in range(len(bits) - 1, 0, -1):  # P_t = P_{t-1} S_{bits[t]}
        s = sq[bits[t]]
        add(bits[t], xp.matmul(_h(xp, products[t - 1]), p_bar))
        p_bar = xp.matmul(p_bar, _h(xp, s))
    add(bits[0], p_bar)
    for j in range(len(sq) - 1, 0, -1):  # S_j = S_{j-1} S_{j-1}
        if s_bar[j] is None:
            continue
        sh = _h(xp, sq[j - 1])
        add(j - 1, xp.matmul(s_bar[j], sh) + xp.matmul(sh, s_bar[j]))
    return s_bar[0]


def _power_forward(xp: Any, program: Any, db: Any) -> Any:
    """The tangent of ``B^m`` for the tangent ``db`` of ``B`` (chunk axes lead)."""
    bits, sq, products = program
    ds = [db]
    for j in range(1, max(bits) + 1):
        s, d = sq[j - 1], ds[-1]
        ds.append(xp.matmul(d, s) + xp.matmul(s, d))
    dp = ds[bits[0]]
    for t, j in enumerate(bits[1:], start=1):
        dp = xp.matmul(dp, sq[j]) + xp.matmul(products[t - 1], ds[j])
    return dp


def _power(x: Any, n: Any) -> tuple[Any, int, Any, Any, Any]:
    """``(xp, n, y, B, program)`` of ``matrix_power(x, n)``: ``B`` is ``x`` or, for ``n < 0``,
    ``inv(x)``; ``program`` is ``None`` for ``|n| <= 1`` (the identity, ``x`` itself -- a copy by
    the library -- or ``inv(x)``)."""
    xp = namespace_of(x, fname="linalg.matrix_power")
    _matrix_arg("linalg.matrix_power", x)
    n = _static_power(n)
    if abs(n) <= 1:
        y = xp.linalg.matrix_power(x, n)
        return xp, n, y, y if n == -1 else x, None
    base = xp.linalg.inv(x) if n < 0 else x
    program = _power_program(xp, base, abs(n))
    return xp, n, program[2][-1], base, program


@register_rrule("linalg.matrix_power", examples=lambda rng: _power_ex(rng))
def _matrix_power_rrule(x: Any, n: Any, /) -> Any:
    xp, n_, y, base, program = _power(x, n)
    project = ProjectTo(x, xp)

    @pullback(y, (x, n), name="linalg.matrix_power")
    def matrix_power_pullback(y_bar: Any) -> tuple[Any, Any]:
        if n_ == 0:  # the identity: nothing flows back
            return project(ZERO), NO
        b_bar = y_bar if program is None else _power_back(xp, program, y_bar)
        if n_ < 0:  # B = inv(A)
            bh = _h(xp, base)
            b_bar = -xp.matmul(bh, xp.matmul(b_bar, bh))
        return project(b_bar), NO

    return y, matrix_power_pullback


@register_frule("linalg.matrix_power", examples=lambda rng: _power_ex(rng))
def _matrix_power_frule(tangents: Any, x: Any, n: Any, /) -> Any:
    xp, n_, y, base, program = _power(x, n)
    t = tangents_in("linalg.matrix_power", tangents[:2], (x,))  # n is static
    if t is None or n_ == 0:
        return y, ZERO
    db = t[0] if n_ > 0 else -xp.matmul(base, xp.matmul(t[0], base))
    dy = db if program is None else _power_forward(xp, program, db)
    return y, in_dtype(xp, dy, y.dtype)


# --- examples ------------------------------------------------------------------------------------
def _solve_ex(rng: Any) -> list[Any]:
    return [
        ((_well(rng, (3, 3)), _normal(rng, (3,))), {}),
        ((_well(rng, (3, 3)), _normal(rng, (3, 2))), {}),
        ((_well(rng, (2, 3, 3)), _normal(rng, (3,))), {}),  # a vector b against a stack
        ((_well(rng, (2, 3, 3)), _normal(rng, (2, 3, 2))), {}),
        ((_well(rng, (2, 1, 3, 3)), _normal(rng, (3, 3, 2))), {}),  # batch axes broadcast
        ((_well(rng, (3, 3)), _normal(rng, (2, 3, 1))), {}),  # A broadcast over b's stack
        ((_well(rng, (3, 3), True), _normal(rng, (3,), True)), {}),
        ((_well(rng, (2, 3, 3), True), _normal(rng, (3, 2), True)), {}),
        ((_well(rng, (0, 0)), _normal(rng, (0,))), {}),
        ((_well(rng, (2, 0, 0)), _normal(rng, (2, 0, 3))), {}),
        ((_well(rng, (0, 3, 3)), _normal(rng, (3, 2))), {}),
    ]


def _matrices(rng: Any, make: Any) -> list[Any]:
    """The calls on one matrix that every one-matrix example list begins with, ``make(rng,
    shape, complex)`` drawing each: a matrix, a 1 x 1, a stack, and two complex ones."""
    real: list[Any] = [((make(rng, shape),), {}) for shape in ((3, 3), (1, 1), (2, 3, 3))]
    return real + [((make(rng, shape, True),), {}) for shape in ((3, 3), (2, 2, 2))]


def _inv_ex(rng: Any) -> list[Any]:
    return [
        *_matrices(rng, _well),
        ((_well(rng, (0, 0)),), {}),
        ((_well(rng, (0, 2, 2)),), {}),
    ]


def _det_ex(rng: Any) -> list[Any]:
    import numpy as np

    singular = _normal(rng, (3, 3))
    singular[2] = singular[0] + 2 * singular[1]  # rank 2: the adjugate is rank 1, not zero
    rank1 = np.outer(_normal(rng, (3,)), _normal(rng, (3,)))  # rank 1: the adjugate is 0
    return [
        *_matrices(rng, _normal),
        ((singular,), {}),
        ((rank1,), {}),
        ((_normal(rng, (0, 0)),), {}),
        ((_normal(rng, (2, 0, 0)),), {}),
    ]


def _slogdet_ex(rng: Any) -> list[Any]:
    import numpy as np

    neg = _well(rng, (3, 3)) * np.array([[1.0], [1.0], [-1.0]])  # a negative determinant
    return [
        ((_well(rng, (3, 3)),), {}),
        ((neg,), {}),
        ((_well(rng, (2, 3, 3)) * np.array([1.0, -1.0])[:, None, None],), {}),
        ((_well(rng, (3, 3), True),), {}),
        ((_well(rng, (2, 2, 2), True),), {}),
        ((_well(rng, (0, 0)),), {}),
    ]


def _power_ex(rng: Any) -> list[Any]:
    a = _well(rng, (3, 3)) / 2
    b = _well(rng, (2, 3, 3)) / 2
    c = _well(rng, (2, 2), True) / 2
    out: list[Any] = [((a, n), {}) for n in (0, 1, 2, 3, 5, -1, -2, -3)]
    out += [((b, 3), {}), ((b, -2), {}), ((c, 3), {}), ((c, -3), {}), ((c, 0), {})]
    out += [((_well(rng, (0, 0)), 2), {}), ((_well(rng, (0, 2, 2)), -2), {})]
    return out


# --- NumPy's tensorsolve, tensorinv --------------------------------------------------------
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
    y = numpy_module(a).linalg.tensorsolve(*args, **kwargs)  # the library checks the shapes
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
    rest = (NO,) * (len(args) - 2)

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
        return y, ZERO
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
    y = numpy_module(a).linalg.tensorinv(*args, **kwargs)
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
    rest = (NO,) * (len(args) - 1)

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
        return y, ZERO
    lead = t.lead()
    ym = xp.reshape(y, (n, n))
    dy = -(ym @ xp.reshape(t[0], (*lead, n, n)) @ ym)
    return y, in_dtype(xp, xp.reshape(dy, (*lead, *tuple(y.shape))), y.dtype)


# --- NumPy's cond: the condition number of a system ------------------------------------------
_COND = signature("linalg.cond", lambda x, p=None: None)


_SVD_P = (None, 2, -2)


def _cond(args: Any, kwargs: Any) -> tuple[Any, Any, Any, Any, Any]:
    a = _COND.bind(args, kwargs)
    x, p = a["x"], a["p"]
    xp = namespace_of(x, fname="linalg.cond")
    if getattr(x, "ndim", 0) < 2:
        raise ValueError(f"linalg.cond: x must be a (stack of) matrices, got shape {x.shape}")
    npm = numpy_module(x)
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
    rest = tuple(ZERO if isinstance(q, float) else NO for q in args[1:])

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
        return y, ZERO
    dx = t[0]
    if p in _SVD_P:
        u, s, vh = finite_svd(xp, x, False)
        ds = _re(xp, xp.sum(_conj(xp, u) * (dx @ _h(xp, vh)), axis=-2))
        dy = xp.sum(_cond_svd_weights(xp, s, p) * ds, axis=-1)
        return y, in_dtype(xp, dy, y.dtype)
    n1, d1 = frule((NO, dx, NO, NO), npm.linalg.norm, x, p, (-2, -1))
    xi, dxi = frule((NO, dx), npm.linalg.inv, x)
    n2, d2 = frule((NO, dxi, NO, NO), npm.linalg.norm, xi, p, (-2, -1))
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
