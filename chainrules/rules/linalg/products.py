"""Rules for the product-like functions of the ``linalg`` extension -- ``matmul``,
``matrix_transpose``, ``tensordot``, ``vecdot`` (the same rules as the standard's top-level
functions, see :mod:`chainrules.rules.linear_algebra`), ``outer``, ``cross``, ``trace``,
``diagonal`` -- and NumPy's ``outer``, ``trace`` and ``diagonal`` (with ``axis1``/``axis2``).

Maths notes
-----------
* ``outer(x1, x2) = x1[:, None] * x2[None, :]``: ``x1_bar = y_bar @ conj(x2)``,
  ``x2_bar = conj(x1) @ y_bar``. NumPy's ``outer`` flattens its operands first; the cotangents
  are reshaped back.
* ``cross(x1, x2)`` (length-3 vectors along ``axis``, the other axes broadcast) is bilinear with
  ``<y_bar, x1 x x2> = <x2 x y_bar, x1>``: ``x1_bar = cross(conj(x2), y_bar)``,
  ``x2_bar = cross(y_bar, conj(x1))``, summed over broadcast axes.
* ``trace`` (with ``offset``): ``x_bar = y_bar[..., None, None] * eye(n, m, k=offset)``. An offset
  outside the matrix gives a zero trace and a zero cotangent. ``dtype=`` changes the output's dtype;
  the cotangent has the input's.
* ``diagonal`` (with ``offset``): the cotangent is ``y_bar`` put back on that diagonal of a zero
  matrix: ``x_bar = (y_bar @ S)[..., :, None] * eye(n, m, k=offset)``, with ``S`` the constant
  selector ``eye(L, n, k=max(-offset, 0))`` that moves entry ``i`` of the diagonal to its row.
  No scatter and no index array: matmul, multiply and constants.
* NumPy's ``trace``/``diagonal`` over ``axis1``/``axis2``: the same, with those two axes moved to
  the end (``permute_dims``) and back.

Every pullback is built from functions with rules of their own (``matmul``, ``cross``,
``multiply``, ``reshape``, ``permute_dims``, ``conj``, ``sum``) and constants (``eye``), so it can
be differentiated again, and reads no value on the host.
"""

from __future__ import annotations

import math
from typing import Any

import array_api_compat

from ...core.namespaces import namespace_of
from ..linear_algebra import (
    Matmul,
    MatrixTranspose,
    Product,
    Tensordot,
    Vecdot,
    _matmul_ex,
    _tensordot_ex,
    _transpose_ex,
    _vecdot_ex,
    broadcast_shapes,
    conj,
    pad_chunk,
    parse_call,
    register_product,
    reshape_to,
)


def _eye(xp: Any, n: int, m: int, k: int, like: Any) -> Any:
    """The constant ``eye(n, m, k=k)`` in ``like``'s floating dtype and device."""
    return xp.eye(n, m, k=k, dtype=like.dtype, device=array_api_compat.device(like))


# --- outer ----------------------------------------------------------------------------------------
class Outer(Product):
    """``linalg.outer(x1, x2)`` of vectors; NumPy's ``outer`` flattens its operands."""

    name = "outer"
    numpy = False

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x1, x2), _ = parse_call(self.name, args, kwargs, 2, ("out",) if self.numpy else ())
        self.set_operands(namespace_of(x1, x2, fname=self.name), (x1, x2), (0, 1))
        self.nargs = len(args)
        a, b = self.operands
        if not self.numpy and (a.ndim != 1 or b.ndim != 1):
            raise ValueError(
                f"linalg.outer: operands must be vectors, got shapes {tuple(a.shape)} and "
                f"{tuple(b.shape)}"
            )
        self.na, self.nb = math.prod(a.shape), math.prod(b.shape)

    def primal(self) -> Any:
        a, b = self.operands
        if self.numpy:
            return self.xp.outer(a, b)
        return self.xp.linalg.outer(a, b)

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        a, b = self.operands
        if k == 0:
            r = xp.matmul(y_bar, conj(xp, reshape_to(xp, b, (self.nb,))))
            return reshape_to(xp, r, a.shape)
        r = xp.matmul(conj(xp, reshape_to(xp, a, (self.na,))), y_bar)
        return reshape_to(xp, r, b.shape)

    def forward(self, k: int, t: Any, extra: int) -> Any:
        xp = self.xp
        a, b = self.operands
        lead = tuple(t.shape[:extra])
        if k == 0:
            t = xp.reshape(t, (*lead, self.na, 1))
            return t * xp.reshape(b, (1, self.nb))
        t = xp.reshape(t, (*lead, 1, self.nb))
        return xp.reshape(a, (self.na, 1)) * t


class NumpyOuter(Outer):
    numpy = True


# --- cross ----------------------------------------------------------------------------------------
class Cross(Product):
    """``linalg.cross(x1, x2, axis=-1)``: length-3 vectors, the other axes broadcast."""

    name = "cross"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        (x1, x2), params = parse_call(self.name, args, kwargs, 2, (), ("axis",))
        self.set_operands(namespace_of(x1, x2, fname=self.name), (x1, x2), (0, 1))
        self.nargs = len(args)
        a, b = self.operands
        axis = params.get("axis", -1)
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"cross: axis must be an int, got {axis!r}")
        self.shape = broadcast_shapes(a.shape, b.shape)
        self.n = n = len(self.shape)
        if not -n <= axis < n:
            raise ValueError(
                f"cross: axis {axis} is out of bounds for the broadcast shape {self.shape}"
            )
        self.axis = axis
        self.neg = axis - n if axis >= 0 else axis

    def primal(self) -> Any:
        return self.xp.linalg.cross(*self.operands, axis=self.axis)

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        a, b = self.operands
        if k == 0:
            return xp.linalg.cross(conj(xp, b), y_bar, axis=self.neg)
        return xp.linalg.cross(y_bar, conj(xp, a), axis=self.neg)

    def forward(self, k: int, t: Any, extra: int) -> Any:
        xp = self.xp
        a, b = self.operands
        t = pad_chunk(xp, t, extra, self.n)
        if k == 0:
            return xp.linalg.cross(t, b, axis=self.neg)
        return xp.linalg.cross(a, t, axis=self.neg)


# --- trace and diagonal ---------------------------------------------------------------------------
def _int_param(name: str, what: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"{name}: {what} must be an int, got {v!r}")
    return v


class _Diag(Product):
    """A ``trace`` or ``diagonal`` call over two axes ``(a1, a2)`` (the last two for
    ``linalg``), as a call over the last two axes of ``x`` with them moved to the end."""

    numpy = False
    name = "trace"

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        numpy, trace = self.numpy, self.name == "trace"
        if numpy:
            pos: tuple[str, ...] = ("offset", "axis1", "axis2")
            pos = (*pos, "dtype", "out") if trace else pos
            kw: tuple[str, ...] = ()
        else:
            pos, kw = (), ("offset", "dtype") if trace else ("offset",)
        (x,), params = parse_call(self.name, args, kwargs, 1, pos, kw)
        self.set_operands(namespace_of(x, fname=self.name), (x,), (0,))
        self.nargs = len(args)
        x = self.operands[0]
        self.params = params
        self.offset = _int_param(self.name, "offset", params.get("offset", 0))
        self.dtype = params.get("dtype")
        if x.ndim < 2:
            raise ValueError(f"{self.name}: x must have rank >= 2, got shape {tuple(x.shape)}")
        if numpy:
            a1 = _int_param(self.name, "axis1", params.get("axis1", 0))
            a2 = _int_param(self.name, "axis2", params.get("axis2", 1))
            for a in (a1, a2):
                if not -x.ndim <= a < x.ndim:
                    raise ValueError(
                        f"{self.name}: axis {a} is out of bounds for an array of rank {x.ndim}"
                    )
            a1, a2 = a1 % x.ndim, a2 % x.ndim
            if a1 == a2:
                raise ValueError(f"{self.name}: axis1 and axis2 cannot be the same ({a1})")
        else:
            a1, a2 = x.ndim - 2, x.ndim - 1
        self.a1, self.a2 = a1, a2
        rest = [i for i in range(x.ndim) if i not in (a1, a2)]
        self.perm = (*rest, a1, a2)
        self.n, self.m = x.shape[a1], x.shape[a2]
        self.r0, self.c0 = max(-self.offset, 0), max(self.offset, 0)
        self.length = max(0, min(self.n - self.r0, self.m - self.c0))

    def primal(self) -> Any:
        xp, x = self.xp, self.operands[0]
        if self.numpy:
            kw = {"dtype": self.dtype} if self.name == "trace" and self.dtype is not None else {}
            return getattr(xp, self.name)(x, self.offset, self.a1, self.a2, **kw)
        if self.name == "trace":
            kw = {"dtype": self.dtype} if self.dtype is not None else {}
            return xp.linalg.trace(x, offset=self.offset, **kw)
        return xp.linalg.diagonal(x, offset=self.offset)

    def _embed(self, y_bar: Any) -> Any:
        """The cotangent of ``x`` with the two axes moved to the end."""
        xp = self.xp
        eye = _eye(xp, self.n, self.m, self.offset, y_bar)
        if self.name == "trace":
            return xp.reshape(y_bar, (*tuple(y_bar.shape), 1, 1)) * eye
        # the diagonal's entries moved to their rows (a constant selector), then onto the diagonal
        select = _eye(xp, self.length, self.n, self.r0, y_bar)
        rows = xp.matmul(y_bar, select)
        return xp.reshape(rows, (*tuple(rows.shape), 1)) * eye

    def back(self, k: int, y_bar: Any) -> Any:
        xp = self.xp
        g = self._embed(y_bar)
        inverse = [self.perm.index(i) for i in range(len(self.perm))]
        if inverse == list(range(len(inverse))):
            return g
        return xp.permute_dims(g, tuple(inverse))

    def forward(self, k: int, t: Any, extra: int) -> Any:
        xp = self.xp
        if self.numpy:
            kw = {"dtype": self.dtype} if self.name == "trace" and self.dtype is not None else {}
            return getattr(xp, self.name)(t, self.offset, self.a1 + extra, self.a2 + extra, **kw)
        if self.name == "trace":
            kw = {"dtype": self.dtype} if self.dtype is not None else {}
            return xp.linalg.trace(t, offset=self.offset, **kw)
        return xp.linalg.diagonal(t, offset=self.offset)


class Trace(_Diag):
    name = "trace"


class Diagonal(_Diag):
    name = "diagonal"


class NumpyTrace(_Diag):
    name = "trace"
    numpy = True


class NumpyDiagonal(_Diag):
    name = "diagonal"
    numpy = True


# --- examples -------------------------------------------------------------------------------------
def _outer_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r(3), r(4)), {}),
        ((r(0), r(2)), {}),
        ((r(3) + 1j * r(3), r(2) + 1j * r(2)), {}),
        ((r(2), r(3) + 1j * r(3)), {}),
    ]


def _np_outer_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [*_outer_ex(rng), ((r((2, 3)), r(2)), {}), ((r(()), r((2, 2))), {})]


def _cross_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r(3), r(3)), {}),
        ((r((4, 3)), r(3)), {}),  # broadcast
        ((r((3, 2)), r((2, 3, 2))), {"axis": -2}),
        ((r((3, 2)), r((3, 2))), {"axis": 0}),
        ((r((0, 3)), r((0, 3))), {}),
        ((r((2, 3)) + 1j * r((2, 3)), r(3) + 1j * r(3)), {}),
    ]


def _trace_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r((3, 3)),), {}),
        ((r((3, 4)),), {"offset": 1}),
        ((r((2, 3, 4)),), {"offset": -1}),
        ((r((3, 3)),), {"offset": 5}),  # off the matrix: zero
        ((r((0, 3)),), {}),
        ((r((3, 3)) + 1j * r((3, 3)),), {}),
    ]


def _np_trace_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        *_trace_ex(rng),
        ((r((3, 2, 4)), 1, 0, 2), {}),  # offset, axis1, axis2 positional
        ((r((3, 2, 4)),), {"axis1": 2, "axis2": 0, "offset": -1}),
    ]


def _diagonal_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r((3, 3)),), {}),
        ((r((3, 4)),), {"offset": 1}),
        ((r((4, 3)),), {"offset": -2}),
        ((r((2, 3, 4)),), {"offset": -1}),
        ((r((3, 3)),), {"offset": 4}),  # empty diagonal
        ((r((0, 3)),), {}),
        ((r((3, 3)) + 1j * r((3, 3)),), {"offset": 1}),
    ]


def _np_diagonal_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        *_diagonal_ex(rng),
        ((r((3, 2, 4)), 1, 0, 2), {}),
        ((r((3, 2, 4)),), {"axis1": 2, "axis2": 0, "offset": -1}),
        ((r((2, 3, 3)),), {"axis1": -1, "axis2": -2}),
    ]


register_product(("linalg.matmul",), Matmul, examples=_matmul_ex, module=__name__)
register_product(
    ("linalg.matrix_transpose",), MatrixTranspose, examples=_transpose_ex, module=__name__
)
register_product(("linalg.tensordot",), Tensordot, examples=_tensordot_ex, module=__name__)
register_product(("linalg.vecdot",), Vecdot, examples=_vecdot_ex, module=__name__)
register_product(("linalg.outer",), Outer, examples=_outer_ex, module=__name__)
register_product(("linalg.cross",), Cross, examples=_cross_ex, module=__name__)
register_product(("linalg.trace",), Trace, examples=_trace_ex, module=__name__)
register_product(("linalg.diagonal",), Diagonal, examples=_diagonal_ex, module=__name__)
register_product(("numpy:outer",), NumpyOuter, examples=_np_outer_ex, module=__name__)
register_product(("numpy:trace",), NumpyTrace, examples=_np_trace_ex, module=__name__)
register_product(("numpy:diagonal",), NumpyDiagonal, examples=_np_diagonal_ex, module=__name__)
