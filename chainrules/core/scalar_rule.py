"""Rules from derivative formulas: ``scalar_rule`` (functions with no derivative:
``core/nondiff.py``).

``scalar_rule(target, *partials)`` turns one partial derivative per argument of an elementwise
function into its rrule and its frule (Julia's ``@scalar_rule``)::

    cr.scalar_rule("sin", lambda xp, out, x: xp.cos(x))
    cr.scalar_rule("divide", lambda xp, out, x, y: 1 / y, lambda xp, out, x, y: -out / y)
    cr.scalar_rule("add", 1, 1)

A partial is a number or a function ``(xp, out, *args) -> array`` of the namespace, the primal
output and the inputs. The pullback is ``x_bar = project(y_bar * conj(partial))`` -- for complex
arguments this is the cotangent ``dL/dRe + i dL/dIm`` of a holomorphic function -- and the
pushforward is ``y_dot = sum(partial * x_dot)``. Projection sums the broadcast axes away, so binary
functions broadcast for free; a tangent's extra leading (chunk) axes are aligned so ``k``
directions are pushed in one call. A partial is only evaluated for arguments that have a tangent
space (an integer exponent of ``pow`` costs nothing) and only when the pullback runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from numbers import Number
from typing import Any

import numpy as np

from .namespaces import (
    _NS_BY_TYPE,
    namespace_of,
    numpy_forms,
    scalar_kind,
)
from .projection import ProjectTo
from .registry import caller_module, register_frule, register_rrule
from .specialise import specialise
from .strong_zero import (
    _product,
    _projector,
    align_tangent,
    finish_tangent,
    strong_zero,
)
from .table import _parse_target, function_name
from .tangents import AbstractZero, NoTangent, Thunk, ZeroTangent
from .toolkit import check_cotangent, tangents_in

__all__ = [
    "check_cotangent",
    "finish_tangent",
    "scalar_rule",
]

_NO = NoTangent()
_ZERO = ZeroTangent()
_ND = np.ndarray

Partial = Callable[..., Any] | int | float | complex


class _Primals(dict):
    """``xp -> function`` computing the primal: the callable itself, or ``xp.NAME``. Looked up
    once per namespace; the rules read it as ``primals[xp]`` (one dict access), other code calls
    it."""

    __slots__ = ("fixed", "parts", "target")

    def __init__(self, target: Any) -> None:
        super().__init__()
        family, t = _parse_target(target)
        self.fixed = t if family == "callable" else None
        self.target = t
        self.parts = () if family == "callable" else tuple(t.split("."))

    def __missing__(self, xp: Any) -> Callable[..., Any]:
        fn = self.fixed
        if fn is None:
            fn = xp
            for p in self.parts:
                fn = getattr(fn, p, None)
                if fn is None:
                    raise TypeError(f"{xp.__name__} has no function {self.target!r}")
        self[xp] = fn
        return fn

    def __call__(self, xp: Any) -> Callable[..., Any]:
        return self[xp]


def _primal_getter(target: Any) -> _Primals:
    """``xp -> function`` computing the primal: the callable itself, or ``xp.NAME``."""
    return _Primals(target)


def _reject_out(name: str, kwargs: dict[str, Any]) -> None:
    if kwargs.get("out") is not None:  # out=None is NumPy's default: nothing is written
        raise TypeError(
            f"{name}: out= is not supported by rules (it writes into an existing array, and "
            "rules never mutate); assign the result instead"
        )


def _apply(
    partial: Any,
    is_const: bool,
    v: Any,
    conj: bool,
    xp: Any,
    out: Any,
    args: Any,
    strong: bool = False,
) -> Any:
    """``v * partial`` (``v * conj(partial)`` in a pullback of a complex function); ``strong``:
    ``v`` is a strong zero (:func:`strong_zero`)."""
    if is_const:
        return _times(partial.conjugate() if conj else partial, v)
    d = partial(xp, out, *args)
    if conj:  # a Python number's (a takes_numbers partial's) conjugate is its own method's
        d = d.conjugate() if type(d) in (float, complex, int) else xp.conj(d)
    return _product(v, d, xp, strong)


def _times(p: Any, v: Any) -> Any:
    """``v * p`` for a constant partial (±1 without a multiplication)."""
    if p == 1:
        return v
    if p == -1:
        return -v
    return v * p


def _operands_namespace(args: tuple[Any, ...], name: str) -> Any:
    """The namespace of a scalar rule's operands: one array, two of one type, or an array and a
    Python float name it from the per-type cache, without ``namespace_of``'s look at every
    argument (the rrules' and frules' every call); any other mix goes to ``namespace_of``."""
    xp = None
    if len(args) == 1:
        xp = _NS_BY_TYPE.get(type(args[0]))
    elif len(args) == 2:
        t0, t1 = type(args[0]), type(args[1])
        if t1 is t0 or t1 is float:
            xp = _NS_BY_TYPE.get(t0)
        elif t0 is float:
            xp = _NS_BY_TYPE.get(t1)
    return xp if xp is not None else namespace_of(*args, fname=name)


def _evaluate(
    name: str,
    get: _Primals,
    arity: int,
    check_arity: Callable[[tuple[Any, ...]], None],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[Any, Any]:
    """``(xp, f(*args, **kwargs))`` of a scalar rule's function, the arguments checked first
    (their number, and no ``out=``): the frule's, and the rrule's of three or more arguments."""
    if len(args) != arity:
        check_arity(args)
    if kwargs:
        _reject_out(name, kwargs)
    xp = _operands_namespace(args, name)
    return xp, get(xp)(*args, **kwargs)


def takes_numbers(partial: Callable[..., Any]) -> Callable[..., Any]:
    """Declare that a partial takes a Python number argument as it is, not as a 0-d array:
    ``pow``'s, whose exponent ``2.0`` makes the partial ``2.0 * x``, one operation, where the
    array form takes the general formula's masks (seven NumPy calls in a gradient of ``x **
    2.0``, five operations of a Hessian's forward trace). A partial so marked converts what it
    needs itself."""
    partial.__chainrules_takes_numbers__ = True  # type: ignore[attr-defined]
    return partial


def _partial_args(
    xp: Any, out: Any, args: tuple[Any, ...], spec: tuple[tuple[Any, bool, bool], ...]
) -> tuple[Any, ...]:
    """Python float/complex arguments as 0-d arrays of the output's dtype, so that partials can
    call namespace functions on every argument (integers stay Python ints: exponents); as given
    where every partial of ``spec`` that is a function is marked :func:`takes_numbers`."""
    for a in args:
        if type(a) is float or type(a) is complex:
            for p, c, _ in spec:  # a loop, not all() of a generator: x * 2.0 runs this
                if not c and not getattr(p, "__chainrules_takes_numbers__", False):
                    break
            else:
                return args
            return tuple(
                xp.asarray(a, dtype=out.dtype) if type(a) in (float, complex) else a for a in args
            )
    return args


def _make_rules(
    name: str,
    get: _Primals,
    partials: tuple[Any, ...],
    strong: bool = False,
    deferred: tuple[int, ...] = (),
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    arity = len(partials)
    const = tuple(isinstance(p, Number) for p in partials)
    zero = tuple(c and p == 0 for c, p in zip(const, partials))
    spec = tuple(zip(partials, const, zero))
    defer = tuple(i in deferred for i in range(arity))

    def check_arity(args: tuple[Any, ...]) -> None:
        raise TypeError(
            f"{name} takes {arity} positional argument{'s' * (arity != 1)} in its rule, "
            f"got {len(args)}"
        )

    frule = scalar_frule_factory(name, get, spec, arity, check_arity, strong)
    if arity == 1:
        return _make_unary_rrule(name, get, *spec[0], strong), frule
    if arity == 2:
        return _make_binary_rrule(name, get, spec, check_arity, strong, defer), frule

    def scalar_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        xp, out = _evaluate(name, get, arity, check_arity, args, kwargs)
        projs = [ProjectTo(a, xp) for a in args]
        # holomorphic partials are conjugated in the pullback when the arguments are complex
        conj = any(p.kind == "c" for p in projs)

        def scalar_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
            y_bar = check_cotangent(name, y_bar, out, extra=chunk)
            if isinstance(y_bar, AbstractZero):
                return (_NO, *(_ZERO if p.differentiable else _NO for p in projs))
            res: list[Any] = [_NO]
            pargs = _partial_args(xp, out, args, spec)
            for (p, is_const, is_zero), proj, late in zip(spec, projs, defer):
                if not proj.differentiable:
                    res.append(_NO)
                elif is_zero:
                    res.append(_ZERO)
                elif late:
                    res.append(
                        _later(p, is_const, proj, y_bar, conj, xp, out, pargs, chunk, strong)
                    )
                else:
                    v = _apply(p, is_const, y_bar, conj, xp, out, pargs, strong)
                    res.append(proj(v, chunk))
            return tuple(res)

        return out, scalar_pullback

    return scalar_rrule, frule


def scalar_frule_factory(
    name: str,
    get: _Primals,
    spec: tuple[tuple[Any, bool, bool], ...],
    arity: int,
    check_arity: Callable[[tuple[Any, ...]], None],
    strong: bool = False,
) -> Callable[..., Any]:
    def scalar_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp, out = _evaluate(name, get, arity, check_arity, args, kwargs)
        dots = tangents_in(name, tangents, args)
        if dots is None:
            return out, _ZERO
        out_ndim = out.ndim
        pargs = _partial_args(xp, out, args, spec)
        acc: Any = None
        for (p, is_const, is_zero), a, x_dot in zip(spec, args, dots.values):
            if is_zero or isinstance(x_dot, AbstractZero) or scalar_kind(a, xp) in "ib":
                continue
            a_ndim = getattr(a, "ndim", 0)
            if arity > 1 or getattr(x_dot, "ndim", 0) != a_ndim:
                x_dot = align_tangent(xp, x_dot, a_ndim, out_ndim)
            term = _apply(p, is_const, x_dot, False, xp, out, pargs, strong)
            acc = term if acc is None else acc + term
        return out, finish_tangent(xp, acc, out)

    return scalar_frule


# From this many elements of the cotangent on, a binary pullback defers each operand's cotangent
# that costs a pass (a partial other than 1, a broadcast operand summed back) as a ``Thunk``: an
# engine forces only the traced operands' (``Y * Z`` with ``Y`` data computes ``Z``'s alone). Below
# it the thunk (about 1 us) costs more than the pass it may save. The same on every library. A
# Python float operand's cotangent is deferred at every size (see _binary_pullback).
DEFER_SIZE = 1 << 14


@specialise
def unary_pullback_of(
    out: Any, name: str, partial: tuple[Any, bool, bool], x: Any, xp: Any, strong: bool
) -> Callable[..., tuple[Any, Any]]:
    """The pullback of ``out = f(x)``, a one-argument scalar rule, the same for every library:
    ``proj(y_bar * partial)`` with ``x``'s projector (``strong``: ``y_bar`` is a strong zero)."""
    proj = ProjectTo(x, xp)
    p, is_const, is_zero = partial
    if is_const:
        x = None  # a constant partial reads none of x: the projector has its shape and dtype

    # values bound as defaults, not closure cells: a cell costs every call of the rule
    def scalar_pullback(
        y_bar: Any, chunk: int = 0, x: Any = x, out: Any = out, proj: ProjectTo = proj
    ) -> tuple[Any, Any]:
        kind = proj.kind
        if kind != "f" and kind != "c":
            return _NO, _NO
        y_bar = check_cotangent(name, y_bar, out, extra=chunk)
        if is_zero or isinstance(y_bar, AbstractZero):
            return _NO, _ZERO
        return _NO, _operand_cotangent(
            p, is_const, proj, y_bar, kind == "c", xp, out, (x,), chunk, strong
        )

    return scalar_pullback


@unary_pullback_of.method("numpy")
def _unary_pullback_of_numpy(
    out: Any, name: str, partial: tuple[Any, bool, bool], x: Any, xp: Any, strong: bool
) -> Any:
    """A real NumPy ``out`` (an array or a NumPy scalar): :func:`_dense_unary`. The generic
    pullback's check, projection and layers cost about 1.5 us around a sub-microsecond product
    at n=10, in ``sin``, ``exp``, ``sqrt``: most of the population's other operations.
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.97, median of 168
    cells (0.90 at best)."""
    t = type(out)
    if (t is not _ND and not isinstance(out, np.floating)) or out.dtype.kind != "f":
        return NotImplemented
    return _dense_unary(out, name, partial, x, xp, strong, numpy_forms(out), None)


@unary_pullback_of.method("torch")
def _unary_pullback_of_torch(
    out: Any, name: str, partial: tuple[Any, bool, bool], x: Any, xp: Any, strong: bool
) -> Any:
    """A real torch tensor (not a subclass: fake tensors take the generic way), on any device:
    :func:`_dense_unary`. Torch bridge, forward + backward of ``exp`` at n = 10 (benchmarks/
    torch_bridge.py --layers): the rule's pullback over a minimal one 4.3 us generic."""
    import torch

    if type(out) is not torch.Tensor or not out.dtype.is_floating_point:
        return NotImplemented
    return _dense_unary(out, name, partial, x, xp, strong, (torch.Tensor,), out.device)


def _dense_unary(
    out: Any,
    name: str,
    partial: tuple[Any, bool, bool],
    x: Any,
    xp: Any,
    strong: bool,
    ts: tuple[type, ...],
    device: Any,
) -> Any:
    """The pullback of a one-argument scalar rule for an ``x`` of one of the types ``ts`` and of
    ``out``'s shape and dtype: for a cotangent of the same (and on ``device``), ``y_bar`` times
    the partial, masked as a strong zero (:func:`strong_zero`) where the rule says so, cast back
    where a partial is computed wider (``i0``'s); any other cotangent goes to the generic
    pullback."""
    shape, dtype = out.shape, out.dtype
    if type(x) not in ts or x.shape != shape or x.dtype != dtype:
        return NotImplemented
    p, is_const, is_zero = partial
    if is_const:  # a linear function's pullback keeps none of its input
        x = None

    def scalar_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, Any]:
        if (
            chunk
            or type(y_bar) not in ts
            or y_bar.shape != shape
            or y_bar.dtype != dtype
            or (device is not None and y_bar.device != device)
        ):
            like = x if x is not None else xp.zeros_like(out)
            return unary_pullback_of.generic(out, name, partial, like, xp, strong)(y_bar, chunk)
        if is_zero:
            return _NO, _ZERO
        if is_const:
            return _NO, _times(p, y_bar)
        g = y_bar * p(xp, out, x)
        if g.dtype != dtype:
            g = xp.astype(g, dtype)
        return _NO, (strong_zero(g, y_bar, xp) if strong else g)

    return scalar_pullback


def _make_unary_rrule(
    name: str, get: _Primals, p: Any, is_const: bool, is_zero: bool, strong: bool = False
) -> Callable[..., Any]:
    """The rrule of a one-argument function, the same for every library: the primal, a
    projector of the argument, and :func:`unary_pullback_of`'s pullback."""
    partial = (p, is_const, is_zero)

    def scalar_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        if len(args) != 1:
            raise TypeError(f"{name} takes 1 positional argument in its rule, got {len(args)}")
        (x,) = args
        xp = _NS_BY_TYPE.get(type(x))
        if xp is None:
            xp = namespace_of(x, fname=name)
        if kwargs:
            _reject_out(name, kwargs)
            out = get[xp](x, **kwargs)
        else:
            out = get[xp](x)
        return out, unary_pullback_of(out, name, partial, x, xp, strong)

    return scalar_rrule


def _operand_cotangent(
    p: Any,
    is_const: bool,
    proj: ProjectTo,
    y_bar: Any,
    conj: bool,
    xp: Any,
    out: Any,
    args: tuple[Any, ...],
    chunk: int,
    strong: bool,
) -> Any:
    """One argument's cotangent ``proj(y_bar * conj(partial))`` of a scalar rule (``args``:
    the rule's arguments, or their :func:`_partial_args` already made)."""
    pargs = args if is_const else _partial_args(xp, out, args, ((p, False, False),))
    return proj(_apply(p, is_const, y_bar, conj, xp, out, pargs, strong), chunk)


def _later(*args: Any) -> Thunk:
    """:func:`_operand_cotangent` of ``args``, deferred: a ``Thunk`` that computes it when forced
    (an engine forces only the traced arguments')."""
    return Thunk(functools.partial(_operand_cotangent, *args))


def _binary_pullback(
    name: str,
    spec: tuple[tuple[Any, bool, bool], ...],
    args: tuple[Any, Any],
    xp: Any,
    out: Any,
    projs: tuple[ProjectTo, ProjectTo],
    y_bar: Any,
    chunk: int = 0,
    strong: bool = False,
    defer: tuple[bool, ...] = (False, False),
) -> tuple[Any, Any, Any]:
    """The pullback of a two-argument scalar rule, for any arguments and cotangent (``projs``:
    each argument's projector; ``strong``: ``y_bar`` is a strong zero; ``defer``: the arguments
    declared ``deferred`` by the registration). From ``DEFER_SIZE`` elements on, an operand's
    cotangent that costs a pass comes as a ``Thunk``; a Python float operand's and a deferred
    argument's at every size (no engine traces a Python number: only a direct caller who asks
    for it pays, and no partial is evaluated where nobody reads it -- ``x ** 2.0``'s ``log x``
    at a negative ``x``, and ``x ** c``'s for a constant array ``c``)."""
    y_bar = check_cotangent(name, y_bar, out, extra=chunk)
    zero = isinstance(y_bar, AbstractZero)
    conj = projs[0].kind == "c" or projs[1].kind == "c"
    n = getattr(y_bar, "size", 0)
    big = not zero and (n if type(n) is int else _size(y_bar)) >= DEFER_SIZE
    pargs: Any = None
    res: list[Any] = [_NO]
    for (p, is_const, is_zero), proj, a, late in zip(spec, projs, args, defer):
        kind = proj.kind
        if kind != "f" and kind != "c":
            res.append(_NO)
        elif is_zero or zero:
            res.append(_ZERO)
        elif (big or late or type(a) is float) and not (is_const and p == 1 and _passes(a, y_bar)):
            res.append(_later(p, is_const, proj, y_bar, conj, xp, out, args, chunk, strong))
        else:
            if pargs is None and not is_const:  # the partials' arguments, made once for both
                pargs = _partial_args(xp, out, args, spec)
            res.append(
                _operand_cotangent(p, is_const, proj, y_bar, conj, xp, out, pargs, chunk, strong)
            )
    return tuple(res)


def _size(a: Any) -> int:
    """The number of elements of an array (0 for anything without a shape); reads no value."""
    n = getattr(a, "size", None)
    if type(n) is int:  # NumPy, CuPy, JAX (torch's size is a method, dask's may be unknown)
        return n
    shape = getattr(a, "shape", None)
    if shape is None:
        return 0
    n = 1
    for k in shape:
        n *= k if type(k) is int else 0  # an unknown (dask) length: nothing to defer
    return n


def _passes(a: Any, y_bar: Any) -> bool:
    """``y_bar`` is ``a``'s cotangent as it is (a partial of 1, nothing to sum back): handing
    it through costs nothing, so there is nothing to defer."""
    return getattr(a, "shape", None) == y_bar.shape and getattr(a, "dtype", None) == y_bar.dtype


@specialise
def binary_pullback_of(
    out: Any, name: str, spec: Any, args: Any, xp: Any, strong: bool, defer: tuple[bool, ...]
) -> Callable[..., tuple[Any, ...]]:
    """The pullback of ``out = f(*args)``, a two-argument scalar rule: a projector per argument
    and :func:`_binary_pullback` bound to them, the same for every library."""
    x, y = args
    tx, ty = type(x), type(y)
    projs = (
        _projector(x, xp) if tx is float or tx is int else ProjectTo(x, xp),
        _projector(y, xp) if ty is float or ty is int else ProjectTo(y, xp),
    )

    # values bound as defaults, not closure cells: a cell costs every call of the rule
    def scalar_pullback(
        y_bar: Any, chunk: int = 0, args: Any = args, out: Any = out, projs: Any = projs
    ) -> tuple[Any, ...]:
        return _binary_pullback(name, spec, args, xp, out, projs, y_bar, chunk, strong, defer)

    return scalar_pullback


@binary_pullback_of.method("numpy")
def _binary_pullback_of_numpy(
    out: Any, name: str, spec: Any, args: Any, xp: Any, strong: bool, defer: tuple[bool, ...]
) -> Any:
    """A real NumPy ``out`` (an array or a NumPy scalar) of fewer than ``DEFER_SIZE`` elements,
    each argument a Python number, a NumPy integer or boolean array (no tangent), a NumPy array
    of ``out``'s type, shape and dtype, or a NumPy scalar of its dtype (broadcast): for a
    cotangent of ``out``'s type, shape and dtype each argument's cotangent written out --
    ``y_bar`` times the partial, masked as a strong zero where the rule says so, summed for a
    broadcast scalar, a Python float's deferred as the generic pullback defers it; any other
    cotangent goes to the generic pullback, built then. The generic one's checks, projections
    and layers cost about 2 us around two sub-microsecond products at n=10 (rrule and pullback
    of ``multiply`` 4.7 us against 6.8), in the arithmetic that is most of the population's
    operations: its grad median over autograd's, development half, 0.95 -> 0.92.
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.91, median of 278
    cells (0.76 at best)."""
    t = type(out)
    if (t is not _ND and not isinstance(out, np.floating)) or out.dtype.kind != "f":
        return NotImplemented
    if out.size >= DEFER_SIZE:  # the generic pullback defers each cotangent that costs a pass
        return NotImplemented
    shape, dtype = out.shape, out.dtype
    ts = numpy_forms(out)
    how = []  # per argument: 0 no tangent, 1 a Python float, 2 out's own shape, 3 a scalar
    for a in args:
        ta = type(a)
        if ta is int or ta is bool:
            how.append(0)
        elif ta is float:
            how.append(1)
        elif ta is not _ND and not isinstance(a, np.generic):
            return NotImplemented
        elif a.dtype.kind in "iub":
            how.append(0)
        elif a.dtype != dtype:
            return NotImplemented
        elif ta in ts and a.shape == shape:
            how.append(2)
        elif a.shape == ():  # its cotangent is a NumPy scalar, as the generic projection's
            how.append(3)
        else:
            return NotImplemented

    def scalar_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
        if chunk or type(y_bar) not in ts or y_bar.shape != shape or y_bar.dtype != dtype:
            generic = binary_pullback_of.generic(out, name, spec, args, xp, strong, defer)
            return generic(y_bar, chunk)
        res: list[Any] = [_NO]
        pargs = None
        for (p, is_const, is_zero), a, late, h in zip(spec, args, defer, how):
            if h == 0:
                res.append(_NO)
            elif is_zero:
                res.append(_ZERO)
            elif h == 1 or (late and not (is_const and p == 1 and h == 2)):
                res.append(
                    _later(p, is_const, _projector(a, xp), y_bar, False, xp, out, args, 0, strong)
                )
            else:
                if is_const:
                    g = _times(p, y_bar)
                else:
                    if pargs is None:
                        pargs = _partial_args(xp, out, args, spec)
                    g = y_bar * p(xp, out, *pargs)
                    if g.dtype != dtype:  # a partial computed wider: the argument's dtype
                        g = g.astype(dtype)
                    if strong:
                        g = strong_zero(g, y_bar, xp)
                res.append(g if h == 2 else np.add.reduce(g, axis=None))
        return tuple(res)

    return scalar_pullback


def _make_binary_rrule(
    name: str,
    get: _Primals,
    spec: tuple[tuple[Any, bool, bool], ...],
    check_arity: Callable[[tuple[Any, ...]], None],
    strong: bool = False,
    defer: tuple[bool, ...] = (False, False),
) -> Callable[..., Any]:
    """The rrule of a two-argument function, the same for every library: the primal, a
    projector per argument, and :func:`_binary_pullback` bound to them."""

    def scalar_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        if len(args) != 2:
            check_arity(args)
        if kwargs:
            _reject_out(name, kwargs)
        x, y = args
        xp = _operands_namespace(args, name)
        out = get[xp](x, y, **kwargs) if kwargs else get[xp](x, y)
        return out, binary_pullback_of(out, name, spec, args, xp, strong, defer)

    return scalar_rrule


def scalar_rule(targets: Any, *partials: Partial, **meta: Any) -> None:
    """Register the rrule and frule of an elementwise function from its partial derivatives.

    Parameters
    ----------
    targets
        A target or a tuple of targets (a callable, a standard name such as ``"sin"``,
        ``"numpy:NAME"`` or ``"scipy:MODULE.NAME"``). For a standard or NumPy name, the primal is
        computed as ``xp.NAME(*args)`` in the namespace of the arguments; for a SciPy name, by
        calling the function the rule was found for (``scipy.special.erf``,
        ``jax.scipy.special.erf``, ...); for a callable, by calling it.
    *partials
        One per positional argument: a number (``1``, ``-1``, ``0``) or a function
        ``(xp, out, *args) -> array`` giving ``d out / d arg`` elementwise.
    **meta
        Stored with the registration for testers and reports: ``domain`` (a tuple of per-argument
        ``(low, high)`` intervals, ``"int"`` for integer arguments), ``complex`` (whether complex
        inputs are in the domain), ``strong_zero`` (``True`` where a partial can be ``inf`` or
        NaN while the cotangent is exactly zero -- ``sqrt`` at 0, ``exp`` past its overflow,
        ``multiply`` by a masked-out NaN: the pullback and pushforward then multiply as a strong
        zero, ``0 * inf = 0``; docs/conventions.md), ``deferred`` (the positions, from 0, of
        the arguments whose cotangent the pullback returns as a ``Thunk`` at every size: a
        partial that a constant argument must never cost, as ``pow``'s exponent's ``x**y
        log(x)``, a log pass that ``x ** 2.0`` or ``x ** c`` with a data array ``c`` never
        needs; an engine forces only the traced arguments' thunks. Other cotangents are
        deferred from ``DEFER_SIZE`` elements on, and a Python float's at every size).

    Example
    -------
    >>> import chainrules as cr
    >>> cr.scalar_rule("tanh", lambda xp, out, x: 1 - out * out)
    """
    if not isinstance(targets, tuple):
        targets = (targets,)
    if not partials:
        raise TypeError("scalar_rule needs one partial derivative per argument")
    for p in partials:
        if not (isinstance(p, Number) or callable(p)):
            raise TypeError(f"a partial must be a number or a callable, got {type(p).__name__}")
    deferred = tuple(meta.get("deferred", ()))
    for i in deferred:
        if type(i) is not int or not 0 <= i < len(partials):
            raise TypeError(
                f"scalar_rule: deferred= holds argument positions from 0 to {len(partials) - 1}, "
                f"got {i!r}"
            )
    meta.setdefault("module", caller_module())
    meta.setdefault("chunked_pullback", True)  # elementwise: the chunk axes broadcast
    if all(isinstance(p, Number) and p == 0 for p in partials):  # floor, ceil, trunc
        meta.setdefault("zero_derivative", True)
    strong = bool(meta.get("strong_zero", False))
    for target in targets:
        name = _target_name(target)
        r, f = _make_rules(name, _primal_getter(target), partials, strong, deferred)
        tmeta = meta
        if isinstance(target, str) and target.startswith("scipy:"):
            # no array namespace holds SciPy's functions (xp.special.erf): each library's
            # function gets rules calling exactly it
            tmeta = dict(meta, bind=_scalar_binder(name, partials, strong, deferred))
        register_rrule(target, **tmeta)(r)
        register_frule(target, **tmeta)(f)


def _target_name(target: Any) -> str:
    """How messages name a target: ``sin``, ``arcsin`` for ``"numpy:arcsin"``, ``special.erf``
    for ``"scipy:special.erf"``, the qualified name of a callable."""
    return function_name(target) if callable(target) else str(target).rpartition(":")[2]


def _scalar_binder(
    name: str, partials: tuple[Any, ...], strong: bool = False, deferred: tuple[int, ...] = ()
) -> Callable[[Any, str], Any]:
    def bind(obj: Any, kind: str) -> Callable[..., Any]:
        r, f = _make_rules(name, _Primals(obj), partials, strong, deferred)
        return r if kind == "r" else f

    return bind


def is_floating(a: Any, xp: Any) -> bool:
    """True for floating or complex arrays and Python floats/complexes."""
    if type(a) in (float, complex):
        return True
    if not hasattr(a, "dtype") or not hasattr(a, "shape"):
        return False
    return scalar_kind(a, xp) in "fc"
