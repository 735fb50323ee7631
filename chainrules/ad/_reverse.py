"""Reverse mode: a tape of rrule pullbacks, run backwards with accumulated cotangents.

Each operation on a tracer calls the registered rrule and appends a :class:`Node` holding its
pullback and its parents to the tape. The backward pass walks the tape from the end; a node that
received no cotangent (a ``ZeroTangent`` path) is skipped without running its pullback. A node's
first cotangent is stored as given (it may alias another node's, or a primal: the engine never
writes into it); when a second one arrives the sum is a new array the engine owns, and later
ones are added into it in place where the library allows (``chainrules.core.tangents.accumulate``).
Ownership is explicit: the engine writes only into the accumulators it allocated itself, and a
pullback never writes into the cotangent it is given (DESIGN's purity rule). Pullbacks are
released as they run unless the tape is kept for repeated use (``vjp``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.namespaces import namespace_of
from ..core.registry import entry_of, find_rrule, mark_chunked, takes_chunks
from ..core.signature import all_ints
from ..core.tangents import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    accumulate,
    add_tangents,
    unthunk,
)
from ._forward import ForwardTrace
from ._lift import const_result, lift_values, number, stack_sequences
from ._namespace import copy_of
from ._tracer import (
    _SEQ,
    CREATED,
    FAST_CONSTS,
    FAST_VALUES,
    Trace,
    Tracer,
    dispatch,
    floating,
    lookup_rule,
    memory_root,
    plain,
    plain_kwargs,
)

_NO = NoTangent()
_ZERO = ZeroTangent()
_new = object.__new__
_NDARRAY = np.ndarray
_np_add = np.add
_FRESH = 2  # Node.owned: a NumPy array the engine allocated


class Node:
    """One taped operation (or an input, with no pullback): pullback, parents, cotangent.

    ``owned`` is 0 while ``ct`` may alias an array the engine does not own, ``_FRESH`` when ``ct``
    is a NumPy array the engine allocated itself (``ct + g``: writeable, safe to add into), and
    ``True`` for other engine-made sums (added into through ``accumulate``, which checks).
    """

    __slots__ = ("ct", "owned", "parents", "pb", "rule")

    def __init__(
        self, pb: Callable[..., Any] | None, parents: tuple[Any, ...], rule: Any = None
    ) -> None:
        self.pb = pb
        self.parents = parents  # ((position in the pullback's tuple, element or -1, Node), ...)
        self.ct: Any = None
        self.owned: Any = False
        self.rule = rule  # the rrule that made pb: whether it takes a chunk (takes_chunks)

    def receive(self, g: Any) -> None:
        ct = self.ct
        if ct is None:
            self.ct = g
        elif self.owned:
            if (
                type(ct) is _NDARRAY
                and type(g) is _NDARRAY
                and ct.shape == g.shape
                and ct.dtype == g.dtype
                and (self.owned is _FRESH or ct.flags.writeable)
            ):
                _np_add(ct, g, out=ct)  # the common case of accumulate(), without its checks
            else:
                self.ct = accumulate(ct, g)
        elif type(ct) is _NDARRAY and type(g) is _NDARRAY:
            s = ct + g  # what add_tangents computes for two arrays: the engine's own buffer
            self.ct = s
            self.owned = _FRESH if type(s) is _NDARRAY else True
        else:
            self.ct = add_tangents(ct, g)
            self.owned = True


# --- linear functions over forward tracers (a Hessian's reverse pass) ----------------------------
# a cotangent's chunk of tangents goes through a linear function's pullback row by row up to this
# many rows (one pullback on plain arrays each), and a longer chunk through the rule traced on the
# forward tracers (one vectorised frule per operation). Hessian of x[0] x[1] + x[2]**2 +
# sum(x[3:]**2) + sum(sin(x)), in us, traced vs rows: n = 8: 1100 / 745, 16: 1110 / 827,
# 32: 1113 / 1013, 64: 1158 / 1395, 128: 1406 / 2320
LINEAR_ROWS = 32


def _over_forward(fn: Any, rule: Any, vals: Any, kwargs: dict[str, Any]) -> Any:
    """``(y, pullback)`` of a function registered ``linear=True`` whose traced arguments are the
    forward tracers of one forward trace (a Hessian's reverse pass over its forward pass), or
    ``None`` for any other call (:meth:`ReverseTrace.process` asks only where the first
    argument's value is a tracer: a plain gradient pays one ``isinstance``).

    ``y`` is the call on the forward tracers: one operation of the forward trace, through the
    function's frule. The pullback is the rrule's on the values under them: a linear function's
    pullback reads no value of its arguments, so its own derivative along the forward trace is
    the same pullback applied to the cotangent's tangents (:func:`_linear_pullback`). Tracing
    the rrule on the forward tracers instead runs each operation of the rule and of its pullback
    through the forward trace (ThreeHumpCamel's Hessian, five ``x[i]``: 1305 us that way, 825
    this way)."""
    ft = None
    for v in vals:
        if isinstance(v, Tracer):
            if ft is None and isinstance(v._trace, ForwardTrace):
                ft = v._trace
            elif v._trace is not ft:
                return None
        elif type(v) in _SEQ and any(isinstance(e, Tracer) for e in v):
            return None
    if ft is None or any(isinstance(v, Tracer) for v in kwargs.values()):
        return None
    y = dispatch(fn, vals, kwargs)
    if isinstance(y, (tuple, list)):
        return None
    under = [v._value if isinstance(v, Tracer) else v for v in vals]
    _, pb = rule(*under, **kwargs) if kwargs else rule(*under)

    def traced() -> Any:  # the rule on the forward tracers, as without the declaration
        return rule(*vals, **kwargs)[1]

    return y, _linear_pullback(pb, traced, ft, takes_chunks(rule))


def _linear_pullback(
    pb: Any, traced: Callable[[], Any], ft: ForwardTrace, chunked: bool
) -> Callable[..., Any]:
    """The pullback ``pb`` of a linear function, built on plain values: for a plain cotangent
    ``pb`` itself; for a tracer of the forward trace ``ft`` over plain arrays ``pb`` of its value,
    with ``pb`` of each of its tangents as the tangent (``pb`` is linear in the cotangent and does
    not depend on the arguments); for any other cotangent -- a tracer of another trace, a chunk
    longer than :data:`LINEAR_ROWS` -- the pullback of ``traced()``, the rule run on the forward
    tracers (``pb``'s namespace may be a library's own, which takes no tracer)."""

    def linear_pullback(y_bar: Any, chunk: int = 0) -> Any:
        y_bar = unthunk(y_bar)
        if not isinstance(y_bar, Tracer):
            return pb(y_bar, chunk=chunk) if chunk else pb(y_bar)
        v, t = y_bar._value, y_bar._aux
        if y_bar._trace is ft and not chunk and not isinstance(v, Tracer):
            if isinstance(t, AbstractZero):
                return pb(v)
            if not isinstance(t, Tracer):
                nc = t.ndim - getattr(v, "ndim", 0)
                if chunked:
                    return _split(pb(v), pb(t, chunk=nc), ft, None)
                if nc == 1 and t.shape[0] <= LINEAR_ROWS:
                    return _split(pb(v), None, ft, [pb(_row(t, r)) for r in range(t.shape[0])])
        full = traced()
        return full(y_bar, chunk=chunk) if chunk else full(y_bar)

    return linear_pullback


def _split(out: Any, dots: Any, ft: ForwardTrace, rows: list[Any] | None) -> tuple[Any, ...]:
    """The cotangents ``out`` of a value with their tangents, tracers of ``ft``: ``dots`` (a
    chunk pulled back in one call) or the ``rows`` stacked."""
    res: list[Any] = []
    for i, o in enumerate(out):
        o = unthunk(o)
        if isinstance(o, AbstractZero):
            res.append(o)
            continue
        d = unthunk(dots[i]) if rows is None else _stacked([unthunk(r[i]) for r in rows])
        res.append(o if isinstance(d, AbstractZero) else ft.new(o, d))
    return tuple(res)


def _stacked(rows: list[Any]) -> Any:
    """The rows of a chunk stacked along a new leading axis (zeros for zero rows)."""
    like = next((g for g in rows if not isinstance(g, AbstractZero)), None)
    if like is None:
        return _ZERO
    xp = like.__array_namespace__() if isinstance(like, Tracer) else namespace_of(like)
    return xp.stack([xp.zeros_like(like) if isinstance(g, AbstractZero) else g for g in rows])


def _ref(x: Any) -> Callable[[], Any]:
    """A weak reference to ``x``, or a strong one where its type takes none."""
    try:
        return weakref.ref(x)
    except TypeError:
        return lambda: x


class ReverseTrace(Trace):
    """Records a tape of pullbacks for the operations on its tracers."""

    __slots__ = ("captured", "tape")

    def __init__(self, cls: type[Tracer]) -> None:
        super().__init__(cls)
        self.tape: list[Node] = []
        # the copies of created arrays handed to rules, by the memory they look into:
        # {id(memory_root): (ref(root), {id(value): (ref(value), copy)})} (see _capture); weak
        # references where the library allows, so that the originals die when the code drops them
        self.captured: dict[int, Any] = {}

    def _capture(self, v: Any) -> Any:
        """A copy of ``v``, the value of a created array that a rule receives: its pullback may
        hold what it is given, and the code may write into the created array afterwards
        (``y = x * buf; buf[0] = 5``), in place as NumPy does, where every view of ``buf`` sees
        it but the pullback must not. One copy per array until its memory is written
        (``forget_written`` drops it)."""
        r = memory_root(v)
        entry = self.captured.get(id(r))
        if entry is None or entry[0]() is not r:
            entry = self.captured[id(r)] = (_ref(r), {})
        copies: dict[int, Any] = entry[1]
        hit = copies.get(id(v))
        if hit is not None and hit[0]() is v:
            return hit[1]
        c = copy_of(v)
        copies[id(v)] = (_ref(v), c)
        return c

    def input(self, value: Any) -> Tracer:
        """A tracer for an input: a node with no pullback, whose cotangent is the gradient."""
        return self.wrap(value, Node(None, ()))

    def const(self, value: Any) -> Tracer:
        return self.wrap(value, None)

    def is_const(self, t: Tracer) -> bool:
        return t._aux is None

    def process(self, fn: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        cls = self.cls
        n = len(args)
        vals: Any = None
        if (n == 1 or n == 2) and (
            not kwargs or not any(isinstance(v, Tracer) for v in kwargs.values())
        ):
            # the common cases written out: one or two arguments, each a tracer of this trace
            # holding a NumPy array or float64 scalar (what a full reduction gives), or (one of
            # two) a plain constant (Python number, NumPy array or float64 scalar); keywords
            # with no tracer among them (sum(x, axis=1)), which _unwrap would pass on unchanged
            a = args[0]
            if type(a) is cls and a._trace is self and type(a._value) in FAST_VALUES:
                na = a._aux
                if na is not None:
                    if n == 1:
                        vals = (a._value,)
                        parents: Any = ((1, -1, na),)
                    else:
                        b = args[1]
                        tb = type(b)
                        if tb is cls and b._trace is self and type(b._value) in FAST_VALUES:
                            nb = b._aux
                            if nb is not None:
                                vals = (a._value, b._value)
                                parents = ((1, -1, na), (2, -1, nb))
                        elif tb in FAST_CONSTS or (tb is tuple and all_ints(b)):  # or a shape
                            vals = (a._value, b)
                            parents = ((1, -1, na),)
            elif n == 2:
                b = args[1]
                if (
                    type(a) in FAST_CONSTS
                    and type(b) is cls
                    and b._trace is self
                    and type(b._value) in FAST_VALUES
                    and b._aux is not None
                ):
                    vals = (a, b._value)
                    parents = ((2, -1, b._aux),)
            if vals is None and not kwargs:
                vals, parents = self._over(args)
        if vals is None:
            vals, parents = self._unwrap(fn, args, kwargs)
            if not parents:
                return const_result(self, dispatch(fn, vals, kwargs))
        # lookup_rule(find_rrule, "rrule", fn), its common case inline: fn's entry in the
        # registry (one dict access) gives its rule, or says its result carries no derivative
        e = entry_of(fn)
        if e is not None and e.constant:  # evaluated on the values, at every level
            return const_result(self, dispatch(fn, vals, kwargs))
        rule = None if e is None else e.rrule
        if rule is None:  # a traceable wrapper's, or none: NoRuleError
            rule = lookup_rule(find_rrule, "rrule", fn)
        lifted = None
        if e is not None and e.linear and vals and isinstance(vals[0], Tracer):  # over a trace
            lifted = _over_forward(fn, rule, vals, kwargs)
        if lifted is not None:
            y, pb = lifted
        else:
            y, pb = rule(*vals, **kwargs) if kwargs else rule(*vals)
        ty = type(y)
        if ty is _NDARRAY:
            k = y.dtype.kind
            if k != "f" and k != "c":
                return y
        elif ty is tuple or ty is list or isinstance(y, tuple):  # several outputs (split: a list)
            return self._wrap_tuple(y, pb, parents, rule)
        elif not floating(y):
            return y
        node = Node(pb, parents, rule)
        self.tape.append(node)
        t: Any = _new(cls)
        t._trace = self
        t._value = y
        t._aux = node
        return t

    def _over(self, args: Any) -> tuple[Any, Any]:
        """``(values, parents)`` of one or two arguments in a trace over another (a Hessian's
        reverse pass over forward tracers), written out: each a tracer of this trace whose value
        is a tracer of one lower trace, or (one of two) a Python number, which
        :meth:`_unwrap` would leave as it is; ``(None, None)`` for anything else."""
        cls = self.cls
        a = args[0]
        ta = type(a)
        if ta is cls:
            na, va = a._aux, a._value
            if a._trace is not self or na is None or not isinstance(va, Tracer):
                return None, None
            if len(args) == 1:
                return (va,), ((1, -1, na),)
            b = args[1]
            tb = type(b)
            if tb is cls:
                nb, vb = b._aux, b._value
                same = b._trace is self and type(vb) is type(va) and vb._trace is va._trace
                if same and nb is not None:
                    return (va, vb), ((1, -1, na), (2, -1, nb))
            elif tb is float or tb is int:
                return (va, b), ((1, -1, na),)
        elif (ta is float or ta is int) and len(args) == 2:
            b = args[1]
            if type(b) is cls and b._trace is self and b._aux is not None:
                vb = b._value
                if isinstance(vb, Tracer):
                    return (a, vb), ((2, -1, b._aux),)
        return None, None

    def _unwrap(
        self, fn: Any, args: Any, kwargs: dict[str, Any]
    ) -> tuple[list[Any], tuple[tuple[int, int, Node], ...]]:
        """The general case of :meth:`process`: the values under the arguments (tracers of outer
        traces lifted to constants where needed) and the parents, ``(position, element of a
        sequence argument or -1, node)`` for each argument traced by this trace."""
        cls = self.cls
        vals: list[Any] = []
        parents: list[tuple[int, int, Node]] = []
        lower: Tracer | None = None
        if any(type(a) in _SEQ for a in args):
            args = stack_sequences(fn, args)
        for pos, a in enumerate(args, 1):
            if isinstance(a, Tracer):
                if a._trace is self:
                    v = a._value
                    vals.append(v)
                    node = a._aux
                    if node is not None:
                        parents.append((pos, -1, node))
                    if lower is None and isinstance(v, Tracer):
                        lower = v
                elif a._trace is CREATED:  # an array the code created: a plain value
                    vals.append(self._capture(a._value))
                else:
                    vals.append(a)
                    if lower is None:
                        lower = a
            elif type(a) in _SEQ and any(isinstance(e, Tracer) for e in a):
                vs = []
                for j, e in enumerate(a):
                    if isinstance(e, Tracer) and e._trace is self:
                        vs.append(e._value)
                        if e._aux is not None:
                            parents.append((pos, j, e._aux))
                        if lower is None and isinstance(e._value, Tracer):
                            lower = e._value
                    else:
                        e = (
                            self._capture(e._value)
                            if isinstance(e, Tracer) and e._trace is CREATED
                            else plain(e)
                        )
                        vs.append(e)
                        if lower is None and isinstance(e, Tracer):
                            lower = e
                vals.append(type(a)(vs))
            else:
                vals.append(number(a, cls._numpy))
        if kwargs:
            for k, v in kwargs.items():
                if isinstance(v, Tracer) and v._trace is self and v._aux is not None:
                    raise TypeError(
                        f"chainrules.ad: the keyword argument {k}= of "
                        f"{getattr(fn, '__name__', fn)} is a traced array; rules never "
                        "differentiate keyword arguments, so pass it positionally"
                    )
            plain_kw = plain_kwargs(self, kwargs)
            if plain_kw is not kwargs:  # in place, as the lifting below: the caller reads it
                for k, v in kwargs.items():
                    if isinstance(v, Tracer) and v._trace is CREATED:
                        plain_kw[k] = self._capture(v._value)
                kwargs.update(plain_kw)
        if lower is not None:
            lift_values(vals, lower)
            if kwargs:  # plain arrays among the keywords (logsumexp(x, b=w)) are constants too
                kw = list(kwargs.values())
                lift_values(kw, lower)
                kwargs.update(zip(kwargs, kw))
        return vals, tuple(parents)

    def _wrap_tuple(self, y: Any, pb: Any, parents: tuple[Any, ...], rule: Any) -> Any:
        node = Node(pb, parents, rule)
        self.tape.append(node)
        n = len(y)
        ptype = type(y)
        parts = []
        for i, e in enumerate(y):
            if not floating(e):
                parts.append(e)
                continue
            child = Node(_selector(i, n, ptype), ((1, -1, node),), _selector)
            self.tape.append(child)
            parts.append(self.wrap(e, child))
        return ptype(*parts) if hasattr(y, "_fields") else ptype(parts)


def _selector(i: int, n: int, ptype: type) -> Callable[..., Any]:
    """The pullback of taking element ``i`` of an ``n``-tuple output: a structural cotangent."""

    def select_pullback(ct: Any, chunk: int = 0) -> tuple[Any, Any]:
        parts = [_ZERO] * n
        parts[i] = ct
        return _NO, Tangent(*parts, primal_type=ptype)

    return select_pullback


mark_chunked(_selector)  # structural: a chunk passes through as it is


def _bad_pullback(pb: Any, out: Any, node: Node) -> TypeError:
    """The error for a pullback whose result does not have an entry per argument."""
    need = max(pos for pos, _, _ in node.parents) + 1
    got = f"{len(out)} entries" if isinstance(out, tuple | list) else type(out).__name__
    rule = getattr(pb, "__qualname__", repr(pb)).split(".<locals>")[0]
    return TypeError(
        f"chainrules.ad: the pullback {getattr(pb, '__qualname__', pb)!s} (of the rule "
        f"{rule}) returned {got}; a pullback returns a tuple (f_bar, *arg_bars): NoTangent() "
        f"for the function itself, then one cotangent per positional argument -- at least "
        f"{need} entries here"
    )


def backward(
    tape: list[Node], seeds: list[tuple[Node, Any]], release: bool, chunk: int = 0
) -> None:
    """Run the tape backwards from ``seeds`` (node, cotangent); inputs' nodes keep their ``ct``.

    ``chunk`` > 0: every cotangent carries one leading axis of length ``chunk`` (a chunk of
    cotangents pulled back in one pass). A rule registered with ``chunked_pullback=True`` gets
    the whole chunk (``pb(ct, chunk=1)``); any other pullback runs once per cotangent of the
    chunk and its results are stacked (correct, only slower)."""
    for node, ct in seeds:
        node.receive(ct)
    for node in reversed(tape):
        ct = node.ct
        if ct is None:
            continue
        node.ct = None
        node.owned = False
        pb = node.pb
        if release:
            node.pb = None
        assert pb is not None, "a pullback ran twice on a released tape"
        if chunk:
            if takes_chunks(node.rule):
                out = pb(ct, chunk=1)
                del ct
            else:
                _loop(pb, ct, chunk, node)
                continue
        else:
            out = pb(ct)
        for pos, j, parent in node.parents:
            try:
                g = out[pos]
            except (IndexError, TypeError, KeyError):
                raise _bad_pullback(pb, out, node) from None
            if j >= 0 and not isinstance(g, AbstractZero):
                g = g[j]
            if type(g) is not _NDARRAY and isinstance(g, AbstractZero):
                continue
            if parent.ct is None:
                parent.ct = g
            else:
                parent.receive(g)


def _row(ct: Any, r: int) -> Any:
    """Cotangent ``r`` of a chunk (one leading axis): a slice, never an element read."""
    ct = unthunk(ct)
    if isinstance(ct, AbstractZero):
        return ct
    if isinstance(ct, Tangent):
        if ct._elements is not None:
            return Tangent(*(_row(e, r) for e in ct._elements), primal_type=ct.primal_type)
        fields = ct._fields or {}
        return Tangent(primal_type=ct.primal_type, **{f: _row(v, r) for f, v in fields.items()})
    xp = ct.__array_namespace__() if isinstance(ct, Tracer) else namespace_of(ct)
    # a size-1 slice reshaped: no element read (a guarded device array refuses ct[r] of a 1-D
    # chunk), and a full index (array-api-strict refuses a partial one)
    return xp.reshape(ct[r : r + 1, ...], tuple(ct.shape[1:]))


def _loop(pb: Any, ct: Any, k: int, node: Node) -> None:
    """A chunk through a pullback that takes one cotangent at a time: ``k`` calls, and each
    parent receives its ``k`` cotangents stacked along a new leading axis."""
    outs = [pb(_row(ct, r)) for r in range(k)]
    for pos, j, parent in node.parents:
        gs = []
        for out in outs:
            try:
                g = out[pos]
            except (IndexError, TypeError, KeyError):
                raise _bad_pullback(pb, out, node) from None
            g = unthunk(g)
            if j >= 0 and not isinstance(g, AbstractZero):
                g = unthunk(g[j])
            gs.append(g)
        stacked = _stacked(gs)
        if not isinstance(stacked, AbstractZero):
            parent.receive(stacked)
