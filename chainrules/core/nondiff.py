"""Rules of functions with no derivative: ``non_differentiable`` (comparisons, logical and
bitwise functions, index finders, predicates) and ``zero_derivative`` (``round``, ``rint``).

Their rrule computes the primal and a pullback that checks its cotangent and returns no tangent
(or a zero one) for every argument; their frule returns the same. Engines then stop
differentiating there instead of raising ``NoRuleError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .namespaces import is_array, namespace_of
from .registry import caller_module, register_frule, register_rrule
from .rule_errors import named_error
from .scalar_rule import _primal_getter, _Primals, _reject_out, _target_name, is_floating
from .tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from .toolkit import check_cotangent

__all__ = ["non_differentiable", "zero_derivative"]

_NO = NoTangent()
_ZERO = ZeroTangent()


def _nondiff_rules(
    name: str, get: _Primals, zero: bool
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def array_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return namespace_of(*(a for a in args if is_array(a)), fname=name)

    def primal(xp: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        # the library's own call: its refusal of a bad argument names the function (and the
        # axis-like keyword at fault) for engines too, which call rules without the registry
        try:
            return get(xp)(*args, **kwargs)
        except (TypeError, ValueError) as err:
            named = named_error(name, err, kwargs)
            if named is None:
                raise
            raise named from err

    def nondiff_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        _reject_out(name, kwargs)
        xp = array_args(args, kwargs)
        out = primal(xp, args, kwargs)
        if zero:
            # every floating argument has a tangent space (and a zero derivative); integer
            # arguments (round's decimals) and opaque ones have none
            tans = tuple(_ZERO if is_floating(a, xp) else _NO for a in args)
        else:
            tans = (_NO,) * len(args)

        def nondiff_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not isinstance(y_bar, AbstractZero):
                check_cotangent(name, unthunk(y_bar), out)
            return (_NO, *tans)

        nondiff_pullback.__qualname__ = f"{name}_pullback"
        return out, nondiff_pullback

    def nondiff_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        _reject_out(name, kwargs)
        out = primal(array_args(args, kwargs), args, kwargs)
        return out, (_ZERO if zero else _NO)

    return nondiff_rrule, nondiff_frule


def non_differentiable(*targets: Any, **meta: Any) -> None:
    """Declare functions with no derivative: comparisons, logical and bitwise functions, index
    finders (``argmax``), predicates (``isnan``).

    Their rrule computes the primal and a pullback returning ``NoTangent()`` for every argument;
    their frule returns ``NoTangent()``. Engines then stop differentiating there instead of
    raising ``NoRuleError``.
    """
    meta.setdefault("module", caller_module())
    _register_nondiff(targets, zero=False, meta=meta)


def zero_derivative(*targets: Any, **meta: Any) -> None:
    """Functions whose derivative is zero wherever it exists (``round``, ``rint``).

    Floating arguments get ``ZeroTangent()``; integer and other arguments (``decimals`` of
    ``round``) get ``NoTangent()``; the frule returns ``ZeroTangent()``.
    """
    meta.setdefault("module", caller_module())
    _register_nondiff(targets, zero=True, meta=meta)


def _register_nondiff(targets: tuple[Any, ...], zero: bool, meta: dict[str, Any]) -> None:
    if not targets:
        raise TypeError("name at least one function")
    for target in targets:
        name = _target_name(target)
        r, f = _nondiff_rules(name, _primal_getter(target), zero)
        if not callable(target):
            # each library's function gets rules calling exactly it: a call may hold no array
            # to tell the library (zeros(3), fftfreq(8))
            meta = dict(meta, bind=_nondiff_binder(name, zero))
        flags = {"zero_derivative": True} if zero else {"non_differentiable": True}
        register_rrule(target, **flags, **meta)(r)
        register_frule(target, **flags, **meta)(f)


def _nondiff_binder(name: str, zero: bool) -> Callable[[Any, str], Callable[..., Any]]:
    def bind(obj: Any, kind: str) -> Callable[..., Any]:
        r, f = _nondiff_rules(name, _Primals(obj), zero)
        return r if kind == "r" else f

    return bind
