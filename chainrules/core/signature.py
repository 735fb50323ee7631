"""Binding a rule's arguments once: a :class:`Signature` declared per function (``signature``),
which binds positional and keyword arguments to the function's parameters with one error message
for every rule (the rule toolkit, ``chainrules.core.toolkit``, re-exports it); and the checks of
``axis`` arguments (:func:`axis_int`, :func:`axis_ints`, :func:`normalize_axis`), the same for
every rule: a float, a string, a bool or an axis out of bounds is an error naming the function."""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Sequence
from typing import Any


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

    __slots__ = (
        "_defaults",
        "_keywords",
        "_names",
        "_positional",
        "_required",
        "_sig",
        "_template",
        "_unsupported",
        "_var_keyword",
        "name",
    )

    def __init__(
        self, name: str, template: Callable[..., Any], unsupported: Sequence[str] = ()
    ) -> None:
        # parsed on first use (_parse): the library builds about 370 of these at import, and
        # most rules of a process are never called
        self.name = name
        self._template: Callable[..., Any] | None = template
        self._unsupported = tuple(unsupported)

    def _parse(self) -> None:
        # idempotent, and the template is dropped only once every field is set: a thread that
        # arrives meanwhile parses again rather than reading a half-built signature
        template = self._template
        assert template is not None
        self._sig = inspect.signature(template)
        params = list(self._sig.parameters.values())
        kinds = inspect.Parameter
        var_kw = [p.name for p in params if p.kind == kinds.VAR_KEYWORD]
        self._var_keyword = var_kw[0] if var_kw else None
        params = [p for p in params if p.kind != kinds.VAR_KEYWORD]
        if any(p.kind == kinds.VAR_POSITIONAL for p in params):
            self._positional: tuple[str, ...] | None = None  # *args: inspect binds
        else:
            self._positional = tuple(
                p.name
                for p in params
                if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)
            )
        self._keywords = frozenset(
            p.name for p in params if p.kind in (kinds.POSITIONAL_OR_KEYWORD, kinds.KEYWORD_ONLY)
        )
        self._defaults = {p.name: p.default for p in params if p.default is not p.empty}
        self._required = tuple(p.name for p in params if p.default is p.empty)
        self._names = tuple(p.name for p in params)
        extra = ("out",) if "out" in self._sig.parameters else ()
        self._unsupported = tuple(dict.fromkeys((*extra, *self._unsupported)))
        self._template = None

    @property
    def unsupported(self) -> tuple[str, ...]:
        """The keywords the rule refuses unless ``None`` (``out`` whenever the template has it)."""
        if self._template is not None:
            self._parse()
        return self._unsupported

    @property
    def names(self) -> tuple[str, ...]:
        """The template's parameter names, in order."""
        if self._template is not None:
            self._parse()
        return self._names

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        if self._template is not None:
            self._parse()
        values = self._fast_bind(args, kwargs)
        if values is None:  # anything unusual: inspect binds it, or says what is wrong
            try:
                bound = self._sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{self.name}: {e}") from None
            bound.apply_defaults()
            values = dict(bound.arguments)
        for k in self._unsupported:
            v = values.get(k)
            if v is not None and v is not True:
                if k == "out":
                    raise TypeError(
                        f"{self.name}: out= is not supported by rules (it writes into an existing "
                        "array, and rules never mutate); assign the result instead"
                    )
                raise TypeError(f"{self.name}: the rule does not support {k}= (got {v!r})")
        return values

    def _fast_bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        """The binding of an ordinary call in a few dict operations; ``None`` for any other."""
        pos = self._positional
        if pos is None or len(args) > len(pos):
            return None
        values = dict(self._defaults)
        values.update(zip(pos, args))
        rest: dict[str, Any] = {}
        if kwargs:
            for k, v in kwargs.items():
                if k in pos and pos.index(k) < len(args):
                    return None  # given twice: inspect says so
                if k in self._keywords:
                    values[k] = v
                elif self._var_keyword is not None:
                    rest[k] = v
                else:
                    return None
        for k in self._required:
            if k not in values:
                return None
        out = {k: values[k] for k in self._names}  # declaration order, as inspect gives
        if self._var_keyword is not None:
            out[self._var_keyword] = rest
        return out

    def __repr__(self) -> str:
        if self._template is not None:
            self._parse()
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


# --- axes: checked where the arguments are bound, with errors naming the function --------------
def all_ints(t: Sequence[Any]) -> bool:
    """``t`` (a tuple or list) holds Python ints alone: a shape or axes, the common case of a
    sequence argument. A loop, not ``all()`` of a generator: it runs on every traced call."""
    for e in t:  # noqa: SIM110
        if type(e) is not int:
            return False
    return True


def axis_int(
    axis: Any, name: str, what: str = "axis", ndim: int | None = None, bool_ok: bool = False
) -> int:
    """One axis (an int; NumPy's integer scalars count, as in NumPy) as a Python int, or a
    ``TypeError`` naming the function ``name``, the argument ``what`` and what was given (a
    float, a string, a bool unless ``bool_ok``: NumPy takes ``True`` as 1 in a few functions).
    With ``ndim``, an axis out of bounds for that rank is a ``ValueError`` naming them too."""
    if isinstance(axis, bool) and not bool_ok:
        raise TypeError(f"{name}: {what} must be an int, got {axis!r}")
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name}: {what} must be an int, got {axis!r}") from None
    if ndim is not None and not -max(ndim, 1) <= a < max(ndim, 1):
        raise ValueError(f"{name}: {what} {a} is out of bounds for an array of rank {ndim}")
    return a


def axis_opt(axis: Any, name: str, what: str = "axis", **options: Any) -> int | None:
    """:func:`axis_int` of ``axis``, or ``None`` for ``None`` (the flattened array)."""
    return None if axis is None else axis_int(axis, name, what, **options)


def axis_ints(
    axis: Any, name: str, what: str = "axis", ndim: int | None = None, bool_ok: bool = False
) -> tuple[int, ...]:
    """``axis`` (an int or a sequence of ints; NumPy's integer scalars count, as in NumPy) as a
    tuple of Python ints, or a ``TypeError`` naming ``name``, the argument ``what`` and what was
    given (a float, a string, a bool unless ``bool_ok``, as :func:`axis_int`). With ``ndim``, an
    axis out of bounds for that rank is a ``ValueError`` naming them too."""
    bad = f"{name}: {what} must be an int or a tuple of ints, got {axis!r}"
    if isinstance(axis, bool) and not bool_ok:
        raise TypeError(bad)
    try:
        seq: tuple[Any, ...] = (operator.index(axis),)
    except TypeError:
        try:
            seq = tuple(axis)
        except TypeError:
            raise TypeError(bad) from None
    if any((isinstance(a, bool) and not bool_ok) or not hasattr(a, "__index__") for a in seq):
        raise TypeError(bad)
    try:
        out = tuple(operator.index(a) for a in seq)
    except TypeError:
        raise TypeError(bad) from None
    if ndim is not None:
        for a in out:
            if not -max(ndim, 1) <= a < max(ndim, 1):
                raise ValueError(f"{name}: {what} {a} is out of bounds for an array of rank {ndim}")
    return out


def normalize_axis(axis: Any, ndim: int, name: str = "") -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence of ints, negative allowed) as sorted non-negative
    axes of an array of rank ``ndim``."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:  # the common call, before the general parse
        return (axis % ndim,)
    axes = axis_ints(axis, name)
    out = []
    for a in axes:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"{name}: axis {a} is out of bounds for an array of rank {ndim}")
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axis in {axis!r}")
    return tuple(sorted(out))
