"""autograd's extension API (``autograd.extend``) on chainrules' registry.

Code that defines its own primitives for autograd ports by changing one import::

    from chainrules.ad.extend import primitive, defvjp, defjvp

* :func:`primitive` makes a function that ``chainrules.ad`` does not trace through: called on
  traced arrays, it is recorded as one operation (it is a :func:`chainrules.traceable` wrapper).
* :func:`defvjp` / :func:`defjvp` (and ``defvjp_argnum`` / ``defjvp_argnum``, :func:`def_linear`)
  give it autograd-style derivative makers. They become the function's ``rrule`` and ``frule``
  in the registry, so every engine that reads the registry uses them: ``chainrules.ad``, the
  bridges (``chainrules.interop``), ``chainrules.rrule`` itself.
* :func:`notrace_primitive` makes a function that runs on the values under traced arrays and
  whose result has no derivative (``chainrules.non_differentiable`` of a wrapper).

What carries over from autograd, and what differs:

* a VJP maker is ``vjpmaker(ans, *args, **kwargs)`` returning ``g -> cotangent of that
  argument``; ``None`` in its place means a zero derivative; an argument without a maker has
  none, and differentiating with respect to it raises ``NotImplementedError`` (autograd's error),
  while a call with that argument constant works;
* a JVP function is ``jvp(g, ans, *args, **kwargs)`` returning the output's tangent for the
  tangent ``g`` of that argument; ``"same"`` means the function applied to ``g`` in its place (a
  function linear in it); the contributions of several arguments are added;
* **complex numbers**: the makers are written in autograd's convention (a VJP of
  ``dL/dRe - i dL/dIm``); :func:`defvjp` converts, so the registered rule follows chainrules'
  (``dL/dRe + i dL/dIm``: the conjugate), and a ported holomorphic primitive stays right.
  A rule written for chainrules directly belongs in ``chainrules.register_rrule``;
* the makers run on whatever the arguments are: on the values, or on an outer transformation's
  traced arrays when a derivative is differentiated again (a Hessian), which works when the
  maker is written with functions that have rules (NumPy's, or other primitives with makers);
* ``chainrules.ad.hessian`` is forward over reverse, so it needs the JVP of every primitive on the
  way (``defjvp``) and the JVP of what its VJP maker calls; autograd's ``hessian`` is reverse over
  reverse. ``jacobian(jacobian(f, mode="rev"), mode="rev")`` needs VJPs only;
* forward mode may push a chunk of tangents at once (``jacobian(mode="fwd")``, ``hessian``): a
  JVP function is then called once per tangent of the chunk, on the argument's shape, and the
  results are stacked, so makers never see the chunk axis;
* ``defvjp_argnums``, ``defjvp_argnums``, ``vspace``, ``VSpace`` and ``Box`` are not provided:
  the registry's rules are per argument, and ``chainrules.ad`` has no vector spaces of its own
  (``chainrules.ad.Tracer`` is what autograd calls a box).

>>> import numpy as np
>>> from chainrules import ad
>>> from chainrules.ad.extend import primitive, defvjp, defjvp
>>> @primitive
... def logsumexp(x):
...     m = np.max(x)
...     return m + np.log(np.sum(np.exp(x - m)))
>>> defvjp(logsumexp, lambda ans, x: lambda g: g * np.exp(x - ans))
>>> defjvp(logsumexp, lambda g, ans, x: np.sum(g * np.exp(x - ans)))
>>> ad.grad(logsumexp)(np.array([0.0, np.log(3.0)]))
array([0.25, 0.75])
>>> float(ad.deriv(logsumexp)(np.array([0.0, 1.0])))
1.0
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..core.namespaces import namespace_of
from ..core.nondiff import non_differentiable
from ..core.pytree import map_leaves
from ..core.registry import find_frule, find_rrule, register_frule, register_rrule, traceable
from ..core.tangents import AbstractZero, NoTangent, Thunk, ZeroTangent, unthunk
from ._operators import _conj, as_tree
from ._tracer import Tracer

__all__ = [
    "def_linear",
    "defjvp",
    "defjvp_argnum",
    "defvjp",
    "defvjp_argnum",
    "notrace_primitive",
    "primitive",
]

_NO = NoTangent()
_ZERO = ZeroTangent()
_SEQ = (tuple, list)
_NUMBERS = (int, float, complex)

VjpArgnum = Callable[[int, Any, tuple[Any, ...], dict[str, Any]], Callable[[Any], Any]]
JvpArgnum = Callable[[int, Any, Any, tuple[Any, ...], dict[str, Any]], Any]


@dataclass
class _Makers:
    """A function's derivative makers, in autograd's per-argument form (``defvjp_argnum``'s and
    ``defjvp_argnum``'s): ``None`` until defined."""

    name: str
    vjp: VjpArgnum | None = None
    jvp: JvpArgnum | None = None
    rrule: Callable[..., Any] | None = None  # the rules registered for the function
    frule: Callable[..., Any] | None = None


_MAKERS: dict[Any, _Makers] = {}
_LOCK = threading.Lock()


def _name(f: Any) -> str:
    return getattr(f, "__name__", repr(f))


def primitive(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` as one operation for ``chainrules.ad``: called on traced arrays, the call is recorded
    whole and differentiated by the makers given with :func:`defvjp` / :func:`defjvp` (the body is
    not traced). Returns a new function (a :func:`chainrules.traceable` wrapper of ``f``); define
    the makers for it. Differentiating it before they are defined raises
    ``NotImplementedError``, as in autograd."""

    @functools.wraps(f, updated=())  # f's name and docs, not its attributes (rule marks)
    def call(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    op = traceable(call)
    _makers(op)
    return op


def notrace_primitive(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` run on the values under traced arrays, its result a constant of every trace (no
    derivative): autograd's ``notrace_primitive``, ``chainrules.non_differentiable`` of a new
    :func:`chainrules.traceable` wrapper of ``f``."""

    @functools.wraps(f, updated=())
    def call(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    op = traceable(call)
    non_differentiable(op)
    return op


def _makers(fun: Any) -> _Makers:
    """``fun``'s makers, and its rules in the registry, which read them: registered on first use
    (and again if the registry lost them: ``chainrules.core.registry.restore``)."""
    with _LOCK:
        m = _MAKERS.get(fun)
        if m is None:
            m = _MAKERS[fun] = _Makers(_name(fun))
        if m.rrule is None or find_rrule(fun) is not m.rrule or find_frule(fun) is not m.frule:
            m.rrule, m.frule = _rrule_of(fun, m), _frule_of(fun, m)
            register_rrule(fun)(m.rrule)
            register_frule(fun)(m.frule)
        return m


# --- reverse mode ------------------------------------------------------------------------------
def defvjp(fun: Callable[..., Any], *vjpmakers: Any, argnums: Iterable[int] | None = None) -> None:
    """Define ``fun``'s VJPs: ``vjpmakers[k]`` for positional argument ``argnums[k]`` (``0, 1, ...``
    by default), each ``vjpmaker(ans, *args, **kwargs)`` returning ``g -> cotangent`` (``None``: a
    zero derivative). Replaces the VJPs defined before, as autograd's ``defvjp`` does.

    ``fun`` is a function made by :func:`primitive` (or another :func:`chainrules.traceable`
    function, whose rules these then replace). A plain function's calls inside differentiated code
    run its body, as for any rule of a plain function: its makers are used only where it is the
    function given to a transformation (``ad.grad(fun)``) or to ``chainrules.rrule``."""
    nums = range(len(vjpmakers)) if argnums is None else list(argnums)
    makers: dict[int, Any] = {}
    for i, mk in zip(nums, vjpmakers):
        if mk is not None and not callable(mk):
            raise TypeError(
                f"defvjp: the VJP maker for argument {i} of {_name(fun)} must be callable or "
                f"None, got {type(mk).__name__}"
            )
        makers[i] = mk
    name = _name(fun)

    def vjp_argnum(argnum: int, ans: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if argnum not in makers:
            raise NotImplementedError(f"VJP of {name} wrt argnum {argnum} not defined")
        mk = makers[argnum]
        if mk is None:
            return lambda g: _ZERO
        return mk(ans, *args, **kwargs)

    defvjp_argnum(fun, vjp_argnum)


def defvjp_argnum(fun: Callable[..., Any], vjpmaker: VjpArgnum) -> None:
    """Define ``fun``'s VJPs with one maker for every argument:
    ``vjpmaker(argnum, ans, args, kwargs)`` returns ``g -> cotangent of args[argnum]``."""
    if not callable(vjpmaker):
        raise TypeError(f"defvjp_argnum: the maker for {_name(fun)} must be callable")
    _makers(fun).vjp = vjpmaker


def _rrule_of(fun: Any, m: _Makers) -> Callable[..., Any]:
    def primitive_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        ans = fun(*args, **kwargs)
        vjp = m.vjp

        def primitive_pullback(ct: Any) -> tuple[Any, ...]:
            ct = unthunk(ct)
            if isinstance(ct, AbstractZero):
                return (_NO, *(_ZERO for _ in args))
            g = _conj(as_tree(ct, ans, zeros=True))  # autograd's convention: the conjugate

            def cotangent(i: int) -> Callable[[], Any]:
                def compute() -> Any:
                    if vjp is None:
                        raise NotImplementedError(f"VJP of {m.name} wrt argnum {i} not defined")
                    return _checked(m.name, "VJP", i, _conj(vjp(i, ans, args, kwargs)(g)), args[i])

                return _once(compute)

            out: list[Any] = [_NO]
            for i, a in enumerate(args):
                c = cotangent(i)
                # forced only for the arguments an engine differentiates; a tuple or list
                # argument's cotangent indexes like it (the engine reads one entry per element)
                if type(a) in _SEQ:
                    out.append(tuple(Thunk(functools.partial(_entry, c, j)) for j in range(len(a))))
                else:
                    out.append(Thunk(c))
            return tuple(out)

        primitive_pullback.__name__ = f"{m.name}_pullback"
        return ans, primitive_pullback

    primitive_rrule.__name__ = f"{m.name}_rrule"
    return primitive_rrule


def _checked(name: str, kind: str, argpos: int, got: Any, primal: Any) -> Any:
    """``got``, a maker's (co)tangent of an array or a number ``primal`` (the output for
    ``argpos = -1``), after a ``ValueError`` naming the function and the argument when its shape
    is not the primal's (a maker that forgot to sum over broadcast axes). Tuples, lists and
    zeros are passed on as they are."""
    if isinstance(got, AbstractZero) or type(primal) in _SEQ or isinstance(primal, dict):
        return got
    if hasattr(primal, "shape") or isinstance(primal, _NUMBERS):
        from ..core.calls import check_leaf  # on first use: import time

        check_leaf(name, kind, argpos, got, primal, True)
    return got


def _once(compute: Callable[[], Any]) -> Callable[[], Any]:
    """``compute``, run at most once (its result kept for the later calls)."""
    box: list[Any] = []

    def once() -> Any:
        if not box:
            box.append(compute())
        return box[0]

    return once


def _entry(c: Callable[[], Any], j: int) -> Any:
    v = unthunk(c())
    return v if isinstance(v, AbstractZero) else v[j]


# --- forward mode ------------------------------------------------------------------------------
def defjvp(fun: Callable[..., Any], *jvpfuns: Any, argnums: Iterable[int] | None = None) -> None:
    """Define ``fun``'s JVPs: ``jvpfuns[k]`` for positional argument ``argnums[k]`` (``0, 1, ...``
    by default), each ``jvp(g, ans, *args, **kwargs)`` returning the output's tangent for the
    tangent ``g`` of that argument; ``None`` is a zero derivative and ``"same"`` is ``fun`` with
    ``g`` in that argument's place. Replaces the JVPs defined before."""
    nums = range(len(jvpfuns)) if argnums is None else list(argnums)
    funs: dict[int, Any] = {}
    for i, jf in zip(nums, jvpfuns):
        if jf is not None and jf != "same" and not callable(jf):
            raise TypeError(
                f"defjvp: the JVP for argument {i} of {_name(fun)} must be callable, None or "
                f"'same', got {jf!r}"
            )
        funs[i] = jf
    name = _name(fun)

    def jvp_argnum(argnum: int, g: Any, ans: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
        if argnum not in funs:
            raise NotImplementedError(f"JVP of {name} wrt argnum {argnum} not defined")
        jf = funs[argnum]
        if jf is None:
            return _ZERO
        if jf == "same":
            return fun(*_replaced(args, argnum, g), **kw)
        return jf(g, ans, *args, **kw)

    defjvp_argnum(fun, jvp_argnum)


def defjvp_argnum(fun: Callable[..., Any], jvpmaker: JvpArgnum) -> None:
    """Define ``fun``'s JVPs with one function for every argument:
    ``jvpmaker(argnum, g, ans, args, kwargs)`` returns the output's tangent for the tangent ``g``
    of ``args[argnum]``."""
    if not callable(jvpmaker):
        raise TypeError(f"defjvp_argnum: the function for {_name(fun)} must be callable")
    _makers(fun).jvp = jvpmaker


def def_linear(fun: Callable[..., Any]) -> None:
    """Declare ``fun`` linear in each argument: its JVP for an argument is ``fun`` with the
    tangent in that argument's place (autograd's ``def_linear``; it defines JVPs only)."""

    def jvp_argnum(argnum: int, g: Any, ans: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
        return fun(*_replaced(args, argnum, g), **kw)

    defjvp_argnum(fun, jvp_argnum)


def _replaced(args: tuple[Any, ...], i: int, v: Any) -> list[Any]:
    out = list(args)
    out[i] = v
    return out


def _frule_of(fun: Any, m: _Makers) -> Callable[..., Any]:
    def primitive_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        ans = fun(*args, **kwargs)
        moving = []
        for i, a in enumerate(args):
            t = unthunk(tangents[i + 1])
            if not isinstance(t, AbstractZero):
                moving.append((i, as_tree(t, a)))
        if not moving:
            return ans, _ZERO
        jvp = m.jvp
        if jvp is None:
            raise NotImplementedError(
                f"JVP of {m.name} wrt argnums {tuple(i for i, _ in moving)} not defined"
            )
        k = _chunk(moving, args)
        if k is None:
            total = _sum(jvp(i, t, ans, args, kwargs) for i, t in moving)
            return ans, _checked(m.name, "JVP", -1, total, ans)
        rows = [
            _checked(
                m.name,
                "JVP",
                -1,
                _sum(jvp(i, _row(t, r, k), ans, args, kwargs) for i, t in moving),
                ans,
            )
            for r in range(k[0])
        ]
        return ans, _stack(rows, k)

    primitive_frule.__name__ = f"{m.name}_frule"
    return primitive_frule


def _chunk(moving: list[tuple[int, Any]], args: tuple[Any, ...]) -> tuple[int, ...] | None:
    """``(k, *extra)`` when the tangents carry leading chunk axes of ``k`` elements in all
    (the engine pushes several tangents at once), else ``None``."""
    for i, t in moving:
        shape = getattr(t, "shape", None)
        if shape is None:  # a tuple or list argument's tangent: its arrays' axes tell
            continue
        extra = len(tuple(shape)) - len(tuple(getattr(args[i], "shape", ())))
        if extra > 0:
            lead = tuple(shape[:extra])
            return (math.prod(lead), *lead)
    return None


def _row(t: Any, r: int, k: tuple[int, ...]) -> Any:
    """Tangent ``r`` of a chunk (leading axes ``k[1:]``, ``k[0]`` tangents in all): a slice of the
    flattened chunk, never an element read."""
    if isinstance(t, AbstractZero):
        return t
    if type(t) in _SEQ or isinstance(t, dict):
        return map_leaves(lambda e: _row(e, r, k), t)
    xp = t.__array_namespace__() if isinstance(t, Tracer) else namespace_of(t)
    shape = tuple(t.shape)[len(k) - 1 :]
    flat = xp.reshape(t, (k[0], *shape))
    return xp.reshape(flat[r : r + 1, ...], shape)


def _stack(rows: list[Any], k: tuple[int, ...]) -> Any:
    first = next((y for y in rows if not isinstance(y, AbstractZero)), None)
    if first is None:
        return _ZERO
    if type(first) in _SEQ:
        return type(first)(
            _stack([_ZERO if isinstance(y, AbstractZero) else y[j] for y in rows], k)
            for j in range(len(first))
        )
    xp = first.__array_namespace__() if isinstance(first, Tracer) else namespace_of(first)
    full = [xp.zeros_like(first) if isinstance(y, AbstractZero) else y for y in rows]
    out = xp.stack(full, axis=0)
    return xp.reshape(out, (*k[1:], *tuple(first.shape)))


def _sum(parts: Iterable[Any]) -> Any:
    """The sum of the JVP contributions of several arguments (zeros skipped; tuple outputs added
    entry by entry)."""
    total: Any = _ZERO
    for p in parts:
        if isinstance(p, AbstractZero):
            continue
        if isinstance(total, AbstractZero):
            total = p
        elif type(p) in _SEQ:
            total = type(p)(_sum((a, b)) for a, b in zip(total, p))
        else:
            total = total + p
    return total
