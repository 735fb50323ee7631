"""Rules for the standard's ``matmul`` and ``matrix_transpose`` (``linear_algebra_functions``),
also registered as the ``linalg`` extension's ``linalg.matmul`` and ``linalg.matrix_transpose``,
and NumPy's ``matvec`` and ``vecmat``.

Maths notes
-----------
* ``matmul``: ``A_bar = y_bar @ B^H``, ``B_bar = A^H @ y_bar``. A 1-D operand is promoted to a
  matrix (a row for ``x1``, a column for ``x2``) as the standard says and the inserted axis is
  dropped again; batch axes that an operand was broadcast along are summed away. A chunk of
  tangents or cotangents that would make a stack of mat-vecs (vec-mats) against one matrix is
  folded into the rows of one matrix product (:func:`stack_left`, :func:`stack_right`): the
  same sums, one pass over the matrix instead of one per chunk entry.
* ``matrix_transpose``: the cotangent is transposed back.
* ``matvec`` (``y = A v``, NumPy 2.2): ``A_bar = y_bar conj(v)^T``, ``v_bar = A^H y_bar``;
  ``vecmat`` conjugates its vector (``y = conj(v)^T A``): ``v_bar = A conj(y_bar)``,
  ``A_bar = v y_bar^T``; broadcast batch axes are summed away.

The family's conventions (complex adjoints, second derivatives, degenerate cases, layout) are
in the package docstring, :mod:`chainrules.rules.linear_algebra`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import array_api_compat
import numpy as np

from ...core.prelude import *
from .._util import adjoint, conj, forced_like, lazy
from .._util.creation import Rules, register_pair
from .._util.products import *


# --- matmul ---------------------------------------------------------------------------------------
def _matmul_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    c = r((2, 3)) + 1j * r((2, 3))
    return [
        ((r((2, 3)), r((3, 4))), {}),
        ((r(3), r((3, 2))), {}),
        ((r((2, 3)), r(3)), {}),
        ((r(4), r(4)), {}),
        ((c[0], c[1]), {}),  # an inner product, complex
        ((r(3), c[1]), {}),  # real meets complex, two vectors
        ((r(0), r(0)), {}),  # two empty vectors
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
    """Non-empty real NumPy matrices and vectors of one dtype (two vectors too): ``a @ b``,
    and for a NumPy cotangent of the output's shape and dtype each operand's cotangent as a
    ``Thunk`` (an engine forces only a traced operand's); any other cotangent goes to the
    generic pullback, built then. At n=10 the compat wrapper and the generic shape bookkeeping
    cost about 7 us around a 1 us product, in every layer of the population's models.
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.75, median of 34
    cells (0.46 at best)."""
    return _dense_matmul(args, kwargs, np.ndarray, lambda dtype: dtype.kind == "f", np.generic)


@matmul_rrule.method("torch")
def _matmul_rrule_torch(*args: Any, **kwargs: Any) -> Any:
    """NumPy's method for torch tensors, on any device and traceable (no host read): the compat
    wrapper's promotion (two ``result_type`` calls and two ``.to``) and the generic bookkeeping
    cost about 15 us around a 2 us product at n = 10 (benchmarks/torch_bridge.py)."""
    import torch

    return _dense_matmul(args, kwargs, torch.Tensor, lambda dtype: dtype.is_floating_point)


def _dense_matmul(
    args: Any, kwargs: Any, array: Any, real: Callable[[Any], bool], scalar: Any = ()
) -> Any:
    """The rrule of ``matmul`` for two non-empty real arrays of exactly the type ``array``, one
    dtype (``real(dtype)``), one device, of rank 1 or 2; ``NotImplemented`` for anything else.
    The pullback takes a cotangent of the type ``array`` or, for two vectors, of the library's
    ``scalar`` type (NumPy's product of 0-d arrays is a NumPy scalar), forced if a ``Thunk``."""
    if len(args) != 2 or kwargs:
        return NotImplemented
    a, b = args
    if type(a) is not array or type(b) is not array:
        return NotImplemented
    dtype, na, nb = a.dtype, a.ndim, b.ndim
    if not real(dtype) or b.dtype != dtype or not 0 < na <= 2 or not 0 < nb <= 2:
        return NotImplemented  # (a 0-d operand: matmul refuses it, the generic rule says so)
    if 0 in a.shape or 0 in b.shape or a.device != b.device:
        return NotImplemented
    y = a @ b

    def matmul_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, Any, Any]:
        forced = None if chunk else forced_like(y_bar, array, y.shape, dtype, scalar)
        if forced is None or forced.device != y.device:
            return _matmul_pullback(namespace_of(a, b), args, y)(y_bar, chunk=chunk)
        a_bar = Thunk(functools.partial(_left_bar, forced, b))
        return NO, a_bar, Thunk(functools.partial(_right_bar, a, forced))

    return y, matmul_pullback


register_rrule("matmul", examples=_matmul_ex, chunked_pullback=True)(matmul_rrule)


def _left_bar(g: Any, b: Any) -> Any:
    """The left operand's cotangent of a real ``x1 @ b``: ``g @ b^T``, or the outer product
    ``g b^T`` when ``b`` is a vector (``x1`` a matrix; ``g b`` for two vectors, ``g`` 0-d)."""
    if b.ndim == 1:
        return g * b if g.ndim == 0 else g[:, None] * b
    return g @ b.T


def _right_bar(a: Any, g: Any) -> Any:
    """The right operand's cotangent of a real ``a @ x2``: ``a^T @ g``, or the outer product
    ``a g^T`` when ``a`` is a vector (``x2`` a matrix; ``a g`` for two vectors)."""
    if a.ndim == 1:
        return a * g if g.ndim == 0 else a[:, None] * g
    return a.T @ g


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

        def back(r: Any, shape: tuple[int, ...], x: Any, project: Any) -> Any:
            """The product ``r`` summed over the batch axes that the operand ``x`` (promoted to
            ``shape``) was broadcast along, in ``x``'s shape and projected."""
            r = sum_to(xp, r, (*lead, *pad_shape(shape, rank)))
            return project(reshape_to(xp, r, (*lead, *tuple(x.shape))), extra)

        if a.ndim == 1 and b.ndim == 1:
            # an inner product: each operand's cotangent is y_bar times the other, conjugated
            # (no reshape to matrices, no transposed copy: at 1e5 the matrix form cost a GEMM of
            # (1e5, 1) by (1, 1) and a copy per operand)
            g1 = xp.expand_dims(y_bar, axis=-1)
            return (
                lazy(project_a, lambda: project_a(g1 * conj(xp, b), extra)),
                lazy(project_b, lambda: project_b(g1 * conj(xp, a), extra)),
            )
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
                fold = a.ndim <= 2 and bshape[-1] == 1 and _folds(g, 2)  # a stack of mat-vecs
                return back(
                    stack_right(xp, ah, g) if fold else xp.matmul(ah, g), bshape, b, project_b
                )

        def a_bar() -> Any:
            gg = pad_chunk(xp, reshape_to(xp, y_bar, (*lead, *yshape)), extra, rank)
            bh = adjoint(xp, reshape_to(xp, b, bshape))
            fold = b.ndim <= 2 and ashape[-2] == 1 and _folds(gg, 2)  # a stack of vec-mats
            return back(stack_left(xp, gg, bh) if fold else xp.matmul(gg, bh), ashape, a, project_a)

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
        return y, ZERO
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
        return project(xp.matrix_transpose(y_bar)) if project.differentiable else NO

    return y, matrix_transpose_pullback


@register_frule("matrix_transpose", examples=_transpose_ex, kind="view")
def matrix_transpose_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    x = _MATRIX_TRANSPOSE.bind(args, kwargs)["x"]
    xp = namespace_of(x, fname="matrix_transpose")
    a = _transpose_operand(xp, x)
    y = xp.matrix_transpose(a)
    dots = tangents_in("matrix_transpose", tangents[:2], (x,))
    if dots is None:
        return y, ZERO
    t = tangent(xp, dots[0], a)
    return y, total(xp, y, [None if t is None else xp.matrix_transpose(t)])


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


def _gufunc_rules(name: str, sig: Signature) -> Rules:
    """The rules of NumPy's ``matvec`` (``y = A v`` over the last axes, no conjugation) or,
    mirrored, ``vecmat`` (``y_j = sum_i conj(v_i) A_ij``: the vector comes first and is
    conjugated). The matrix's cotangent is an outer product of ``y_bar`` and the vector, the
    vector's a matrix-vector product with ``y_bar``; broadcast batch axes are summed away."""
    vecmat = name == "vecmat"

    def gufunc_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x1, x2, y = _gufunc_call(name, sig, args, kwargs)
        a, v = (x2, x1) if vecmat else (x1, x2)
        pa, pv = ProjectTo(a, xp), ProjectTo(v, xp)

        @pullback(y, args, name=name)
        def gufunc_pullback(y_bar: Any) -> Any:
            def a_bar() -> Any:  # vecmat: v y_bar^T; matvec: y_bar conj(v)^T
                p, q = (v, y_bar) if vecmat else (y_bar, conj(xp, v))
                g = xp.expand_dims(p, axis=-1) * xp.expand_dims(q, axis=-2)
                return pa(sum_to(xp, g, a.shape))

            def v_bar() -> Any:  # vecmat: A conj(y_bar); matvec: A^H y_bar
                m, u = (a, conj(xp, y_bar)) if vecmat else (adjoint(xp, a), y_bar)
                g = xp.matmul(m, xp.expand_dims(u, axis=-1))[..., 0]
                return pv(sum_to(xp, g, v.shape))

            bars = lazy(pa, a_bar), lazy(pv, v_bar)
            return bars[::-1] if vecmat else bars

        return y, gufunc_pullback

    def gufunc_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x1, x2, y = _gufunc_call(name, sig, args, kwargs)
        a, v = (x2, x1) if vecmat else (x1, x2)
        f = getattr(_numpy_functions(xp), name)
        batch = y.ndim - 1

        def a_term(t: Any, extra: int) -> Any:
            t = pad_chunk(xp, t, extra, batch + 2)
            return f(v, t) if vecmat else f(t, v)

        def v_term(t: Any, extra: int) -> Any:
            if a.ndim == 2 and _folds(t, 1):  # a stack of vec-mats (mat-vecs): one GEMM
                if vecmat:
                    return stack_left(xp, conj(xp, t), a)
                return stack_left(xp, t, xp.matrix_transpose(a))
            t = pad_chunk(xp, t, extra, batch + 1)
            return f(t, a) if vecmat else f(a, t)

        push = (v_term, a_term) if vecmat else (a_term, v_term)
        return pair_pushforward(name, tangents, xp, (x1, x2), y, push)

    return gufunc_rrule, gufunc_frule


register_pair("numpy:matvec", _gufunc_rules("matvec", _MATVEC), _matvec_ex)
register_pair("numpy:vecmat", _gufunc_rules("vecmat", _VECMAT), _vecmat_ex)


# --- the linalg extension's matmul and matrix_transpose: the same rules ---------------------------
for _name, _rrule, _frule, _ex in (
    ("linalg.matmul", matmul_rrule, matmul_frule, _matmul_ex),
    ("linalg.matrix_transpose", matrix_transpose_rrule, matrix_transpose_frule, _transpose_ex),
):
    register_rrule(_name, examples=_ex, expect=())(_rrule)
    register_frule(_name, examples=_ex, expect=())(_frule)
