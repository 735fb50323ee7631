"""Forward mode: a trace whose tracers carry a chunk of tangents through registered frules.

A tracer's ``_aux`` is its tangent: an array of shape ``(*chunk, *value.shape)`` (``chunk`` is
``()`` for a plain JVP, ``(k,)`` when ``k`` directions are pushed at once). Every registered frule
accepts such chunked tangents, so one call pushes the whole chunk. An operation whose inputs all
have zero tangents is evaluated without its rule, and a result whose tangent is zero (integer
outputs, non-differentiable functions) leaves the trace as a plain array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.namespaces import is_array
from ..core.registry import find_frule
from ..core.signature import all_ints
from ..core.tangents import AbstractZero, NoTangent, Tangent, ZeroTangent
from ._lift import const_result, lift_values, number, stack_sequences
from ._tracer import (
    _SEQ,
    CREATED,
    FAST_CONSTS,
    FAST_VALUES,
    Trace,
    Tracer,
    dispatch,
    lookup_rule,
    plain,
    plain_kwargs,
)

_NO = NoTangent()
_ZERO = ZeroTangent()
_NDARRAY = np.ndarray
_NUMBERS = (float, int)  # constants with no tangent space (NumPy's have a zero tangent)


class ForwardTrace(Trace):
    """Pushes tangents forward through every operation on its tracers."""

    __slots__ = ()

    def new(self, value: Any, tangent: Any) -> Tracer:
        """A tracer of ``value`` with tangent ``tangent``."""
        return self.wrap(value, tangent)

    def const(self, value: Any) -> Tracer:
        return self.wrap(value, _ZERO)

    def is_const(self, t: Tracer) -> bool:
        return isinstance(t._aux, AbstractZero)

    def process(self, fn: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        n = len(args)
        if (n == 1 or n == 2) and not kwargs:
            # the common cases written out: one or two arguments, each a tracer of this trace
            # holding a NumPy array or float64 scalar (nothing below it to lift), or (one of
            # two) a plain constant; what the loop below makes of them, without its tests
            cls = self.cls
            a = args[0]
            fv: Any = None
            ft: tuple[Any, ...] = ()
            if type(a) is cls and a._trace is self and type(a._value) in FAST_VALUES:
                if n == 1:
                    fv, ft = (a._value,), (_NO, a._aux)
                else:
                    b = args[1]
                    tb = type(b)
                    if tb is cls and b._trace is self and type(b._value) in FAST_VALUES:
                        fv, ft = (a._value, b._value), (_NO, a._aux, b._aux)
                    elif tb in FAST_CONSTS:  # a NumPy constant is an array: a zero tangent
                        fv, ft = (a._value, b), (_NO, a._aux, _NO if tb in _NUMBERS else _ZERO)
                    elif tb is tuple and all_ints(b):  # a shape, axes: no tangent
                        fv, ft = (a._value, b), (_NO, a._aux, _NO)
            elif n == 2 and type(a) in FAST_CONSTS:
                b = args[1]
                if type(b) is cls and b._trace is self and type(b._value) in FAST_VALUES:
                    fv = (a, b._value)
                    ft = (_NO, _NO if type(a) in _NUMBERS else _ZERO, b._aux)
            if fv is not None:
                for t in ft[1:]:
                    if not isinstance(t, AbstractZero):
                        return self._apply(fn, ft, fv, kwargs)
                return const_result(self, dispatch(fn, fv, kwargs))
        vals: list[Any] = []
        tans: list[Any] = [_NO]
        active = False
        lower: Tracer | None = None
        if any(type(a) in _SEQ for a in args):
            args = stack_sequences(fn, args)
        for a in args:
            if isinstance(a, Tracer):
                if a._trace is self:
                    v = a._value
                    t = a._aux
                    vals.append(v)
                    tans.append(t)
                    if not isinstance(t, AbstractZero):
                        active = True
                    if lower is None and isinstance(v, Tracer):
                        lower = v
                elif a._trace is CREATED:  # an array the code created: a plain value
                    vals.append(a._value)
                    tans.append(_ZERO)
                else:
                    vals.append(a)
                    tans.append(_ZERO)
                    if lower is None:
                        lower = a
            elif type(a) in _SEQ and any(isinstance(e, Tracer) for e in a):
                vs, ts = [], []
                for e in a:
                    if isinstance(e, Tracer) and e._trace is self:
                        vs.append(e._value)
                        ts.append(e._aux)
                        if not isinstance(e._aux, AbstractZero):
                            active = True
                        if lower is None and isinstance(e._value, Tracer):
                            lower = e._value
                    else:
                        e = plain(e)
                        vs.append(e)
                        ts.append(_ZERO)
                        if lower is None and isinstance(e, Tracer):
                            lower = e
                vals.append(type(a)(vs))
                tans.append(Tangent(*ts, primal_type=type(a)))
            else:
                a = number(a, self.cls._numpy)
                vals.append(a)
                tans.append(_ZERO if is_array(a) else _NO)
        if kwargs:
            kwargs = _plain_kwargs(self, fn, kwargs)
        if lower is not None:
            lift_values(vals, lower)
            if kwargs:  # plain arrays among the keywords (logsumexp(x, b=w)) are constants too
                kw = list(kwargs.values())
                lift_values(kw, lower)
                kwargs = dict(zip(kwargs, kw))
        if not active:
            return const_result(self, dispatch(fn, vals, kwargs))
        return self._apply(fn, tuple(tans), vals, kwargs)

    def _apply(self, fn: Any, tans: Any, vals: Any, kwargs: dict[str, Any]) -> Any:
        """``fn`` on the values ``vals`` through its frule with the tangents ``tans`` (``f``'s own
        first), of which one at least is not zero."""
        rule = lookup_rule(find_frule, "frule", fn)
        if rule is None:  # a constant-valued function with no rule
            return const_result(self, dispatch(fn, vals, kwargs))
        y, y_dot = rule(tans, *vals, **kwargs)
        if isinstance(y_dot, AbstractZero):
            return const_result(self, y)
        if isinstance(y, tuple) or type(y) is list:  # several outputs (split: a list)
            return _wrap_tuple(self, y, y_dot)
        return self.wrap(y, y_dot)


def _wrap_tuple(trace: ForwardTrace, y: Any, y_dot: Any) -> Any:
    parts = []
    for i, e in enumerate(y):
        t = y_dot[i]
        parts.append(const_result(trace, e) if isinstance(t, AbstractZero) else trace.new(e, t))
    return type(y)(*parts) if hasattr(y, "_fields") else type(y)(parts)


def _plain_kwargs(trace: Trace, fn: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    for k, v in kwargs.items():
        if isinstance(v, Tracer) and v._trace is trace and not trace.is_const(v):
            raise TypeError(
                f"chainrules.ad: the keyword argument {k}= of {getattr(fn, '__name__', fn)} is a "
                "traced array; rules never differentiate keyword arguments, so pass it "
                "positionally"
            )
    return plain_kwargs(trace, kwargs)
