"""The rule table and its lookups: the namespaces each rule family covers (``register_namespace``),
the registrations by target, the table of installed rules by function object (filled lazily from
named targets, see ``chainrules.core.registry``), and the lookups engines use (``find_rrule``,
``find_frule``, ``entry_of``, ``registration_of``, ``counterpart``, ``resolve_name``).

Threads: registration, resolution and rebuilding hold ``_LOCK``; lookups read ``_TABLE`` without
it. ``_rebuild`` swaps in a new ``_TABLE``: other modules read it as ``table._TABLE``."""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MethodType
from typing import Any

from .namespaces import qualified_name
from .registration import _FAMILIES, _PRIORITY, ARRAY_API, NUMPY, SCIPY, Registration, _mark_chunked

# The SciPy subpackages whose functions ``"scipy:SUB.NAME"`` targets name.
SCIPY_SUBPACKAGES = ("special", "linalg", "stats", "signal", "integrate")


# An array namespace's SciPy: where the "scipy:" functions for its arrays live, for the namespace
# imported under each name (found by identity: _scipy_of); _COMPAT_SCIPY_OF adds array-api-compat's
# wrappers, which scipy_namespace answers for too.
_SCIPY_OF = {
    "numpy": "scipy",
    "jax.numpy": "jax.scipy",
    "cupy": "cupyx.scipy",
    "torch": "torch",
    "array_api_compat.torch": "torch",
}
_COMPAT_SCIPY_OF = {
    **_SCIPY_OF,
    "array_api_compat.numpy": "scipy",
    "array_api_compat.cupy": "cupyx.scipy",
}


def _scipy_of(module: Any, roots: dict[str, str]) -> str | None:
    """The SciPy root of ``roots`` whose array namespace ``module`` is (the module imported under
    that name, by identity: never the module's own ``__name__``), or None."""
    for name, root in roots.items():
        if sys.modules.get(name) is module:
            return root
    return None


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


@dataclass(frozen=True)
class Source:
    """Where the registry found a function it installs a named registration's rules for: what a
    binder registered with ``bind_in=`` is told, beside the function object.

    ``module`` is the namespace object the function was found in (``jax.scipy.linalg`` for
    ``jax.scipy.linalg.solve``); ``library`` is the library that namespace belongs to, as its
    registration declares it (``"scipy"``, ``"jax"``, ``"cupy"``, ``"torch"``, ``"numpy"``, ...;
    a namespace added with :func:`register_namespace` declares it with ``library=``). A rule
    that must know whose function it was bound to (SciPy's or JAX's ``solve``) reads these, never
    the function's ``__module__`` or a module's ``__name__``."""

    module: Any
    library: str


@dataclass
class _Provider:
    module: str  # import name of the namespace
    family: str
    names: frozenset[str] | None = None  # None: every name of the family
    resolved: bool = False
    prefix: str = ""  # the part of a registered name this namespace stands for ("special.")
    library: str = ""  # the library it belongs to (Source.library); "" for the module's name

    def __post_init__(self) -> None:
        self.library = self.library or self.module


_PROVIDERS: list[_Provider] = [
    _Provider("numpy", ARRAY_API, library="numpy"),
    _Provider("numpy", NUMPY, library="numpy"),
    _Provider("array_api_compat.numpy", ARRAY_API, library="numpy"),
    _Provider("array_api_strict", ARRAY_API, library="array_api_strict"),
    _Provider("jax.numpy", ARRAY_API, library="jax"),
    _Provider("jax.numpy", NUMPY, library="jax"),
    _Provider("cupy", ARRAY_API, library="cupy"),
    _Provider("cupy", NUMPY, library="cupy"),
    _Provider("array_api_compat.cupy", ARRAY_API, library="cupy"),
    _Provider("array_api_compat.torch", ARRAY_API, library="torch"),
    _Provider("torch", ARRAY_API, TORCH_NAMES, library="torch"),
    _Provider("array_api_compat.dask.array", ARRAY_API, library="dask"),
    *(
        _Provider(f"{root}.{sub}", SCIPY, prefix=f"{sub}.", library=library)
        for root, library in (("scipy", "scipy"), ("jax.scipy", "jax"), ("cupyx.scipy", "cupy"))
        for sub in SCIPY_SUBPACKAGES
    ),
]


def register_namespace(
    module: str,
    family: str = ARRAY_API,
    names: frozenset[str] | None = None,
    prefix: str = "",
    library: str | None = None,
) -> None:
    """Make named rules cover the functions of another namespace.

    ``module`` is the import name under which the namespace appears in ``sys.modules`` (it need
    not be imported yet: it is resolved on the first lookup after it is); ``family`` is
    ``"array_api"`` for a namespace that follows the standard's signatures, ``"numpy"`` for one
    that follows NumPy's, ``"scipy"`` for one that follows SciPy's; ``names`` restricts the names
    it answers for; ``prefix`` is the part of a registered name the namespace stands for
    (``register_namespace("torch.special", "scipy", names, prefix="special.")``: the registration
    ``"scipy:special.erf"`` covers ``torch.special.erf``); ``library`` names the library the
    namespace belongs to (default: ``module``), which binders registered with ``bind_in=`` read
    as :attr:`Source.library` (``"torch"`` for ``torch.special``). Used by array libraries and
    wrappers (``chainrules.testing.device`` registers its guarded namespaces this way).

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
    prov = _Provider(module, family, names, prefix=prefix, library=library or module)
    with _LOCK:
        if any(
            (p.module, p.family, p.names, p.prefix, p.library)
            == (module, family, names, prefix, prov.library)
            for p in _PROVIDERS
        ):
            return
        _PROVIDERS.append(prov)
        _RESOLVED_AT[0] = -1  # the new namespace may be resolvable now
        if module in sys.modules:
            _resolve_new()


class _Installed:
    """What the table holds for one function object (what :func:`entry_of` returns): its rules,
    the precedence each was installed with, the name messages use for it, the ``(family, name)``
    registrations it answers to, and what engines read of its registration of highest precedence
    (as plain attributes, one read each): ``kind`` (:attr:`Registration.kind`), ``constant``
    (:attr:`Registration.constant` or :attr:`Registration.zero_derivative`: engines evaluate
    the function on the values and never call its rules) and ``stacks`` (not
    :attr:`Registration.takes_sequences`) and ``linear`` (:attr:`Registration.linear`)."""

    __slots__ = (
        "constant",
        "fprio",
        "frule",
        "keys",
        "kind",
        "kprio",
        "linear",
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
        self.linear = False

    def copy(self) -> _Installed:
        new = _Installed(self.name)
        new.rrule, new.frule, new.rprio, new.fprio = self.rrule, self.frule, self.rprio, self.fprio
        new.keys = list(self.keys)
        new.kind, new.constant, new.stacks, new.kprio, new.linear = (
            self.kind,
            self.constant,
            self.stacks,
            self.kprio,
            self.linear,
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
        # a function whose derivative is zero wherever it exists is a constant to engines too:
        # its rules would give zero cotangents and tangents (round, floor: a program that rounds
        # first records nothing after it)
        e.constant = reg.constant or reg.zero_derivative
        e.stacks = not reg.takes_sequences
        e.linear = reg.linear


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
    if reg.rrule is not None:
        _install(table, "r", obj, _mark_chunked(_bound(reg, obj, "r", prov, mod), reg.meta), prio)
    if reg.frule is not None:
        _install(table, "f", obj, _bound(reg, obj, "f", prov, mod), prio)


def _bound(reg: Registration, obj: Any, kind: str, prov: _Provider, mod: Any) -> Any:
    """``reg``'s ``kind`` rule for ``obj``, found in ``prov``'s namespace ``mod``: its binder's
    (``bind_in=`` is told the :class:`Source`, ``bind=`` the object alone), else the rule as
    registered."""
    if reg.bind_in is not None:
        return reg.bind_in(obj, kind, Source(mod, prov.library))
    if reg.bind is not None:
        return reg.bind(obj, kind)
    return reg.rrule if kind == "r" else reg.frule


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


# len(sys.modules) when the last resolution was published: a namespace becomes resolvable only
# when its module is imported (a new namespace provider resets it), so with no import since,
# nothing is left to resolve
_RESOLVED_AT = [-1]


def _resolve_new() -> bool:
    """Resolve named rules in every namespace imported since the last call. True if any was.
    Returns only after any resolution in progress in another thread is published. With no module
    imported since the last resolution it returns at once: a lookup of a function with no entry
    (a ``traceable`` wrapper, a user's function) costs a length, not the lock and a scan of the
    namespaces (about 1.5 us, once per such call in every gradient)."""
    n = len(sys.modules)
    if n == _RESOLVED_AT[0]:
        return False
    with _LOCK:
        staged: dict[Any, _Installed] = {}
        found = _resolve_pending(staged, _TABLE)
        _TABLE.update(staged)  # one step for readers: each entry goes from old to final
        _RESOLVED_AT[0] = n
    return found


def resolve() -> None:
    """Resolve named rules in every namespace imported so far (lookups do this on demand)."""
    _resolve_new()


def _parse_targets(targets: tuple[Any, ...]) -> list[tuple[str, Any]]:
    """Validate every target before anything is registered (at decoration time, not later)."""
    if not targets:
        raise TypeError("register a rule for at least one target (a function or its name)")
    return [_parse_target(t) for t in targets]


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
    uses odeint's rules), or ``None``. A method whose function is such a wrapper (the methods
    ``chainrules.ad`` gives ``scipy.stats.norm`` while a transformation runs) answers with the
    wrapped function bound to the same object: ``norm.logpdf`` looked up then finds SciPy's
    method's rules."""
    if getattr(f, "__chainrules_traceable__", False):
        wrapped = getattr(f, "__wrapped__", None)
        if type(f) is MethodType and wrapped is not None:
            return MethodType(wrapped, f.__self__)
        return wrapped
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


def bound_methods() -> list[Any]:
    """Every bound method (``types.MethodType``: an object's method) that the table holds rules
    for, in the namespaces imported so far -- ``scipy.stats.norm.logpdf`` and its siblings. What
    an engine reads to find the objects whose methods have rules: the objects themselves (each
    method's ``__self__``), never their names."""
    _resolve_new()
    with _LOCK:
        return [f for f in _TABLE if type(f) is MethodType]


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
    root = _scipy_of(module, _COMPAT_SCIPY_OF)
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
    root = _scipy_of(module, _SCIPY_OF)
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
