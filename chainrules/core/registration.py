"""What a registration is: the rule families (``ARRAY_API``, ``NUMPY``, ``SCIPY``), the typed
record of one target's rules and metadata (``Registration``), the metadata keys and kinds a
registration may declare (``META_KEYS``, ``KINDS``), and the mark of a pullback that takes chunks
(``takes_chunks``). The table that holds registrations is ``chainrules.core.table``; registering
and calling rules is ``chainrules.core.registry``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .examples import Expect
from .namespaces import qualified_name

ARRAY_API = "array_api"


NUMPY = "numpy"


SCIPY = "scipy"


_FAMILIES = (ARRAY_API, NUMPY, SCIPY)


_PRIORITY = {ARRAY_API: 1, NUMPY: 2, SCIPY: 2, "callable": 3}


class NoRuleError(LookupError):
    """No rule is registered for a function. The message names it and says how to add one."""


@dataclass
class Registration:
    """One registered target: what ``python -m chainrules check`` and the coverage report list.

    Its metadata -- the keywords given to ``register_rrule``/``register_frule`` (and
    ``scalar_rule``, ...) -- is read through the typed properties below; :data:`META_KEYS` says
    what each keyword means, and any other keyword is refused when the rule is registered.
    """

    target: Any  # the callable, or the name
    family: str  # "array_api", "numpy", "scipy" or "callable"
    rrule: Callable[..., Any] | None = None
    frule: Callable[..., Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def non_differentiable(self) -> bool:
        """Declared with ``chainrules.non_differentiable``."""
        return bool(self.meta.get("non_differentiable", False))

    @property
    def kind(self) -> str | None:
        """What the function is, for engines (``kind=``, one of :data:`KINDS`): the declared
        kind, else ``"constant"`` for a function declared with ``chainrules.non_differentiable``,
        else ``None`` (an ordinary differentiable function)."""
        kind = self.meta.get("kind")
        if kind is None and self.non_differentiable:
            return "constant"
        return kind

    @property
    def zero_derivative(self) -> bool:
        """``zero_derivative=``: its derivative is zero wherever it exists (``round``,
        ``floor``). Its rules return ``ZeroTangent()`` (docs/conventions.md); an engine may
        evaluate it as a constant instead (``chainrules.core.table.entry_of(f).constant``)."""
        return bool(self.meta.get("zero_derivative", False))

    @property
    def linear(self) -> bool:
        """``linear=``: the function is linear in its floating positional arguments, jointly (up
        to a constant the other arguments give: ``diff(x, prepend=1.0)``), and its pullback
        reads none of their values (only shapes, dtypes and the other arguments: indexing,
        reshaping, sums). An engine may then pull a cotangent's tangents back through
        the same pullback (``chainrules.ad``'s Hessians: a pullback built on the values, not
        traced on forward tracers)."""
        return bool(self.meta.get("linear", False))

    @property
    def constant(self) -> bool:
        """Its result carries no derivative: engines evaluate it on the values and never call its
        rules (kinds ``"constant"``, ``"metadata"`` and ``"like"``, and every function declared
        with ``chainrules.non_differentiable``)."""
        return self.kind in _CONSTANT_KINDS

    @property
    def takes_sequences(self) -> bool:
        """A list or tuple argument holding traced arrays reaches its rules as a sequence: kind
        ``"sequence"``, a callable target (a user's function: its own rules say what a sequence
        means) or a constant (evaluated on the values as given). Otherwise -- a function
        registered by a standard, ``numpy:`` or ``scipy:`` name -- such a list stands for the
        array NumPy would make of it, and engines stack it first."""
        return self.family == "callable" or self.kind == "sequence" or self.constant

    @property
    def expectations(self) -> tuple[Expect, ...]:
        """The known limits declared with ``expect=`` (see ``chainrules.Expect``)."""
        return tuple(self.meta.get("expect", ()))

    @property
    def examples(self) -> Callable[[Any], Any] | None:
        """``examples=``: a function of a NumPy random generator returning the example inputs."""
        return self.meta.get("examples")

    @property
    def domain(self) -> tuple[Any, ...] | None:
        """``domain=``: per-argument intervals for generated examples (elementwise rules)."""
        return self.meta.get("domain")

    @property
    def complex_domain(self) -> Any:
        """``complex=``: whether (and in which rectangle) complex inputs are in the domain."""
        return self.meta.get("complex")

    @property
    def arity(self) -> int:
        """``arity=``: the number of positional arguments of generated examples (default 1)."""
        return int(self.meta.get("arity", 1))

    @property
    def hermitian(self) -> tuple[int, ...]:
        """``hermitian=``: the positions of arguments the testers make Hermitian."""
        return tuple(self.meta.get("hermitian", ()))

    @property
    def gauge(self) -> bool:
        """``gauge=True``: outputs defined up to a gauge (eigenvectors' signs and phases)."""
        return bool(self.meta.get("gauge", False))

    @property
    def bind(self) -> Callable[[Any, str], Callable[..., Any]] | None:
        """``bind=``: ``(function_object, kind) -> rule``, each library's function its own rule."""
        return self.meta.get("bind")

    @property
    def bind_in(self) -> Callable[[Any, str, Any], Callable[..., Any]] | None:
        """``bind_in=``: ``(function_object, kind, source) -> rule``, as ``bind=``, and told
        where the registry found the function (a ``chainrules.core.table.Source``: the namespace
        object it was found in and the library that namespace's registration declares)."""
        return self.meta.get("bind_in")

    @property
    def generic(self) -> bool:
        """``generic=True``: a callable target that works on every library's arrays
        (``operator.getitem``, ``scatter_add``), so every backend checks it."""
        return bool(self.meta.get("generic", False))

    @property
    def chunked_pullback(self) -> bool:
        """``chunked_pullback=True``: the rule's pullbacks take a chunk of cotangents,
        ``pullback(y_bar, chunk=k)`` (see :func:`takes_chunks`)."""
        return bool(self.meta.get("chunked_pullback", False))

    @property
    def strong_zero(self) -> bool:
        """``strong_zero=True``: a zero cotangent or tangent gives 0 through the rule also where
        a partial is ``inf`` or NaN (docs/conventions.md, strong zero)."""
        return bool(self.meta.get("strong_zero", False))

    @property
    def module(self) -> str | None:
        """The module that registered it (``module=``, by default the rule's own module)."""
        return self.meta.get("module")

    @property
    def name(self) -> str:
        """How the check command and reports list it: ``sin``, ``numpy:arcsin``, ``mod.fn``."""
        if self.family == ARRAY_API:
            return str(self.target)
        if self.family in (NUMPY, SCIPY):
            return f"{self.family}:{self.target}"
        return qualified_name(self.target)


# The keywords a registration takes, and what each means (Registration's properties read them).
META_KEYS: dict[str, str] = {
    "examples": "a function of a NumPy random generator returning the example inputs: "
    "chainrules.Example objects or (args, kwargs) pairs",
    "expect": "the known limits: a chainrules.Expect or a tuple of them",
    "domain": "per-argument (low, high) intervals, 'int' or 'bool', for generated examples",
    "complex": "True, or a (re_low, re_high, im_low, im_high) rectangle: complex inputs too",
    "arity": "the number of positional arguments of generated examples (without a domain)",
    "hermitian": "the positions of the arguments the testers make Hermitian",
    "gauge": "True where outputs are defined up to a gauge (eigenvectors' signs and phases): "
    "comparisons across libraries compare gauge-invariant parts only",
    "bind": "a function (function_object, kind) -> rule: each library's function its own rule",
    "bind_in": "a function (function_object, kind, source) -> rule, as bind= and told where the "
    "function was found: source.module, the namespace object, and source.library, the library "
    "its registration declares (chainrules.core.table.Source)",
    "generic": "True for a callable target that works on every library's arrays",
    "non_differentiable": "set by chainrules.non_differentiable",
    "zero_derivative": "True where the derivative is zero wherever it exists (round, floor, set "
    "by chainrules.zero_derivative and by scalar_rule with every partial 0): the rules give "
    "zero cotangents and tangents, so engines evaluate the function on the values, as a "
    "constant, and never call them",
    "linear": "True where the function is linear in its floating positional arguments jointly "
    "(up to a constant the other arguments give) and its pullback reads none of their values "
    "(getitem, reshape, sum): engines may pull a cotangent's tangents back through the same "
    "pullback instead of tracing it (a test generated from the registry checks both "
    "properties on the examples)",
    "module": "the module that registered the rule (default: the rule's own module)",
    "standard_name": "the standard's name of an operator target (operator.add: 'add')",
    "strong_zero": "True where a partial derivative can be inf or NaN while the cotangent (or "
    "tangent) is exactly zero: the rule multiplies as a strong zero, 0 * inf = 0 "
    "(docs/conventions.md)",
    "deferred": "the positions of the arguments whose cotangent a scalar_rule's pullback returns "
    "as a Thunk at every size (pow's exponent: a constant one costs no log pass)",
    "chunked_pullback": "True where the rule's pullbacks take pullback(y_bar, chunk=k): a "
    "cotangent with k leading chunk axes, pulled back in one call (engines loop over the "
    "chunk for the other rules)",
    "kind": "what the function is, for engines: one of chainrules.core.registry.KINDS "
    "('constant', 'metadata', 'creation', 'like', 'conversion', 'sequence', 'view', 'cast'); "
    "None (the default) for an ordinary differentiable function",
}


# The vocabulary of ``kind=``: what each kind makes an engine (``chainrules.ad``) do with a call.
# A function's kind is its registration's -- the one of highest precedence among those that reach
# the function object, as for its rules -- never its name.
KINDS: dict[str, str] = {
    "constant": "its result carries no derivative (comparisons, predicates, index finders): "
    "engines evaluate it on the values, at every level of nesting, and never call its rules. "
    "chainrules.non_differentiable declares it",
    "metadata": "a query of dtypes or shapes (finfo, result_type, shape): a constant whose "
    "function in the traced namespace is called on the arrays under the tracers directly",
    "creation": "makes a new array from shapes and numbers (zeros, arange, full): in traced code "
    "a floating result made from no traced array is a created array, a plain value to every "
    "trace, which later writes of traced values turn into a traced array",
    "like": "makes a new array shaped like its first argument (zeros_like): created as a "
    "creation function's when that argument is not traced, a constant when it is",
    "conversion": "asarray: a traced argument is returned as is (cast where a dtype is given), a "
    "list holding traced arrays is stacked, anything else makes a created array",
    "sequence": "takes a sequence of arrays as one argument (stack, concat, einsum's operands): "
    "a list or tuple of traced arrays reaches its rules as such; without it a function "
    "registered by name gets the array NumPy would make of such a list (np.append([x, y], z))",
    "view": "returns a view of its first argument in NumPy (reshape, transpose, real): a write "
    "into its result is refused, as the engine does not carry it back to the base array",
    "cast": "astype(x, dtype, copy=False): returns x itself where x already has the dtype, so "
    "that a write into the result is a write into x; the engine returns the traced x there",
    "write": "writes its other arguments into its first in place and returns None (numpy.copyto, "
    "putmask): nothing carries the derivative out, so an engine refuses a call with traced "
    "arguments with an error that names the call and what to write instead",
}


_CONSTANT_KINDS = frozenset(("constant", "metadata", "like"))


# The attribute that marks an rrule registered with chunked_pullback=True (takes_chunks reads it).
_CHUNKED = "__chainrules_chunked_pullback__"


def takes_chunks(rule: Any) -> bool:
    """Whether the rrule ``rule`` (as :func:`find_rrule` returns it) was registered with
    ``chunked_pullback=True``: its pullbacks then take ``pullback(y_bar, chunk=k)``, a cotangent
    with ``k`` leading chunk axes, and return cotangents with the same leading axes. An engine
    pulls a chunk back through any other rule one cotangent at a time."""
    return getattr(rule, _CHUNKED, False) is True


def mark_chunked(rule: Any) -> Any:
    """Mark ``rule`` (an rrule, or an engine's own structural pullback maker) as taking chunked
    cotangents, as ``chunked_pullback=True`` does at registration; returns ``rule``."""
    setattr(rule, _CHUNKED, True)
    return rule


def _mark_chunked(rule: Any, meta: dict[str, Any]) -> Any:
    if meta.get("chunked_pullback"):
        with contextlib.suppress(AttributeError, TypeError):  # a builtin: not marked
            mark_chunked(rule)
    return rule


_CALLABLE_META = ("examples", "bind", "bind_in")


def _check_meta(meta: dict[str, Any]) -> None:
    unknown = sorted(set(meta) - set(META_KEYS))
    if unknown:
        raise TypeError(
            f"unknown registration keyword{'s' * (len(unknown) > 1)} {', '.join(unknown)}; "
            f"a registration takes {', '.join(META_KEYS)} (see chainrules.core.registry."
            "META_KEYS)"
        )
    kind = meta.get("kind")
    if kind is not None and kind not in KINDS:
        raise TypeError(
            f"kind={kind!r} is not a kind of function; kind= takes one of "
            f"{', '.join(map(repr, KINDS))} (see chainrules.core.registry.KINDS), or None for an "
            "ordinary differentiable function"
        )
    for key in _CALLABLE_META:
        if meta.get(key) is not None and not callable(meta[key]):
            raise TypeError(f"{key}= must be {META_KEYS[key]}, got {type(meta[key]).__name__}")
    if meta.get("bind") is not None and meta.get("bind_in") is not None:
        raise TypeError("give one binder, bind= or bind_in= (which is also told the namespace)")
