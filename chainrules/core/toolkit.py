"""The rule toolkit: the one way every rule in chainrules is written, and the way to write yours.

A rule reads top to bottom, as in ChainRules.jl: bind the arguments, compute the primal, build
the projectors from the primal *outside* the pullback, define a **named** pullback, return.
Three helpers take the boilerplate out of it:

* :func:`signature` -- one signature-based binder (``inspect.Signature.bind``): positional-only,
  keyword-only and defaults as the function declares them, and errors that name the function;
* :func:`pullback` -- a decorator for the named pullback: the cotangent it is given is forced
  (``unthunk``), a zero cotangent short-circuits to a zero per argument (``ZeroTangent()`` where the
  argument has a tangent space, ``NoTangent()`` where it has none), every other cotangent is
  checked against the output's shape (a ``ValueError`` naming both shapes) and brought to the
  output's library and dtype (:func:`check_cotangent`), the body returns one cotangent per
  positional argument, and the function's own ``NoTangent()`` is put in front;
* :func:`tangents_in` -- the same for a pushforward: the tangents forced, zeros recognised, the
  number of leading chunk axes found and checked.

>>> import numpy as np, chainrules as cr
>>> def scale(x, factor):
...     return x * factor
>>> @cr.register_rrule(scale)
... def scale_rrule(x, factor):
...     y = scale(x, factor)
...     project = cr.ProjectTo(x)
...
...     @cr.pullback(y, (x, factor))
...     def scale_pullback(y_bar):
...         return project(y_bar * factor), cr.NoTangent()
...
...     return y, scale_pullback
>>> y, pb = cr.rrule(scale, np.ones(3), 2)
>>> pb(np.ones(3))[1]
array([2., 2., 2.])
>>> pb(cr.ZeroTangent())
(NoTangent(), ZeroTangent(), NoTangent())
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from .tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, unthunk

__all__ = [
    "Signature",
    "TangentsIn",
    "check_cotangent",
    "pullback",
    "signature",
    "tangents_in",
    "zero_tangent",
]

_NO = NoTangent()
_ZERO = ZeroTangent()
_SCALARS = (float, int, complex)


# --- binding arguments --------------------------------------------------------------------------
class Signature:
    """A function's signature, bound with the function's name in every error.

    ``signature("reshape", lambda x, /, shape, *, copy=None: None)`` binds calls of
    ``reshape``: ``sig.bind(args, kwargs)`` returns the arguments by name, defaults applied, in
    declaration order. A call that the signature refuses (a missing argument, an unknown keyword,
    a value given twice) raises ``TypeError("reshape: ...")``.

    ``unsupported`` names keywords the template accepts (so that NumPy's full signature binds)
    but the rule cannot honour: given a value other than ``None`` (or ``True``, NumPy's default for
    ``where=``) they raise a ``TypeError`` naming the function and the keyword. ``out=`` is always
    among them when the template has it: rules never write into an existing array.
    """

    __slots__ = ("_sig", "name", "unsupported")

    def __init__(
        self, name: str, template: Callable[..., Any], unsupported: Sequence[str] = ()
    ) -> None:
        self.name = name
        self._sig = inspect.signature(template)
        extra = ("out",) if "out" in self._sig.parameters else ()
        self.unsupported = tuple(dict.fromkeys((*extra, *unsupported)))

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}: {e}") from None
        bound.apply_defaults()
        values = dict(bound.arguments)
        for k in self.unsupported:
            v = values.get(k)
            if v is not None and v is not True:
                if k == "out":
                    raise TypeError(
                        f"{self.name}: out= is not supported by rules (it writes into an existing "
                        "array, and rules never mutate); assign the result instead"
                    )
                raise TypeError(f"{self.name}: the rule does not support {k}= (got {v!r})")
        return values

    def __repr__(self) -> str:
        return f"signature({self.name!r}, {self._sig})"


def signature(
    name: str, template: Callable[..., Any], unsupported: Sequence[str] = ()
) -> Signature:
    """The binder of ``name``'s calls, from a template function with its parameters (its body is
    never run). See :class:`Signature`.

    >>> import chainrules as cr
    >>> sig = cr.signature("sum", lambda x, /, *, axis=None, dtype=None, keepdims=False: None)
    >>> sig.bind((1,), {"axis": 0})
    {'x': 1, 'axis': 0, 'dtype': None, 'keepdims': False}
    """
    return Signature(name, template, unsupported)


# --- cotangents -----------------------------------------------------------------------------------
def _mismatch(name: str, got: Any, want: Any) -> ValueError:
    return ValueError(
        f"{name}: cotangent of shape {tuple(got)} does not match the output's shape "
        f"{tuple(want)}; a pullback never broadcasts its cotangent"
    )


def check_cotangent(name: str, y_bar: Any, y: Any) -> Any:
    """``y_bar`` checked and brought to ``y``: what every pullback does with its cotangent.

    * a ``Thunk`` is forced; zero markers (``ZeroTangent()``, ``NoTangent()``) have every shape
      and are returned as they are;
    * a Python scalar cotangent of a 0-d output becomes a 0-d array of the output's library and
      dtype;
    * any other shape than ``y``'s is a ``ValueError`` naming both shapes -- never a broadcast;
    * a real cotangent of a complex output is cast to the output's dtype (PyTorch's ``matmul``
      does not promote it).

    >>> import numpy as np, chainrules as cr
    >>> cr.check_cotangent("f", 2.0, np.float64(1.0)).shape
    ()
    >>> cr.check_cotangent("f", np.ones(2), np.ones(3))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: f: cotangent of shape (2,) does not match the output's shape (3,); ...
    """
    if isinstance(y_bar, Thunk):
        y_bar = unthunk(y_bar)
    if isinstance(y_bar, AbstractZero):
        return y_bar
    y_shape = getattr(y, "shape", ())
    if type(y_bar) in _SCALARS and y_shape == ():
        from .namespaces import namespace_of

        return namespace_of(y).asarray(y_bar, dtype=y.dtype)
    b_shape = getattr(y_bar, "shape", ())
    if b_shape != y_shape and tuple(b_shape) != tuple(y_shape):
        raise _mismatch(name, b_shape, y_shape)
    dt = getattr(y_bar, "dtype", None)
    if dt is not None and dt != y.dtype:
        from .namespaces import namespace_of

        xp = namespace_of(y)
        if xp.isdtype(y.dtype, "complex floating") and not xp.isdtype(dt, "complex floating"):
            return xp.astype(y_bar, y.dtype)
    return y_bar


def zero_tangent(arg: Any) -> AbstractZero:
    """The zero cotangent of an argument: ``ZeroTangent()`` where it has a tangent space (a
    floating or complex array, a Python float or complex, a tuple or list holding one),
    ``NoTangent()`` where it has none (integers, booleans, shapes, ``None``, strings)."""
    t = type(arg)
    if t is float or t is complex:
        return _ZERO
    if t is tuple or t is list:
        return _ZERO if any(zero_tangent(e) is _ZERO for e in arg) else _NO
    dtype = getattr(arg, "dtype", None)
    if dtype is None or t is int or t is bool:
        return _NO
    kind = getattr(dtype, "kind", None)
    if kind is None:  # a non-NumPy dtype object (torch, array-api-strict)
        from .namespaces import dtype_kind

        kind = dtype_kind(dtype)
    return _ZERO if kind in ("f", "c") else _NO


def _pullback_name(body: Callable[..., Any]) -> str:
    n = getattr(body, "__name__", "pullback")
    return n[: -len("_pullback")] if n.endswith("_pullback") and n != "_pullback" else n


def pullback(
    y: Any, args: Sequence[Any], *, name: str | None = None
) -> Callable[[Callable[..., Any]], Callable[[Any], tuple[Any, ...]]]:
    """Decorator: make ``body(y_bar)`` the pullback of a rule with output ``y`` and positional
    arguments ``args``.

    The returned pullback takes any cotangent a caller may pass -- an array, a Python scalar, a
    ``Thunk``, ``ZeroTangent()`` / ``NoTangent()``, and for a tuple output a ``Tangent`` or a
    tuple -- and returns ``(NoTangent(), *arg_bars)``:

    * a zero cotangent returns at once, with ``zero_tangent(a)`` for each argument: the body is
      not run;
    * otherwise the cotangent is checked with :func:`check_cotangent` (for a tuple output: each
      entry against each output, zero entries kept as ``ZeroTangent()``, and the body receives a
      tuple) and the body is called;
    * the body returns one cotangent per argument (a tuple, or the value itself for one
      argument); any other number is a ``TypeError`` naming the function.

    ``name`` (for messages) defaults to the body's name without ``_pullback``.
    """
    args = tuple(args)
    zeros = (_NO, *(zero_tangent(a) for a in args))
    n = len(args)
    multi = type(y) in (tuple, list)

    def decorator(body: Callable[..., Any]) -> Callable[[Any], tuple[Any, ...]]:
        nm = name or _pullback_name(body)

        def finish(out: Any) -> tuple[Any, ...]:
            if type(out) is not tuple:
                if n != 1:
                    raise TypeError(
                        f"{nm}: the pullback returned one cotangent, expected a tuple of {n} "
                        "(one per positional argument)"
                    )
                return (_NO, out)
            if len(out) != n:
                raise TypeError(
                    f"{nm}: the pullback returned {len(out)} cotangents, expected {n} (one per "
                    "positional argument)"
                )
            return (_NO, *out)

        if multi:

            @functools.wraps(body)
            def multi_pullback(y_bar: Any) -> tuple[Any, ...]:
                y_bar = unthunk(y_bar)
                if isinstance(y_bar, AbstractZero):
                    return zeros
                parts = _entries(nm, y_bar, len(y))
                if all(isinstance(p, AbstractZero) for p in parts):
                    return zeros
                return finish(
                    body(tuple(check_cotangent(nm, p, v) for p, v in zip(parts, y, strict=True)))
                )

            return multi_pullback

        @functools.wraps(body)
        def single_pullback(y_bar: Any) -> tuple[Any, ...]:
            if isinstance(y_bar, Thunk):
                y_bar = unthunk(y_bar)
            if isinstance(y_bar, AbstractZero):
                return zeros
            return finish(body(check_cotangent(nm, y_bar, y)))

        return single_pullback

    return decorator


def _entries(name: str, y_bar: Any, n: int) -> tuple[Any, ...]:
    """The entries of the cotangent of an ``n``-tuple output, forced; a ``Tangent`` reads missing
    entries as zeros."""
    if isinstance(y_bar, Tangent):
        parts = tuple(unthunk(y_bar[i]) for i in range(n))
    elif type(y_bar) in (tuple, list):
        parts = tuple(unthunk(p) for p in y_bar)
    else:
        raise TypeError(
            f"{name}: the cotangent of a tuple of {n} outputs must be a Tangent or a tuple, got "
            f"{type(y_bar).__name__}"
        )
    if len(parts) != n:
        raise ValueError(f"{name}: expected a cotangent with {n} entries, got {len(parts)}")
    return parts


# --- tangents -------------------------------------------------------------------------------------
class TangentsIn:
    """The forced tangents of a pushforward's positional arguments (``f_dot`` dropped), with the
    number of leading chunk axes they carry (``extra``). ``values[i]`` is ``ZeroTangent()`` (or
    ``NoTangent()``) where argument ``i``'s tangent is zero."""

    __slots__ = ("extra", "values")

    def __init__(self, values: tuple[Any, ...], extra: int) -> None:
        self.values = values
        self.extra = extra

    def __iter__(self) -> Any:
        return iter(self.values)

    def __getitem__(self, i: int) -> Any:
        return self.values[i]

    def lead(self) -> tuple[int, ...]:
        """The chunk axes' lengths (empty without a chunk)."""
        for t in self.values:
            if not isinstance(t, AbstractZero):
                return tuple(t.shape[: self.extra])
        return ()


def tangents_in(name: str, tangents: Sequence[Any], args: Sequence[Any]) -> TangentsIn | None:
    """The tangents of ``args`` given to an frule, forced and checked, or ``None`` when all are
    zero (the pushforward is then ``ZeroTangent()``).

    Each nonzero tangent of an array argument must have the argument's shape after ``extra``
    leading chunk axes, the same ``extra`` for every argument (a ``ValueError`` naming the
    function otherwise). Tangents of Python scalars are 0-d (or carry only chunk axes).
    ``tangents`` is the frule's tuple ``(f_dot, *arg_dots)``.
    """
    ts = tuple(unthunk(t) for t in tangents[1:])
    if len(ts) != len(args):
        raise ValueError(
            f"{name}: expected {len(args)} argument tangents (after f's own), got {len(ts)}"
        )
    extra: int | None = None
    for t, a in zip(ts, args):
        if isinstance(t, (AbstractZero, Tangent)) or type(t) in (tuple, list):
            continue
        shape = tuple(getattr(a, "shape", ()))
        t_shape = tuple(getattr(t, "shape", ()))
        k = len(t_shape) - len(shape)
        if k < 0 or t_shape[k:] != shape:
            raise ValueError(
                f"{name}: tangent of shape {t_shape} does not fit a primal of shape {shape} "
                "(expected the primal's shape after leading chunk axes)"
            )
        if extra is None:
            extra = k
        elif k != extra:
            raise ValueError(
                f"{name}: tangents carry different numbers of chunk axes ({extra} and {k})"
            )
    if all(isinstance(t, AbstractZero) for t in ts):
        return None
    return TangentsIn(ts, extra or 0)
