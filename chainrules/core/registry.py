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

This module registers rules and calls them (``register_rrule``, ``rrule``, ``traceable``); the
registration record and its metadata are in ``core.registration``, the tables and lookups in
``core.table``, the error messages of a call in ``core.rule_errors``. It re-exports their names.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from . import table
from .examples import Expect
from .namespaces import torch_compiling
from .pytree import dataclass_fields, has_dataclass_node, on_register
from .registration import (
    _PRIORITY,
    ARRAY_API,
    KINDS,
    META_KEYS,
    NUMPY,
    SCIPY,
    NoRuleError,
    Registration,
    _check_meta,
    _mark_chunked,
    mark_chunked,
    takes_chunks,
)
from .rule_errors import (
    IntegerArgumentWarning,
    _misplaced,
    _named,
    _no_rule,
    _not_an_array,
    _tangents_error,
    _warn_integer_only,
    named_error,
)
from .table import (
    _LOCK,
    _PROVIDERS,
    _REGISTRATIONS,
    _TABLE,  # noqa: F401  # the table as imported (for tools); code reads table._TABLE
    TORCH_NAMES,
    Source,
    _entry,
    _install,
    _install_kind,
    _parse_target,
    _parse_targets,
    _rebuild,
    _resolve_into,
    counterpart,
    entry_of,
    find_frule,
    find_rrule,
    function_name,
    register_namespace,
    registered_callables,
    registration_of,
    registrations,
    resolve,
    resolve_name,
    scipy_namespace,
)

__all__ = [
    "ARRAY_API",
    "KINDS",
    "META_KEYS",
    "NUMPY",
    "SCIPY",
    "TORCH_NAMES",
    "IntegerArgumentWarning",
    "NoRuleError",
    "Registration",
    "Source",
    "counterpart",
    "entry_of",
    "find_frule",
    "find_rrule",
    "frule",
    "function_name",
    "mark_chunked",
    "named_error",
    "register_frule",
    "register_kind",
    "register_namespace",
    "register_rrule",
    "registered_callables",
    "registration_of",
    "registrations",
    "resolve",
    "resolve_name",
    "restore",
    "rrule",
    "scipy_namespace",
    "snapshot",
    "takes_chunks",
    "traceable",
    "unregister",
]


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
                    _install(table._TABLE, which, target, rule, _PRIORITY[family])
                _install_kind(_entry(table._TABLE, target, None), reg)
                continue
            for prov in _PROVIDERS:
                if prov.resolved and prov.family == family:
                    mod = sys.modules.get(prov.module)
                    if mod is not None:
                        _resolve_into(table._TABLE, None, prov, mod, reg, target)


def unregister(target: Any) -> None:
    """Remove every rule registered for ``target`` (a callable or a name, as registered); the
    functions it covered fall back to the rules of lower precedence, if any."""
    family, t = _parse_target(target)
    with _LOCK:
        if _REGISTRATIONS.pop((family, t), None) is None:
            raise LookupError(f"no rule is registered for {target!r}")
        _rebuild()


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
    read); :data:`META_KEYS` lists them, and any other keyword is a ``TypeError``. Two change how
    a named rule is installed: ``bind=`` a function ``(function_object, kind) -> rule`` (``kind`` is
    ``"r"`` or ``"f"``) gives each library's function its own rule -- for calls that may hold no
    array to tell the library (``zeros(3)``, ``fftfreq(8)``), so the rule can call exactly the
    function the user called; ``bind_in=`` a function ``(function_object, kind, source) -> rule``
    does the same and is also told where the function was found (a :class:`Source`: the
    namespace object and the library its registration declares), for a rule that must know
    whose function it has (SciPy's ``solve`` or JAX's).

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


def caller_module(depth: int = 2) -> str | None:
    """The name of the module that called the registering function (``depth`` frames up): the
    ``module`` of a registration made without a rule function whose ``__module__`` could say it
    (``register_kind``, ``scalar_rule``, ``non_differentiable``). Metadata only -- the coverage
    report and the layout test read it, as ``warnings.warn(stacklevel=)`` reads the caller --
    never a decision about how a function is differentiated; ``module=`` overrides it."""
    return sys._getframe(depth).f_globals.get("__name__")


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
    meta.setdefault("module", caller_module())
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


def _lookup(kind: str, f: Any, args: tuple[Any, ...]) -> tuple[Any, Any]:
    """``(f's table entry or None, its rule of kind)`` for :func:`rrule` and :func:`frule`; the
    error naming ``f`` (and a misplaced argument) when it has none."""
    try:
        e = table._TABLE.get(f)
    except TypeError:  # an unhashable callable
        e = None
    rule = None if e is None else getattr(e, kind)
    if rule is None:
        rule = find_rrule(f) if kind == "rrule" else find_frule(f)
        if rule is None:
            raise _misplaced(kind, f, args) or _no_rule(kind, f)
    return e, rule


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
    e, rule = _lookup("rrule", f, args)
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
    e, rule = _lookup("frule", f, args)
    try:
        return rule(tangents, *args, **kwargs)
    except (TypeError, ValueError) as err:
        named = _not_an_array("frule", f, args, err) or _named(f, e, err, kwargs)
        if named is None:
            raise
        raise named from err


_HOOKS: dict[type, Any] = {}  # type -> its __chainrules_call__ (None: none; _NODE: a pytree node)
# an engine's __chainrules_call__ -> its __chainrules_call_tree__ (see traceable_running)
_TREE_HOOKS: dict[Any, Any] = {}
_UNSEEN = object()
_NODE = object()


def _hook_of(t: type) -> Any:
    """``t``'s ``__chainrules_call__``, ``_NODE`` for the inner nodes of a pytree (tuple, list,
    named tuple, dict, registered dataclass: ``core.pytree``), else ``None``; cached in ``_HOOKS``
    (a class registered as a dataclass node later is dropped from it: ``_forget``)."""
    hook = getattr(t, "__chainrules_call__", None)
    if hook is None and (
        t is tuple
        or t is list
        or t is dict
        or (issubclass(t, tuple) and hasattr(t, "_fields"))
        or dataclass_fields(t) is not None
    ):
        hook = _NODE
    tree_hook = getattr(t, "__chainrules_call_tree__", None)
    if not torch_compiling():  # torch.compile refuses a global write
        _HOOKS[t] = hook
        if tree_hook is not None:
            _TREE_HOOKS[hook] = tree_hook
    return hook


def untraced(a: Any, b: Any) -> bool:
    """Neither ``a`` nor ``b`` is an engine's traced value (their types have no
    ``__chainrules_call__`` and are no pytree nodes, as seen before): a :func:`traceable`
    function of them would run its body. Its hot callers skip the wrapper with it."""
    return _HOOKS.get(type(a), _UNSEEN) is None and _HOOKS.get(type(b), _UNSEEN) is None


def _forget(cls: type) -> None:
    _HOOKS.pop(cls, None)


on_register.append(_forget)


def _children(tree: Any) -> Any:
    if type(tree) is dict:
        return tree.values()
    spec = dataclass_fields(type(tree))
    if spec is not None:
        return [getattr(tree, f) for f in spec[0]]
    return tree


def _tree_hook(tree: Any) -> Any:
    """The ``__chainrules_call__`` of the first leaf of ``tree`` whose type has one, or
    ``None``."""
    for e in _children(tree):
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
    as one operation differentiated by the function's registered rules (to its
    ``__chainrules_call_tree__``, where it defines one, when an argument holds an instance of a
    registered dataclass: ``core.pytree.register_dataclass``). For every other argument
    the body runs as before, at the cost of one dict lookup of its type per argument (and per
    leaf of a tuple, list or dict).

    A function that has rules already (a library's: ``traceable(scipy.integrate.odeint)``)
    keeps them: the wrapper uses the wrapped function's rules unless it has rules of its own.
    ``traceable`` of a function that is traceable already is that function.
    Otherwise register the rules for the *wrapped* function (apply ``traceable`` first)::

        @chainrules.traceable
        def segment_sum(values, segments, n): ...

        @chainrules.register_rrule(segment_sum)
        def _segment_sum_rrule(values, segments, n): ...
    """

    if getattr(fn, "__chainrules_traceable__", False) is True:
        return fn  # traceable already: wrapping again would only add a second look
    return traceable_running(fn, fn)


def traceable_running(fn: Callable[..., Any], body: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`traceable` ``fn`` that runs ``body`` in its place on arguments that are not traced:
    a rule that computes ``fn``'s primal its own way (SciPy's ``comb`` written with
    ``np.where``, which a guarded device array takes) hands a call on an engine's traced arrays
    to the engine as a call of ``fn``, differentiated by ``fn``'s rules."""

    @functools.wraps(fn)
    def traceable_call(*args: Any, **kwargs: Any) -> Any:
        hook = _tree_hook(args)  # the positional arguments are a tuple: walked as one
        if hook is None and kwargs:
            hook = _tree_hook(kwargs)
        if hook is not None:
            # a registered dataclass among the arguments (looked for only once a class is
            # registered): the engine's hook for calls whose traced values may sit in one,
            # where it has one (its __chainrules_call__ may look at tuples, lists and dicts only)
            if has_dataclass_node(args, kwargs):
                hook = _TREE_HOOKS.get(hook, hook)
            return hook(traceable_call, args, kwargs)
        return body(*args, **kwargs)

    traceable_call.__chainrules_traceable__ = True  # type: ignore[attr-defined]
    # what runs on arrays no engine traces: chainrules.ad.jit's replays call it directly
    traceable_call.__chainrules_body__ = body  # type: ignore[attr-defined]
    return traceable_call
