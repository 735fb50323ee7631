"""Rules for the standard's linear algebra functions (``linear_algebra_functions``) --
``matmul``, ``matrix_transpose``, ``tensordot``, ``vecdot`` -- and NumPy's product names
(``dot``, ``vdot``, ``inner``, ``einsum``, ``kron``, ``tensordot``, ``matvec``, ``vecmat``).

Maths notes
-----------
Every function here is linear in each operand, so a cotangent is the *adjoint* contraction of the
output cotangent with the other operand(s), and a tangent is the sum, over the operands, of the
function applied with that operand's tangent in its place. Complex operands follow the library's
convention (``x_bar = dL/dRe x + i dL/dIm x``): the adjoint of a holomorphic contraction contracts
with the *conjugated* other operands.

* ``matmul``: ``A_bar = y_bar @ B^H``, ``B_bar = A^H @ y_bar``. A 1-D operand is promoted to a
  matrix (a row for ``x1``, a column for ``x2``) as the standard says and the inserted axis is
  dropped again; batch axes that an operand was broadcast along are summed away. A chunk of
  tangents or cotangents that would make a stack of mat-vecs (vec-mats) against one matrix is
  folded into the rows of one matrix product (:func:`stack_left`, :func:`stack_right`): the
  same sums, one pass over the matrix instead of one per chunk entry.
* ``matrix_transpose``: the cotangent is transposed back.
* ``tensordot`` (and ``dot``, ``inner``, which are tensordot contractions): ``A_bar`` is the
  tensordot of ``y_bar`` with ``conj(B)`` over ``B``'s free axes, permuted back into ``A``'s
  axis order; likewise for ``B``. ``dot``/``inner`` with a 0-d operand are products.
* ``vecdot`` and ``vdot`` conjugate their first operand: ``y = sum(conj(x1) * x2)``, so
  ``x1_bar = x2 * conj(y_bar)`` and ``x2_bar = x1 * y_bar``.
* ``einsum`` (any subscripts: implicit or explicit output, ``...``, repeated indices within an
  operand, any number of operands, 0-d operands; NumPy's interleaved form ``einsum(a, [0, 1], b,
  [1, 2], [0, 2])`` is turned into the subscripts string by the binder): the cotangent of
  operand ``k`` is the einsum of ``y_bar`` with the other (conjugated) operands onto ``k``'s
  distinct indices; an index of ``k`` found nowhere else is broadcast back, and an index repeated
  within ``k`` (``'ii->i'``) is put back on the diagonal by contracting with identity matrices
  (``xp.eye``). An axis an operand was broadcast along (length 1 against a longer one) gets an
  index of its own, so it is summed away.
* ``matvec`` (``y = A v``, NumPy 2.2): ``A_bar = y_bar conj(v)^T``, ``v_bar = A^H y_bar``;
  ``vecmat`` conjugates its vector (``y = conj(v)^T A``): ``v_bar = A conj(y_bar)``,
  ``A_bar = v y_bar^T``; broadcast batch axes are summed away.
* ``kron``: ``y`` reshaped to interleaved axes ``(a0, b0, a1, b1, ...)`` is ``a * b`` there, so
  ``a_bar = einsum(y_bar, conj(b))`` over the ``b`` axes, and likewise for ``b``.

Second derivatives: every pullback is built only from functions with rules of their own
(``matmul``, ``matrix_transpose``, ``tensordot``, ``einsum``, ``conj``, ``sum``, ``reshape``,
``permute_dims``, ``broadcast_to``, ``multiply``, and the constant ``eye``), with no host reads, so
an engine can differentiate it again. ``conj`` is skipped for real arrays (a dtype check on host
metadata), which changes no value.

Degenerate cases: zero-size axes give zero-size or all-zero cotangents; integer and boolean
operands get ``NoTangent()``; a real operand meeting a complex one gets the real part (projection).
``out=`` is rejected.

Layout: each rule reads top to bottom -- bind the call (``signature``), compute the primal, build
the projectors, a named pullback decorated with ``@pullback``, the frule beside it (its tangents
from ``tangents_in``), the registration right there. The contractions (``tensordot``, ``dot``,
``inner``) share one pullback builder, :func:`contraction_rrule`, and its pushforward.
"""

from __future__ import annotations

import functools
import math
import string
from collections.abc import Callable, Sequence
from typing import Any

import array_api_compat
import numpy as np

from ..core.examples import Expect
from ..core.namespaces import namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.specialise import specialise
from ..core.tangents import AbstractZero, NoTangent, Thunk, ZeroTangent
from ..core.toolkit import Signature, pullback, signature, tangents_in
from ._util import adjoint, conj, in_dtype, lazy

_NO = NoTangent()
_ZERO = ZeroTangent()
_SCALARS = (bool, int, float, complex)
_FLOATING = ("real floating", "complex floating")


# --- helpers shared by every product (host metadata and array functions with rules) --------------
def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of ``shapes`` (host metadata); a ValueError when they do not broadcast."""
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate(s, start=n - len(s)):
            if d != 1:
                if out[i] not in (1, d):
                    raise ValueError(f"shapes {[tuple(s) for s in shapes]} do not broadcast")
                out[i] = d
    return tuple(out)


def sum_to(xp: Any, g: Any, shape: Sequence[int]) -> Any:
    """``g`` summed down to ``shape``, the shape it was broadcast from (leading axes, and axes
    where ``shape`` has length 1)."""
    shape = tuple(shape)
    lead = g.ndim - len(shape)
    if lead:
        g = xp.sum(g, axis=tuple(range(lead)))
    axes = tuple(i for i, (t, s) in enumerate(zip(shape, g.shape)) if t == 1 and s != 1)
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    return g


def reshape_to(xp: Any, x: Any, shape: Sequence[int]) -> Any:
    """``reshape(x, shape)``, skipped when ``x`` already has that shape."""
    shape = tuple(shape)
    return x if tuple(x.shape) == shape else xp.reshape(x, shape)


def pad_chunk(xp: Any, t: Any, extra: int, rank: int) -> Any:
    """A tangent with ``extra`` leading chunk axes, with length-1 axes inserted after them so
    that its primal part has rank ``rank``: it then broadcasts against the other operands with
    the chunk axes in front."""
    nd = t.ndim - extra
    if nd >= rank:
        return t
    return xp.reshape(t, (*tuple(t.shape[:extra]), *(1,) * (rank - nd), *tuple(t.shape[extra:])))


def _permute(xp: Any, x: Any, perm: Sequence[int]) -> Any:
    perm = tuple(perm)
    return x if perm == tuple(range(len(perm))) else xp.permute_dims(x, perm)


def arrays(xp: Any, xs: Sequence[Any]) -> tuple[Any, ...]:
    """The operands as arrays: Python scalars become 0-d arrays of ``xp`` (the projections are
    built from the operands as given, so a scalar's cotangent stays a scalar's)."""
    return tuple(xp.asarray(o) if type(o) in _SCALARS else o for o in xs)


def bind_kwonly(sig: Signature, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """``sig.bind`` for the standard's signatures, whose parameters after the arrays are
    keyword-only: a parameter given by position says so."""
    try:
        return sig.bind(args, kwargs)
    except TypeError as e:
        if "too many positional arguments" not in str(e):
            raise
        raise TypeError(f"{e} (the parameters after the arrays are keyword-only)") from None


def bind_pair(sig: Signature, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The operands of a call of ``sig`` (``signature(name, lambda x1, x2, /, *, out=None:
    None)``): the plain call ``f(x1, x2)`` -- what engines make, on the hot path -- skips the
    binder, which would return them unchanged; any other call goes through it."""
    if len(args) == 2 and not kwargs:
        return args[0], args[1]
    p = sig.bind(args, kwargs)
    return p["x1"], p["x2"]


def tangent(xp: Any, t: Any, x: Any) -> Any:
    """The tangent ``t`` of operand ``x`` (from :func:`tangents_in`) as an array, or ``None``
    where it is zero or ``x`` has no tangent space (integers, booleans)."""
    if isinstance(t, AbstractZero) or not xp.isdtype(x.dtype, _FLOATING):
        return None
    return xp.asarray(t) if type(t) in _SCALARS else t


def total(xp: Any, y: Any, terms: Sequence[Any]) -> Any:
    """The pushforward: the sum of the operands' terms (``None`` for a zero term) in ``y``'s
    dtype, ``ZeroTangent()`` when every term is zero."""
    acc: Any = None
    for term in terms:
        if term is not None:
            acc = term if acc is None else acc + term
    return _ZERO if acc is None else in_dtype(xp, acc, y.dtype)


# --- matmul ---------------------------------------------------------------------------------------
def _matmul_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    c = r((2, 3)) + 1j * r((2, 3))
    return [
        ((r((2, 3)), r((3, 4))), {}),
        ((r(3), r((3, 2))), {}),
        ((r((2, 3)), r(3)), {}),
        ((r(4), r(4)), {}),
        ((r((2, 2, 3)), r((3, 2))), {}),  # batched against a broadcast matrix
        ((r((2, 1, 2, 3)), r((3, 3, 2))), {}),  # batch axes broadcast both ways
        ((r(3), r((2, 3, 2))), {}),  # a vector against a stack
        ((r((2, 3)), r((2, 3, 1))), {}),  # a matrix against a stack of columns (folded)
        ((r((2, 1, 3)), r((3, 2))), {}),  # a stack of rows against a matrix (folded)
        ((c, r((2, 3, 1)) + 1j * r((2, 3, 1))), {}),  # folded, complex
        ((r((0, 3)), r((3, 2))), {}),  # zero-size
        ((r((2, 0)), r((0, 3))), {}),
        ((c, r((3, 2)) + 1j * r((3, 2))), {}),  # complex
        ((r((2, 3)), c.T), {}),  # real meets complex
    ]


_MATMUL = signature("matmul", lambda x1, x2, /, *, out=None: None)


def _matmul_shapes(a: Any, b: Any) -> tuple[tuple[int, ...], ...]:
    """The operands' shapes with a 1-D operand promoted to a matrix (a row for ``x1``, a column
    for ``x2``), the product's shape so promoted, and the output's shape."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(
            f"matmul: operands must have rank >= 1, got shapes {tuple(a.shape)} and "
            f"{tuple(b.shape)}"
        )
    ashape = (1, *tuple(a.shape)) if a.ndim == 1 else tuple(a.shape)
    bshape = (*tuple(b.shape), 1) if b.ndim == 1 else tuple(b.shape)
    batch = broadcast_shapes(ashape[:-2], bshape[:-2])
    rows = () if a.ndim == 1 else (a.shape[-2],)
    cols = () if b.ndim == 1 else (b.shape[-1],)
    return ashape, bshape, (*batch, ashape[-2], bshape[-1]), (*batch, *rows, *cols)


def stack_left(xp: Any, x: Any, b: Any) -> Any:
    """``x @ b`` for a stack ``x`` of shape ``(..., m, n)`` and a matrix ``b`` of shape
    ``(n, p)`` as one matrix product: the stack axes are folded into the rows
    (``reshape(x, (L*m, n)) @ b``). ``matmul`` would run one product per stack entry, each
    reading all of ``b``: a chunk of mat-vecs is k passes over the matrix, one GEMM is one."""
    lead = tuple(x.shape[:-1])
    r = xp.matmul(xp.reshape(x, (math.prod(lead), x.shape[-1])), b)
    return xp.reshape(r, (*lead, b.shape[-1]))


def stack_right(xp: Any, a: Any, x: Any) -> Any:
    """``a @ x`` for a matrix ``a`` of shape ``(m, n)`` and a stack ``x`` of columns, shape
    ``(..., n, 1)``, as one matrix product: ``reshape(x, (L, n)) @ a^T`` (see
    :func:`stack_left`)."""
    lead = tuple(x.shape[:-2])
    r = xp.matmul(xp.reshape(x, (math.prod(lead), x.shape[-2])), xp.matrix_transpose(a))
    return xp.reshape(r, (*lead, a.shape[-2], 1))


def _folds(x: Any, n: int) -> bool:
    """Whether the stack ``x`` (rank above ``n``, non-empty: host metadata) is worth folding into
    one matrix product by :func:`stack_left` / :func:`stack_right`."""
    return x.ndim > n and math.prod(tuple(x.shape)) > 0


@specialise
def matmul_rrule(*args: Any, **kwargs: Any) -> Any:
    x1, x2 = bind_pair(_MATMUL, args, kwargs)
    xp = namespace_of(x1, x2, fname="matmul")
    a, b = arrays(xp, (x1, x2))
    _matmul_shapes(a, b)  # first: it names rank-0 operands
    y = xp.matmul(a, b)
    return y, _matmul_pullback(xp, (x1, x2), y)


@matmul_rrule.method("numpy")
def _matmul_rrule_numpy(*args: Any, **kwargs: Any) -> Any:
    """Non-empty real NumPy matrices and vectors of one dtype (not two vectors): ``np.matmul``,
    and for a NumPy cotangent of the output's shape and dtype each operand's cotangent as a
    ``Thunk`` (an engine forces only a traced operand's); any other cotangent goes to the
    generic pullback, built then. At n=10 the compat wrapper and the generic shape bookkeeping
    cost about 7 us around a 1 us product, in every layer of the population's models."""
    if len(args) != 2 or kwargs:
        return NotImplemented
    a, b = args
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        return NotImplemented
    dtype, na, nb = a.dtype, a.ndim, b.ndim
    if dtype.kind != "f" or b.dtype != dtype or na + nb < 3 or na > 2 or nb > 2:
        return NotImplemented  # (na + nb < 3: a vector and a vector, or a 0-d operand)
    if not a.size or not b.size:
        return NotImplemented
    y = np.matmul(a, b)

    def matmul_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, Any, Any]:
        if chunk or type(y_bar) is not np.ndarray or y_bar.shape != y.shape:
            return _matmul_pullback(namespace_of(a, b), args, y)(y_bar, chunk=chunk)
        if y_bar.dtype != dtype:
            return _matmul_pullback(namespace_of(a, b), args, y)(y_bar, chunk=chunk)
        a_bar = Thunk(functools.partial(_np_left_bar, y_bar, b))
        return _NO, a_bar, Thunk(functools.partial(_np_right_bar, a, y_bar))

    return y, matmul_pullback


register_rrule("matmul", examples=_matmul_ex, chunked_pullback=True)(matmul_rrule)


def _np_left_bar(g: Any, b: Any) -> Any:
    """The left operand's cotangent of a real NumPy ``x1 @ b``: ``g @ b^T``, or the outer
    product ``g b^T`` when ``b`` is a vector (then ``x1`` is a matrix)."""
    return g[:, None] * b if b.ndim == 1 else np.matmul(g, b.T)


def _np_right_bar(a: Any, g: Any) -> Any:
    """The right operand's cotangent of a real NumPy ``a @ x2``: ``a^T @ g``, or the outer
    product ``a g^T`` when ``a`` is a vector (then ``x2`` is a matrix)."""
    return a[:, None] * g if a.ndim == 1 else np.matmul(a.T, g)


def _vector_bar(xp: Any, g: Any, a: Any) -> Any:
    """``A^H g`` for a matrix-vector product's vector (a chunk ``g``: its rows) as ``g @ conj(A)``:
    no transposed copy of ``A``."""
    return xp.matmul(g, conj(xp, a))


def _matmul_pullback(xp: Any, args: tuple[Any, Any], y: Any) -> Callable[..., Any]:
    """The pullback of ``y = matmul(*args)`` in namespace ``xp``, for every library."""
    x1, x2 = args
    a, b = arrays(xp, (x1, x2))
    ashape, bshape, yshape, out_shape = _matmul_shapes(a, b)
    project_a, project_b = ProjectTo(x1, xp), ProjectTo(x2, xp)
    rank = len(yshape)

    @pullback(y, args, chunked=True)
    def matmul_pullback(y_bar: Any) -> Any:
        # a chunk of cotangents (extra leading axes) rides along as batch axes of the products
        extra = y_bar.ndim - len(out_shape)
        lead = tuple(y_bar.shape[:extra])
        if a.ndim == 2 and b.ndim == 1:
            # a matrix-vector product's b_bar as y_bar @ conj(a): one GEMV (a chunk: one GEMM)
            # with no transposed copy of a (XLA materialised adjoint(a) @ g as a transpose and
            # a copy: 1.7x native JAX at 2000 x 2000)
            g = y_bar

            def b_bar() -> Any:
                return project_b(_vector_bar(xp, g, a), extra)

        else:
            g = pad_chunk(xp, reshape_to(xp, y_bar, (*lead, *yshape)), extra, rank)

            def b_bar() -> Any:
                ah = adjoint(xp, reshape_to(xp, a, ashape))
                if a.ndim <= 2 and bshape[-1] == 1 and _folds(g, 2):  # a stack of mat-vecs
                    r = stack_right(xp, ah, g)
                else:
                    r = xp.matmul(ah, g)
                r = sum_to(xp, r, (*lead, *pad_shape(bshape, rank)))
                return project_b(reshape_to(xp, r, (*lead, *tuple(b.shape))), extra)

        def a_bar() -> Any:
            gg = pad_chunk(xp, reshape_to(xp, y_bar, (*lead, *yshape)), extra, rank)
            bh = adjoint(xp, reshape_to(xp, b, bshape))
            if b.ndim <= 2 and ashape[-2] == 1 and _folds(gg, 2):  # a stack of vec-mats
                r = stack_left(xp, gg, bh)
            else:
                r = xp.matmul(gg, bh)
            r = sum_to(xp, r, (*lead, *pad_shape(ashape, rank)))
            return project_a(reshape_to(xp, r, (*lead, *tuple(a.shape))), extra)

        return lazy(project_a, a_bar), lazy(project_b, b_bar)

    return matmul_pullback


def pad_shape(shape: Sequence[int], rank: int) -> tuple[int, ...]:
    """``shape`` with length-1 axes in front up to ``rank`` (how it broadcasts against a product
    of that rank: :func:`sum_to` then keeps a chunk's leading axes apart from batch axes)."""
    return (1,) * (rank - len(shape)) + tuple(shape)


@register_frule("matmul", examples=_matmul_ex)
def matmul_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x1, x2 = bind_pair(_MATMUL, args, kwargs)
    xp = namespace_of(x1, x2, fname="matmul")
    a, b = arrays(xp, (x1, x2))
    ashape, bshape, yshape, out_shape = _matmul_shapes(a, b)
    y = xp.matmul(a, b)
    dots = tangents_in("matmul", tangents[:3], (x1, x2))
    if dots is None:
        return y, _ZERO
    extra, rank = dots.extra, len(yshape)
    da, db = tangent(xp, dots[0], a), tangent(xp, dots[1], b)
    terms = []
    if da is not None:
        t = pad_chunk(xp, reshape_to(xp, da, (*tuple(da.shape[:extra]), *ashape)), extra, rank)
        bm = reshape_to(xp, b, bshape)
        fold = b.ndim <= 2 and ashape[-2] == 1 and _folds(t, 2)  # a stack of vec-mats
        terms.append(stack_left(xp, t, bm) if fold else xp.matmul(t, bm))
    if db is not None:
        t = pad_chunk(xp, reshape_to(xp, db, (*tuple(db.shape[:extra]), *bshape)), extra, rank)
        am = reshape_to(xp, a, ashape)
        fold = a.ndim <= 2 and bshape[-1] == 1 and _folds(t, 2)  # a stack of mat-vecs
        terms.append(stack_right(xp, am, t) if fold else xp.matmul(am, t))
    terms = [reshape_to(xp, r, (*tuple(r.shape[: r.ndim - rank]), *out_shape)) for r in terms]
    return y, total(xp, y, terms)


# --- matrix_transpose -----------------------------------------------------------------------------
def _transpose_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r((2, 3)),), {}),
        ((r((2, 3, 4)),), {}),
        ((r((0, 3)),), {}),
        ((r((2, 3)) + 1j * r((2, 3)),), {}),
    ]


_MATRIX_TRANSPOSE = signature("matrix_transpose", lambda x, /, *, out=None: None)


def _transpose_operand(xp: Any, x: Any) -> Any:
    (a,) = arrays(xp, (x,))
    if a.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have rank >= 2, got shape {tuple(a.shape)}")
    return a


@register_rrule("matrix_transpose", examples=_transpose_ex, kind="view")
def matrix_transpose_rrule(*args: Any, **kwargs: Any) -> Any:
    x = _MATRIX_TRANSPOSE.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="matrix_transpose")
    y = xp.matrix_transpose(_transpose_operand(xp, x))
    project = ProjectTo(x, xp)

    @pullback(y, args)
    def matrix_transpose_pullback(y_bar: Any) -> Any:
        return project(xp.matrix_transpose(y_bar)) if project.differentiable else _NO

    return y, matrix_transpose_pullback


@register_frule("matrix_transpose", examples=_transpose_ex, kind="view")
def matrix_transpose_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x = _MATRIX_TRANSPOSE.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="matrix_transpose")
    a = _transpose_operand(xp, x)
    y = xp.matrix_transpose(a)
    dots = tangents_in("matrix_transpose", tangents[:2], (x,))
    if dots is None:
        return y, _ZERO
    t = tangent(xp, dots[0], a)
    return y, total(xp, y, [None if t is None else xp.matrix_transpose(t)])


# --- tensordot and the contractions built on it (dot, inner) -----------------------------------
def _normalize_axes(name: str, axes: Any, nd: int, which: str) -> tuple[int, ...]:
    seq = (axes,) if isinstance(axes, int) else tuple(axes)
    out = []
    for a in seq:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{name}: axes must hold ints, got {axes!r}")
        if not -nd <= a < nd:
            raise ValueError(f"{name}: axis {a} is out of bounds for {which} of rank {nd}")
        out.append(a % nd)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axis in {axes!r} for {which}")
    return tuple(out)


def tensordot_axes(name: str, axes: Any, a_nd: int, b_nd: int) -> tuple[tuple[int, ...], ...]:
    """``axes`` of ``tensordot`` (an int ``N``: the last ``N`` axes of ``x1`` with the first
    ``N`` of ``x2``; or a pair of ints or sequences) as two tuples of non-negative axes."""
    if isinstance(axes, int) and not isinstance(axes, bool):
        if axes < 0 or axes > min(a_nd, b_nd):
            raise ValueError(
                f"{name}: axes={axes} must be in [0, {min(a_nd, b_nd)}] for operands of rank "
                f"{a_nd} and {b_nd}"
            )
        return tuple(range(a_nd - axes, a_nd)), tuple(range(axes))
    try:
        ax_a, ax_b = axes
    except (TypeError, ValueError):
        raise TypeError(
            f"{name}: axes must be an int or a pair of sequences, got {axes!r}"
        ) from None
    a_ax = _normalize_axes(name, ax_a, a_nd, "x1")
    b_ax = _normalize_axes(name, ax_b, b_nd, "x2")
    if len(a_ax) != len(b_ax):
        raise ValueError(f"{name}: axes {axes!r} name different numbers of axes for x1 and x2")
    return a_ax, b_ax


def _check_contracted(name: str, a: Any, b: Any, a_ax: Sequence[int], b_ax: Sequence[int]) -> None:
    for i, j in zip(a_ax, b_ax):
        if a.shape[i] != b.shape[j]:
            raise ValueError(
                f"{name}: contracted axes {i} of x1 (length {a.shape[i]}) and {j} of x2 "
                f"(length {b.shape[j]}) differ"
            )


def contraction_rrule(
    name: str, args: Sequence[Any], xp: Any, x1: Any, x2: Any, y: Any, axes: Any
) -> tuple[Any, Any]:
    """``(y, pullback)`` of ``y``, the contraction of ``x1``'s axes ``axes[0]`` with ``x2``'s
    axes ``axes[1]`` (the output has ``x1``'s free axes, then ``x2``'s): ``x1_bar`` is the
    tensordot of ``y_bar`` with ``conj(x2)`` over ``x2``'s free axes, permuted back into ``x1``'s
    axis order; likewise for ``x2``. ``args`` are the call's positional arguments."""
    a, b = arrays(xp, (x1, x2))
    a_ax, b_ax = axes
    a_free = tuple(i for i in range(a.ndim) if i not in a_ax)
    b_free = tuple(j for j in range(b.ndim) if j not in b_ax)
    na, nb = len(a_free), len(b_free)
    project_a, project_b = ProjectTo(x1, xp), ProjectTo(x2, xp)
    rest = (_NO,) * (len(args) - 2)

    @pullback(y, args, name=name)
    def contraction_pullback(y_bar: Any) -> Any:
        def a_bar() -> Any:
            r = xp.tensordot(y_bar, conj(xp, b), axes=(tuple(range(na, na + nb)), b_free))
            # r's axes: x1's free axes, then x2's contracted axes in ascending order
            order = list(a_free) + [a_ax[b_ax.index(j)] for j in sorted(b_ax)]
            return project_a(_permute(xp, r, [order.index(i) for i in range(a.ndim)]))

        def b_bar() -> Any:
            r = xp.tensordot(conj(xp, a), y_bar, axes=(a_free, tuple(range(na))))
            order = [b_ax[a_ax.index(i)] for i in sorted(a_ax)] + list(b_free)
            return project_b(_permute(xp, r, [order.index(j) for j in range(b.ndim)]))

        return (lazy(project_a, a_bar), lazy(project_b, b_bar), *rest)

    return y, contraction_pullback


def contraction_frule(
    name: str, tangents: Any, xp: Any, x1: Any, x2: Any, y: Any, axes: Any
) -> tuple[Any, Any]:
    """``(y, y_dot)`` for the contraction of :func:`contraction_rrule`; the chunk axes of the
    tangents come out in front."""
    a, b = arrays(xp, (x1, x2))
    a_ax, b_ax = axes
    dots = tangents_in(name, tangents[:3], (x1, x2))
    if dots is None:
        return y, _ZERO
    extra = dots.extra
    da, db = tangent(xp, dots[0], a), tangent(xp, dots[1], b)
    ta = tb = None
    if da is not None:  # (chunk, x1 free, x2 free): the chunk axes are free axes in front
        ta = xp.tensordot(da, b, axes=(tuple(i + extra for i in a_ax), b_ax))
    if db is not None:
        r = xp.tensordot(a, db, axes=(a_ax, tuple(j + extra for j in b_ax)))
        na = a.ndim - len(a_ax)  # (x1 free, chunk, x2 free) -> (chunk, x1 free, x2 free)
        tb = _permute(xp, r, (*range(na, na + extra), *range(na), *range(na + extra, r.ndim)))
    return y, total(xp, y, [ta, tb])


def _tensordot_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r((2, 3, 4)), r((3, 4, 2))), {}),
        ((r((2, 3)), r((3, 2))), {"axes": 1}),
        ((r((2, 3)), r((4,))), {"axes": 0}),
        ((r((2, 3, 4)), r((4, 2, 3))), {"axes": ((1, 2), (2, 0))}),
        ((r((3, 4)), r((4, 3))), {"axes": ((-1, 0), (0, -1))}),
        ((r((2, 0)), r((0, 3))), {"axes": 1}),
        ((r((2, 3)) + 1j * r((2, 3)), r((3, 2)) + 1j * r((3, 2))), {"axes": 1}),
    ]


_TENSORDOT = signature("tensordot", lambda x1, x2, /, *, axes=2, out=None: None)


def _tensordot_call(sig: Signature, args: Any, kwargs: Any) -> tuple[Any, ...]:
    """The bound call of ``tensordot``: its namespace, operands, contracted axes and value."""
    p = bind_kwonly(sig, args, kwargs)
    x1, x2, axes = p["x1"], p["x2"], p["axes"]
    xp = namespace_of(x1, x2, fname="tensordot")
    a, b = arrays(xp, (x1, x2))
    contracted = tensordot_axes("tensordot", axes, a.ndim, b.ndim)
    _check_contracted("tensordot", a, b, *contracted)
    return xp, x1, x2, contracted, xp.tensordot(a, b, axes=axes)


@register_rrule("tensordot", examples=_tensordot_ex)
def tensordot_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, axes, y = _tensordot_call(_TENSORDOT, args, kwargs)
    return contraction_rrule("tensordot", args, xp, x1, x2, y, axes)


@register_frule("tensordot", examples=_tensordot_ex)
def tensordot_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, axes, y = _tensordot_call(_TENSORDOT, args, kwargs)
    return contraction_frule("tensordot", tangents, xp, x1, x2, y, axes)


# --- vecdot: the first operand is conjugated ------------------------------------------------------
def _vecdot_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r(4), r(4)), {}),
        ((r((2, 3)), r((2, 3))), {}),
        ((r((2, 3)), r(3)), {}),  # broadcast
        ((r((3, 2)), r((4, 3, 2))), {"axis": -2}),
        ((r((3, 2)), r((3, 2))), {"axis": 0}),
        ((r((2, 0)), r((2, 0))), {}),
        ((r((2, 3)) + 1j * r((2, 3)), r((2, 3)) + 1j * r((2, 3))), {}),
        ((r(3), r((2, 3)) + 1j * r((2, 3))), {}),
    ]


_VECDOT = signature("vecdot", lambda x1, x2, /, *, axis=-1, out=None: None)
# the standard's axis is negative (in [-N, -1]); NumPy's and the example #4 take axis=0
VECDOT_EXPECT = Expect("array_api_strict", "the standard's vecdot axis is negative", "skip", "#4")


def _vecdot_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """``vecdot(x1, x2, axis=-1) = sum(conj(x1) * x2, axis)``, broadcasting the other axes;
    the axis is also returned counted from the end of the broadcast shape (rank ``n``)."""
    p = bind_kwonly(_VECDOT, args, kwargs)
    x1, x2, axis = p["x1"], p["x2"], p["axis"]
    xp = namespace_of(x1, x2, fname="vecdot")
    a, b = arrays(xp, (x1, x2))
    n = max(a.ndim, b.ndim)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"vecdot: axis must be an int, got {axis!r}")
    if axis >= 0 and a.ndim != b.ndim:
        raise ValueError(
            "vecdot: give a negative axis for operands of different ranks "
            f"({tuple(a.shape)} and {tuple(b.shape)}); the standard counts from the end"
        )
    if not -min(a.ndim, b.ndim) <= axis < max(min(a.ndim, b.ndim), 1) or min(a.ndim, b.ndim) == 0:
        raise ValueError(
            f"vecdot: axis {axis} is out of bounds for operands of shapes {tuple(a.shape)} "
            f"and {tuple(b.shape)}"
        )
    neg = axis - n if axis >= 0 else axis
    return xp, x1, x2, a, b, n, neg, xp.vecdot(a, b, axis=axis)


@register_rrule("vecdot", examples=_vecdot_ex, expect=VECDOT_EXPECT)
def vecdot_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, a, b, n, neg, y = _vecdot_call(args, kwargs)
    project_a, project_b = ProjectTo(x1, xp), ProjectTo(x2, xp)

    @pullback(y, args)
    def vecdot_pullback(y_bar: Any) -> Any:
        shape = list(y_bar.shape)  # the contracted axis back as a length-1 axis
        shape.insert(n + neg, 1)
        g = xp.reshape(y_bar, tuple(shape))
        return (
            lazy(project_a, lambda: project_a(b * conj(xp, g))),
            lazy(project_b, lambda: project_b(a * g)),
        )

    return y, vecdot_pullback


@register_frule("vecdot", examples=_vecdot_ex)
def vecdot_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, a, b, n, neg, y = _vecdot_call(args, kwargs)
    dots = tangents_in("vecdot", tangents[:3], (x1, x2))
    if dots is None:
        return y, _ZERO
    da, db = tangent(xp, dots[0], a), tangent(xp, dots[1], b)
    ta = tb = None
    if da is not None:
        ta = xp.vecdot(pad_chunk(xp, da, dots.extra, n), b, axis=neg)
    if db is not None:
        tb = xp.vecdot(a, pad_chunk(xp, db, dots.extra, n), axis=neg)
    return y, total(xp, y, [ta, tb])


# --- NumPy's tensordot, dot and inner: contractions -----------------------------------------------
def _np_tensordot_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        *_tensordot_ex(rng),
        ((r((2, 3)), r((3, 2)), 1), {}),  # axes positional
        ((r((2, 3)), r((2, 4))), {"axes": (0, 0)}),  # NumPy's pair of ints
        ((r(()), r((3,))), {"axes": 0}),
    ]


_NP_TENSORDOT = signature("tensordot", lambda x1, x2, /, axes=2, *, out=None: None)


@register_rrule("numpy:tensordot", examples=_np_tensordot_ex)
def np_tensordot_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, axes, y = _tensordot_call(_NP_TENSORDOT, args, kwargs)
    return contraction_rrule("tensordot", args, xp, x1, x2, y, axes)


@register_frule("numpy:tensordot", examples=_np_tensordot_ex)
def np_tensordot_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, axes, y = _tensordot_call(_NP_TENSORDOT, args, kwargs)
    return contraction_frule("tensordot", tangents, xp, x1, x2, y, axes)


def _dot_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r(3), r(3)), {}),
        ((r((2, 3)), r((3, 4))), {}),
        ((r((2, 3)), r(3)), {}),
        ((r(3), r((3, 2))), {}),
        ((r((2, 2, 3)), r((4, 3, 2))), {}),
        ((r(()), r((2, 3))), {}),
        ((r((2, 3)), r(())), {}),
        ((r((0, 3)), r((3, 2))), {}),
        ((r((2, 3)) + 1j * r((2, 3)), r(3) + 1j * r(3)), {}),
    ]


_DOT = signature("dot", lambda x1, x2, /, out=None: None)


def _dot_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """NumPy's ``dot(a, b)``: a product when either is 0-d, else the last axis of ``a`` with the
    only axis of a vector ``b`` or the second-to-last of ``b``."""
    p = _DOT.bind(args, kwargs)
    x1, x2 = p["x1"], p["x2"]
    xp = namespace_of(x1, x2, fname="dot")
    a, b = arrays(xp, (x1, x2))
    axes = ((), ()) if a.ndim == 0 or b.ndim == 0 else ((a.ndim - 1,), (max(b.ndim - 2, 0),))
    _check_contracted("dot", a, b, *axes)
    return xp, x1, x2, axes, xp.dot(a, b)


@register_rrule("numpy:dot", examples=_dot_ex)
def dot_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, axes, y = _dot_call(args, kwargs)
    return contraction_rrule("dot", args, xp, x1, x2, y, axes)


@register_frule("numpy:dot", examples=_dot_ex)
def dot_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, axes, y = _dot_call(args, kwargs)
    return contraction_frule("dot", tangents, xp, x1, x2, y, axes)


def _inner_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r(3), r(3)), {}),
        ((r((2, 3)), r((4, 3))), {}),
        ((r((2, 2, 3)), r(3)), {}),
        ((r(()), r((2, 3))), {}),
        ((r((2, 0)), r((3, 0))), {}),
        ((r((2, 3)) + 1j * r((2, 3)), r(3) + 1j * r(3)), {}),
    ]


_INNER = signature("inner", lambda x1, x2, /, *, out=None: None)


def _inner_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """NumPy's ``inner(a, b)``: a product when either is 0-d, else the last axes contracted."""
    x1, x2 = bind_pair(_INNER, args, kwargs)
    xp = namespace_of(x1, x2, fname="inner")
    a, b = arrays(xp, (x1, x2))
    axes = ((), ()) if a.ndim == 0 or b.ndim == 0 else ((a.ndim - 1,), (b.ndim - 1,))
    _check_contracted("inner", a, b, *axes)
    return xp, x1, x2, axes, xp.inner(a, b)


@register_rrule("numpy:inner", examples=_inner_ex)
def inner_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, axes, y = _inner_call(args, kwargs)
    return contraction_rrule("inner", args, xp, x1, x2, y, axes)


@register_frule("numpy:inner", examples=_inner_ex)
def inner_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, axes, y = _inner_call(args, kwargs)
    return contraction_frule("inner", tangents, xp, x1, x2, y, axes)


# --- vdot: flattened, the first operand conjugated -----------------------------------------------
def _vdot_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r(3), r(3)), {}),
        ((r((2, 3)), r((2, 3))), {}),
        ((r((2, 3)), r(6)), {}),
        ((r(()), r(())), {}),
        ((r(0), r(0)), {}),
        ((r((2, 3)) + 1j * r((2, 3)), r((2, 3)) + 1j * r((2, 3))), {}),
        ((r(3), r(3) + 1j * r(3)), {}),
    ]


_VDOT = signature("vdot", lambda x1, x2, /, *, out=None: None)


def _vdot_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """NumPy's ``vdot(a, b) = sum(conj(ravel(a)) * ravel(b))``."""
    x1, x2 = bind_pair(_VDOT, args, kwargs)
    xp = namespace_of(x1, x2, fname="vdot")
    a, b = arrays(xp, (x1, x2))
    if math.prod(a.shape) != math.prod(b.shape):
        raise ValueError(
            f"vdot: operands of shapes {tuple(a.shape)} and {tuple(b.shape)} differ in size"
        )
    return xp, x1, x2, a, b, xp.vdot(a, b)


@register_rrule("numpy:vdot", examples=_vdot_ex)
def vdot_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, a, b, y = _vdot_call(args, kwargs)
    project_a, project_b = ProjectTo(x1, xp), ProjectTo(x2, xp)

    @pullback(y, args)
    def vdot_pullback(y_bar: Any) -> Any:
        return (
            lazy(project_a, lambda: project_a(reshape_to(xp, b, a.shape) * conj(xp, y_bar))),
            lazy(project_b, lambda: project_b(reshape_to(xp, a, b.shape) * y_bar)),
        )

    return y, vdot_pullback


@register_frule("numpy:vdot", examples=_vdot_ex)
def vdot_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, a, b, y = _vdot_call(args, kwargs)
    dots = tangents_in("vdot", tangents[:3], (x1, x2))
    if dots is None:
        return y, _ZERO
    n = math.prod(a.shape)
    da, db = tangent(xp, dots[0], a), tangent(xp, dots[1], b)
    ta = tb = None
    if da is not None:
        t = xp.reshape(da, (*tuple(da.shape[: dots.extra]), n))
        ta = xp.sum(conj(xp, t) * xp.reshape(b, (n,)), axis=-1)
    if db is not None:
        t = xp.reshape(db, (*tuple(db.shape[: dots.extra]), n))
        tb = xp.sum(conj(xp, xp.reshape(a, (n,))) * t, axis=-1)
    return y, total(xp, y, [ta, tb])


# --- matvec, vecmat: NumPy 2.2's gufuncs -----------------------------------------------------
def _numpy_functions(xp: Any) -> Any:
    """The module with NumPy's own names for arrays of ``xp``: ``jax.numpy`` itself, CuPy, or
    NumPy (array-api-compat's NumPy namespace lacks the gufuncs)."""
    if array_api_compat.is_jax_namespace(xp):
        return xp
    if array_api_compat.is_cupy_namespace(xp):
        import cupy

        return cupy
    import numpy

    return numpy


def _matvec_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r((2, 3)), r(3)), {}),
        ((r((2, 2, 3)), r(3)), {}),  # a stack of matrices, one vector
        ((r((2, 3)), r((2, 1, 3))), {}),  # one matrix, broadcast batch axes
        ((r((2, 2)) + 1j * r((2, 2)), r(2) + 1j * r(2)), {}),
        ((r((3, 2)), r(2) + 1j * r(2)), {}),  # a real matrix, a complex vector
    ]


def _vecmat_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r(2), r((2, 3))), {}),
        ((r((2, 2)), r((2, 3))), {}),
        ((r(3), r((2, 3, 2))), {}),
        ((r(2) + 1j * r(2), r((2, 2)) + 1j * r((2, 2))), {}),  # the vector is conjugated
        ((r(2) + 1j * r(2), r((2, 3))), {}),
    ]


_MATVEC = signature("matvec", lambda x1, x2, /, *, out=None: None)
_VECMAT = signature("vecmat", lambda x1, x2, /, *, out=None: None)


def _gufunc_call(name: str, sig: Signature, args: Any, kwargs: Any) -> tuple[Any, ...]:
    x1, x2 = bind_pair(sig, args, kwargs)
    xp = namespace_of(x1, x2, fname=name)
    mat, vec = (x1, x2) if name == "matvec" else (x2, x1)
    if getattr(mat, "ndim", 0) < 2 or getattr(vec, "ndim", 0) < 1:
        raise ValueError(
            f"{name}: expected a (stack of) matrices and a (stack of) vectors, got shapes "
            f"{tuple(getattr(x1, 'shape', ()))} and {tuple(getattr(x2, 'shape', ()))}"
        )
    return xp, x1, x2, getattr(_numpy_functions(xp), name)(x1, x2)


@register_rrule("numpy:matvec", examples=_matvec_ex)
def matvec_rrule(*args: Any, **kwargs: Any) -> Any:
    """``y = A v`` over the last axes (no conjugation)."""
    xp, a, v, y = _gufunc_call("matvec", _MATVEC, args, kwargs)
    pa, pv = ProjectTo(a, xp), ProjectTo(v, xp)

    @pullback(y, args, name="matvec")
    def matvec_pullback(y_bar: Any) -> Any:
        def a_bar() -> Any:
            g = xp.expand_dims(y_bar, axis=-1) * xp.expand_dims(conj(xp, v), axis=-2)
            return pa(sum_to(xp, g, a.shape))

        def v_bar() -> Any:
            g = xp.matmul(adjoint(xp, a), xp.expand_dims(y_bar, axis=-1))[..., 0]
            return pv(sum_to(xp, g, v.shape))

        return lazy(pa, a_bar), lazy(pv, v_bar)

    return y, matvec_pullback


@register_frule("numpy:matvec", examples=_matvec_ex)
def matvec_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, v, y = _gufunc_call("matvec", _MATVEC, args, kwargs)
    dots = tangents_in("matvec", tangents[:3], (a, v))
    if dots is None:
        return y, _ZERO
    f = _numpy_functions(xp).matvec
    batch = y.ndim - 1
    da, dv = tangent(xp, dots[0], a), tangent(xp, dots[1], v)
    ta = None if da is None else f(pad_chunk(xp, da, dots.extra, batch + 2), v)
    if dv is not None and a.ndim == 2 and _folds(dv, 1):  # a stack of mat-vecs: one GEMM
        tv = stack_left(xp, dv, xp.matrix_transpose(a))
    else:
        tv = None if dv is None else f(a, pad_chunk(xp, dv, dots.extra, batch + 1))
    return y, total(xp, y, [ta, tv])


@register_rrule("numpy:vecmat", examples=_vecmat_ex)
def vecmat_rrule(*args: Any, **kwargs: Any) -> Any:
    """``y_j = sum_i conj(v_i) A_ij``: the vector is conjugated."""
    xp, v, a, y = _gufunc_call("vecmat", _VECMAT, args, kwargs)
    pv, pa = ProjectTo(v, xp), ProjectTo(a, xp)

    @pullback(y, args, name="vecmat")
    def vecmat_pullback(y_bar: Any) -> Any:
        def v_bar() -> Any:
            g = xp.matmul(a, xp.expand_dims(conj(xp, y_bar), axis=-1))[..., 0]
            return pv(sum_to(xp, g, v.shape))

        def a_bar() -> Any:
            g = xp.expand_dims(v, axis=-1) * xp.expand_dims(y_bar, axis=-2)
            return pa(sum_to(xp, g, a.shape))

        return lazy(pv, v_bar), lazy(pa, a_bar)

    return y, vecmat_pullback


@register_frule("numpy:vecmat", examples=_vecmat_ex)
def vecmat_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, v, a, y = _gufunc_call("vecmat", _VECMAT, args, kwargs)
    dots = tangents_in("vecmat", tangents[:3], (v, a))
    if dots is None:
        return y, _ZERO
    f = _numpy_functions(xp).vecmat
    batch = y.ndim - 1
    dv, da = tangent(xp, dots[0], v), tangent(xp, dots[1], a)
    if dv is not None and a.ndim == 2 and _folds(dv, 1):  # a stack of vec-mats: one GEMM
        tv = stack_left(xp, conj(xp, dv), a)
    else:
        tv = None if dv is None else f(pad_chunk(xp, dv, dots.extra, batch + 1), a)
    ta = None if da is None else f(v, pad_chunk(xp, da, dots.extra, batch + 2))
    return y, total(xp, y, [tv, ta])


# --- einsum ---------------------------------------------------------------------------------------
_LETTERS = string.ascii_letters


def einsum_optimize(xp: Any) -> dict[str, Any]:
    """Keywords for ``xp.einsum`` in a pullback: NumPy and CuPy contract pairwise through BLAS
    only when asked (``optimize``); JAX and PyTorch optimise by default."""
    if array_api_compat.is_numpy_namespace(xp) or array_api_compat.is_cupy_namespace(xp):
        return {"optimize": "greedy"}
    return {}


class _Letters:
    """A pool of einsum letters not used by the caller's subscripts."""

    def __init__(self, used: str) -> None:
        self.free = [c for c in _LETTERS if c not in used]

    def copy(self) -> _Letters:
        new = _Letters("")
        new.free = list(self.free)
        return new

    def take(self, what: str) -> str:
        if not self.free:
            raise ValueError(f"einsum: too many axes to name with letters ({what})")
        return self.free.pop(0)


def _einsum_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        (("ij,jk->ik", r((2, 3)), r((3, 4))), {}),
        (("ij,jk", r((2, 3)), r((3, 4))), {}),  # implicit output
        (("ij,jk,kl->il", r((2, 3)), r((3, 2)), r((2, 2))), {}),
        (("ii->i", r((3, 3))), {}),
        (("ii->", r((3, 3))), {}),
        (("ii", r((3, 3))), {}),
        (("iij->ji", r((2, 2, 3))), {}),
        (("ij->i", r((2, 3))), {}),  # an index of one operand only, summed
        (("i,i->", r(4), r(4)), {}),
        (("i,j->ij", r(2), r(3)), {}),
        (("...ij,...jk->...ik", r((2, 2, 3)), r((3, 2))), {}),
        (("b...i,...i->b...", r((2, 3, 4)), r((1, 4))), {}),  # a broadcast length-1 axis
        (("...", r((2, 3))), {}),
        ((",i->i", r(()), r(3)), {}),  # 0-d operands
        (("->", r(())), {}),
        (("ij,ij->", r((0, 3)), r((0, 3))), {}),  # zero-size
        (
            ("ij,jk->ik", r((2, 3)) + 1j * r((2, 3)), r((3, 2)) + 1j * r((3, 2))),
            {},
        ),
        (("ij,j->i", r((2, 3)), r(3) + 1j * r(3)), {}),
        # NumPy's interleaved form: operand, sublist, ..., output sublist
        ((r((2, 3)), [0, 1], r((3, 4)), [1, 2], [0, 2]), {}),
        ((r((2, 3)), [Ellipsis, 1], r(3), [1]), {}),  # implicit output
    ]


def _sublist_letter(i: Any) -> str:
    if i is Ellipsis:
        return "..."
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < 52:
        raise ValueError(
            f"einsum: a sublist holds ints in [0, 52) or Ellipsis, got {i!r} (the interleaved form)"
        )
    return chr(ord("A") + i) if i < 26 else chr(ord("a") + i - 26)  # NumPy's labels


def _sublist_subscripts(args: Sequence[Any]) -> str:
    """The subscripts string of NumPy's interleaved call ``einsum(op0, sublist0, op1,
    sublist1, ..., [sublist_out])``."""
    pairs = len(args) // 2
    subs = []
    for k in range(pairs):
        sub = args[2 * k + 1]
        if isinstance(sub, str) or not isinstance(sub, (list, tuple)):
            raise TypeError(
                f"einsum: in the interleaved form, argument {2 * k + 1} must be a sublist "
                f"(a list of ints), got {type(sub).__name__}"
            )
        subs.append("".join(map(_sublist_letter, sub)))
    out = ""
    if len(args) % 2:
        tail = args[-1]
        if not isinstance(tail, (list, tuple)):
            raise TypeError(
                f"einsum: the output sublist must be a list of ints, got {type(tail).__name__}"
            )
        out = "->" + "".join(map(_sublist_letter, tail))
    return ",".join(subs) + out


def _einsum_slots(args: Sequence[Any], n: int) -> list[int]:
    """The positions of the operands in the call: after the subscripts, or every other
    argument in the interleaved form."""
    if args and isinstance(args[0], str):
        return list(range(1, n + 1))
    return list(range(0, 2 * n, 2))


_UNSET: Any = object()  # optimize= not given: einsum is called without it
_EINSUM = signature("einsum", lambda subscripts, /, *operands, out=None, optimize=_UNSET: None)


def _einsum_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """NumPy's ``einsum(subscripts, *operands)``, bound and normalised: every operand's axes
    named by one letter each (``...`` expanded, broadcast length-1 axes given letters of their
    own), the output's letters, every letter's length, and the pool of letters still free."""
    if not args:
        raise TypeError("einsum: expected the subscripts string and operands")
    if not isinstance(args[0], str):  # the interleaved form: op, sublist, op, sublist, [out]
        args = (_sublist_subscripts(args), *args[0::2][: len(args) // 2])
    p = _EINSUM.bind(args, kwargs)
    subscripts, originals = p["subscripts"], p["operands"]
    kw = {} if p["optimize"] is _UNSET else {"optimize": p["optimize"]}
    xp = namespace_of(*originals, fname="einsum")
    ops = arrays(xp, originals)
    subs = subscripts.replace(" ", "")
    ins, arrow, out = subs.partition("->")
    terms = ins.split(",")
    if len(terms) != len(ops):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s), got {len(ops)}"
        )
    pool = _Letters(subs)
    ell: list[str] = []  # the broadcast ellipsis axes, right-aligned
    letters: list[list[str]] = []
    for term, op in zip(terms, ops):
        named = term.replace("...", "")
        if not all(c in _LETTERS for c in named):
            raise ValueError(f"einsum: invalid subscripts {subscripts!r}")
        n_ell = op.ndim - len(named)
        if n_ell < 0 or (n_ell and "..." not in term):
            raise ValueError(
                f"einsum: subscripts {term!r} do not fit an operand of shape {tuple(op.shape)}"
            )
        while len(ell) < n_ell:
            ell.insert(0, pool.take("ellipsis"))
        head, _, tail = term.partition("...")
        letters.append([*head, *ell[len(ell) - n_ell :], *tail] if "..." in term else [*term])
    if arrow:
        oh, dots, ot = out.partition("...")
        out_letters = [*oh, *ell, *ot] if dots else [*out]
    else:  # implicit output: the broadcast axes, then the letters seen once, sorted
        counts: dict[str, int] = {}
        for term in terms:
            for c in term.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out_letters = ell + sorted(c for c, m in counts.items() if m == 1)
    # the length of every letter (broadcast); a length-1 axis against a longer one gets a
    # letter of its own, so the contractions below sum it away
    size: dict[str, int] = {}
    for ls, op in zip(letters, ops):
        for c, d in zip(ls, op.shape):
            if c not in size or size[c] == 1:
                size[c] = d
            elif d not in (1, size[c]):
                raise ValueError(f"einsum: index {c!r} has lengths {size[c]} and {d}")
    for ls, op in zip(letters, ops):
        for i, (c, d) in enumerate(zip(ls, op.shape)):
            if d == 1 and size[c] != 1:
                ls[i] = pool.take("broadcast axes")
                size[ls[i]] = 1
    y = xp.einsum(subscripts, *ops, **kw)
    spec = (["".join(ls) for ls in letters], "".join(out_letters), size, pool)
    return xp, originals, ops, spec, y


def _einsum(xp: Any, terms: Sequence[str], out: str, operands: Sequence[Any]) -> Any:
    return xp.einsum(",".join(terms) + "->" + out, *operands, **einsum_optimize(xp))


def _einsum_back(xp: Any, spec: Any, ops: Sequence[Any], k: int, y_bar: Any) -> Any:
    """The cotangent of operand ``k`` (before projection): ``y_bar`` contracted with the other,
    conjugated, operands onto ``k``'s distinct letters, broadcast back along letters of ``k``
    alone, and put back on the diagonal for a letter repeated in ``k``."""
    letters, out, size, pool = spec
    mine = letters[k]
    terms = [out] + [s for j, s in enumerate(letters) if j != k]
    operands = [y_bar] + [conj(xp, o) for j, o in enumerate(ops) if j != k]
    present = set("".join(terms))
    distinct = "".join(dict.fromkeys(mine))
    kept = "".join(c for c in distinct if c in present)
    g = _einsum(xp, terms, kept, operands)
    if len(kept) < len(distinct):  # letters of operand k alone: broadcast back
        shape = tuple(size[c] if c in kept else 1 for c in distinct)
        g = xp.broadcast_to(xp.reshape(g, shape), tuple(size[c] for c in distinct))
    if len(distinct) == len(mine):
        return g
    # a letter repeated in operand k: its later occurrences get new letters, tied to the first
    # by an identity matrix, which puts g on the diagonal
    pool = pool.copy()
    seen: set[str] = set()
    target, eyes, eye_terms = [], [], []
    for c in mine:
        if c in seen:
            new = pool.take("repeated indices")
            target.append(new)
            eye_terms.append(c + new)
            n = size[c]
            eyes.append(xp.eye(n, n, dtype=g.dtype, device=array_api_compat.device(g)))
        else:
            seen.add(c)
            target.append(c)
    return _einsum(xp, [distinct, *eye_terms], "".join(target), [g, *eyes])


@register_rrule("numpy:einsum", examples=_einsum_ex, kind="sequence")
def einsum_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, originals, ops, spec, y = _einsum_call(args, kwargs)
    projects = [ProjectTo(o, xp) for o in originals]

    @pullback(y, args)
    def einsum_pullback(y_bar: Any) -> Any:
        def bar(k: int) -> Any:
            return projects[k](_einsum_back(xp, spec, ops, k, y_bar))

        bars = [lazy(p, functools.partial(bar, k)) for k, p in enumerate(projects)]
        if not isinstance(args[0], str):  # the interleaved form: sublists have no tangent
            out: list[Any] = [_NO] * len(args)
            for k, i in enumerate(_einsum_slots(args, len(bars))):
                out[i] = bars[k]
            return tuple(out)
        return (_NO, *bars)  # the subscripts, then the operands

    return y, einsum_pullback


@register_frule("numpy:einsum", examples=_einsum_ex, kind="sequence")
def einsum_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, originals, ops, spec, y = _einsum_call(args, kwargs)
    letters, out, _, pool = spec
    n = len(ops)
    slots = _einsum_slots(args, n)
    dots = tangents_in("einsum", (tangents[0], *(tangents[1 + i] for i in slots)), originals)
    if dots is None:
        return y, _ZERO
    pool = pool.copy()
    chunk = "".join(pool.take("chunk axes") for _ in range(dots.extra))
    terms = []
    for k, o in enumerate(ops):
        t = tangent(xp, dots[k], o)
        if t is not None:
            subs = [chunk + s if j == k else s for j, s in enumerate(letters)]
            operands = [t if j == k else v for j, v in enumerate(ops)]
            terms.append(_einsum(xp, subs, chunk + out, operands))
    return y, total(xp, y, terms)


# --- kron -----------------------------------------------------------------------------------------
def _kron_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r((2, 3)), r((2, 2))), {}),
        ((r(3), r(2)), {}),
        ((r(2), r((2, 3))), {}),
        ((r(()), r((2, 2))), {}),
        ((r((2, 0)), r((2, 2))), {}),
        ((r((2, 2)) + 1j * r((2, 2)), r((2, 1)) + 1j * r((2, 1))), {}),
    ]


_KRON = signature("kron", lambda x1, x2, /, *, out=None: None)


def _kron_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    x1, x2 = bind_pair(_KRON, args, kwargs)
    xp = namespace_of(x1, x2, fname="kron")
    a, b = arrays(xp, (x1, x2))
    return xp, x1, x2, a, b, xp.kron(a, b)


@register_rrule("numpy:kron", examples=_kron_ex)
def kron_rrule(*args: Any, **kwargs: Any) -> Any:
    """With both operands padded to one rank ``n``, ``y`` reshaped to the interleaved axes
    ``(a0, b0, a1, b1, ...)`` is ``a[:, None, :, None, ...] * b[None, :, ...]``."""
    xp, x1, x2, a, b, y = _kron_call(args, kwargs)
    n = max(a.ndim, b.ndim)
    ashape = (1,) * (n - a.ndim) + tuple(a.shape)
    bshape = (1,) * (n - b.ndim) + tuple(b.shape)
    la, lb = _LETTERS[:n], _LETTERS[n : 2 * n]
    li = "".join(c for pair in zip(la, lb) for c in pair)
    inter = tuple(d for pair in zip(ashape, bshape) for d in pair)
    project_a, project_b = ProjectTo(x1, xp), ProjectTo(x2, xp)
    opt = einsum_optimize(xp)

    @pullback(y, args)
    def kron_pullback(y_bar: Any) -> Any:
        g = xp.reshape(y_bar, inter)

        def a_bar() -> Any:
            r = xp.einsum(f"{li},{lb}->{la}", g, conj(xp, xp.reshape(b, bshape)), **opt)
            return project_a(reshape_to(xp, r, a.shape))

        def b_bar() -> Any:
            r = xp.einsum(f"{li},{la}->{lb}", g, conj(xp, xp.reshape(a, ashape)), **opt)
            return project_b(reshape_to(xp, r, b.shape))

        return lazy(project_a, a_bar), lazy(project_b, b_bar)

    return y, kron_pullback


@register_frule("numpy:kron", examples=_kron_ex)
def kron_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, a, b, y = _kron_call(args, kwargs)
    n = max(a.ndim, b.ndim)
    dots = tangents_in("kron", tangents[:3], (x1, x2))
    if dots is None:
        return y, _ZERO
    da, db = tangent(xp, dots[0], a), tangent(xp, dots[1], b)
    ta = None if da is None else xp.kron(pad_chunk(xp, da, dots.extra, n), b)
    tb = None if db is None else xp.kron(a, pad_chunk(xp, db, dots.extra, n))
    return y, total(xp, y, [ta, tb])
