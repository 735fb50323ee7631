"""The rrules of the elementwise formula rules (:func:`chainrules.scalar_rule`), with their NumPy
fast paths.

``scalar_rule``'s pullbacks are the hottest code of the library: an elementwise rule on a small
NumPy array costs a few microseconds, and the generic path -- the one every library takes:
``check_cotangent``, a ``ProjectTo`` per argument, conjugation for complex arguments -- would
double it. For **real NumPy arrays and Python floats with a NumPy cotangent of the output's
shape**, these functions compute exactly what the generic path computes, without the checks that
cannot fail there and without building projectors. Anything else (another library, a complex or
integer argument, a ``Thunk``, a zero or a mis-shaped cotangent, a chunk of cotangents pulled
back with ``chunk=k``) goes to the generic path.

At scale the fast pullbacks spend no work nobody reads: a binary rule defers an operand's
cotangent that costs a pass as a ``Thunk`` (``DEFER_SIZE``). No pullback writes into the
cotangent it is given, nor into a partial it did not allocate (DESIGN's purity rule; where
adding in place pays, the engine owns the accumulator: ``chainrules.ad._reverse``). They keep
no memory nobody reads either: a binary rule whose partials never read the output
(``multiply``, ``add``: :func:`reads_param`) keeps a large output's record, not the output; a
unary rule keeps only what its partial reads of its argument and its output (``exp``'s reads
only the output, ``log1p``'s only the argument).

Other rules' primals and pullbacks have NumPy fast paths here too; each returns ``None`` when it
does not apply, and each fast pullback hands any cotangent it does not take (a chunk, a thunk, a
zero, another dtype or library) to the rule's generic pullback, built only then:

* ``matmul`` of real matrices and vectors, ``max``/``min`` of a real array and ``abs`` of one
  (:func:`matmul_rrule`, :func:`extremum_rrule`, :func:`abs_rrule`): at n=10 the generic rules'
  binding, compat wrappers and shape bookkeeping cost 3-8 us around a sub-microsecond NumPy
  call, on every operation of a traced program. NumPy's real scalars (``np.float64``, what a
  full reduction returns) take the elementwise fast paths as arrays do;
* ``np.linalg.vector_norm(x)`` squares and sums (0.40 ms at n = 1e6 here); ``np.linalg.norm(x)``
  calls BLAS ``dot`` (0.06 ms): 6.5x faster for the 2-norm over every axis of a real array.
* ``where(mask, a * b, 0)`` -- the pullbacks of ``max`` and of the inf-norm, where the mask
  selects a handful of elements -- allocates and touches two full-size temporaries; NumPy can
  write only the selected elements into a lazily zeroed (``calloc``) array instead. Fresh 8 MB
  buffers cost 0.4-1.5 ms each here in page faults, so this decides those pullbacks' speed.

``tests/core/test_numpy_fast.py`` checks, for every elementwise rule of the library and for each
of these, that the fast and the generic path give the same arrays (values, shapes and dtypes).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from . import torch_fast
from .config import RULE_CONFIG
from .namespaces import _NS_BY_TYPE, namespace_of
from .projection import ProjectTo
from .tangents import NoTangent, Thunk, ZeroTangent
from .toolkit import Output, output

__all__ = [
    "add_deferred",
    "binary_rrule",
    "is_real",
    "masked_product",
    "norm2_back",
    "numpy_result",
    "project",
    "unary_rrule",
    "unsum",
    "vector_norm",
]

_NO = NoTangent()
_ZERO = ZeroTangent()
_ND = np.ndarray
_add_reduce = np.add.reduce
_asarray = np.asarray
_multiply = np.multiply
_vdot = np.vdot
_isfinite = math.isfinite
_REAL2 = ("f", None, "f", None)  # the generic binary pullback's kinds for two real operands
# From this many elements of the cotangent on, a binary fast pullback defers each operand's
# cotangent that costs a pass (a partial other than 1, a broadcast operand summed back) as a
# ``Thunk``: an engine forces only the traced operands' (``Y * Z`` with ``Y`` data computes ``Z``'s
# alone). Below it the thunk's closure (about 1 us) costs more than the pass it may save. A Python
# float operand's cotangent (a product and a sum to a scalar) is deferred at every size: no engine
# traces a Python number, so only a direct caller who asks for it pays.
DEFER_SIZE = 1 << 14


# NumPy's real floating scalars: what a full reduction of a real array returns (``np.sum(x)`` is an
# ``np.float64``), so the operations after a reduction meet them as operands and outputs
_NP_REAL = frozenset((np.float64, np.float32, np.float16))


def is_real(a: Any) -> bool:
    """A real floating NumPy array, a NumPy real scalar or a Python float: what the fast paths
    take."""
    t = type(a)
    return (t is _ND and a.dtype.kind == "f") or t is float or t in _NP_REAL


def numpy_result(y: Any) -> Any:
    """``y`` with the result type NumPy's own function gives: a 0-d NumPy array, what the
    namespace's reductions and size-1 reads return, is the NumPy scalar that NumPy's reductions
    and integer indexing return (``np.linalg.trace(x)`` is an ``np.float64``). Every other value
    (another library's arrays included) is ``y`` itself. The conversion reads no value."""
    return y[()] if type(y) is _ND and y.ndim == 0 else y


def project(a: Any, v: Any) -> Any:
    """``ProjectTo(a)(v)`` where it needs no projector: a NumPy cotangent ``v`` that already has
    the NumPy array ``a``'s shape and dtype is ``v``; a real NumPy ``v`` of a Python float ``a``
    is summed to a scalar. ``None`` in every other case."""
    if type(a) is float:
        if type(v) is _ND and v.dtype.kind == "f":
            # what ProjectTo(a)(v) computes (np.sum is this reduction), without its checks
            return _add_reduce(v, axis=tuple(range(v.ndim))) if v.ndim else v
        return None
    tv = type(v)
    if (tv is _ND or tv in _NP_REAL) and v.shape == a.shape and v.dtype == a.dtype:
        return v
    return None


def _times(p: Any, v: Any) -> Any:
    """``v * p`` for a constant partial (±1 without a multiplication); scalar_rule's generic
    path uses it too."""
    if p == 1:
        return v
    if p == -1:
        return -v
    return v * p


def strong_product(v: Any, d: Any, xp: Any) -> Any:
    """``v * d`` with ``v`` a **strong zero** (docs/conventions.md): where ``v`` (a cotangent or
    a tangent) is exactly 0 the product is 0, also where the partial ``d`` is ``inf`` or NaN
    (``0 * inf`` would be NaN). The formula rules declared ``strong_zero=True`` multiply this
    way (:func:`strong_zero`)."""
    return strong_zero(v * d, v, xp)


def strong_zero(r: Any, v: Any, xp: Any) -> Any:
    """The product ``r = v * d`` with 0 wherever ``v`` is 0: a mask and a select, with no host
    read on a device. A NumPy product (host memory: the read synchronises nothing) is masked in
    place, and only when it holds an ``inf`` or a NaN: one reduction finds out (``vdot`` below
    ``INPLACE_SIZE``, where a ufunc's reduction costs more than BLAS's call), cheaper than the
    mask at every size. ``v`` must be intact (not overwritten by the product)."""
    if type(r) is _ND:
        check = _vdot(r, r) if r.size < INPLACE_SIZE else _add_reduce(r, None)
        if not _isfinite(abs(check)):  # abs: a complex vdot too
            np.putmask(r, v == 0, 0)
        return r
    if not hasattr(v, "shape"):  # a Python number (a scalar argument's tangent): no array read
        return r if v != 0 or not hasattr(r, "shape") else xp.zeros_like(r)
    cfg = RULE_CONFIG.get()
    if cfg is not None and cfg.linear_tangents:
        # the engine transposes this product (JAX's linearize): the mask, a select on the linear
        # value v, could not be transposed; the plain product (0 * inf = NaN there)
        return r
    return xp.where(v == 0, xp.zeros_like(r), r)


INPLACE_SIZE = 1 << 12  # elements: from here on a fresh buffer's allocation shows


def unary_rrule(
    name: str,
    get: Any,
    partial: tuple[Any, bool, bool],
    generic: Callable[..., Any],
    arg_kind: Callable[[Any, Any], tuple[str, Any]],
    reject_out: Callable[[str, dict[str, Any]], None],
    strong: bool = False,
) -> Callable[..., Any]:
    """The rrule of a one-argument formula rule, written out whole: this is the hottest path of
    the library, and every call frame shows at n=10. ``get[xp]`` is the primal of namespace
    ``xp``. A real NumPy array ``x`` with a NumPy cotangent of the output's shape takes the fast
    pullback; anything else goes to ``generic(name, partial, x, xp, out, kind, proj, y_bar)``,
    scalar_rule's pullback for every library (``kind, proj = arg_kind(x, xp)``). ``strong``:
    the cotangent multiplies as a strong zero (:func:`strong_product`), and is never written
    into (its zeros are read after the product)."""
    p, is_const, is_zero = partial
    # what a pullback keeps of a large x and output: the record (shape, dtype) of one its partial
    # never reads (exp's reads the output alone, log1p's the argument alone), not the array
    drop_x = not reads_param(p, is_const or is_zero, 2)
    drop_out = not reads_param(p, is_const or is_zero, 1)

    def scalar_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        if len(args) != 1:
            raise TypeError(f"{name} takes 1 positional argument in its rule, got {len(args)}")
        (x,) = args
        xp = _NS_BY_TYPE.get(type(x))
        if xp is None:
            xp = namespace_of(x, fname=name)
        if kwargs:
            reject_out(name, kwargs)
            out = get[xp](x, **kwargs)
        else:
            out = get[xp](x)
        tx = type(x)
        if (tx is _ND and x.dtype.kind == "f") or tx in _NP_REAL:
            out_shape = out.shape
            if is_const:  # -x, +x: x's shape and dtype, not x (the pullback must not keep it);
                # bound as defaults: closure cells would cost every unary rule's call

                def real_pullback(
                    y_bar: Any, x_shape: Any = x.shape, x_dtype: Any = x.dtype, /, *, chunk: int = 0
                ) -> tuple[Any, Any]:
                    if chunk or type(y_bar) is not _ND or y_bar.shape != out_shape:
                        xr = Output(x_shape, x_dtype, _ND, xp, "numpy", None, True)
                        return generic(name, partial, xr, xp, out, "f", None, y_bar, chunk)
                    if is_zero:
                        return _NO, _ZERO
                    v = _times(p, y_bar)
                    if type(v) is _ND and v.shape == x_shape and v.dtype == x_dtype:
                        return _NO, v
                    xr = Output(x_shape, x_dtype, _ND, xp, "numpy", None, True)
                    return _NO, ProjectTo(xr, xp)(v)  # a cotangent of another dtype

                return out, real_pullback

            x_kept, out_kept = x, out
            if tx is _ND and x.size >= INPLACE_SIZE:
                if drop_x:
                    x_kept = Output(x.shape, x.dtype, _ND, xp, "numpy", None, True)
                if drop_out and type(out) is _ND:
                    out_kept = Output(out_shape, out.dtype, _ND, xp, "numpy", None, True)

            def real_pullback(  # type: ignore[misc]
                y_bar: Any,
                chunk: int = 0,
                x: Any = x_kept,
                xp: Any = xp,
                out: Any = out_kept,
                out_shape: Any = out_shape,
                name: str = name,
                partial: Any = partial,
                generic: Any = generic,
                p: Any = p,
                is_const: bool = is_const,
                is_zero: bool = is_zero,
                strong: bool = strong,
            ) -> tuple[Any, Any]:  # values bound as defaults (see binary_rrule)
                if chunk or type(y_bar) is not _ND or y_bar.shape != out_shape:
                    # a deferred cotangent may hold zeros: a strong rule takes the generic way
                    v = (
                        None
                        if chunk or is_const or strong
                        else unary_deferred(y_bar, p, xp, out, x)
                    )
                    if type(v) is _ND and v.shape == x.shape and v.dtype == x.dtype:
                        return _NO, v  # a multiply's deferred +-1 * d (unary_deferred)
                    return generic(name, partial, x, xp, out, "f", None, y_bar, chunk)
                if is_zero:
                    return _NO, _ZERO
                if is_const:
                    v = _times(p, y_bar)
                elif strong:  # y_bar's zeros are read after the product
                    v = strong_zero(y_bar * p(xp, out, x), y_bar, xp)
                else:
                    v = y_bar * p(xp, out, x)
                tv = type(v)
                if (tv is _ND or tv in _NP_REAL) and v.shape == x.shape and v.dtype == x.dtype:
                    return _NO, v
                return _NO, ProjectTo(x, xp)(v)  # a partial of another dtype

            return out, real_pullback
        if not (is_const or is_zero) and torch_fast.real_tensor(x):
            return out, torch_fast.unary_pullback(
                name, partial, generic, arg_kind, x, xp, out, strong
            )
        kind, proj = arg_kind(x, xp)
        # a constant partial reads only x's shape and dtype: its record, not x
        xk = output(x) if is_const and type(x) is _ND else x

        def scalar_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, Any]:
            return generic(name, partial, xk, xp, out, kind, proj, y_bar, chunk)

        return out, scalar_pullback

    return scalar_rrule


def binary_rrule(
    name: str,
    get: Any,
    spec: tuple[tuple[Any, bool, bool], ...],
    check_arity: Callable[[tuple[Any, ...]], None],
    generic: Callable[..., Any],
    arg_kind: Callable[[Any, Any], tuple[str, Any]],
    reject_out: Callable[[str, dict[str, Any]], None],
    partial_args: Callable[[Any, Any, tuple[Any, ...]], tuple[Any, ...]],
    strong: bool = False,
) -> Callable[..., Any]:
    """The rrule of a two-argument formula rule, written out whole (see :func:`unary_rrule`).
    Real NumPy operands (arrays or Python floats) with a NumPy cotangent of the output's shape
    take the fast pullback, anything else ``generic(name, spec, args, xp, out, kinds, y_bar)``.
    ``partial_args(xp, out, args)`` turns Python-float operands into 0-d arrays for the
    partials; a broadcast cotangent is summed back by ``ProjectTo``. ``strong``: the cotangent
    multiplies a partial as a strong zero (:func:`strong_product`)."""
    (p0, c0, z0), (p1, c1, z1) = spec
    # partials that never read the output (multiply's, add's): a pullback then keeps the output's
    # record, not a large output (``Y * Z`` before a ``sum`` is freed as soon as it is summed)
    drop_out = not (reads_param(p0, c0 or z0) or reads_param(p1, c1 or z1))

    def scalar_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        if len(args) != 2:
            check_arity(args)
        if kwargs:
            reject_out(name, kwargs)
        x, y = args
        tx, ty = type(x), type(y)
        if ty is tx or ty is float:
            xp = _NS_BY_TYPE.get(tx)
        elif tx is float:
            xp = _NS_BY_TYPE.get(ty)
        else:
            xp = None
        if xp is None:
            xp = namespace_of(x, y, fname=name)
        out = get[xp](x, y, **kwargs) if kwargs else get[xp](x, y)
        if ((tx is _ND and x.dtype.kind == "f") or tx is float or tx in _NP_REAL) and (
            (ty is _ND and y.dtype.kind == "f") or ty is float or ty in _NP_REAL
        ):  # real NumPy operands (is_real, written out)
            both_arrays = tx is _ND and ty is _ND
            out_shape = out.shape
            kept = out  # a NumPy array or scalar (two Python floats): both have a size
            if drop_out and out.size >= INPLACE_SIZE:
                kept = Output(out_shape, out.dtype, _ND, xp, "numpy", None, True)

            # every value bound as a default, none in a closure cell: cells cost each call of the
            # rule (a pullback takes one positional cotangent and ``chunk``; nothing passes more)
            def real_pullback(
                y_bar: Any,
                chunk: int = 0,
                x: Any = x,
                y: Any = y,
                tx: Any = tx,
                ty: Any = ty,
                args: Any = args,
                xp: Any = xp,
                out: Any = kept,
                out_shape: Any = out_shape,
                both_arrays: bool = both_arrays,
                name: str = name,
                spec: Any = spec,
                generic: Any = generic,
                partial_args: Any = partial_args,
                p0: Any = p0,
                c0: bool = c0,
                z0: bool = z0,
                p1: Any = p1,
                c1: bool = c1,
                z1: bool = z1,
                strong: bool = strong,
            ) -> tuple[Any, Any, Any]:
                if chunk or type(y_bar) is not _ND or y_bar.shape != out_shape:
                    return generic(name, spec, args, xp, out, _REAL2, y_bar, chunk)
                size = y_bar.size
                big = size >= DEFER_SIZE
                pargs = args if both_arrays else None
                if z0:
                    rx: Any = _ZERO
                elif (big or tx is float) and not (c0 and p0 == 1 and _same(x, y_bar)):
                    rx = Thunk(
                        partial(_cotangent, x, p0, c0, y_bar, xp, out, args, partial_args, strong)
                    )
                else:
                    if c0:
                        v = _times(p0, y_bar)
                    else:
                        if pargs is None:
                            pargs = partial_args(xp, out, args)
                        d = p0(xp, out, *pargs)
                        v = y_bar * d
                        if strong:
                            v = strong_zero(v, y_bar, xp)
                    if (
                        type(v) is _ND
                        and type(x) is _ND
                        and v.shape == x.shape
                        and v.dtype == x.dtype
                    ):
                        rx = v  # project(x, v)'s common case, without its call
                    else:
                        rx = project(x, v)
                        if rx is None:
                            rx = ProjectTo(x, xp)(v)
                if z1:
                    ry: Any = _ZERO
                elif (big or ty is float) and not (c1 and p1 == 1 and _same(y, y_bar)):
                    ry = Thunk(
                        partial(_cotangent, y, p1, c1, y_bar, xp, out, args, partial_args, strong)
                    )
                else:
                    if c1:
                        v = _times(p1, y_bar)
                    else:
                        if pargs is None:
                            pargs = partial_args(xp, out, args)
                        d = p1(xp, out, *pargs)
                        v = y_bar * d
                        if strong:
                            v = strong_zero(v, y_bar, xp)
                    if (
                        type(v) is _ND
                        and type(y) is _ND
                        and v.shape == y.shape
                        and v.dtype == y.dtype
                    ):
                        ry = v  # project(y, v)'s common case, without its call
                    else:
                        ry = project(y, v)
                        if ry is None:
                            ry = ProjectTo(y, xp)(v)
                return _NO, rx, ry

            return out, real_pullback
        kinds = (*arg_kind(x, xp), *arg_kind(y, xp))

        def scalar_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
            return generic(name, spec, args, xp, out, kinds, y_bar, chunk)

        return out, scalar_pullback

    return scalar_rrule


def _same(a: Any, y_bar: Any) -> bool:
    """``a`` is a NumPy array of the cotangent's shape and dtype: a partial of 1 hands ``y_bar``
    through unchanged, at no cost, so there is nothing to defer."""
    return type(a) is _ND and a.shape == y_bar.shape and a.dtype == y_bar.dtype


def _cotangent(
    a: Any,
    p: Any,
    c: bool,
    y_bar: Any,
    xp: Any,
    out: Any,
    args: tuple[Any, ...],
    partial_args: Callable[[Any, Any, tuple[Any, ...]], tuple[Any, ...]],
    strong: bool = False,
) -> Any:
    """The cotangent of operand ``a`` of a binary formula rule (partial ``p``, constant when
    ``c``), what the fast pullback computes inline: the body of its deferred ``Thunk``
    (``strong``: a strong-zero product, :func:`strong_product`)."""
    if c:
        v = _times(p, y_bar)
    else:
        tx, ty = type(args[0]), type(args[1])
        pargs = args if tx is _ND and ty is _ND else partial_args(xp, out, args)
        v = y_bar * p(xp, out, *pargs)
        if strong:
            v = strong_zero(v, y_bar, xp)
    r = project(a, v)
    return ProjectTo(a, xp)(v) if r is None else r


def unsum(y_bar: Any, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> Any:
    """``broadcast_to(y_bar with the reduced axes restored, shape)`` (the pullback of ``sum``)
    for a C-contiguous, non-empty floating NumPy ``y_bar``: a read-only view with zero strides
    along the broadcast axes, built in one constructor call (``np.broadcast_to`` costs 3-4x as
    much at n=10: its ``nditer``). ``None`` in every other case."""
    if type(y_bar) is not _ND or not y_bar.flags.c_contiguous or y_bar.dtype.kind not in "fc":
        return None
    rank = len(shape) if keepdims else len(shape) - len(axes)
    if not y_bar.size or 0 in shape or y_bar.ndim != rank:
        return None
    if not rank:  # a full reduction (a 0-d y_bar): every stride 0, nothing to match
        out = _ND(shape, y_bar.dtype, y_bar, 0, (0,) * len(shape))
        out.flags.writeable = False
        return out
    if keepdims:
        src = y_bar.shape
        strides = y_bar.strides
    else:  # the reduced axes back as length-1 axes (their stride never matters)
        src_l, st_l, it = [], [], iter(zip(y_bar.shape, y_bar.strides))
        for a in range(len(shape)):
            n, st = (1, 0) if a in axes else next(it)
            src_l.append(n)
            st_l.append(st)
        src, strides = tuple(src_l), tuple(st_l)
    out_strides = []
    for n, st, m in zip(src, strides, shape):
        if n == m:
            out_strides.append(st)
        elif n == 1:
            out_strides.append(0)
        else:
            return None  # not broadcastable: the generic path raises
    out = _ND(shape, y_bar.dtype, y_bar, 0, tuple(out_strides))
    out.flags.writeable = False  # as broadcast_to's view: never written through
    return out


def sum_rrule(
    xp: Any,
    x: Any,
    axes: tuple[int, ...],
    keepdims: bool,
    n: int,
    nos: tuple[Any, ...],
    slow: Callable[[Any, Any], Any],
) -> tuple[Any, Callable[..., Any]]:
    """``sum`` (``n`` = 1) or ``mean`` (``n``: the count) of a real, non-empty NumPy ``x`` over
    ``axes``, with its pullback written out: the reduction is ``np.add.reduce`` (what ``np.sum``
    calls for an ndarray, without ``_wrapreduction``'s frames), and a NumPy cotangent of the
    output's shape and ``x``'s dtype is pulled back as :func:`unsum`'s view. Any other cotangent
    (a chunk, a thunk, a zero, another dtype or library) goes to
    ``slow(x_rec, y_rec)(y_bar, chunk=chunk)``, the rule's general pullback, built on first use
    from the records of ``x`` and of the output (the pullback keeps neither array)."""
    y: Any = _add_reduce(x, axis=axes, keepdims=keepdims)  # type: ignore[call-overload]
    if n != 1:
        y = y / n
    shape, dtype, y_shape = x.shape, x.dtype, y.shape
    y_rec = y if type(y) is not _ND else None  # a NumPy scalar owns its value: keep it

    def sum_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
        if type(y_bar) in _NP_REAL:  # a NumPy scalar (the cotangent of a full reduction)
            y_bar = _asarray(y_bar)
        if not chunk and type(y_bar) is _ND and y_bar.shape == y_shape and y_bar.dtype == dtype:
            g = unsum(y_bar / n if n != 1 else y_bar, shape, axes, keepdims)
            if g is not None:
                return (_NO, g, *nos)
        yr = y_rec
        if yr is None:
            yr = Output(y_shape, dtype, _ND, xp, "numpy", None, True)
        return slow(Output(shape, dtype, _ND, xp, "numpy", None, True), yr)(y_bar, chunk=chunk)

    return y, sum_pullback


def vector_norm(x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
    """The 2-norm over every axis of a real NumPy array through BLAS, else ``None``."""
    if type(x) is not np.ndarray or ord != 2 or axis is not None or x.dtype.kind != "f":
        return None
    return np.linalg.norm(x, None, None, keepdims)


def norm2_back(x: Any, y: Any, y_bar: Any) -> Any:
    """The 2-norm's cotangent ``x * (y_bar / y)`` for a real NumPy ``x`` normed over every axis
    (``y`` its NumPy scalar norm, finite and positive) and a Python float or real NumPy scalar
    ``y_bar`` of ``x``'s dtype: what ``norm2_back`` computes there, bit for bit, without its
    0-d bookkeeping (about 40 us of a 250 us pullback at n = 1e6). Else ``None``."""
    if type(x) is not _ND or x.dtype.kind != "f" or type(y) not in _NP_REAL:
        return None
    ty = type(y_bar)
    if ty is not float and not (ty in _NP_REAL or (ty is _ND and y_bar.ndim == 0)):
        return None
    if ty is not float and y_bar.dtype != x.dtype:
        return None
    if not 0 < y < np.inf:  # a zero, infinite or NaN norm: the limits of norm2_back
        return None
    return x * (y_bar / y)


def masked_product(mask: Any, a: Any, b: Any) -> Any:
    """``where(mask, a * b, 0)`` for NumPy operands, writing only where ``mask`` is set; else
    ``None``."""
    if type(mask) is not np.ndarray or not all(
        type(v) is np.ndarray or isinstance(v, (np.generic, float)) for v in (a, b)
    ):
        return None
    shape = np.broadcast_shapes(mask.shape, np.shape(a), np.shape(b))
    out = np.zeros(shape, dtype=np.result_type(a, b))
    np.multiply(a, b, out=out, where=mask)
    return out


# --- host checks that let a NumPy rule skip a limit's masks ---------------------------------------
def cumprod_back(x: Any, g: Any, axis: int, conj: bool) -> Any:
    """The pullback of NumPy's ``cumprod`` along ``axis`` by division,
    ``x_bar_i = sum_{j >= i} g_j y_j / x_i`` (``y`` the cumulative product; conjugated partials
    for complex ``x``), or ``None`` where it does not apply: ``x`` or ``g`` not NumPy arrays, or
    a zero or an overflow in ``y`` (then the generic division-free scan is exact and this is not).
    Two passes over ``y`` instead of the scan's ``log2 n``."""
    if type(x) is not _ND or type(g) is not _ND:
        return None
    with np.errstate(all="ignore"):
        y = _divisible_cumprod(x, axis)
        if y is None:
            return None
        if conj:
            y, x = np.conj(y), np.conj(x)
        w = np.flip(np.cumsum(np.flip(g * y, axis=axis), axis=axis), axis=axis)
        w = w / x
    return w


def cumprod_push(x: Any, t: Any, axis: int) -> Any:
    """The pushforward of NumPy's ``cumprod`` along ``axis`` (negative: ``t`` may carry leading
    chunk axes) by division, ``y_dot = y * cumsum(t / x)``, or ``None`` where it does not apply:
    ``x`` or ``t`` not NumPy arrays, or a zero or an overflow in ``y`` (then the generic
    division-free scan is exact and this is not). One pass instead of the scan's ``log2 n``."""
    if type(x) is not _ND or type(t) is not _ND:
        return None
    with np.errstate(all="ignore"):
        y = _divisible_cumprod(x, axis)
        return None if y is None else y * np.cumsum(t / x, axis=axis)


def _divisible_cumprod(x: Any, axis: int) -> Any:
    """NumPy's cumulative product of ``x`` along ``axis`` when it has no zero and no overflow
    (dividing it by ``x`` is then exact enough), else ``None``. Call under ``np.errstate``."""
    y = np.cumprod(x, axis=axis)
    return y if np.isfinite(y).all() and y.all() else None


# --- partials written with one allocation ------------------------------------------------------
# NumPy reuses a temporary operand's buffer for the result (temporary elision) only when it is
# the left operand: ``1 / (1 + x)`` and ``1 - y * y`` allocate twice, as many fresh 8 MB buffers
# as passes at n = 1e6 (0.4-1.5 ms each here in page faults). These write the second pass in place.
def reciprocal_1p(x: Any) -> Any:
    """``1 / (1 + x)`` (the partial of ``log1p``) for a real NumPy array of at least
    ``INPLACE_SIZE`` elements, in one fresh buffer: ``1 + x`` is written, then divided in place,
    where the formula allocates twice. ``None`` in every other case."""
    if type(x) is not _ND or x.dtype.kind != "f" or x.size < INPLACE_SIZE:
        return None
    t = np.add(x, 1)
    return np.divide(1, t, out=t)


def one_minus_square(y: Any) -> Any:
    """``1 - y * y`` (the partial of ``tanh``, ``y`` its output) for a real NumPy array of at
    least ``INPLACE_SIZE`` elements, in one fresh buffer (see :func:`reciprocal_1p`). ``None``
    in every other case."""
    if type(y) is not _ND or y.dtype.kind != "f" or y.size < INPLACE_SIZE:
        return None
    t = _multiply(y, y)
    return np.subtract(1, t, out=t)


# --- matmul of real NumPy matrices and vectors --------------------------------------------------
_matmul = np.matmul


def _x1_bar(g: Any, b: Any) -> Any:
    """``x1``'s cotangent of a real ``x1 @ b``: ``g @ b^T``, or the outer product ``g b^T`` when
    ``b`` is a vector (then ``x1`` is a matrix)."""
    return g[:, None] * b if b.ndim == 1 else _matmul(g, b.T)


def _x2_bar(a: Any, g: Any) -> Any:
    """``x2``'s cotangent of a real ``a @ x2``: ``a^T @ g``, or the outer product ``a g^T`` when
    ``a`` is a vector (then ``x2`` is a matrix)."""
    return a[:, None] * g if a.ndim == 1 else _matmul(a.T, g)


def matmul_rrule(
    a: Any, b: Any, slow: Callable[[Any], Callable[..., Any]]
) -> tuple[Any, Callable[..., Any]] | None:
    """``a @ b`` for non-empty real NumPy operands of one dtype, each a matrix or a vector (not
    both vectors), with its pullback written out: the product is ``np.matmul`` (the compat
    wrapper and the generic rule's shape bookkeeping cost about 7 us at n=10, around a 1 us
    product). A NumPy cotangent of the output's shape and dtype gets each operand's cotangent as
    a ``Thunk`` (the contract's "only the cotangents asked for": an engine forces only a traced
    operand's); any other cotangent (a chunk, a thunk, a zero, another dtype or library) goes to
    ``slow(y)``, the generic rule's pullback of this product, built on first use. ``None`` where
    the fast path does not apply."""
    if type(a) is not _ND or type(b) is not _ND:
        return None
    dtype, na, nb = a.dtype, a.ndim, b.ndim
    if dtype.kind != "f" or b.dtype != dtype or na + nb < 3 or na > 2 or nb > 2:
        return None  # (na + nb < 3: a vector and a vector, or a 0-d operand)
    if not a.size or not b.size:
        return None
    y = _matmul(a, b)
    y_shape = y.shape

    def matmul_pullback(
        y_bar: Any, chunk: int = 0, a: Any = a, b: Any = b, y: Any = y
    ) -> tuple[Any, Any, Any]:  # values bound as defaults (see binary_rrule)
        if chunk or type(y_bar) is not _ND or y_bar.shape != y_shape or y_bar.dtype != dtype:
            return slow(y)(y_bar, chunk=chunk)
        return _NO, Thunk(partial(_x1_bar, y_bar, b)), Thunk(partial(_x2_bar, a, y_bar))

    return y, matmul_pullback


# --- max and min of a real NumPy array ----------------------------------------------------------
_EXTREMUM = {"max": np.maximum.reduce, "min": np.minimum.reduce}
_where = np.where


def _tie_count(mask: Any, axes: tuple[int, ...], dtype: Any) -> Any:
    """The number of ties per slice, kept axes, in ``dtype``: counted in integers and then cast,
    as the generic ``count_true`` does, so that both paths round a large count alike."""
    return _add_reduce(mask, axis=axes, keepdims=True, dtype=np.intp).astype(dtype)


def _ties_bar(x: Any, y: Any, g: Any, axes: tuple[int, ...], kshape: Any) -> Any:
    """The cotangent of ``x`` for its extremum ``y`` over ``axes``: ``g`` shared equally among
    the elements equal to ``y`` -- the generic ``_extremum_bar``'s values from one mask and one
    count. ``kshape`` is the output's shape with the reduced axes kept (``None``: ``y`` and
    ``g`` already have it); a reduction over every axis counts with ``count_nonzero``'s C loop,
    a host integer (NumPy arrays live on the host: no device to synchronise)."""
    if len(axes) == x.ndim:
        mask = x == y
        return _where(mask, g / (int(np.count_nonzero(mask)) or 1), 0.0)  # a Python int: weak
    if kshape is not None:
        y, g = y.reshape(kshape), g.reshape(kshape)
    mask = x == y
    count = _tie_count(mask, axes, x.dtype)
    return _where(mask, g / _where(count == 0, 1, count), 0.0)


def extremum_rrule(
    name: str,
    x: Any,
    axes: tuple[int, ...],
    keepdims: bool,
    slow: Callable[[Any], Callable[..., Any]],
) -> tuple[Any, Callable[..., Any]]:
    """``max`` or ``min`` (``name``) of a real, non-empty NumPy ``x`` over ``axes`` with its
    pullback written out: the reduction is the ufunc's (what ``np.max`` calls for an ndarray),
    and a NumPy cotangent of the output's shape and ``x``'s dtype is shared among the ties
    (:func:`_ties_bar`). Any other cotangent (a chunk, a thunk, a zero, another dtype or library)
    goes to ``slow(y)``, the rule's general pullback, built on first use."""
    y: Any = _EXTREMUM[name](x, axis=axes, keepdims=keepdims)  # type: ignore[call-overload]
    y_shape, dtype = np.shape(y), x.dtype
    kshape = None if keepdims else tuple(1 if a in axes else n for a, n in enumerate(x.shape))

    def extremum_pullback(
        y_bar: Any, chunk: int = 0, x: Any = x, y: Any = y
    ) -> tuple[Any, Any]:  # values bound as defaults (see binary_rrule)
        ty = type(y_bar)
        if (
            not chunk
            and (ty is _ND or ty in _NP_REAL)
            and y_bar.shape == y_shape
            and y_bar.dtype == dtype
        ):
            return _NO, _ties_bar(x, y, y_bar, axes, kshape)
        return slow(y)(y_bar, chunk=chunk)

    return y, extremum_pullback


# --- abs of a real NumPy array ------------------------------------------------------------------
def abs_rrule(x: Any, slow: Callable[[Any], Callable[..., Any]]) -> tuple[Any, Any] | None:
    """``abs(x)`` of a real NumPy array of rank >= 1 with its pullback written out:
    ``y_bar * sign(x)`` (±1, 0 at ±0 -- the minimum-norm subgradient -- ±1 at ±inf, NaN at NaN:
    what the generic ``unit`` computes, in one pass) for a NumPy cotangent of ``x``'s shape and
    dtype; any other cotangent goes to ``slow(out)``, the generic pullback, built on first use.
    ``None`` where the fast path does not apply."""
    if type(x) is not _ND or x.dtype.kind != "f" or not x.ndim:
        return None
    out = np.absolute(x)

    def abs_pullback(
        y_bar: Any, chunk: int = 0, x: Any = x, out: Any = out
    ) -> tuple[Any, Any]:  # values bound as defaults (see binary_rrule)
        if not chunk and type(y_bar) is _ND and y_bar.shape == x.shape and y_bar.dtype == x.dtype:
            return _NO, y_bar * np.sign(x)
        return slow(out)(y_bar, chunk=chunk)

    return out, abs_pullback


# --- what a partial reads ----------------------------------------------------------------------
def reads_param(p: Any, const: bool, i: int = 1) -> bool:
    """Whether the partial ``p(xp, out, *args)`` may read its parameter ``i`` (1: the primal
    output, 2: a unary rule's argument): False only for a constant partial and for a plain
    Python function whose code never names that parameter (no load, no closure over it, no
    ``locals``/``eval``/``vars``). Anything else (a ``functools.partial``, a callable object,
    ``*args``) may read it."""
    if const:
        return False
    code = getattr(p, "__code__", None)
    if code is None or code.co_argcount <= i or code.co_flags & 0x04:  # 0x04: *args
        return True
    name = code.co_varnames[i]
    if name in code.co_cellvars or {"locals", "eval", "exec", "vars"} & set(code.co_names):
        return True
    import dis

    for ins in dis.get_instructions(code):
        v = ins.argval
        if v == name or (type(v) is tuple and name in v):
            return True
    return False


# --- a deferred cotangent added to another --------------------------------------------------------
def add_deferred(t: Any, g: Any) -> Any:
    """``unthunk(t) + g`` in one pass where the general way takes two, else ``None``.

    ``t`` must be a binary fast pullback's deferred cotangent ``y_bar * d`` of an operand (see
    :func:`_cotangent`) whose ``y_bar`` is one +1 or -1 broadcast -- ``sum``'s pullback, alone
    or after a ``subtract``: ``sum(Y * Z)`` in a loss -- and ``g`` a NumPy array of the
    operand's shape and dtype (what an engine adds it to). The sum is then ``g + d`` or
    ``g - d``: exactly ``(y_bar * d) + g`` (``1 * d`` is ``d``, ``-1 * d`` is ``-d``, and
    ``g - d`` is ``g + (-d)`` in IEEE arithmetic), without the product's pass and buffer. It is
    written into a new array, never into ``d`` or ``g``."""
    if type(g) is not _ND:
        return None
    parts = _signed(t, g.shape, g.dtype)
    if parts is None:
        return None
    sign, fn = parts
    y_bar, a, xp = fn.args[3], fn.args[0], fn.args[4]
    return _plus(g, sign == 1, _partial_of(fn), y_bar, a, xp)


def _signed(t: Any, shape: Any, dtype: Any) -> Any:
    """``(sign, fn)`` when ``t`` is a binary fast pullback's deferred ``y_bar * d`` (``fn``, the
    ``partial`` of :func:`_cotangent` it forces) of an operand of ``shape`` and ``dtype`` whose
    ``y_bar`` is one ``sign`` (+1 or -1) broadcast and whose partial ``d`` is not a constant:
    its value is ``sign * d``. ``None`` otherwise."""
    fn = getattr(t, "_fn", None)
    if type(t) is not Thunk or type(fn) is not partial or fn.func is not _cotangent:
        return None
    a, _, c, y_bar = fn.args[:4]
    if c or type(y_bar) is not _ND or type(a) is not _ND or any(y_bar.strides):
        return None
    if not (a.shape == shape == y_bar.shape and a.dtype == dtype == y_bar.dtype):
        return None
    s = y_bar.item(0)  # a NumPy array in host memory: the read forces no synchronisation
    return (s, fn) if s == 1 or s == -1 else None


def _partial_of(fn: Any) -> Any:
    """The partial ``d`` that the deferred product ``fn`` (see :func:`_signed`) multiplies."""
    _, p, _, _, xp, out, args, partial_args = fn.args[:8]
    pargs = args if type(args[0]) is _ND and type(args[1]) is _ND else partial_args(xp, out, args)
    return p(xp, out, *pargs)


def unary_deferred(t: Any, p: Any, xp: Any, out: Any, x: Any) -> Any:
    """The cotangent ``unthunk(t) * p(xp, out, x)`` of a unary rule's real NumPy argument ``x``
    (``p`` its partial, not a constant), in one pass, for a deferred ``t = sign * d`` (see
    :func:`_signed`: ``sum(sin(x) * exp(x))`` hands ``sin``'s pullback ``1 * exp(x)``): ``d``
    times the partial (a new array), negated in place for -1. Exactly ``(sign * d) * partial``:
    IEEE products are symmetric in sign.
    ``None`` when ``t`` is no such thunk; the caller checks the product's shape and dtype."""
    parts = _signed(t, out.shape, out.dtype)
    if parts is None or out.shape != x.shape or out.dtype != x.dtype:
        return None
    sign, fn = parts
    v = _partial_of(fn) * p(xp, out, x)  # a new array: neither operand is written
    return v if sign == 1 or type(v) is not _ND else np.negative(v, out=v)


def _plus(g: Any, add: bool, d: Any, y_bar: Any, a: Any, xp: Any) -> Any:
    """``g + d`` (``add``) or ``g - d``, a new array; a partial of another type or dtype takes
    the general way."""
    if type(d) is not _ND or d.dtype != g.dtype:
        v = y_bar * d
        r = project(a, v)
        return (ProjectTo(a, xp)(v) if r is None else r) + g
    return (np.add if add else np.subtract)(g, d)
