"""Binding a rule's arguments once: a :class:`Signature` declared per function (``signature``),
which binds positional and keyword arguments to the function's parameters with one error message
for every rule (the rule toolkit, ``chainrules.core.toolkit``, re-exports it)."""

from __future__ import annotations

import inspect
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
