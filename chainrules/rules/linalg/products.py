"""Rules for the product-like functions of the ``linalg`` extension -- ``outer``, ``cross``,
``trace``, ``diagonal`` (``linalg.matmul``, ``linalg.matrix_transpose``, ``linalg.tensordot`` and
``linalg.vecdot`` are registered with the standard's top-level functions, in
:mod:`chainrules.rules.linear_algebra`) -- and NumPy's ``outer``, ``trace`` and ``diagonal``
(with ``axis1``/``axis2``) and ``linalg.multi_dot``.

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
* ``multi_dot``: the product is evaluated in the optimal order of the matrix chain (the same
  dynamic programme as NumPy's, on shapes only) and every node ``C = L R`` pulls back
  ``L_bar = C_bar R^H``, ``R_bar = L^H C_bar``: the pullback costs about twice the product.
* NumPy's ``trace``/``diagonal`` over ``axis1``/``axis2``: the same, with those two axes moved to
  the end (``permute_dims``) and back.

Every pullback is built from functions with rules of their own (``matmul``, ``cross``,
``multiply``, ``reshape``, ``permute_dims``, ``conj``, ``sum``) and constants (``eye``), so it can
be differentiated again, and reads no value on the host. The two ``outer`` rules share
:func:`outer_rules`, and the four ``trace``/``diagonal`` rules :func:`diag_rules`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import array_api_compat

from ...core.prelude import *
from .._util import conj, in_dtype, lazy
from .._util.creation import Rules, register_pair
from .._util.linalg import _h
from .._util.products import *


def _eye(xp: Any, n: int, m: int, k: int, like: Any) -> Any:
    """The constant ``eye(n, m, k=k)`` in ``like``'s floating dtype and device; for ``m > n`` as
    the transpose of ``eye(m, n, k=-k)``: dask's ``eye(n, m)`` with ``m > n`` builds a broken
    graph (dask issue 11937)."""
    kw = {"dtype": like.dtype, "device": array_api_compat.device(like)}
    if m <= n:
        return xp.eye(n, m, k=k, **kw)
    return xp.matrix_transpose(xp.eye(m, n, k=-k, **kw))


# --- outer ----------------------------------------------------------------------------------------
def outer_rules(call: Callable[[Any, Any], tuple[Any, ...]]) -> Rules:
    """The rules of an ``outer`` whose binder ``call(args, kwargs)`` gives ``(xp, x1, x2, a, b,
    y)`` (``a``, ``b``: the operands as arrays), ``y`` the outer product of the flattened
    operands: ``x1_bar = y_bar @ conj(x2)``, ``x2_bar = conj(x1) @ y_bar``, reshaped back."""

    def outer_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x1, x2, a, b, y = call(args, kwargs)
        na, nb = math.prod(a.shape), math.prod(b.shape)
        project_a, project_b = ProjectTo(x1, xp), ProjectTo(x2, xp)
        rest = (NO,) * (len(args) - 2)  # NumPy's out=None given by position

        @pullback(y, args)
        def outer_pullback(y_bar: Any) -> Any:
            def a_bar() -> Any:
                r = xp.matmul(y_bar, conj(xp, reshape_to(xp, b, (nb,))))
                return project_a(reshape_to(xp, r, a.shape))

            def b_bar() -> Any:
                r = xp.matmul(conj(xp, reshape_to(xp, a, (na,))), y_bar)
                return project_b(reshape_to(xp, r, b.shape))

            return (lazy(project_a, a_bar), lazy(project_b, b_bar), *rest)

        return y, outer_pullback

    def outer_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x1, x2, a, b, y = call(args, kwargs)
        na, nb = math.prod(a.shape), math.prod(b.shape)
        push = (
            lambda t, k: xp.reshape(t, (*tuple(t.shape[:k]), na, 1)) * xp.reshape(b, (1, nb)),
            lambda t, k: xp.reshape(a, (na, 1)) * xp.reshape(t, (*tuple(t.shape[:k]), 1, nb)),
        )
        return pair_pushforward("outer", tangents, xp, (x1, x2), y, push)

    return outer_rrule, outer_frule


def _outer_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        ((r(3), r(4)), {}),
        ((r(0), r(2)), {}),
        ((r(3) + 1j * r(3), r(2) + 1j * r(2)), {}),
        ((r(2), r(3) + 1j * r(3)), {}),
    ]


_OUTER = signature("outer", lambda x1, x2, /, *, out=None: None)


def _outer_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """``linalg.outer(x1, x2)`` of vectors."""
    xp, x1, x2, a, b = bound_pair(_OUTER, args, kwargs)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(
            f"linalg.outer: operands must be vectors, got shapes {tuple(a.shape)} and "
            f"{tuple(b.shape)}"
        )
    return xp, x1, x2, a, b, xp.linalg.outer(a, b)


register_pair("linalg.outer", outer_rules(_outer_call), _outer_ex)


# --- cross ----------------------------------------------------------------------------------------
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


_CROSS = signature("cross", lambda x1, x2, /, *, axis=-1, out=None: None)


def _cross_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """``linalg.cross(x1, x2, axis=-1)``: length-3 vectors, the other axes broadcast; the axis
    is also returned counted from the end of the broadcast shape."""
    p = bind_kwonly(_CROSS, args, kwargs)
    x1, x2, axis = p["x1"], p["x2"], p["axis"]
    xp = namespace_of(x1, x2, fname="cross")
    a, b = arrays(xp, (x1, x2))
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"cross: axis must be an int, got {axis!r}")
    shape = broadcast_shapes(a.shape, b.shape)
    n = len(shape)
    if not -n <= axis < n:
        raise ValueError(f"cross: axis {axis} is out of bounds for the broadcast shape {shape}")
    neg = axis - n if axis >= 0 else axis
    return xp, x1, x2, a, b, n, neg, xp.linalg.cross(a, b, axis=axis)


@register_rrule(
    "linalg.cross",
    examples=_cross_ex,
    expect=Expect("array_api_strict", "the standard's cross axis is negative", "skip", "#3"),
)
def cross_rrule(*args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, a, b, _, neg, y = _cross_call(args, kwargs)
    project_a, project_b = ProjectTo(x1, xp), ProjectTo(x2, xp)

    @pullback(y, args)
    def cross_pullback(y_bar: Any) -> Any:
        return (
            lazy(project_a, lambda: project_a(xp.linalg.cross(conj(xp, b), y_bar, axis=neg))),
            lazy(project_b, lambda: project_b(xp.linalg.cross(y_bar, conj(xp, a), axis=neg))),
        )

    return y, cross_pullback


@register_frule("linalg.cross", examples=_cross_ex)
def cross_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, x1, x2, a, b, n, neg, y = _cross_call(args, kwargs)
    push = (
        lambda t, k: xp.linalg.cross(pad_chunk(xp, t, k, n), b, axis=neg),
        lambda t, k: xp.linalg.cross(a, pad_chunk(xp, t, k, n), axis=neg),
    )
    return pair_pushforward("cross", tangents, xp, (x1, x2), y, push)


# --- trace and diagonal ---------------------------------------------------------------------------
def _int_param(name: str, what: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"{name}: {what} must be an int, got {v!r}")
    return v


def _diag_axes(name: str, a: Any, offset: Any, axis1: Any = None, axis2: Any = None) -> Any:
    """``offset`` and the two axes (the last two when ``axis1`` is ``None``) checked, the axes
    non-negative."""
    offset = _int_param(name, "offset", offset)
    if a.ndim < 2:
        raise ValueError(f"{name}: x must have rank >= 2, got shape {tuple(a.shape)}")
    if axis1 is None:
        return offset, a.ndim - 2, a.ndim - 1
    a1 = _int_param(name, "axis1", axis1)
    a2 = _int_param(name, "axis2", axis2)
    for ax in (a1, a2):
        if not -a.ndim <= ax < a.ndim:
            raise ValueError(f"{name}: axis {ax} is out of bounds for an array of rank {a.ndim}")
    a1, a2 = a1 % a.ndim, a2 % a.ndim
    if a1 == a2:
        raise ValueError(f"{name}: axis1 and axis2 cannot be the same ({a1})")
    return offset, a1, a2


_TRACE = signature("trace", lambda x, /, *, offset=0, dtype=None, out=None: None)
_DIAGONAL = signature("diagonal", lambda x, /, *, offset=0, out=None: None)
_NP_TRACE = signature("trace", lambda x, /, offset=0, axis1=0, axis2=1, dtype=None, out=None: None)
_NP_DIAGONAL = signature("diagonal", lambda x, /, offset=0, axis1=0, axis2=1, *, out=None: None)


def diag_rules(sig: Signature, numpy: bool) -> Rules:
    """The rules of the trace (``sig.name == "trace"``) or the diagonal, the standard's
    (``offset``, and ``dtype`` for the trace: keyword-only) or NumPy's (``numpy``: also ``axis1``,
    ``axis2``, and every parameter may be given by position). The pullback puts ``y_bar`` on
    that diagonal of a zero matrix over the two axes moved to the end, then moves the axes
    back."""
    name = sig.name

    def call(args: Any, kwargs: Any) -> tuple[Any, ...]:
        """``(xp, x, y, offset, a1, a2, f)`` of the call: ``y`` of ``x`` over its axes ``a1``,
        ``a2`` with ``offset``, and ``f(t, extra)``, the function itself applied to a tangent
        with ``extra`` leading chunk axes (which shift NumPy's ``axis1``, ``axis2``)."""
        p = sig.bind(args, kwargs) if numpy else bind_kwonly(sig, args, kwargs)
        x = p["x"]
        xp = namespace_of(x, fname=name)
        (a,) = arrays(xp, (x,))
        axes = (p["axis1"], p["axis2"]) if numpy else ()
        offset, a1, a2 = _diag_axes(name, a, p["offset"], *axes)
        kw = {"dtype": p["dtype"]} if p.get("dtype") is not None else {}
        fn = getattr(xp if numpy else xp.linalg, name)

        def f(v: Any, extra: int = 0) -> Any:
            if numpy:
                return fn(v, offset, a1 + extra, a2 + extra, **kw)
            return fn(v, offset=offset, **kw)

        # NumPy's scalar for a 0-d NumPy trace, as np.linalg.trace gives (NumPy's own trace
        # already does; a diagonal is never 0-d)
        return xp, x, numpy_result(f(a)), offset, a1, a2, f

    def diag_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, y, offset, a1, a2, _ = call(args, kwargs)
        (a,) = arrays(xp, (x,))
        rest = [i for i in range(a.ndim) if i not in (a1, a2)]
        perm = (*rest, a1, a2)
        inverse = tuple(perm.index(i) for i in range(len(perm)))
        n, m = a.shape[a1], a.shape[a2]
        r0, c0 = max(-offset, 0), max(offset, 0)
        length = max(0, min(n - r0, m - c0))
        project = ProjectTo(x, xp)
        rest_bars = (NO,) * (len(args) - 1)
        # NumPy's offset, axis1, axis2, dtype given by position have no tangent (``None`` stands
        # for them: a dtype class such as ``np.float32`` is not an array)
        positional = (x, *(None,) * (len(args) - 1))

        @pullback(y, positional, name=name)
        def diag_pullback(y_bar: Any) -> Any:
            if not project.differentiable:
                return (NO, *rest_bars)
            eye = _eye(xp, n, m, offset, y_bar)
            if name == "trace":
                g = xp.reshape(y_bar, (*tuple(y_bar.shape), 1, 1)) * eye
            else:  # the diagonal's entries moved to their rows (a constant selector), then onto it
                rows = xp.matmul(y_bar, _eye(xp, length, n, r0, y_bar))
                g = xp.reshape(rows, (*tuple(rows.shape), 1)) * eye
            if inverse != tuple(range(len(inverse))):
                g = xp.permute_dims(g, inverse)
            return (project(g), *rest_bars)

        return y, diag_pullback

    def diag_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, y, *_, f = call(args, kwargs)
        (a,) = arrays(xp, (x,))
        dots = tangents_in(name, tangents[:2], (x,))
        if dots is None:
            return y, ZERO
        t = tangent(xp, dots[0], a)
        return y, total(xp, y, [None if t is None else f(t, dots.extra)])

    return diag_rrule, diag_frule


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


register_pair("linalg.trace", diag_rules(_TRACE, False), _trace_ex, linear=True)


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


register_pair("linalg.diagonal", diag_rules(_DIAGONAL, False), _diagonal_ex, linear=True)


# --- NumPy's outer, trace and diagonal ------------------------------------------------------------
def _np_outer_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [*_outer_ex(rng), ((r((2, 3)), r(2)), {}), ((r(()), r((2, 2))), {})]


_NP_OUTER = signature("outer", lambda x1, x2, /, out=None: None)


def _np_outer_call(args: Any, kwargs: Any) -> tuple[Any, ...]:
    """NumPy's ``outer(a, b)``, which flattens its operands."""
    xp, x1, x2, a, b = bound_pair(_NP_OUTER, args, kwargs)
    return xp, x1, x2, a, b, xp.outer(a, b)


register_pair("numpy:outer", outer_rules(_np_outer_call), _np_outer_ex)


def _np_trace_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        *_trace_ex(rng),
        ((r((3, 2, 4)), 1, 0, 2), {}),  # offset, axis1, axis2 positional
        ((r((3, 2, 4)),), {"axis1": 2, "axis2": 0, "offset": -1}),
    ]


register_pair("numpy:trace", diag_rules(_NP_TRACE, True), _np_trace_ex, linear=True)


def _np_diagonal_ex(rng: Any) -> list[Any]:
    r = rng.standard_normal
    return [
        *_diagonal_ex(rng),
        ((r((3, 2, 4)), 1, 0, 2), {}),
        ((r((3, 2, 4)),), {"axis1": 2, "axis2": 0, "offset": -1}),
        ((r((2, 3, 3)),), {"axis1": -1, "axis2": -2}),
    ]


register_pair(
    "numpy:diagonal", diag_rules(_NP_DIAGONAL, True), _np_diagonal_ex, kind="view", linear=True
)


# --- NumPy's multi_dot -------------------------------------------------------------------
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
            p(xp.reshape(g, tuple(m.shape))) if p.differentiable else NO
            for p, g, m in zip(projects, bars, arrays)
        ]
        return Tangent(*out, primal_type=kind)

    return y, multi_dot_pullback


@register_frule("numpy:linalg.multi_dot", examples=_multi_dot_ex, kind="sequence")
def multi_dot_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, arrays, mats, order, values, y = _multi_dot(args, kwargs)
    t = tangents[1] if len(tangents) > 1 else ZERO
    if isinstance(t, AbstractZero):
        return y, ZERO
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
        return y, ZERO

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
        return y, ZERO
    dy = xp.reshape(dy, (*tuple(dy.shape[:extra]), *tuple(y.shape)))
    return y, in_dtype(xp, dy, y.dtype)
