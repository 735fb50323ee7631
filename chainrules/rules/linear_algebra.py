"""Rules for the standard's linear algebra functions (``linear_algebra_functions``) --
``matmul``, ``matrix_transpose``, ``tensordot``, ``vecdot`` -- and NumPy's product names
(``dot``, ``vdot``, ``inner``, ``einsum``, ``kron``, ``tensordot``).

Maths notes
-----------
Every function here is linear in each operand, so a cotangent is the *adjoint* contraction of the
output cotangent with the other operand(s), and a tangent is the sum, over the operands, of the
function applied with that operand's tangent in its place. Complex operands follow the library's
convention (``x_bar = dL/dRe x + i dL/dIm x``): the adjoint of a holomorphic contraction contracts
with the *conjugated* other operands.

* ``matmul``: ``A_bar = y_bar @ B^H``, ``B_bar = A^H @ y_bar``. A 1-D operand is promoted to a
  matrix (a row for ``x1``, a column for ``x2``) as the standard says and the inserted axis is
  dropped again; batch axes that an operand was broadcast along are summed away.
* ``matrix_transpose``: the cotangent is transposed back.
* ``tensordot`` (and ``dot``, ``inner``, which are tensordot contractions): ``A_bar`` is the
  tensordot of ``y_bar`` with ``conj(B)`` over ``B``'s free axes, permuted back into ``A``'s
  axis order; likewise for ``B``. ``dot``/``inner`` with a 0-d operand are products.
* ``vecdot`` and ``vdot`` conjugate their first operand: ``y = sum(conj(x1) * x2)``, so
  ``x1_bar = x2 * conj(y_bar)`` and ``x2_bar = x1 * y_bar``.
* ``einsum`` (any subscripts: implicit or explicit output, ``...``, repeated indices within an
  operand, any number of operands, 0-d operands): the cotangent of operand ``k`` is the einsum of
  ``y_bar`` with the other (conjugated) operands onto ``k``'s distinct indices; an index of ``k``
  found nowhere else is broadcast back, and an index repeated within ``k`` (``'ii->i'``) is put
  back on the diagonal by contracting with identity matrices (``xp.eye``). An axis an operand was
  broadcast along (length 1 against a longer one) gets an index of its own, so it is summed away.
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
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from typing import Any

import array_api_compat

from ..core.namespaces import namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import _reject_out
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._util import cotangent, in_dtype, tangent_extra

_NO = NoTangent()
_ZERO = ZeroTangent()
_SCALARS = (bool, int, float, complex)


# --- helpers shared by every product -------------------------------------------------------------
def is_complex(xp: Any, x: Any) -> bool:
    """Whether ``x`` has a complex floating dtype (host metadata, no value read)."""
    return bool(xp.isdtype(x.dtype, "complex floating"))


def conj(xp: Any, x: Any) -> Any:
    """``conj(x)``, skipped for real ``x`` (where it changes nothing and would cost a copy)."""
    return xp.conj(x) if is_complex(xp, x) else x


def adjoint(xp: Any, x: Any) -> Any:
    """The conjugate transpose of the last two axes, ``x^H`` (a plain transpose for real ``x``)."""
    return conj(xp, xp.matrix_transpose(x))


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


def parse_call(
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    n_arrays: int,
    positional: tuple[str, ...] = (),
    keyword: tuple[str, ...] = (),
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Split a call into its ``n_arrays`` operands and its parameters: ``positional`` may be given
    by position (NumPy's signatures) or keyword, ``keyword`` only by keyword. ``out=`` (other than
    ``None``) and unknown keywords are rejected with a TypeError naming the function."""
    if len(args) < n_arrays:
        raise TypeError(f"{name} takes {n_arrays} array argument(s), got {len(args)}")
    arrays, pos = args[:n_arrays], args[n_arrays:]
    if len(pos) > len(positional):
        raise TypeError(
            f"{name} takes at most {n_arrays + len(positional)} positional argument(s) in its "
            f"rule, got {len(args)}"
            + ("" if positional else " (the parameters after the arrays are keyword-only)")
        )
    params = dict(zip(positional, pos))
    for k, v in kwargs.items():
        if k in params:
            raise TypeError(f"{name} got multiple values for argument {k!r}")
        params[k] = v
    _reject_out(name, params)
    params.pop("out", None)
    unknown = sorted(set(params) - set(positional) - set(keyword))
    if unknown:
        raise TypeError(f"{name}: the rule does not support the argument(s) {unknown}")
    return arrays, params


class Product:
    """A parsed call of a product-like function: what the generic rrule and frule need.

    Subclasses set ``name``, ``xp``, ``operands`` (the differentiable positional arguments, as
    arrays), ``originals`` (as given: Python scalars stay scalars, for the projection), ``slots``
    (their positions among the positional arguments), ``nargs``, and implement ``primal``,
    ``back(k, y_bar)`` (the cotangent of operand ``k``, before projection) and
    ``forward(k, t, extra)`` (the output tangent for tangent ``t`` of operand ``k``, which has
    ``extra`` leading chunk axes, with the chunk axes in front).
    """

    name: str
    xp: Any
    operands: tuple[Any, ...]
    originals: tuple[Any, ...]
    slots: tuple[int, ...]
    nargs: int

    def set_operands(self, xp: Any, originals: Sequence[Any], slots: Sequence[int]) -> None:
        self.xp = xp
        self.originals = tuple(originals)
        self.slots = tuple(slots)
        self.operands = tuple(xp.asarray(o) if type(o) in _SCALARS else o for o in originals)

    def primal(self) -> Any:
        raise NotImplementedError

    def back(self, k: int, y_bar: Any) -> Any:
        raise NotImplementedError

    def forward(self, k: int, t: Any, extra: int) -> Any:
        raise NotImplementedError

    def rrule(self) -> tuple[Any, Any]:
        y = self.primal()
        projects = [ProjectTo(o, self.xp) for o in self.originals]
        n, slots, name = self.nargs, self.slots, self.name

        def product_pullback(y_bar: Any) -> tuple[Any, ...]:
            out: list[Any] = [_NO] * (n + 1)
            if isinstance(y_bar, AbstractZero):
                for s, p in zip(slots, projects):
                    out[1 + s] = _ZERO if p.differentiable else _NO
                return tuple(out)
            y_bar = cotangent(name, y_bar, y)
            for k, (s, p) in enumerate(zip(slots, projects)):
                if p.differentiable:
                    out[1 + s] = p(self.back(k, y_bar))
            return tuple(out)

        product_pullback.__name__ = product_pullback.__qualname__ = f"{name}_pullback"
        return y, product_pullback

    def frule(self, tangents: tuple[Any, ...]) -> tuple[Any, Any]:
        xp = self.xp
        y = self.primal()
        acc: Any = None
        for k, (s, o) in enumerate(zip(self.slots, self.operands)):
            t = unthunk(tangents[1 + s]) if 1 + s < len(tangents) else _ZERO
            if isinstance(t, AbstractZero) or not xp.isdtype(
                o.dtype, ("real floating", "complex floating")
            ):
                continue
            if type(t) in _SCALARS:
                t = xp.asarray(t)
            term = self.forward(k, t, tangent_extra(self.name, t, o))
            acc = term if acc is None else acc + term
        if acc is None:
            return y, _ZERO
        return y, in_dtype(xp, acc, y.dtype)


def register_product(targets: Sequence[str], cls: Any, **meta: Any) -> None:
    """Register the rrule and frule of ``cls`` (a ``Product`` built as ``cls(args, kwargs)``) for
    ``targets``."""

    def product_rrule(*args: Any, **kwargs: Any) -> Any:
        return cls(args, kwargs).rrule()

    def product_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        return cls(args, kwargs).frule(tangents)

    register_rrule(*targets, **meta)(product_rrule)
    register_frule(*targets, **meta)(product_frule)


# --- matmul ---------------------------------------------------------------------------------------
class Matmul(Product):
    """``matmul(x1, x2)``: 1-D operands promoted to matrices, batch axes broadcast."""

    name = "matmul"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x1, x2), _ = parse_call(self.name, args, kwargs, 2)
        xp = namespace_of(x1, x2, fname=self.name)
        self.set_operands(xp, (x1, x2), (0, 1))
        self.nargs = len(args)
        a, b = self.operands
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError(
                f"matmul: operands must have rank >= 1, got shapes {tuple(a.shape)} and "
                f"{tuple(b.shape)}"
            )
        self.ashape = (1, *tuple(a.shape)) if a.ndim == 1 else tuple(a.shape)
        self.bshape = (*tuple(b.shape), 1) if b.ndim == 1 else tuple(b.shape)
        batch = broadcast_shapes(self.ashape[:-2], self.bshape[:-2])
        self.yshape = (*batch, self.ashape[-2], self.bshape[-1])
        rows = () if a.ndim == 1 else (a.shape[-2],)
        cols = () if b.ndim == 1 else (b.shape[-1],)
        self.out_shape = (*batch, *rows, *cols)

    def primal(self) -> Any:
        return self.xp.matmul(*self.operands)

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        g = reshape_to(xp, y_bar, self.yshape)
        a, b = self.operands
        if k == 0:
            r = xp.matmul(g, adjoint(xp, reshape_to(xp, b, self.bshape)))
            return reshape_to(xp, sum_to(xp, r, self.ashape), a.shape)
        r = xp.matmul(adjoint(xp, reshape_to(xp, a, self.ashape)), g)
        return reshape_to(xp, sum_to(xp, r, self.bshape), b.shape)

    def forward(self, k: int, t: Any, extra: int) -> Any:
        xp = self.xp
        lead = tuple(t.shape[:extra])
        rank = len(self.yshape)
        a, b = self.operands
        if k == 0:
            t = pad_chunk(xp, reshape_to(xp, t, (*lead, *self.ashape)), extra, rank)
            r = xp.matmul(t, reshape_to(xp, b, self.bshape))
        else:
            t = pad_chunk(xp, reshape_to(xp, t, (*lead, *self.bshape)), extra, rank)
            r = xp.matmul(reshape_to(xp, a, self.ashape), t)
        return reshape_to(xp, r, (*tuple(r.shape[: r.ndim - rank]), *self.out_shape))


# --- matrix_transpose -----------------------------------------------------------------------------
class MatrixTranspose(Product):
    name = "matrix_transpose"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x,), _ = parse_call(self.name, args, kwargs, 1)
        self.set_operands(namespace_of(x, fname=self.name), (x,), (0,))
        self.nargs = len(args)
        shape = tuple(self.operands[0].shape)
        if len(shape) < 2:
            raise ValueError(f"matrix_transpose: x must have rank >= 2, got shape {shape}")

    def primal(self) -> Any:
        return self.xp.matrix_transpose(self.operands[0])

    def back(self, k: int, y_bar: Any) -> Any:
        return self.xp.matrix_transpose(y_bar)

    def forward(self, k: int, t: Any, extra: int) -> Any:
        return self.xp.matrix_transpose(t)


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


class Contraction(Product):
    """A tensordot contraction of ``x1``'s axes ``a_ax`` with ``x2``'s axes ``b_ax``; the output
    has ``x1``'s free axes, then ``x2``'s. ``primal_fn`` computes the value as the user called
    it."""

    def setup(self, xp: Any, x1: Any, x2: Any, nargs: int) -> None:
        self.set_operands(xp, (x1, x2), (0, 1))
        self.nargs = nargs

    def contract(self, a_ax: tuple[int, ...], b_ax: tuple[int, ...]) -> None:
        a, b = self.operands
        for i, j in zip(a_ax, b_ax):
            if a.shape[i] != b.shape[j]:
                raise ValueError(
                    f"{self.name}: contracted axes {i} of x1 (length {a.shape[i]}) and {j} of x2 "
                    f"(length {b.shape[j]}) differ"
                )
        self.a_ax, self.b_ax = a_ax, b_ax
        self.a_free = tuple(i for i in range(a.ndim) if i not in a_ax)
        self.b_free = tuple(j for j in range(b.ndim) if j not in b_ax)

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        a, b = self.operands
        na, nb = len(self.a_free), len(self.b_free)
        if k == 0:
            r = xp.tensordot(y_bar, conj(xp, b), axes=(tuple(range(na, na + nb)), self.b_free))
            # r's axes: x1's free axes, then x2's contracted axes in ascending order
            order = list(self.a_free) + [self.a_ax[self.b_ax.index(j)] for j in sorted(self.b_ax)]
            return _permute(xp, r, [order.index(i) for i in range(a.ndim)])
        r = xp.tensordot(conj(xp, a), y_bar, axes=(self.a_free, tuple(range(na))))
        order = [self.b_ax[self.a_ax.index(i)] for i in sorted(self.a_ax)] + list(self.b_free)
        return _permute(xp, r, [order.index(j) for j in range(b.ndim)])

    def forward(self, k: int, t: Any, extra: int) -> Any:
        xp = self.xp
        a, b = self.operands
        if k == 0:  # (chunk, x1 free, x2 free): the chunk axes are free axes in front
            return xp.tensordot(t, b, axes=(tuple(i + extra for i in self.a_ax), self.b_ax))
        r = xp.tensordot(a, t, axes=(self.a_ax, tuple(j + extra for j in self.b_ax)))
        na = len(self.a_free)  # (x1 free, chunk, x2 free) -> (chunk, x1 free, x2 free)
        perm = (*range(na, na + extra), *range(na), *range(na + extra, r.ndim))
        return _permute(xp, r, perm)


class Tensordot(Contraction):
    """``tensordot(x1, x2, axes=2)``: the standard's (``axes`` keyword-only) or NumPy's."""

    name = "tensordot"
    numpy = False

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        pos = ("axes",) if self.numpy else ()
        kw = () if self.numpy else ("axes",)
        (x1, x2), params = parse_call(self.name, args, kwargs, 2, pos, kw)
        self.setup(namespace_of(x1, x2, fname=self.name), x1, x2, len(args))
        self.axes = params.get("axes", 2)
        a, b = self.operands
        self.contract(*tensordot_axes(self.name, self.axes, a.ndim, b.ndim))

    def primal(self) -> Any:
        return self.xp.tensordot(*self.operands, axes=self.axes)


class NumpyTensordot(Tensordot):
    numpy = True


class Dot(Contraction):
    """NumPy's ``dot(a, b)``: a product when either is 0-d, else the last axis of ``a`` with the
    only axis of a vector ``b`` or the second-to-last of ``b``."""

    name = "dot"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x1, x2), _ = parse_call(self.name, args, kwargs, 2, ("out",))
        self.setup(namespace_of(x1, x2, fname=self.name), x1, x2, len(args))
        a, b = self.operands
        if a.ndim == 0 or b.ndim == 0:
            self.contract((), ())
        else:
            self.contract((a.ndim - 1,), (max(b.ndim - 2, 0),))

    def primal(self) -> Any:
        return self.xp.dot(*self.operands)


class Inner(Contraction):
    """NumPy's ``inner(a, b)``: a product when either is 0-d, else the last axes contracted."""

    name = "inner"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x1, x2), _ = parse_call(self.name, args, kwargs, 2)
        self.setup(namespace_of(x1, x2, fname=self.name), x1, x2, len(args))
        a, b = self.operands
        if a.ndim == 0 or b.ndim == 0:
            self.contract((), ())
        else:
            self.contract((a.ndim - 1,), (b.ndim - 1,))

    def primal(self) -> Any:
        return self.xp.inner(*self.operands)


# --- vecdot and vdot: the first operand is conjugated ---------------------------------------------
class Vecdot(Product):
    """``vecdot(x1, x2, axis=-1) = sum(conj(x1) * x2, axis)``, broadcasting the other axes."""

    name = "vecdot"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x1, x2), params = parse_call(self.name, args, kwargs, 2, (), ("axis",))
        self.set_operands(namespace_of(x1, x2, fname=self.name), (x1, x2), (0, 1))
        self.nargs = len(args)
        a, b = self.operands
        self.axis = params.get("axis", -1)
        n = max(a.ndim, b.ndim)
        axis = self.axis
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"vecdot: axis must be an int, got {axis!r}")
        if axis >= 0 and a.ndim != b.ndim:
            raise ValueError(
                "vecdot: give a negative axis for operands of different ranks "
                f"({tuple(a.shape)} and {tuple(b.shape)}); the standard counts from the end"
            )
        if (
            not -min(a.ndim, b.ndim) <= axis < max(min(a.ndim, b.ndim), 1)
            or min(a.ndim, b.ndim) == 0
        ):
            raise ValueError(
                f"vecdot: axis {axis} is out of bounds for operands of shapes {tuple(a.shape)} "
                f"and {tuple(b.shape)}"
            )
        self.neg = axis - n if axis >= 0 else axis  # counted from the end of the broadcast shape
        self.n = n

    def primal(self) -> Any:
        return self.xp.vecdot(*self.operands, axis=self.axis)

    def _expand(self, v: Any, extra: int = 0) -> Any:
        """``v`` (the output's shape, after ``extra`` chunk axes) with the contracted axis back
        as a length-1 axis."""
        shape = list(v.shape)
        shape.insert(extra + self.n + self.neg, 1)
        return self.xp.reshape(v, tuple(shape))

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        a, b = self.operands
        g = self._expand(y_bar)
        return b * conj(xp, g) if k == 0 else a * g

    def forward(self, k: int, t: Any, extra: int) -> Any:
        xp = self.xp
        a, b = self.operands
        t = pad_chunk(xp, t, extra, self.n)
        return xp.vecdot(t, b, axis=self.neg) if k == 0 else xp.vecdot(a, t, axis=self.neg)


class Vdot(Product):
    """NumPy's ``vdot(a, b) = sum(conj(ravel(a)) * ravel(b))``."""

    name = "vdot"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x1, x2), _ = parse_call(self.name, args, kwargs, 2)
        self.set_operands(namespace_of(x1, x2, fname=self.name), (x1, x2), (0, 1))
        self.nargs = len(args)
        a, b = self.operands
        if math.prod(a.shape) != math.prod(b.shape):
            raise ValueError(
                f"vdot: operands of shapes {tuple(a.shape)} and {tuple(b.shape)} differ in size"
            )

    def primal(self) -> Any:
        return self.xp.vdot(*self.operands)

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        a, b = self.operands
        if k == 0:
            return reshape_to(xp, b, a.shape) * conj(xp, y_bar)
        return reshape_to(xp, a, b.shape) * y_bar

    def forward(self, k: int, t: Any, extra: int) -> Any:
        xp = self.xp
        a, b = self.operands
        lead = tuple(t.shape[:extra])
        n = math.prod(a.shape)
        t = xp.reshape(t, (*lead, n))
        if k == 0:
            return xp.sum(conj(xp, t) * xp.reshape(b, (n,)), axis=-1)
        return xp.sum(conj(xp, xp.reshape(a, (n,))) * t, axis=-1)


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


class Einsum(Product):
    """NumPy's ``einsum(subscripts, *operands)``, normalised: every operand's axes named by one
    letter each (``...`` expanded, broadcast length-1 axes given letters of their own), and the
    output's letters."""

    name = "einsum"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if not args or not isinstance(args[0], str):
            raise TypeError(
                "einsum: the rule takes the subscripts string first (the interleaved "
                "operand/sublist form is not supported)"
            )
        params = dict(kwargs)
        _reject_out("einsum", params)
        params.pop("out", None)
        unknown = sorted(set(params) - {"optimize"})
        if unknown:
            raise TypeError(f"einsum: the rule does not support the argument(s) {unknown}")
        self.kw = params
        self.subscripts = args[0]
        ops = args[1:]
        xp = namespace_of(*ops, fname="einsum")
        self.set_operands(xp, ops, range(1, len(args)))
        self.nargs = len(args)
        self._parse()

    def _parse(self) -> None:
        subs = self.subscripts.replace(" ", "")
        ins, arrow, out = subs.partition("->")
        terms = ins.split(",")
        ops = self.operands
        if len(terms) != len(ops):
            raise ValueError(
                f"einsum: subscripts {self.subscripts!r} name {len(terms)} operand(s), got "
                f"{len(ops)}"
            )
        pool = _Letters(subs)
        ell: list[str] = []  # the broadcast ellipsis axes, right-aligned
        letters: list[list[str]] = []
        for term, op in zip(terms, ops):
            named = term.replace("...", "")
            if not all(c in _LETTERS for c in named):
                raise ValueError(f"einsum: invalid subscripts {self.subscripts!r}")
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
        self.letters = ["".join(ls) for ls in letters]
        self.out = "".join(out_letters)
        self.size = size
        self.pool = pool

    def primal(self) -> Any:
        return self.xp.einsum(self.subscripts, *self.operands, **self.kw)

    def _einsum(self, terms: Sequence[str], out: str, arrays: Sequence[Any]) -> Any:
        xp = self.xp
        return xp.einsum(",".join(terms) + "->" + out, *arrays, **einsum_optimize(xp))

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        mine = self.letters[k]
        terms = [self.out] + [s for j, s in enumerate(self.letters) if j != k]
        arrays = [y_bar] + [conj(xp, o) for j, o in enumerate(self.operands) if j != k]
        present = set("".join(terms))
        distinct = "".join(dict.fromkeys(mine))
        kept = "".join(c for c in distinct if c in present)
        g = self._einsum(terms, kept, arrays)
        if len(kept) < len(distinct):  # letters of operand k alone: broadcast back
            shape = tuple(self.size[c] if c in kept else 1 for c in distinct)
            g = xp.broadcast_to(xp.reshape(g, shape), tuple(self.size[c] for c in distinct))
        if len(distinct) == len(mine):
            return g
        # a letter repeated in operand k: its later occurrences get new letters, tied to the
        # first by an identity matrix, which puts g on the diagonal
        pool = self.pool.copy()
        seen: set[str] = set()
        target, eyes, eye_terms = [], [], []
        for c in mine:
            if c in seen:
                new = pool.take("repeated indices")
                target.append(new)
                eye_terms.append(c + new)
                n = self.size[c]
                eyes.append(xp.eye(n, n, dtype=g.dtype, device=array_api_compat.device(g)))
            else:
                seen.add(c)
                target.append(c)
        return self._einsum([distinct, *eye_terms], "".join(target), [g, *eyes])

    def forward(self, k: int, t: Any, extra: int) -> Any:
        pool = self.pool.copy()
        chunk = "".join(pool.take("chunk axes") for _ in range(extra))
        terms = [chunk + s if j == k else s for j, s in enumerate(self.letters)]
        arrays = [t if j == k else o for j, o in enumerate(self.operands)]
        return self._einsum(terms, chunk + self.out, arrays)


# --- kron -----------------------------------------------------------------------------------------
class Kron(Product):
    """NumPy's ``kron(a, b)``: with both padded to one rank ``n``, ``y`` reshaped to the
    interleaved axes ``(a0, b0, a1, b1, ...)`` is ``a[:, None, :, None, ...] * b[None, :, ...]``."""

    name = "kron"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x1, x2), _ = parse_call(self.name, args, kwargs, 2)
        self.set_operands(namespace_of(x1, x2, fname=self.name), (x1, x2), (0, 1))
        self.nargs = len(args)
        a, b = self.operands
        self.n = n = max(a.ndim, b.ndim)
        self.ashape = (1,) * (n - a.ndim) + tuple(a.shape)
        self.bshape = (1,) * (n - b.ndim) + tuple(b.shape)
        pool = _Letters("")
        self.la = "".join(pool.take("kron") for _ in range(n))
        self.lb = "".join(pool.take("kron") for _ in range(n))
        self.inter = tuple(d for pair in zip(self.ashape, self.bshape) for d in pair)
        self.li = "".join(c for pair in zip(self.la, self.lb) for c in pair)

    def primal(self) -> Any:
        return self.xp.kron(*self.operands)

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        a, b = self.operands
        g = xp.reshape(y_bar, self.inter)
        if k == 0:
            r = xp.einsum(
                f"{self.li},{self.lb}->{self.la}",
                g,
                conj(xp, xp.reshape(b, self.bshape)),
                **einsum_optimize(xp),
            )
            return reshape_to(xp, r, a.shape)
        r = xp.einsum(
            f"{self.li},{self.la}->{self.lb}",
            g,
            conj(xp, xp.reshape(a, self.ashape)),
            **einsum_optimize(xp),
        )
        return reshape_to(xp, r, b.shape)

    def forward(self, k: int, t: Any, extra: int) -> Any:
        xp = self.xp
        a, b = self.operands
        t = pad_chunk(xp, t, extra, self.n)
        return xp.kron(t, b) if k == 0 else xp.kron(a, t)


# --- registrations --------------------------------------------------------------------------------
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
        ((r((0, 3)), r((3, 2))), {}),  # zero-size
        ((r((2, 0)), r((0, 3))), {}),
        ((c, r((3, 2)) + 1j * r((3, 2))), {}),  # complex
        ((r((2, 3)), c.T), {}),  # real meets complex
    ]


def _transpose_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r((2, 3)),), {}),
        ((r((2, 3, 4)),), {}),
        ((r((0, 3)),), {}),
        ((r((2, 3)) + 1j * r((2, 3)),), {}),
    ]


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


def _np_tensordot_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        *_tensordot_ex(rng),
        ((r((2, 3)), r((3, 2)), 1), {}),  # axes positional
        ((r((2, 3)), r((2, 4))), {"axes": (0, 0)}),  # NumPy's pair of ints
        ((r(()), r((3,))), {"axes": 0}),
    ]


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
    ]


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


register_product(("matmul",), Matmul, examples=_matmul_ex)
register_product(("matrix_transpose",), MatrixTranspose, examples=_transpose_ex)
register_product(("tensordot",), Tensordot, examples=_tensordot_ex)
register_product(("vecdot",), Vecdot, examples=_vecdot_ex)
register_product(("numpy:tensordot",), NumpyTensordot, examples=_np_tensordot_ex)
register_product(("numpy:dot",), Dot, examples=_dot_ex)
register_product(("numpy:inner",), Inner, examples=_inner_ex)
register_product(("numpy:vdot",), Vdot, examples=_vdot_ex)
register_product(("numpy:einsum",), Einsum, examples=_einsum_ex)
register_product(("numpy:kron",), Kron, examples=_kron_ex)
