"""HIPS autograd bridge: ``wrap(f)`` is an autograd primitive whose VJP and JVP are ``f``'s rules,
differentiable to any order.

``wrap(f)`` is ``autograd.extend.primitive`` of ``f`` on raw NumPy values. Its VJP with respect
to argument ``i`` is *itself* an autograd primitive, ``vjp_i(g, *args) = pullback(g)[i]`` computed
by the registered **rrule**, and its JVP is a primitive ``jvp(*gs, *args)`` computed by the
registered **frule**. autograd's ``ArrayBox`` has no array namespace, so a rule cannot run on
boxes; instead, when autograd differentiates ``vjp_i`` or ``jvp`` (a second derivative), their
own VJPs and JVPs come from ``chainrules.ad`` differentiating those plain-NumPy functions (every
pullback and pushforward is built from functions with rules), and are again primitives of the
same kind -- so third and higher derivatives work the same way. With no boxes among the
arguments (first order), the VJPs of all arguments share one rrule call.

Arguments: NumPy float/complex arrays (and autograd's boxes of them) anywhere in the (nested tuple /
list / named tuple / dict / registered dataclass) arguments are differentiated: ``wrap(f)`` flattens
the arguments (``core.calls.split``) and calls one primitive on the leaves, ``prim(split, *leaves)``
(autograd looks for boxes among a primitive's top-level positional arguments only); integer arrays,
axes and other static leaves are passed through unchanged. A keyword argument holding a floating
array is moved to its position (``core.calls.bind_keywords``); one that cannot move raises
``KeywordDerivativeError`` when it is boxed. ``f`` returns an array or a tuple of them (or a pytree;
one that holds a registered dataclass, for which autograd has no vector space, leaves the primitive
as the tuple of its leaves, ``_Leaves``, and is rebuilt by ``wrapped``); an integer or boolean
scalar in a tuple output (``lstsq``'s rank, ``cho_factor``'s ``lower``), for which autograd has no
vector space, is a 0-d array inside the primitive and a NumPy scalar again in what ``wrapped``
returns.

Complex numbers: autograd's gradient of a real loss is ``dL/dRe - i dL/dIm``, the conjugate of
chainrules' (the same convention as JAX). Every VJP the bridge hands autograd is therefore
``conj(pullback(conj(g)))``; tangents (JVPs) need no conversion.

Kinks: second derivatives are exact where the rule's code is a smooth function of the primal
(``cumulative_prod`` at an exact zero is not: its zero masks are piecewise constant).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from autograd.extend import defjvp_argnums, defvjp_argnums, primitive
from autograd.tracer import Box

from .. import ad
from ..core.calls import *
from ..core.namespaces import dtype_kind, namespace_of
from ..core.pytree import has_dataclass_node, is_node, unregistered_dataclass
from ..core.tangents import AbstractZero, NoTangent, unthunk
from ._derived import complete

__all__ = ["KeywordDerivativeError", "wrap"]

# A plain function: raw NumPy arrays (or chainrules.ad tracers) in, one array out.
Plain = Callable[..., Any]


def wrap(f: Any) -> Any:
    """An autograd primitive computing ``f`` whose VJP and JVP are ``f``'s rules (any order).

    Raises ``chainrules.NoRuleError`` naming ``f`` when neither an rrule nor an frule is
    registered; the one missing is derived from the other (``chainrules.interop._derived``).

    >>> import autograd, numpy as np
    >>> from chainrules.interop import autograd as crag
    >>> norm = crag.wrap(np.linalg.norm)
    >>> autograd.grad(norm)(np.array([3.0, 4.0]))
    array([0.6, 0.8])
    """
    rules = complete(find_rules(f, "autograd"))
    rrule, frule, name = rules.rrule, rules.frule, rules.name
    assert rrule is not None and frule is not None

    # every plain function below takes (split, *leaves): the leaves are what autograd boxes
    def value(sp: Split, *dyn: Any) -> Any:
        args, kwargs = sp.rebuild(dyn)
        return _int_leaves_as_arrays(_container_known(_dataclass_leaves(f(*args, **kwargs))))

    def cotangents(argnums: Any, g: Any, sp_dyn: Any, _kwargs: Any) -> list[Any]:
        """autograd's cotangents of the leaves ``sp_dyn[i]`` for ``i in argnums`` (``i >= 1``:
        ``sp_dyn[0]`` is the split) from one rrule call."""
        sp = sp_dyn[0]
        g, *rest = ad.lift_constants((g, *sp_dyn[1:]))
        dyn = tuple(rest)
        args, kwargs = sp.rebuild(dyn)
        y, pullback = rrule(*args, **kwargs)
        # a result holding a dataclass: g is autograd's cotangent of its leaves (_Leaves)
        bar = output_leaves(y)[1]([_conj(e) for e in g]) if _holds_dataclass(y) else _conj(g)
        per_leaf = sp.cotangents(pullback(bar), args)
        out = []
        for i in argnums:
            pos, a = sp.dynamic[i - 1], dyn[i - 1]
            c = per_leaf[pos]
            c = None if c is None else unthunk(c)
            if c is None or isinstance(c, AbstractZero):
                c = namespace_of(a).zeros_like(a)
            elif _is_raw(c) and _is_raw(a):
                check_leaf(name, "rrule", sp.arg_of[pos], c, a, _dtype_ok(c, a))
            out.append(_conj(c))
        return out

    def vjp_plain(i: int) -> Plain:
        def vjp(g: Any, *sp_dyn: Any, **kwargs: Any) -> Any:
            return cotangents((i,), g, sp_dyn, kwargs)[0]

        vjp.__name__ = f"vjp[{i}]({name})"
        return vjp

    def jvp_plain(argnums: tuple[int, ...]) -> Plain:
        k = len(argnums)

        def jvp(*gs_args: Any, **_kwargs: Any) -> Any:
            sp = gs_args[k]
            lifted = ad.lift_constants(gs_args[:k] + gs_args[k + 1 :])
            gs, dyn = lifted[:k], lifted[k:]
            args, kwargs = sp.rebuild(dyn)
            leaf_t = {sp.dynamic[i - 1]: g for i, g in zip(argnums, gs, strict=True)}
            tangents = sp.tangents(leaf_t, NoTangent())
            y, y_dot = frule((NoTangent(), *tangents), *args, **kwargs)
            if _holds_dataclass(y):  # the result's leaves, as value returns them (_Leaves)
                ys, _ = output_leaves(y)
                dots = tangent_output_leaves(y_dot, len(ys), y)
                zeros = [namespace_of(v).zeros_like(v) for v in ys]
                return _Leaves(z if d is None else d for z, d in zip(zeros, dots, strict=True))
            y_dot = unthunk(y_dot)
            if isinstance(y_dot, AbstractZero):
                return namespace_of(y).zeros_like(y)
            if _is_raw(y_dot) and _is_raw(y):
                check_leaf(name, "frule", -1, y_dot, y, _dtype_ok(y_dot, y))
            return y_dot

        jvp.__name__ = f"jvp{list(argnums)}({name})"
        return jvp

    call = _Primitive(value, name, vjp_plain, jvp_plain, cotangents).primitive

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _rebuilt(_int_leaves_as_scalars(run(*args, **kwargs)))

    def run(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and not any(_is_node(a) for a in args):
            return call(flat_split(len(args)), *args)  # no containers: every argument a leaf
        args = tuple(_open_boxes(a) for a in args)
        kwargs = {k: _open_boxes(v) for k, v in kwargs.items()}
        args, kwargs, unbound = bind_keywords(rules, args, kwargs, _inexact_leaf)
        sp = split(args, kwargs, _is_dynamic, f"chainrules.interop.autograd.wrap({rules.name})")
        dyn = [sp.leaves[i] for i in sp.dynamic]
        for k, kw in sp.keyword_leaves(unbound):
            if isinstance(dyn[k], Box):
                raise keyword_error("autograd", name, kw, "is differentiated by autograd")
        return call(sp, *dyn)

    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    return wrapped


class _Primitive:
    """An autograd primitive computing the plain function ``fn``, with VJPs and JVPs that are
    primitives of the same kind (built lazily, cached per argument).

    ``vjp_plain(i)`` is the plain function ``(g, *args, **kwargs) -> cotangent of args[i]`` in
    autograd's convention and ``jvp_plain(argnums)`` the plain function ``(*tangents, *args,
    **kwargs) -> tangent of the output``. By default both come from ``chainrules.ad``
    differentiating ``fn``; ``wrap`` passes the rule-based ones for the first level.
    ``multi(argnums, g, args, kwargs)``, when given, computes several cotangents at once for
    unboxed arguments (one rrule call instead of one per argument).
    """

    def __init__(
        self,
        fn: Plain,
        name: str,
        vjp_plain: Callable[[int], Plain] | None = None,
        jvp_plain: Callable[[tuple[int, ...]], Plain] | None = None,
        multi: Callable[..., list[Any]] | None = None,
    ) -> None:
        self.name = name
        self._vjp_plain = vjp_plain or functools.partial(_ad_vjp, fn, name)
        self._jvp_plain = jvp_plain or functools.partial(_ad_jvp, fn, name)
        self._multi = multi
        self._vjps: dict[int, Any] = {}
        self._jvps: dict[tuple[int, ...], Any] = {}

        @primitive
        def prim(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        prim.__name__ = name
        defvjp_argnums(prim, self._vjp_maker)
        defjvp_argnums(prim, self._jvp_maker)
        self.primitive = prim

    def vjp(self, i: int) -> Any:
        p = self._vjps.get(i)
        if p is None:
            plain = self._vjp_plain(i)
            p = self._vjps[i] = _Primitive(plain, plain.__name__).primitive
        return p

    def jvp(self, argnums: tuple[int, ...]) -> Any:
        p = self._jvps.get(argnums)
        if p is None:
            plain = self._jvp_plain(argnums)
            p = self._jvps[argnums] = _Primitive(plain, plain.__name__).primitive
        return p

    def _vjp_maker(self, argnums: Any, ans: Any, args: Any, kwargs: Any) -> Any:
        argnums = tuple(argnums)
        args = tuple(args)
        boxed_args = any(isinstance(a, Box) for a in args)

        def vjp(g: Any) -> tuple[Any, ...]:
            if self._multi is not None and not boxed_args and not isinstance(g, Box):
                return tuple(self._multi(argnums, g, args, kwargs))
            return tuple(self.vjp(i)(g, *args, **kwargs) for i in argnums)

        return vjp

    def _jvp_maker(self, argnums: Any, gs: Any, ans: Any, args: Any, kwargs: Any) -> Any:
        return self.jvp(tuple(argnums))(*gs, *args, **kwargs)


def _ad_vjp(fn: Plain, name: str, i: int) -> Plain:
    """``(g, *args) -> conj(pullback(conj(g)))`` of ``fn`` with respect to ``args[i]``, by
    ``chainrules.ad``.

    The pullback is taken as the gradient of the real scalar ``Re(sum(conj(c) * fn(x)))`` (whose
    chainrules gradient is ``pullback(c)``), not with ``ad.vjp``: ``g`` is a tracer of an outer
    trace when this function is differentiated again, and ``ad.vjp``'s pullback does not accept
    a traced cotangent (it lifts the cotangent as if it were a raw array).
    """

    def vjp(g: Any, *args: Any, **kwargs: Any) -> Any:
        def loss(xi: Any) -> Any:
            y = fn(*args[:i], xi, *args[i + 1 :], **kwargs)
            xp = namespace_of(y)
            s = xp.sum(g * y)  # g * y = conj(c) * y for c = conj(g)
            return xp.real(s) if dtype_kind(s.dtype) == "c" else s

        return _conj(ad.grad(loss)(args[i]))

    vjp.__name__ = f"vjp[{i}]({name})"
    return vjp


def _ad_jvp(fn: Plain, name: str, argnums: tuple[int, ...]) -> Plain:
    """``(*tangents, *args) -> J @ tangents`` of ``fn`` for the arguments ``argnums``, by
    ``chainrules.ad``."""
    k = len(argnums)

    def jvp(*gs_args: Any, **kwargs: Any) -> Any:
        gs, args = gs_args[:k], gs_args[k:]

        def of_xs(*xs: Any) -> Any:
            full = list(args)
            for i, x in zip(argnums, xs, strict=True):
                full[i] = x
            return fn(*full, **kwargs)

        return ad.jvp(of_xs, [args[i] for i in argnums], list(gs))[1]

    jvp.__name__ = f"jvp{list(argnums)}({name})"
    return jvp


def _container_known(y: Any) -> Any:
    """``y``; a named tuple type autograd has not met (array-api-compat's ``EighResult``,
    ``SlogdetResult``, ``UniqueAllResult``) is registered with it first, as autograd registers
    NumPy's own (a ``SequenceBox`` and a ``NamedTupleVSpace``: its extension point for
    containers), so that the output can be boxed and differentiated."""
    t = type(y)
    if hasattr(y, "_fields") and t not in _KNOWN_CONTAINERS:
        from autograd.builtins import NamedTupleVSpace, SequenceBox
        from autograd.extend import VSpace
        from autograd.tracer import Box

        if t not in Box.type_mappings:
            SequenceBox.register(t)
        if t not in VSpace.mappings:
            space: Any = type(f"{t.__name__}VSpace", (NamedTupleVSpace,), {"seq_type": t})
            space.register(t)
        _KNOWN_CONTAINERS.add(t)
    return y


_KNOWN_CONTAINERS: set[type] = set()


class _Leaves(tuple[Any, ...]):
    """The leaves of a result that holds a registered dataclass (``core.pytree``), which autograd
    has no vector space for: the primitive returns them as this tuple (a ``SequenceBox`` with a
    tuple's vector space to autograd), with the rebuilder of the result (``rebuild``, set by
    :func:`_dataclass_leaves`), and ``wrapped`` rebuilds the result from the (boxed) leaves."""

    rebuild: Any = None


def _holds_dataclass(y: Any) -> bool:
    """Whether the rule's result ``y`` holds a registered dataclass (at any depth)."""
    return has_dataclass_node((y,), {})


def _dataclass_leaves(y: Any) -> Any:
    if not _holds_dataclass(y):
        return y
    ys, rebuild = output_leaves(y)
    out = _Leaves(ys)
    out.rebuild = rebuild
    return out


def _rebuilt(y: Any) -> Any:
    """What ``wrapped`` returns for the primitive's output ``y``: a result of :class:`_Leaves`
    rebuilt from its boxed leaves (read with autograd's differentiable indexing)."""
    v = y
    while isinstance(v, Box):
        v = v._value
    if type(v) is not _Leaves:
        return y
    return v.rebuild([y[i] for i in range(len(v))])


def _register_leaves() -> None:
    from autograd.builtins import SequenceBox, SequenceVSpace

    SequenceBox.register(_Leaves)
    space: Any = type("_LeavesVSpace", (SequenceVSpace,), {"seq_type": tuple})
    space.register(_Leaves)


_register_leaves()


def _int_scalar(v: Any) -> bool:
    return isinstance(v, (bool, int, np.integer, np.bool_))


def _int_leaves_as_arrays(y: Any) -> Any:
    """A tuple output's integer and boolean scalars (``lstsq``'s rank, ``cho_factor``'s
    ``lower``) as 0-d arrays: autograd has no vector space for a scalar ``int`` or ``bool``
    and refuses the whole output ("Can't find vector space for value 2"); an integer array
    has one (campaign autograd-bridge seeds 69, 134). :func:`_int_leaves_as_scalars` undoes it
    outside the primitive."""
    if type(y) in (tuple, list) and any(_int_scalar(v) for v in y):
        return type(y)(np.asarray(v) if _int_scalar(v) else v for v in y)
    return y


def _int_leaves_as_scalars(y: Any) -> Any:
    """The primitive's tuple output with its 0-d integer and boolean arrays as NumPy scalars
    again (what NumPy's and SciPy's functions return there), the other parts as they are
    (boxed where autograd traces them)."""
    v = y._value if isinstance(y, Box) else y
    if type(v) not in (tuple, list):
        return y
    ints = [
        i
        for i, e in enumerate(v)
        if isinstance(e, np.ndarray) and e.ndim == 0 and e.dtype.kind in "biu"
    ]
    if not ints:
        return y
    parts = [v[i][()] if i in ints else y[i] for i in range(len(v))]
    return type(v)(parts)


def _conj(x: Any) -> Any:
    """The complex conjugate (autograd's cotangent is the conjugate of chainrules'); real arrays
    are returned unchanged."""
    if isinstance(x, (tuple, list)):  # several outputs (split's list, slogdet's named tuple)
        parts = [_conj(e) for e in x]
        return type(x)(*parts) if hasattr(x, "_fields") else type(x)(parts)
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return np.conj(x) if isinstance(x, complex) else x
    if dtype_kind(dtype) != "c":
        return x
    return namespace_of(x).conj(x)


def _is_node(a: Any) -> bool:
    """A container (tuple, list, named tuple, dict, registered dataclass), or autograd's box of
    one; or an unregistered dataclass, which ``split`` refuses when it holds an array."""
    v = a._value if isinstance(a, Box) else a
    return isinstance(v, (tuple, list, dict)) or is_node(v) or unregistered_dataclass(v)


def _open_boxes(a: Any) -> Any:
    """``a`` with autograd's boxes of containers (``autograd.grad`` of a function of a dict or a
    tuple boxes the whole container) replaced by containers of boxes, read with autograd's own
    differentiable indexing, so that their array leaves are leaves of the split."""
    if isinstance(a, Box) and isinstance(a._value, (tuple, list, dict)):
        v = a._value
        if isinstance(v, dict):
            return {k: _open_boxes(a[k]) for k in v}
        items = [_open_boxes(a[i]) for i in range(len(v))]
        return type(v)(*items) if hasattr(v, "_fields") else type(v)(items)
    t = type(a)
    if t is dict:
        return {k: _open_boxes(v) for k, v in a.items()}
    if t is tuple or t is list:
        return t(_open_boxes(e) for e in a)
    if isinstance(a, tuple) and hasattr(a, "_fields"):
        return t(*(_open_boxes(e) for e in a))
    return a


def _is_dynamic(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic, Box))


def _inexact_leaf(x: Any) -> bool:
    v = x._value if isinstance(x, Box) else x
    while isinstance(v, Box):
        v = v._value
    return (
        isinstance(v, (np.ndarray, np.generic, float, complex)) and np.result_type(v).kind in "fc"
    )


def _is_raw(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic))


def _dtype_ok(got: Any, primal: Any) -> bool:
    return bool(np.result_type(got) == np.result_type(primal))
