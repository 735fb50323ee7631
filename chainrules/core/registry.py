"""The rule registry: register, find and call ``rrule`` / ``frule`` definitions.

A rule is registered for *targets*. A target is

* a callable (``my_function``, ``np.linalg.norm``, ``operator.getitem``): exactly that object;
* a string naming a function of the Python Array API standard (``"sin"``,
  ``"linalg.vector_norm"``): that function in every library whose signature follows the
  standard -- NumPy, ``jax.numpy``, CuPy, array-api-strict, array-api-compat's namespaces and the
  elementwise functions of ``torch``;
* a string ``"numpy:NAME"`` naming a NumPy-signature function (``"numpy:arcsin"``,
  ``"numpy:linalg.norm"``): that name in NumPy, CuPy and ``jax.numpy`` together;
* a string ``"scipy:MODULE.NAME"`` naming a SciPy-signature function (``"scipy:special.gammaln"``,
  ``"scipy:linalg.expm"``): that name in ``scipy.MODULE``, ``jax.scipy.MODULE`` and
  ``cupyx.scipy.MODULE``, and in any namespace registered for the family with
  ``register_namespace`` (``torch.special`` for the functions whose signature is SciPy's).

Named targets are resolved lazily: when a function that is not in the table yet is looked up, the
namespaces of every library imported *by then* are scanned once and cached. ``import chainrules``
therefore never imports JAX, PyTorch or CuPy, and a lookup is one dict access.

Precedence when two registrations land on the same function object: a callable target beats a
``"numpy:"`` name, which beats a standard name (NumPy's ``np.max`` takes the NumPy-signature
rule); among equals the later registration wins, so a user can override a library rule.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .examples import Expect
from .namespaces import NotAnArrayError, qualified_name, scalar_kind, torch_compiling

__all__ = [
    "KINDS",
    "META_KEYS",
    "NoRuleError",
    "Registration",
    "counterpart",
    "entry_of",
    "find_frule",
    "find_rrule",
    "frule",
    "function_name",
    "register_frule",
    "register_kind",
    "register_namespace",
    "register_rrule",
    "registered_callables",
    "registration_of",
    "registrations",
    "resolve",
    "rrule",
    "scipy_namespace",
    "takes_chunks",
    "traceable",
]

ARRAY_API = "array_api"
NUMPY = "numpy"
SCIPY = "scipy"
_FAMILIES = (ARRAY_API, NUMPY, SCIPY)
_PRIORITY = {ARRAY_API: 1, NUMPY: 2, SCIPY: 2, "callable": 3}
# An array namespace's SciPy: where the "scipy:" functions for its arrays live.
# The SciPy subpackages whose functions ``"scipy:SUB.NAME"`` targets name.
SCIPY_SUBPACKAGES = ("special", "linalg", "stats", "signal", "integrate")

_SCIPY_OF = {
    "numpy": "scipy",
    "jax.numpy": "jax.scipy",
    "cupy": "cupyx.scipy",
    "torch": "torch",
    "array_api_compat.torch": "torch",
}

# The standard's elementwise functions: torch's own functions of these names take the standard's
# positional signature. Everything else is reached in torch through array_api_compat.torch.
TORCH_NAMES = frozenset(
    (
        "abs",
        "acos",
        "acosh",
        "add",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "bitwise_and",
        "bitwise_left_shift",
        "bitwise_invert",
        "bitwise_or",
        "bitwise_right_shift",
        "bitwise_xor",
        "ceil",
        "clip",
        "conj",
        "copysign",
        "cos",
        "cosh",
        "divide",
        "exp",
        "expm1",
        "floor",
        "floor_divide",
        "greater",
        "greater_equal",
        "hypot",
        "imag",
        "isfinite",
        "isinf",
        "isnan",
        "less",
        "less_equal",
        "log",
        "log1p",
        "log2",
        "log10",
        "logaddexp",
        "logical_and",
        "logical_not",
        "logical_or",
        "logical_xor",
        "maximum",
        "minimum",
        "multiply",
        "negative",
        "nextafter",
        "not_equal",
        "positive",
        "pow",
        "real",
        "reciprocal",
        "remainder",
        "round",
        "sign",
        "signbit",
        "sin",
        "sinh",
        "square",
        "sqrt",
        "subtract",
        "tan",
        "tanh",
        "trunc",
    )
)


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


@dataclass
class _Provider:
    module: str  # import name of the namespace
    family: str
    names: frozenset[str] | None = None  # None: every name of the family
    resolved: bool = False
    prefix: str = ""  # the part of a registered name this namespace stands for ("special.")


_PROVIDERS: list[_Provider] = [
    _Provider("numpy", ARRAY_API),
    _Provider("numpy", NUMPY),
    _Provider("array_api_compat.numpy", ARRAY_API),
    _Provider("array_api_strict", ARRAY_API),
    _Provider("jax.numpy", ARRAY_API),
    _Provider("jax.numpy", NUMPY),
    _Provider("cupy", ARRAY_API),
    _Provider("cupy", NUMPY),
    _Provider("array_api_compat.cupy", ARRAY_API),
    _Provider("array_api_compat.torch", ARRAY_API),
    _Provider("torch", ARRAY_API, TORCH_NAMES),
    _Provider("array_api_compat.dask.array", ARRAY_API),
    *(
        _Provider(f"{root}.{sub}", SCIPY, prefix=f"{sub}.")
        for root in ("scipy", "jax.scipy", "cupyx.scipy")
        for sub in SCIPY_SUBPACKAGES
    ),
]


def register_namespace(
    module: str,
    family: str = ARRAY_API,
    names: frozenset[str] | None = None,
    prefix: str = "",
) -> None:
    """Make named rules cover the functions of another namespace.

    ``module`` is the import name under which the namespace appears in ``sys.modules`` (it need
    not be imported yet: it is resolved on the first lookup after it is); ``family`` is
    ``"array_api"`` for a namespace that follows the standard's signatures, ``"numpy"`` for one
    that follows NumPy's, ``"scipy"`` for one that follows SciPy's; ``names`` restricts the names
    it answers for; ``prefix`` is the part of a registered name the namespace stands for
    (``register_namespace("torch.special", "scipy", names, prefix="special.")``: the registration
    ``"scipy:special.erf"`` covers ``torch.special.erf``). Used by array libraries and wrappers
    (``chainrules.testing.device`` registers its guarded namespaces this way).

    Calls add up: a second call for the same ``module`` and ``family`` with other ``names`` or
    another ``prefix`` adds what it names to what the first made the namespace answer for (a
    repeated identical call changes nothing). A namespace already imported is resolved at once.
    """
    if family not in _FAMILIES:
        raise ValueError(
            f"register_namespace({module!r}): family must be one of {_FAMILIES}, got {family!r}"
        )
    if names is not None:
        names = frozenset(names)
    prov = _Provider(module, family, names, prefix=prefix)
    with _LOCK:
        if any(
            (p.module, p.family, p.names, p.prefix) == (module, family, names, prefix)
            for p in _PROVIDERS
        ):
            return
        _PROVIDERS.append(prov)
        if module in sys.modules:
            _resolve_new()


class _Installed:
    """What the table holds for one function object (what :func:`entry_of` returns): its rules,
    the precedence each was installed with, the name messages use for it, the ``(family, name)``
    registrations it answers to, and what engines read of its registration of highest precedence
    (as plain attributes, one read each): ``kind`` (:attr:`Registration.kind`), ``constant``
    (:attr:`Registration.constant`) and ``stacks`` (not :attr:`Registration.takes_sequences`)."""

    __slots__ = (
        "constant",
        "fprio",
        "frule",
        "keys",
        "kind",
        "kprio",
        "name",
        "rprio",
        "rrule",
        "stacks",
    )

    def __init__(self, name: str | None = None) -> None:
        self.rrule: Callable[..., Any] | None = None
        self.frule: Callable[..., Any] | None = None
        self.rprio = self.fprio = self.kprio = 0
        self.name = name
        self.keys: list[tuple[str, str]] = []
        self.kind: str | None = None
        self.constant = False
        self.stacks = False

    def copy(self) -> _Installed:
        new = _Installed(self.name)
        new.rrule, new.frule, new.rprio, new.fprio = self.rrule, self.frule, self.rprio, self.fprio
        new.keys = list(self.keys)
        new.kind, new.constant, new.stacks, new.kprio = (
            self.kind,
            self.constant,
            self.stacks,
            self.kprio,
        )
        return new


# The one table of rules: function object -> _Installed (one dict access per lookup), filled from
# the registrations: (family, target) -> Registration, family "callable" for callable targets.
_TABLE: dict[Any, _Installed] = {}
_REGISTRATIONS: dict[tuple[str, Any], Registration] = {}
# Threads: registration, resolution and rebuilding hold one lock; lookups read _TABLE without it.
# A reader must never see a half-built state, so resolution fills a staging table and publishes it
# with one dict.update (a function's entry is replaced by its final one, never edited in steps
# where a rule of lower precedence shows first), a rebuild swaps in a whole new table, and a lookup
# that misses reads again after _resolve_new, which waits for any resolution in progress.
_LOCK = threading.RLock()


def _parse_target(target: Any) -> tuple[str, Any]:
    if isinstance(target, str):
        if not target or target.strip() != target:
            raise ValueError(f"invalid rule target name {target!r}")
        family, sep, name = target.partition(":")
        if sep:
            if family not in (NUMPY, SCIPY) or not name:
                raise ValueError(
                    f"unknown family in rule target {target!r}: use a standard name such as "
                    "'sin', 'numpy:NAME' for a NumPy-signature function or "
                    "'scipy:MODULE.NAME' for a SciPy-signature one"
                )
            if family == SCIPY and "." not in name:
                raise ValueError(
                    f"rule target {target!r}: name SciPy's module too, as in "
                    "'scipy:special.gammaln'"
                )
            return family, name
        return ARRAY_API, target
    if not callable(target):
        raise TypeError(
            f"a rule target must be a callable or a function name, got {type(target).__name__}"
        )
    try:
        hash(target)
    except TypeError:
        raise TypeError(f"a rule target must be hashable; {target!r} is not") from None
    return "callable", target


def _getattr_path(mod: Any, name: str) -> Any:
    obj = mod
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if callable(obj) else None


def _entry(
    table: dict[Any, _Installed], obj: Any, base: dict[Any, _Installed] | None
) -> _Installed:
    """``obj``'s entry in ``table``; a new one starts as a copy of its entry in ``base``."""
    e = table.get(obj)
    if e is None:
        old = None if base is None else base.get(obj)
        e = table[obj] = _Installed() if old is None else old.copy()
    return e


def _install(
    table: dict[Any, _Installed],
    kind: str,
    obj: Any,
    rule: Callable[..., Any],
    prio: int,
    base: dict[Any, _Installed] | None = None,
) -> None:
    e = _entry(table, obj, base)
    if kind == "r":
        if e.rprio <= prio:
            e.rrule, e.rprio = rule, prio
    elif e.fprio <= prio:
        e.frule, e.fprio = rule, prio


def _install_kind(e: _Installed, reg: Registration) -> None:
    """Record what engines read of ``reg`` in ``e``, when ``reg`` takes precedence there (the
    later among equals, as for rules): the entry then follows its registration of highest
    precedence, as :func:`registration_of` does."""
    prio = _PRIORITY[reg.family]
    if e.kprio <= prio:
        e.kprio = prio
        e.kind = reg.kind
        e.constant = reg.constant
        e.stacks = not reg.takes_sequences


def _in_provider(prov: _Provider, mod: Any, name: str) -> Any:
    """The function the registered ``name`` denotes in ``prov``'s namespace ``mod`` (or None)."""
    if prov.prefix:
        if not name.startswith(prov.prefix):
            return None
        name = name[len(prov.prefix) :]
    if prov.names is not None and name not in prov.names:
        return None
    return _getattr_path(mod, name)


def _resolve_into(
    table: dict[Any, _Installed],
    base: dict[Any, _Installed] | None,
    prov: _Provider,
    mod: Any,
    reg: Registration,
    name: str,
) -> None:
    """Install ``reg`` (registered as ``name``) for its function in ``prov``'s namespace ``mod``,
    into ``table`` (entries new to it start as copies of ``base``'s)."""
    obj = _in_provider(prov, mod, name)
    if obj is None:
        return
    try:
        hash(obj)
    except TypeError:
        return
    prio = _PRIORITY[reg.family]
    e = _entry(table, obj, base)
    if e.name is None:
        e.name = f"{prov.module}.{name}"
    if (reg.family, name) not in e.keys:
        e.keys.append((reg.family, name))
    _install_kind(e, reg)
    bind = reg.bind
    if reg.rrule is not None:
        r = reg.rrule if bind is None else _mark_chunked(bind(obj, "r"), reg.meta)
        _install(table, "r", obj, r, prio)
    if reg.frule is not None:
        _install(table, "f", obj, reg.frule if bind is None else bind(obj, "f"), prio)


def _resolve_pending(table: dict[Any, _Installed], base: dict[Any, _Installed] | None) -> bool:
    """Resolve every namespace imported and not resolved yet into ``table`` (see _resolve_into).
    The caller holds _LOCK. True if any was."""
    found = False
    for prov in _PROVIDERS:
        if not prov.resolved:
            mod = sys.modules.get(prov.module)
            if mod is not None:
                for (family, name), reg in _REGISTRATIONS.items():
                    if family == prov.family:
                        _resolve_into(table, base, prov, mod, reg, name)
                prov.resolved = found = True
    return found


def _resolve_new() -> bool:
    """Resolve named rules in every namespace imported since the last call. True if any was.
    Returns only after any resolution in progress in another thread is published."""
    with _LOCK:
        staged: dict[Any, _Installed] = {}
        found = _resolve_pending(staged, _TABLE)
        _TABLE.update(staged)  # one step for readers: each entry goes from old to final
    return found


def resolve() -> None:
    """Resolve named rules in every namespace imported so far (lookups do this on demand)."""
    _resolve_new()


def _parse_targets(targets: tuple[Any, ...]) -> list[tuple[str, Any]]:
    """Validate every target before anything is registered (at decoration time, not later)."""
    if not targets:
        raise TypeError("register a rule for at least one target (a function or its name)")
    return [_parse_target(t) for t in targets]


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
    "generic": "True for a callable target that works on every library's arrays",
    "non_differentiable": "set by chainrules.non_differentiable",
    "module": "the module that registered the rule (default: the rule's own module)",
    "standard_name": "the standard's name of an operator target (operator.add: 'add')",
    "strong_zero": "True where a partial derivative can be inf or NaN while the cotangent (or "
    "tangent) is exactly zero: the rule multiplies as a strong zero, 0 * inf = 0 "
    "(docs/conventions.md)",
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


_CALLABLE_META = ("examples", "bind")


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


def _register(
    which: str, parsed: list[tuple[str, Any]], rule: Callable[..., Any] | None, **meta: Any
) -> None:
    """Register ``rule`` as the ``which`` (``"r"`` or ``"f"``) rule of the targets; ``which="k"``
    (``rule`` None): the metadata alone (:func:`register_kind`)."""
    if which != "k" and not callable(rule):
        raise TypeError(f"a rule must be callable, got {type(rule).__name__}")
    _check_meta(meta)
    if which == "r":
        _mark_chunked(rule, meta)
    if "expect" in meta:
        expect = meta["expect"]
        expect = (expect,) if isinstance(expect, Expect) else tuple(expect)
        if not all(isinstance(e, Expect) for e in expect):
            raise TypeError("expect= takes chainrules.Expect declarations (or a tuple of them)")
        meta = {**meta, "expect": expect}
    # a kind declared beside rules registered elsewhere leaves their module as it is
    module = meta.pop("module", None) if which == "k" else getattr(rule, "__module__", None)
    with _LOCK:
        for family, target in parsed:
            reg = _REGISTRATIONS.get((family, target))
            if reg is None:
                reg = _REGISTRATIONS[family, target] = Registration(target, family)
            if which != "k":
                setattr(reg, "rrule" if which == "r" else "frule", rule)
            reg.meta.update(meta)
            reg.meta.setdefault("module", module)
            if family == "callable":
                if rule is not None:
                    _install(_TABLE, which, target, rule, _PRIORITY[family])
                _install_kind(_entry(_TABLE, target, None), reg)
                continue
            for prov in _PROVIDERS:
                if prov.resolved and prov.family == family:
                    mod = sys.modules.get(prov.module)
                    if mod is not None:
                        _resolve_into(_TABLE, None, prov, mod, reg, target)


def unregister(target: Any) -> None:
    """Remove every rule registered for ``target`` (a callable or a name, as registered); the
    functions it covered fall back to the rules of lower precedence, if any."""
    family, t = _parse_target(target)
    with _LOCK:
        if _REGISTRATIONS.pop((family, t), None) is None:
            raise LookupError(f"no rule is registered for {target!r}")
        _rebuild()


def _rebuild() -> None:
    """Install every registration again (after one was removed or restored) into a new table,
    then swap it in: a lookup meanwhile reads the old table, never an empty one. Holds _LOCK."""
    global _TABLE
    table: dict[Any, _Installed] = {}
    for (family, target), reg in _REGISTRATIONS.items():
        if family == "callable":
            for kind, rule in (("r", reg.rrule), ("f", reg.frule)):
                if rule is not None:
                    _install(table, kind, target, rule, _PRIORITY[family])
            _install_kind(_entry(table, target, None), reg)
    for prov in _PROVIDERS:
        prov.resolved = False
    _resolve_pending(table, None)
    _TABLE = table


def snapshot() -> Any:
    """The registry's state, for :func:`restore` (tests that register rules use the pair)."""
    with _LOCK:
        regs = [(k, r, r.rrule, r.frule, dict(r.meta)) for k, r in _REGISTRATIONS.items()]
        return regs, list(_PROVIDERS)


def restore(state: Any) -> None:
    """Put back the registrations of a :func:`snapshot` -- the same objects, with the rules and
    metadata they had -- and its namespaces, dropping any registered since."""
    regs, providers = state
    with _LOCK:
        _PROVIDERS[:] = providers
        _REGISTRATIONS.clear()
        for key, reg, r, f, meta in regs:
            reg.rrule, reg.frule = r, f
            reg.meta.clear()
            reg.meta.update(meta)
            _REGISTRATIONS[key] = reg
        _rebuild()


def register_rrule(
    *targets: Any, **meta: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register ``rule`` as the reverse-mode rule of every target.

    The rule is called as ``rule(*args, **kwargs)`` and returns ``(y, pullback)``;
    ``pullback(y_bar)`` returns ``(f_bar, *arg_bars)``, one entry per positional argument after
    the function's own tangent (``NoTangent()`` for a plain function). See the module docs for what
    a target can be. The decorated function is returned unchanged.

    Keyword arguments are the registration's metadata, read through ``Registration``'s typed
    properties (``examples=``, ``domain=``, ``hermitian=`` for the testers; ``expect=`` for known
    limits, ``chainrules.Expect`` declarations that the test suite and the check command both
    read); :data:`META_KEYS` lists them, and any other keyword is a ``TypeError``. One changes how
    a named rule is installed: ``bind=`` a function ``(function_object, kind) -> rule`` (``kind`` is
    ``"r"`` or ``"f"``) gives each library's function its own rule -- for calls that may hold no
    array to tell the library (``zeros(3)``, ``fftfreq(8)``), so the rule can call exactly the
    function the user called.

    Example
    -------
    >>> import chainrules as cr
    >>> def softplus(x):
    ...     xp = cr.namespace_of(x)
    ...     return xp.logaddexp(x, 0.0)
    >>> @cr.register_rrule(softplus)
    ... def _softplus_rrule(x):
    ...     xp = cr.namespace_of(x)
    ...     y = xp.logaddexp(x, 0.0)
    ...     @cr.pullback(y, (x,))  # unthunk, zero short-circuit, shape check, f's NoTangent
    ...     def softplus_pullback(y_bar):
    ...         return y_bar * (1 / (1 + xp.exp(-x)))
    ...     return y, softplus_pullback
    """

    parsed = _parse_targets(targets)

    def decorator(rule: Callable[..., Any]) -> Callable[..., Any]:
        _register("r", parsed, rule, **meta)
        return rule

    return decorator


def register_kind(*targets: Any, kind: str, **meta: Any) -> None:
    """Declare what functions are, for engines, without registering rules: ``kind=`` is one of
    :data:`KINDS` (what each makes ``chainrules.ad`` do), the other keywords are those of
    :data:`META_KEYS`. Targets are those of :func:`register_rrule` (a callable or a name).

    For functions whose rules are registered, give ``kind=`` to ``register_rrule`` /
    ``register_frule`` instead; this is for the functions that need none: dtype and shape queries
    (``finfo``, ``result_type``), and a user's function whose result carries no derivative::

        @chainrules.traceable
        def n_active(x, threshold): ...

        chainrules.register_kind(n_active, kind="constant")

    A declaration without rules is not listed by :func:`registrations` (which lists rules), but
    :func:`registration_of` finds it, and it takes part in precedence as a registration with
    rules does.
    """
    parsed = _parse_targets(targets)
    meta.setdefault("module", sys._getframe(1).f_globals.get("__name__"))
    _register("k", parsed, None, kind=kind, **meta)


def register_frule(
    *targets: Any, **meta: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register ``rule`` as the forward-mode rule of every target.

    The rule is called as ``rule(tangents, *args, **kwargs)`` with
    ``tangents = (f_dot, *arg_dots)`` and returns ``(y, y_dot)``. A tangent may carry extra
    *leading* (chunk) axes; the rule must push them all in one call.
    """

    parsed = _parse_targets(targets)

    def decorator(rule: Callable[..., Any]) -> Callable[..., Any]:
        _register("f", parsed, rule, **meta)
        return rule

    return decorator


def find_rrule(f: Any) -> Callable[..., Any] | None:
    """The reverse-mode rule registered for ``f``, or ``None`` (never raises; what engines use)."""
    try:
        e = _TABLE.get(f)
    except TypeError:  # unhashable callables cannot have rules
        return None
    if e is None or e.rrule is None:
        _resolve_new()  # also waits for a resolution in progress: read again either way
        e = _TABLE.get(f)
    if e is None or e.rrule is None:
        wrapped = _traceable_of(f)
        return None if wrapped is None else find_rrule(wrapped)
    return e.rrule


def _traceable_of(f: Any) -> Any:
    """The function a :func:`traceable` wrapper wraps (``traceable(scipy.integrate.odeint)``
    uses odeint's rules), or ``None``."""
    if getattr(f, "__chainrules_traceable__", False):
        return getattr(f, "__wrapped__", None)
    return None


def find_frule(f: Any) -> Callable[..., Any] | None:
    """The forward-mode rule registered for ``f``, or ``None``."""
    try:
        e = _TABLE.get(f)
    except TypeError:
        return None
    if e is None or e.frule is None:
        _resolve_new()
        e = _TABLE.get(f)
    if e is None or e.frule is None:
        wrapped = _traceable_of(f)
        return None if wrapped is None else find_frule(wrapped)
    return e.frule


def entry_of(f: Any) -> _Installed | None:
    """What the table holds for the function object ``f`` -- its rules (``.rrule``, ``.frule``)
    and what engines read of its registration (``.kind``, ``.constant``, ``.stacks``) -- in one
    dict access, or ``None`` when nothing is registered for it. Named registrations are resolved
    on a miss; a :func:`traceable` wrapper with no entry of its own answers with the function it
    wraps. What engines use to decide what a call is: never the function's name."""
    try:
        e = _TABLE.get(f)
    except TypeError:  # unhashable callables cannot be registered
        return None
    if e is None:
        _resolve_new()  # also waits for a resolution in progress: read again either way
        e = _TABLE.get(f)
        if e is None:
            wrapped = _traceable_of(f)
            return None if wrapped is None else entry_of(wrapped)
    return e


def registration_of(f: Any) -> Registration | None:
    """The registration whose rules a lookup of the function object ``f`` finds -- the one of
    highest precedence (a callable, then a ``"numpy:"``/``"scipy:"`` name, then a standard name;
    the later among equals), whose ``kind`` engines read -- or ``None`` when no registration
    (of rules, or of a kind alone: :func:`register_kind`) reaches ``f``."""
    try:
        reg = _REGISTRATIONS.get(("callable", f))
        if reg is not None:
            return reg
        e = _TABLE.get(f)
        if e is None:
            _resolve_new()
            e = _TABLE.get(f)
    except TypeError:  # unhashable
        return None
    found = [_REGISTRATIONS[k] for k in (e.keys if e is not None else ()) if k in _REGISTRATIONS]
    if not found:
        return None
    return max(reversed(found), key=lambda r: _PRIORITY[r.family])


def function_name(f: Any) -> str:
    """The name chainrules uses for ``f`` in messages (``numpy.sin``, ``jax.numpy.sin``)."""
    try:
        e = _TABLE.get(f)
    except TypeError:
        e = None
    return (e.name if e is not None else None) or qualified_name(f)


def counterpart(f: Any, module: Any) -> Any:
    """The function of ``module`` (a namespace such as ``jax.numpy``) that ``f`` stands for.

    ``counterpart(np.arccos, jax.numpy)`` is ``jax.numpy.arccos``: found through the standard or
    NumPy name ``f`` was registered under. A callable registered directly (a user's generic
    function) is its own counterpart. ``None`` when there is none.
    """
    try:
        if ("callable", f) in _REGISTRATIONS:
            return f
        e = _TABLE.get(f)
        if e is None or not e.keys:
            _resolve_new()
            e = _TABLE.get(f)
    except TypeError:
        return None
    keys = e.keys if e is not None else ()
    for family, name in sorted(keys, key=lambda k: k[0] != ARRAY_API):
        obj = resolve_name(family, name, module)
        if obj is not None:
            return obj
    return None


# --- the errors of a call that went wrong before any rule ran (only ever built on a miss) -------
def _placeholders(n: int) -> list[str]:
    """Names for ``n`` arguments in a suggested call: ``x``, or ``x1, x2, ...``."""
    return ["x"] if n == 1 else [f"x{i + 1}" for i in range(n)]


def _what(x: Any) -> str:
    """``x`` in a message: ``the string 'sin'``, ``a numpy.ndarray``, ``the function numpy.sin``."""
    if isinstance(x, str):
        return f"the string {x!r}"
    if callable(x) and not hasattr(x, "shape"):
        return f"the function {function_name(x)}"
    t = type(x)
    mod = t.__module__.partition(".")[0]
    return f"a {t.__qualname__ if mod == 'builtins' else f'{mod}.{t.__qualname__}'}"


def _misplaced(kind: str, f: Any, args: tuple[Any, ...]) -> TypeError | None:
    """The error for a call whose ``f`` is no function -- a name (``rrule("sin", x)``) or an
    argument that belongs after it (``rrule(x, np.sin)``) -- or ``None`` when ``f`` is callable.
    Reached only when no rule is found, so the common call pays nothing for it."""
    if callable(f) and not isinstance(f, str):
        return None
    call = "cr.rrule(f, *args)" if kind == "rrule" else "cr.frule(tangents, f, *args)"
    head = "" if kind == "rrule" else "tangents, "
    if isinstance(f, str):
        family, _, name = f.rpartition(":")
        # a standard or NumPy name is NumPy's in the example; a dotted name that starts with an
        # imported module ("numpy.sin") is shown as given
        top = name.partition(".")[0]
        example = (
            f"scipy.{name}" if family == "scipy" else name if top in sys.modules else f"np.{name}"
        )
        xs = ", ".join(_placeholders(max(len(args), 1)))
        return TypeError(
            f"{kind}: its function argument f is {_what(f)}; expected the function itself (a "
            f"callable), as in {call}. Pass the function, not its name: "
            f"cr.{kind}({head}{example}, {xs}) (names such as 'sin' are for registering "
            f"rules: @cr.register_{kind}('sin'))"
        )
    fns = [i for i, a in enumerate(args) if callable(a) and not hasattr(a, "shape")]
    if fns:  # the function came later: the arguments were swapped
        fn = args[fns[0]]
        rest = [f, *(a for i, a in enumerate(args) if i != fns[0])]
        xs = ", ".join(_placeholders(len(rest)))
        return TypeError(
            f"{kind}: the function comes first: expected {call}, got {_what(f)} as f and "
            f"{_what(fn)} after it. Swap them: cr.{kind}({head}{function_name(fn)}, {xs})"
        )
    return TypeError(
        f"{kind}: its function argument f is {_what(f)}; expected the function to "
        f"differentiate (a callable) first, as in {call}, e.g. cr.{kind}({head}np.sin, x)"
    )


def _tangents_error(f: Any, tangents: Any, args: tuple[Any, ...]) -> TypeError | ValueError:
    """The error for an frule call whose ``tangents`` is not a tuple of one tangent for ``f``
    and one per positional argument; the suggested call is built from what was passed."""
    if callable(tangents) and not isinstance(tangents, tuple) and not hasattr(tangents, "shape"):
        # cr.frule(np.exp, x): the tangents were left out, so the function came first
        n = len(args) + 1
        xs = _placeholders(n)
        dxs = ", ".join(f"d{x}" for x in xs)
        return TypeError(
            f"frule: its first argument is the tangents tuple (f_dot, *arg_dots), then the "
            f"function, then its arguments; got {_what(tangents)} first. Pass the tangents: "
            f"cr.frule((cr.NoTangent(), {dxs}), {function_name(tangents)}, {', '.join(xs)}), "
            f"with {dxs} the tangent{'s' * (n > 1)} of {', '.join(xs)} (NoTangent() for f itself)"
        )
    n = len(args) + 1
    xs = _placeholders(len(args)) if args else []
    example = f"(cr.NoTangent(), {', '.join(f'd{x}' for x in xs)})" if xs else "(cr.NoTangent(),)"
    if isinstance(tangents, tuple):
        got = f"{len(tangents)} tangent{'s' * (len(tangents) != 1)}"
    else:
        got = type(tangents).__name__
    fix = "a tuple, not a list" if isinstance(tangents, list) else example
    return ValueError(
        f"frule of {function_name(f)}: expected a tuple of {n} tangents (f_dot, then one per "
        f"positional argument), got {got}; pass {fix}, as in "
        f"cr.frule({example}, {function_name(f)}{''.join(', ' + x for x in xs)})"
    )


def _not_an_array(kind: str, f: Any, args: tuple[Any, ...], err: BaseException) -> TypeError | None:
    """The error for an argument that is no array (``rrule(np.sin, [1.0, 2.0])``), naming the
    function and the argument, when the rule failed to find the namespace of ``args``' value of
    type ``err.got``; ``None`` for any other error."""
    if not isinstance(err, NotAnArrayError):
        return None
    pos = next((i for i, a in enumerate(args) if type(a) is err.got), None)
    if pos is None:
        return None  # from a keyword argument or a value the rule built: the message stands
    name = function_name(f)
    param = _param_name(f, pos)
    xs = _placeholders(len(args))
    xs[pos] = f"np.asarray({xs[pos]})"
    head = "" if kind == "rrule" else "tangents, "
    return TypeError(
        f"{kind} of {name}: argument {pos}{param} is {_what(args[pos])}; expected an array (or "
        f"a Python scalar). Convert it first: cr.{kind}({head}{name}, {', '.join(xs)}) -- or "
        f"xp.asarray with another array library's namespace xp"
    )


def _param_name(f: Any, pos: int) -> str:
    """`` ('x')``, the name of ``f``'s positional parameter ``pos`` in parentheses, or ``""``."""
    with contextlib.suppress(TypeError, ValueError):
        params = list(inspect.signature(f).parameters.values())
        if pos < len(params) and params[pos].kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            return f" ({params[pos].name!r})"
    return ""


class IntegerArgumentWarning(UserWarning):
    """:func:`rrule` was called with integer or boolean arrays only, for a floating result
    (``rrule(np.sin, np.arange(3))``): such arrays have no tangent space, so the pullback can give
    nothing but ``NoTangent()``. Cast the argument to floating point to differentiate it."""


def _kind_of(a: Any) -> str | None:
    """``b``/``i``/``f``/``c`` for an array or a Python number, ``None`` for anything else."""
    if type(a) in (bool, int, float, complex) or (
        not isinstance(a, type) and hasattr(a, "dtype") and hasattr(a, "shape")
    ):
        with contextlib.suppress(TypeError, AttributeError):
            return scalar_kind(a)
    return None


def _warn_integer_only(f: Any, args: tuple[Any, ...], y: Any) -> None:
    """Warn when every array among ``args`` is an integer or boolean one and ``y`` is floating:
    the pullback could then only answer ``NoTangent()`` (the silent case of ``rrule(np.sin,
    np.arange(3))``). Cheap: one look at each argument's dtype."""
    ints = []
    for i, a in enumerate(args):
        k = _kind_of(a)
        if k is None and not (a is None or isinstance(a, str)):
            return  # a sequence (np.choose's choices) may hold floating arrays; a dtype converts
        if k is not None and k in "fc":
            return
        if k is not None and k in "bi" and type(a) not in (bool, int):
            ints.append(i)
    if not ints:
        return
    ys = y if isinstance(y, tuple) else (y,)
    if not any((_kind_of(v) or "") in ("f", "c") for v in ys):
        return
    name = function_name(f)
    xs = _placeholders(len(args))
    for i in ints:
        xs[i] = f"{xs[i]}.astype(np.float64)"
    which = " and ".join(f"{i}{_param_name(f, i)}" for i in ints)
    dtypes = " and ".join(dict.fromkeys(str(args[i].dtype) for i in ints))
    what, it = ("argument", "it") if len(ints) == 1 else ("arguments", "them")
    are = "is an array" if len(ints) == 1 else "are arrays"
    warnings.warn(
        f"rrule of {name}: {what} {which} {are} of dtype {dtypes}; integer and boolean arrays "
        f"have no tangent space, so the pullback gives NoTangent() for {it} though {name}'s "
        f"result is floating. To differentiate with respect to {it}, cast first: "
        f"cr.rrule({name}, {', '.join(xs)})",
        IntegerArgumentWarning,
        stacklevel=3,
    )


def _no_rule(kind: str, f: Any) -> NoRuleError:
    name = function_name(f)
    other = find_frule(f) if kind == "rrule" else find_rrule(f)
    hint = f" (an {'frule' if kind == 'rrule' else 'rrule'} is registered for it)" if other else ""
    return NoRuleError(
        f"no {kind} is registered for {name}{hint}. Register one with "
        f"@chainrules.register_{kind}({name}) -- or for a function of the Array API standard by "
        f"its name, e.g. @chainrules.register_{kind}('sin') -- or declare it with "
        f"chainrules.non_differentiable({name})"
    )


# Arguments that hold axes: a refused call names the first that is no integer (axis=1.5).
_AXIS_PARAMS = (
    "axis",
    "axes",
    "axis1",
    "axis2",
    "axisa",
    "axisb",
    "axisc",
    "source",
    "destination",
)


def _not_an_axis(v: Any) -> bool:
    if v is None:
        return False
    if isinstance(v, (tuple, list)):
        return any(_not_an_axis(a) for a in v)
    if isinstance(v, bool):
        return True
    try:
        v.__index__()
    except (AttributeError, TypeError):
        return True
    return False


def _is_rule_name(head: str) -> bool:
    """Whether a message's ``head: ...`` names a registered function (``max``, ``prod``)."""
    short = head.rpartition(".")[2]
    return short.isidentifier() and any(
        isinstance(t, str) and t.rpartition(".")[2] == short for _, t in list(_REGISTRATIONS)
    )


def named_error(
    name: str,
    err: BaseException,
    kwargs: Any = None,
    bare: bool = True,
    aliases: tuple[str, ...] = (),
) -> BaseException | None:
    """``err`` (a ``TypeError`` or ``ValueError``) as the same type, its message naming ``name``,
    the function the user called: a message that names another registered function first
    (``max: ...`` from the rule ``amax`` shares, ``prod: ...`` from the rule ``nanprod`` calls) is
    renamed; with
    ``bare``, a message naming none (the library's own) is prefixed, with the axis-like keyword
    that is no integer if there is one. ``None`` when nothing changes or the type cannot carry a
    new message. ``aliases``: the other names of the same function object (``np.concat`` is
    ``np.concatenate``), which a message may name as well."""
    msg = str(err)
    head, sep, rest = msg.partition(": ")
    if sep and head.rpartition(".")[2] in (name, *aliases):
        return None
    if sep and head not in (kwargs or ()) and _is_rule_name(head):
        msg = f"{name}: {rest}"  # another rule's name, from a rule shared or called
    elif not bare:
        return None
    else:
        bad = next(
            (p for p in _AXIS_PARAMS if p in (kwargs or ()) and _not_an_axis(kwargs[p])), None
        )
        arg = f"{bad}={kwargs[bad]!r} is refused: " if bad is not None else ""
        msg = f"{name}: {arg}{msg}"
    try:
        new = type(err)(msg)
    except Exception:  # noqa: BLE001  (an exception type with its own constructor: keep it)
        return None
    return new if str(new) == msg else None


def _named(f: Any, e: _Installed | None, err: BaseException, kwargs: Any) -> BaseException | None:
    """``named_error`` for the called ``f`` (``amax`` for ``np.amax``); a bare message is prefixed
    for non-differentiable registrations only, whose rule is the library's own call."""
    if e is None:  # found on a first lookup, which resolved it
        with contextlib.suppress(TypeError):
            e = _TABLE.get(f)
    full = (e.name if e is not None else None) or qualified_name(f)
    keys = [("callable", f)] if e is None else [("callable", f), *e.keys]
    regs = [_REGISTRATIONS.get(k) for k in keys]
    bare = any(r is not None and r.non_differentiable for r in regs)
    aliases = tuple(str(k[1]).rpartition(".")[2] for k in keys[1:])
    return named_error(full.rpartition(".")[2], err, kwargs, bare, aliases)


def rrule(f: Any, /, *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """Evaluate ``f(*args, **kwargs)`` and return ``(y, pullback)``.

    ``pullback(y_bar)`` returns ``(f_bar, *arg_bars)``: the tangent of ``f`` itself first
    (``NoTangent()`` for plain functions), then one cotangent per positional argument. Keyword
    arguments are never differentiated. Raises ``NoRuleError`` when no rule is registered.

    Integer and boolean arrays have no tangent space: their cotangent is ``NoTangent()``, also
    where the output is floating (``rrule(np.sin, np.arange(3))``, which warns with
    :class:`IntegerArgumentWarning` when no argument is floating). Cast such an argument to
    floating point (``x.astype(np.float64)``) to differentiate with respect to it;
    ``chainrules.ad.grad`` refuses integer arguments outright.

    >>> import numpy as np, chainrules as cr
    >>> y, pullback = cr.rrule(np.sin, np.array([0.0, 1.0]))
    >>> pullback(np.ones(2))[1]
    array([1.        , 0.54030231])
    """
    try:
        e = _TABLE.get(f)
    except TypeError:
        e = None
    rule = None if e is None else e.rrule
    if rule is None:
        rule = find_rrule(f)
        if rule is None:
            raise _misplaced("rrule", f, args) or _no_rule("rrule", f)
    try:
        out = rule(*args, **kwargs)
    except (TypeError, ValueError) as err:
        named = _not_an_array("rrule", f, args, err) or _named(f, e, err, kwargs)
        if named is None:
            raise
        raise named from err
    _warn_integer_only(f, args, out[0])
    return out


def frule(tangents: tuple[Any, ...], f: Any, /, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """Evaluate ``f(*args, **kwargs)`` and push ``tangents = (f_dot, *arg_dots)`` forward.

    Returns ``(y, y_dot)``. Tangents may carry extra leading (chunk) axes: a tangent of shape
    ``(k, *x.shape)`` pushes ``k`` directions in one call and ``y_dot`` has shape
    ``(k, *y.shape)``.

    >>> import numpy as np, chainrules as cr
    >>> x = np.array([0.0, 1.0])
    >>> y, y_dot = cr.frule((cr.NoTangent(), np.ones(2)), np.sin, x)
    >>> y_dot
    array([1.        , 0.54030231])
    """
    if not isinstance(tangents, tuple) or len(tangents) != len(args) + 1:
        raise _tangents_error(f, tangents, args)
    try:
        e = _TABLE.get(f)
    except TypeError:
        e = None
    rule = None if e is None else e.frule
    if rule is None:
        rule = find_frule(f)
        if rule is None:
            raise _misplaced("frule", f, args) or _no_rule("frule", f)
    try:
        return rule(tangents, *args, **kwargs)
    except (TypeError, ValueError) as err:
        named = _not_an_array("frule", f, args, err) or _named(f, e, err, kwargs)
        if named is None:
            raise
        raise named from err


_CALLABLES: tuple[Any, tuple[Any, ...]] = (None, ())


def registered_callables() -> tuple[Any, ...]:
    """Every function registered as a callable target (``register_rrule(f)``), oldest first.
    Cheap to call often: the tuple is rebuilt only after the registrations change."""
    global _CALLABLES
    regs = _REGISTRATIONS
    key = (len(regs), next(reversed(regs), None))
    if _CALLABLES[0] != key:
        with _LOCK:
            found = tuple(t for family, t in list(regs) if family == "callable")
        _CALLABLES = (key, found)
    return _CALLABLES[1]


def registrations() -> Iterator[Registration]:
    """Every registration of a rule, named ones first, in registration order (declarations of a
    kind alone, :func:`register_kind`, are not listed: they have no rule to check)."""
    with _LOCK:
        regs = [
            (k, r) for k, r in _REGISTRATIONS.items() if r.rrule is not None or r.frule is not None
        ]
    yield from (r for (family, _), r in regs if family != "callable")
    yield from (r for (family, _), r in regs if family == "callable")


def scipy_namespace(module: Any, sub: str) -> Any:
    """The SciPy subpackage ``sub`` (``"special"``, ``"linalg"``, ...) that goes with the array
    namespace ``module``: ``scipy.special`` for NumPy (and array-api-compat's NumPy),
    ``jax.scipy.special`` for ``jax.numpy``, ``cupyx.scipy.special`` for CuPy, ``torch.special``
    for torch. Imported if it is installed; ``None`` if there is none."""
    mod_name = str(getattr(module, "__name__", "")).removeprefix("array_api_compat.")
    root = _SCIPY_OF.get(mod_name)
    if root is None or (root == "torch" and sub != "special"):
        return None
    try:
        return importlib.import_module(f"{root}.{sub}")
    except ImportError:
        return None


def resolve_name(family: str, name: str, module: Any) -> Any:
    """The function object the registered ``name`` of ``family`` denotes for ``module``, an array
    namespace (``numpy``, ``jax.numpy``); ``None`` if it has none. A ``"scipy"`` name is looked
    up in the namespace's SciPy (``scipy``, ``jax.scipy``, ``cupyx.scipy``, ``torch.special``),
    which is imported if it is installed and not imported yet."""
    if family != SCIPY:
        return _getattr_path(module, name)
    root = _SCIPY_OF.get(getattr(module, "__name__", ""))
    if root is None:
        return None
    sub = name.split(".", 1)[0]
    for prov in _PROVIDERS:
        if prov.family == SCIPY and prov.module == f"{root}.{sub}":
            try:
                mod = importlib.import_module(prov.module)
            except ImportError:
                return None
            obj = _in_provider(prov, mod, name)
            if obj is not None:
                return obj
    return None


_HOOKS: dict[type, Any] = {}  # type -> its __chainrules_call__ (None: none; _NODE: a pytree node)
_UNSEEN = object()
_NODE = object()


def _hook_of(t: type) -> Any:
    """``t``'s ``__chainrules_call__``, ``_NODE`` for the inner nodes of a pytree (tuple, list,
    named tuple, dict: ``core.pytree``), else ``None``; cached in ``_HOOKS``."""
    hook = getattr(t, "__chainrules_call__", None)
    if hook is None and (
        t is tuple or t is list or t is dict or (issubclass(t, tuple) and hasattr(t, "_fields"))
    ):
        hook = _NODE
    if not torch_compiling():  # torch.compile refuses a global write
        _HOOKS[t] = hook
    return hook


def _tree_hook(tree: Any) -> Any:
    """The ``__chainrules_call__`` of the first leaf of ``tree`` whose type has one, or
    ``None``."""
    for e in tree.values() if type(tree) is dict else tree:
        hook = _HOOKS.get(type(e), _UNSEEN)
        if hook is _UNSEEN:
            hook = _hook_of(type(e))
        if hook is _NODE:
            hook = _tree_hook(e)
        if hook is not None:
            return hook
    return None


def traceable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Make a Python function with registered rules visible to AD engines as one operation.

    A function written with array operations (``scatter_add``, ``unsum``, a user's
    ``segment_sum``) runs its body when called. An engine that traces programs with its own array
    type (``chainrules.ad``'s tracers) would then see the body's operations -- or fail on a fast
    path that only works for NumPy arrays. Wrapped with ``traceable``, the function first looks
    at the types of the leaves of its arguments -- positional and keyword, walked as pytrees
    (tuples, lists, named tuples, dicts, nested: ``chainrules.core.pytree``): when one defines
    ``__chainrules_call__(fn, args, kwargs)``, the call is handed to it, and the engine records it
    as one operation differentiated by the function's registered rules. For every other argument
    the body runs as before, at the cost of one dict lookup of its type per argument (and per
    leaf of a tuple, list or dict).

    A function that has rules already (a library's: ``traceable(scipy.integrate.odeint)``)
    keeps them: the wrapper uses the wrapped function's rules unless it has rules of its own.
    Otherwise register the rules for the *wrapped* function (apply ``traceable`` first)::

        @chainrules.traceable
        def segment_sum(values, segments, n): ...

        @chainrules.register_rrule(segment_sum)
        def _segment_sum_rrule(values, segments, n): ...
    """

    @functools.wraps(fn)
    def traceable_call(*args: Any, **kwargs: Any) -> Any:
        hook = _tree_hook(args)  # the positional arguments are a tuple: walked as one
        if hook is None and kwargs:
            hook = _tree_hook(kwargs)
        if hook is not None:
            return hook(traceable_call, args, kwargs)
        return fn(*args, **kwargs)

    traceable_call.__chainrules_traceable__ = True  # type: ignore[attr-defined]
    return traceable_call
