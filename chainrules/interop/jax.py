"""JAX bridge: ``wrap(f)`` is a function of JAX arrays whose derivatives come from ``f``'s rules.

Two modes:

* ``mode="jvp"`` (the default): a ``jax.custom_jvp`` whose JVP is the registered **frule**. JAX
  gets forward mode directly and reverse mode by transposing the frule's pushforward (linear in
  the tangents and built from ``jax.numpy`` operations), so ``jvp``, ``grad``, ``jacfwd``,
  ``jacrev``, ``hessian`` and higher orders all work, under ``jit`` and ``vmap``. Inputs that JAX
  does not differentiate reach the frule as ``ZeroTangent()`` (JAX's symbolic zeros), so their
  terms are never computed. The ``custom_jvp`` is called through ``jax.jit``, so that eager
  ``grad`` is one compiled forward and one compiled backward rather than one dispatch per
  primitive of the frule; a rule that reads values on the host (which ``jit`` cannot trace)
  runs without it (``_jit_unless_untraceable``). A function with an rrule and no frule gets its
  JVP from the pullback, transposed with ``jax.linear_transpose`` (a pullback is linear in the
  cotangent): forward mode, ``jacfwd`` and ``hessian`` work for it too.
* ``mode="vjp"``: a ``jax.custom_vjp`` whose backward pass is the registered **rrule**'s pullback.
  A pullback is a Python closure, which JAX does not accept as a residual, so the bridge
  *closure-converts* it: the arrays the pullback holds (in its closure cells, defaults, nested
  closures, ``functools.partial`` objects and chainrules objects such as projectors) become the
  residuals, and the backward pass calls a copy of the pullback rebuilt around them. Nothing is
  recomputed. A pullback holding an object the bridge cannot look into falls back to saving the
  inputs and recomputing the rrule in the backward pass. Cotangents of inputs JAX does not
  differentiate are not forced (a ``Thunk`` stays unevaluated) and are returned as zeros.
  Like ``jvp`` mode it is called through ``jax.jit`` (one compiled forward and backward for an
  eager ``grad``), unless a first trace of its backward pass fails (``_jit_unless_untraceable``).
  Reverse mode of any order (the backward pass runs ``jax.numpy`` code, which JAX differentiates
  itself); forward mode (``jvp``, ``jacfwd``, ``hessian``) is refused by JAX for a
  ``custom_vjp``, by design.

Rules that compute on the host (SciPy's functions take NumPy arrays): where a trace of the rule
fails converting a traced array to NumPy, its derivative runs through ``jax.pure_callback`` on
NumPy copies, one direction per mode -- ``mode="jvp"`` forward mode, ``mode="vjp"`` reverse mode
(JAX cannot transpose a callback; custom transposition, jax-ml/jax#9129, is not in JAX).

Sharding: in JAX's explicit sharding mode the ``vjp`` mode runs the pullback with the mesh's
explicit axes made automatic (``jax.sharding.auto_axes``) and gives each cotangent its primal's
sharding, as JAX's own transposes do; ``jvp`` mode needs nothing (JAX transposes the frule).

Arguments: JAX arrays, NumPy arrays and NumPy scalars anywhere in the (nested tuple / list / named
tuple / dict / registered dataclass: ``core.pytree``) arguments are traced and differentiated; a
dataclass that JAX knows (``jax.tree_util.register_dataclass``) and chainrules does not is
registered with chainrules on first sight with JAX's data fields (``_adopt_dataclasses``) (NumPy
values are converted with ``jnp.asarray`` at the boundary); every other leaf -- Python numbers,
strings, ``None``, slices, axes, orders -- is static. Integer and boolean arrays are traced (so they
may be batched by ``vmap`` or be ``jit`` arguments) and get a zero (``float0``) cotangent. A keyword
argument holding a floating array is moved to its position (``core.calls.bind_keywords``); one that
cannot move raises ``KeywordDerivativeError`` when JAX differentiates it (in ``vjp`` mode such a
call structure runs without the ``jit``, whose perturbation flags cannot be trusted). The
``custom_jvp`` / ``custom_vjp`` is built once per call structure (the static leaves and where the
arrays are) and reused, by later ``wrap`` calls of the same function, mode and rules
too.

Complex numbers: JAX's cotangent of a complex input is the conjugate of chainrules' (see
``DESIGN.md``); the ``vjp`` mode conjugates on the way in and out. Tangents (forward mode) need no
conversion.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero
from jax.tree_util import GetAttrKey

from ..core.calls import *
from ..core.config import RULE_CONFIG, RuleConfig, rule_config
from ..core.pytree import flatten, register_dataclass, unregistered_dataclass
from ..core.tangents import NoTangent, ZeroTangent
from ._closure import Opaque, Walk, rebuild
from ._derived import complete

__all__ = ["KeywordDerivativeError", "wrap"]

_float0 = jax.dtypes.float0
_ZERO = ZeroTangent()
_CACHE_SIZE = 256


def _is_dynamic(x: Any) -> bool:
    return isinstance(x, (jax.Array, np.ndarray, np.generic))


def _inexact(x: Any) -> bool:
    return bool(jnp.issubdtype(x.dtype, jnp.inexact))


def _inexact_leaf(x: Any) -> bool:
    return _is_dynamic(x) and _inexact(x)


def _keyword_leaves(sp: Any, unbound: list[str]) -> dict[int, str]:
    """The dynamic leaves (indices into ``sp.dynamic``) of floating arrays in keyword arguments
    that ``bind_keywords`` could not move to a position, with their keyword."""
    return {k: kw for k, kw in sp.keyword_leaves(unbound) if _inexact(sp.leaves[sp.dynamic[k]])}


def _is_complex(x: Any) -> bool:
    return bool(jnp.issubdtype(x.dtype, jnp.complexfloating))


def _zeros_like_ct(x: Any) -> Any:
    """The zero cotangent JAX expects for primal ``x`` (``float0`` for integers and booleans)."""
    if _inexact(x):
        return jnp.zeros_like(x)
    return np.zeros(x.shape, dtype=_float0)


def wrap(f: Any, *, mode: str = "jvp") -> Any:
    """A function of JAX arrays computing ``f`` whose derivatives come from ``f``'s rules.

    ``mode="jvp"`` builds a ``jax.custom_jvp`` from the registered frule, or from the rrule's
    pullback transposed where there is no frule (every transformation, any order);
    ``mode="vjp"`` a ``jax.custom_vjp`` from the registered rrule (reverse mode only).
    Raises ``chainrules.NoRuleError`` naming ``f`` when the needed rule is not registered.

    >>> import jax, jax.numpy as jnp, numpy as np
    >>> from chainrules.interop import jax as crjax
    >>> norm = crjax.wrap(np.linalg.norm)
    >>> np.asarray(jax.grad(norm)(jnp.array([3.0, 4.0])), dtype=float).round(6).tolist()
    [0.6, 0.8]
    """
    if mode not in ("jvp", "vjp"):
        raise ValueError(f"chainrules.interop.jax.wrap: mode must be 'jvp' or 'vjp', got {mode!r}")
    rules = find_rules(f, "jax")
    if mode == "vjp":  # an frule alone: its pushforward transposed (chainrules.interop._derived)
        rules = complete(rules)
        build = _build_vjp
    else:  # an rrule alone: forward mode by transposing its pullback
        build = _build_jvp if rules.frule is not None else _build_jvp_of_rrule
    built = _built_for(f, mode, rules)

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and all(isinstance(a, jax.Array) for a in args):
            # the common call, positional JAX arrays: no walk of the arguments; its key (an int)
            # differs from every static_key (a tuple)
            # (asarray still: a tracer of grad(f)(numpy_x) carries the NumPy literal as primal)
            sp, dyn, key = flat_split(len(args)), tuple(map(jnp.asarray, args)), len(args)
            unbound: list[str] = []
        else:
            _adopt_dataclasses((args, kwargs))
            args, kwargs, unbound = bind_keywords(rules, args, kwargs, _inexact_leaf)
            sp = split(args, kwargs, _is_dynamic, f"chainrules.interop.jax.wrap({rules.name})")
            dyn = tuple(jnp.asarray(sp.leaves[i]) for i in sp.dynamic)
            key = static_key(sp)
        call = built.get(key) if key is not None else None
        if call is None:
            call = build(rules, sp, _keyword_leaves(sp, unbound))
            if key is not None:
                if len(built) >= _CACHE_SIZE:
                    built.clear()
                built[key] = call
        return call(*dyn)

    wrapped.__chainrules_rules__ = rules  # type: ignore[attr-defined]
    wrapped.__chainrules_built__ = built  # type: ignore[attr-defined]
    return wrapped


def _adopt_dataclasses(tree: Any) -> None:
    """Register with chainrules (``core.pytree.register_dataclass``) each dataclass in ``tree``
    that JAX knows as a pytree node (``jax.tree_util.register_dataclass``) and chainrules does
    not, with the data fields JAX flattens (by their key paths) and the other fields that
    ``__init__`` takes as meta fields: the bridge takes a dataclass registered with JAX as it is.
    A dataclass JAX does not know stays a leaf (``split`` refuses it when it holds an array)."""
    for leaf in flatten(tree)[0]:
        if not unregistered_dataclass(leaf):
            continue
        pairs, _ = jax.tree_util.tree_flatten_with_path(leaf, is_leaf=lambda v, r=leaf: v is not r)
        names = [p[0].name for p, _ in pairs if len(p) == 1 and isinstance(p[0], GetAttrKey)]
        if len(names) != len(pairs) or any(p == () for p, _ in pairs):
            continue  # a leaf to JAX, or a node JAX flattens some other way
        init = [f.name for f in dataclasses.fields(leaf) if f.init]
        try:
            register_dataclass(type(leaf), names, [n for n in init if n not in names])
        except (TypeError, ValueError):
            continue
        _adopt_dataclasses(leaf)  # dataclasses in its fields


# The callables built per call structure, shared by every ``wrap`` of the same function, mode
# and rules: ``jax.grad(wrap(f))(x)`` in a loop (a new wrapper each time) reuses the compiled
# forward and backward instead of tracing and compiling on every call. Keyed by the rules too, so
# that rules registered again for ``f`` are built afresh.
_SHARED: dict[Any, dict[Any, Any]] = {}


def _built_for(f: Any, mode: str, rules: Rules) -> dict[Any, Any]:
    key = (f, mode, rules.rrule, rules.frule)
    try:
        built = _SHARED.get(key)
    except TypeError:  # an unhashable callable: its own cache
        return {}
    if built is None:
        if len(_SHARED) >= _CACHE_SIZE:
            _SHARED.clear()
        built = _SHARED[key] = {}
    return built


def _primal(rules: Rules, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if rules.rrule is not None:
        return rules.rrule(*args, **kwargs)[0]
    tangents = (NoTangent(),) + (NoTangent(),) * len(args)
    return rules.frule(tangents, *args, **kwargs)[0]  # type: ignore[misc]


class _Transposed(RuleConfig):
    """The current engine's configuration, with ``linear_tangents``: JAX linearizes the frule's
    pushforward and transposes it for reverse mode, so the pushforward may not read the values of
    its tangents (a strong zero's mask would be a select on a linear value, which JAX cannot
    transpose)."""

    linear_tangents = True

    def __init__(self, inner: RuleConfig) -> None:
        self.inner = inner
        self.has_reverse_mode = inner.has_reverse_mode
        self.has_forward_mode = inner.has_forward_mode

    def rrule_via_ad(self, f: Any, /, *args: Any, **kwargs: Any) -> Any:
        return self.inner.rrule_via_ad(f, *args, **kwargs)

    def frule_via_ad(self, tangents: Any, f: Any, /, *args: Any, **kwargs: Any) -> Any:
        return self.inner.frule_via_ad(tangents, f, *args, **kwargs)


@contextlib.contextmanager
def _transposed() -> Iterator[None]:
    """Rules called inside run with :class:`_Transposed` (JAX transposes what they compute)."""
    token = RULE_CONFIG.set(_Transposed(rule_config()))
    try:
        yield
    finally:
        RULE_CONFIG.reset(token)


def _refuse_keywords(rules: Rules, keyword_leaves: dict[int, str], tangents: Any) -> None:
    """``KeywordDerivativeError`` where JAX differentiates a keyword leaf the rules cannot."""
    for k, kw in keyword_leaves.items():
        if not isinstance(tangents[k], SymbolicZero):
            raise keyword_error("jax", rules.name, kw, "is differentiated by JAX")


def _custom_jvp(rules: Rules, sp: Any) -> Any:
    """The call of the wrapped function on its dynamic leaves, a ``jax.custom_jvp`` whose JVP
    the caller defines."""

    @jax.custom_jvp
    def call(*dyn: Any) -> Any:
        args, kwargs = sp.rebuild(dyn)
        return _primal(rules, args, kwargs)

    return call


def _build_jvp(rules: Rules, sp: Any, keyword_leaves: dict[int, str]) -> Any:
    call = _custom_jvp(rules, sp)

    def call_jvp(primals: Any, tangents: Any) -> Any:
        args, kwargs = sp.rebuild(primals)
        _refuse_keywords(rules, keyword_leaves, tangents)
        # tangent of each leaf: JAX's for traced inexact positional leaves, NoTangent otherwise;
        # a leaf JAX does not differentiate comes as a SymbolicZero: ZeroTangent, never computed
        leaf_t = {
            pos: _ZERO if isinstance(t, SymbolicZero) else t
            for pos, p, t in zip(sp.dynamic, primals, tangents, strict=True)
            if sp.arg_of[pos] >= 0 and _inexact(p)
        }
        targs = sp.tangents(leaf_t, NoTangent())
        with _transposed():  # JAX transposes this pushforward
            _, y_dot = rules.frule((NoTangent(), *targs), *args, **kwargs)  # type: ignore[misc]
        y = call(*primals)  # as JAX's docs: a higher order differentiates it by this rule again
        ys, rebuild = output_leaves(y)
        dots = tangent_output_leaves(y_dot, len(ys), y)
        out: list[Any] = []
        for yi, di in zip(ys, dots, strict=True):
            if not _inexact(jnp.asarray(yi)):  # an integer output's tangent: JAX's float0
                out.append(np.zeros(np.shape(yi), dtype=_float0))
                continue
            if di is None:
                out.append(jnp.zeros_like(yi))
                continue
            di = jnp.asarray(di)
            check_leaf(rules.name, "frule", -1, di, yi, di.dtype == jnp.asarray(yi).dtype)
            out.append(di)
        return y, rebuild(out)

    call.defjvp(call_jvp, symbolic_zeros=True)
    return _jit_unless_untraceable(call, host=lambda: _build_jvp_host(rules, sp, keyword_leaves))


def _build_jvp_of_rrule(rules: Rules, sp: Any, keyword_leaves: dict[int, str]) -> Any:
    """``mode="jvp"`` for a function with an rrule and no frule: a ``jax.custom_jvp`` whose JVP
    is the transpose of the pullback (``jax.linear_transpose``: the pullback is linear in the
    cotangent, ``J^T``; its transpose is ``J``), so that ``jvp``, ``jacfwd`` and ``hessian``
    work too; JAX's reverse mode transposes that again, back to the pullback. The pullback runs
    with ``RuleConfig.linear_tangents`` (JAX traces it as a linear map)."""
    assert rules.rrule is not None
    rrule = rules.rrule

    call = _custom_jvp(rules, sp)

    def call_jvp(primals: Any, tangents: Any) -> Any:
        args, kwargs = sp.rebuild(primals)
        _refuse_keywords(rules, keyword_leaves, tangents)
        _, pullback = rrule(*args, **kwargs)
        y = call(*primals)  # as JAX's docs: a higher order differentiates it by this rule again
        ys, rebuild_out = output_leaves(y)
        ys = [jnp.asarray(v) for v in ys]
        outs = [k for k, v in enumerate(ys) if _inexact(v)]  # the outputs with a tangent
        ins = [
            k
            for k, (pos, p, t) in enumerate(zip(sp.dynamic, primals, tangents, strict=True))
            if sp.arg_of[pos] >= 0 and _inexact(p) and not isinstance(t, SymbolicZero)
        ]
        wanted = {sp.dynamic[k] for k in ins}

        def jax_pullback(bars: list[Any]) -> list[Any]:
            """The pullback in JAX's convention (cotangents conjugated): linear in ``bars``."""
            full: list[Any] = [_ZERO] * len(ys)
            for k, b in zip(outs, bars, strict=True):
                full[k] = jnp.conj(b) if _is_complex(b) else b
            with _transposed():  # JAX transposes this pullback
                per_leaf = _wanted_cotangents(sp, pullback(rebuild_out(full)), args, wanted)
            got = []
            for k in ins:
                pos, p = sp.dynamic[k], primals[k]
                c = per_leaf[pos]
                if c is None:
                    got.append(jnp.zeros(jnp.shape(p), jnp.result_type(p)))
                    continue
                c = jnp.asarray(c)
                check_leaf(rules.name, "rrule", sp.arg_of[pos], c, p, c.dtype == p.dtype)
                got.append(jnp.conj(c) if _is_complex(c) else c)
            return got

        y_dot: list[Any] = [np.zeros(np.shape(v), dtype=_float0) for v in ys]
        if outs and ins:
            avals = [jax.ShapeDtypeStruct(ys[k].shape, ys[k].dtype) for k in outs]
            transposed = jax.linear_transpose(jax_pullback, avals)
            (dots,) = transposed([tangents[k] for k in ins])
            for k, d in zip(outs, dots, strict=True):
                y_dot[k] = d
        else:
            for k in outs:
                y_dot[k] = jnp.zeros_like(ys[k])
        return y, rebuild_out(y_dot)

    call.defjvp(call_jvp, symbolic_zeros=True)
    return _jit_unless_untraceable(call, host=lambda: _build_jvp_host(rules, sp, keyword_leaves))


# --- rules that compute on the host ---------------------------------------------------------------
# SciPy's functions (and NumPy's that only take NumPy arrays) convert what they are given with
# numpy.asarray: their rules run on concrete arrays only. JAX gives a custom rule concrete primals
# in eager transformations, but traced tangents and cotangents (a JaxprTracer under grad, a
# BatchTracer under jacfwd, jacrev and vmap). Such a rule's derivative runs on the host through
# jax.pure_callback (batched one element at a time), in one direction per mode: JAX cannot
# transpose a callback, nor linearize a custom_vjp (custom transposition, jax-ml/jax#9129, is
# not in JAX), so mode="jvp" gives forward mode (jvp, jacfwd) and mode="vjp" reverse mode (grad,
# vjp, jacrev, vmap of them). The primal needs concrete arrays: not under jit.


def _host(v: Any) -> Any:
    return np.asarray(v)


def _host_primal(rules: Rules, sp: Any, dyn: Any) -> Any:
    """The primal computed on NumPy copies of the (concrete) inputs, as JAX arrays: a SciPy
    rule then computes in one library (on JAX inputs it mixed SciPy's NumPy results with
    ``jax.numpy``, which refused NumPy's device: seeds 93, 396)."""
    args, kwargs = sp.rebuild(tuple(map(_host, dyn)))
    ys, rebuild = output_leaves(_primal(rules, args, kwargs))
    return rebuild([jnp.asarray(v) if isinstance(v, (np.ndarray, np.generic)) else v for v in ys])


def _build_jvp_host(rules: Rules, sp: Any, keyword_leaves: dict[int, str]) -> Any:
    """``mode="jvp"`` for a rule that computes on the host: the frule (derived from the rrule
    where there is none) runs in a ``jax.pure_callback`` on NumPy copies of the primals and
    tangents. Forward mode only: JAX's reverse mode cannot transpose the callback, and says so
    ("Pure callbacks do not support transpose"); ``wrap(f, mode="vjp")`` is the reverse mode."""
    rules = complete(rules)
    assert rules.frule is not None
    frule = rules.frule

    @jax.custom_jvp
    def call(*dyn: Any) -> Any:
        return _host_primal(rules, sp, dyn)

    def call_jvp(primals: Any, tangents: Any) -> Any:
        _refuse_keywords(rules, keyword_leaves, tangents)
        y = call(*primals)
        ys, rebuild = output_leaves(y)
        live = [
            k
            for k, (pos, p, t) in enumerate(zip(sp.dynamic, primals, tangents, strict=True))
            if sp.arg_of[pos] >= 0 and _inexact(p) and not isinstance(t, SymbolicZero)
        ]
        outs = [k for k, v in enumerate(ys) if _inexact(jnp.asarray(v))]
        avals = tuple(jax.ShapeDtypeStruct(jnp.shape(ys[k]), jnp.result_type(ys[k])) for k in outs)

        def host(prims: Any, ts: Any) -> Any:
            args, kwargs = sp.rebuild(tuple(map(_host, prims)))
            leaf_t = {sp.dynamic[k]: _host(t) for k, t in zip(live, ts, strict=True)}
            targs = sp.tangents(leaf_t, _ZERO)
            yh, y_dot = frule((NoTangent(), *targs), *args, **kwargs)
            dots = tangent_output_leaves(y_dot, len(ys), yh)
            got = []
            for k, a in zip(outs, avals, strict=True):
                d = dots[k]
                d = np.zeros(a.shape, a.dtype) if d is None else _host(d)
                check_leaf(rules.name, "frule", -1, d, a, d.dtype == a.dtype)
                got.append(d)
            return tuple(got)

        dots: Any = ()
        if outs and live:
            ts = [tangents[k] for k in live]
            dots = jax.pure_callback(host, avals, primals, ts, vmap_method="sequential")
        out: list[Any] = [np.zeros(np.shape(v), dtype=_float0) for v in ys]
        for i, k in enumerate(outs):
            out[k] = dots[i] if dots else jnp.zeros_like(ys[k])
        return y, rebuild(out)

    call.defjvp(call_jvp, symbolic_zeros=True)
    return call


def _custom_vjp_host(rules: Rules, sp: Any, keyword_leaves: dict[int, str]) -> Any:
    """``mode="vjp"`` for a rule that computes on the host: the forward runs eagerly (on concrete
    primals) and keeps the inputs; the backward pass recomputes the rrule on NumPy copies of them
    and applies its pullback to the cotangents, in a ``jax.pure_callback``. Reverse mode only
    (JAX refuses forward mode of a ``custom_vjp``)."""
    assert rules.rrule is not None
    rrule = rules.rrule

    @jax.custom_vjp
    def call(*dyn: Any) -> Any:
        return _host_primal(rules, sp, dyn)

    def call_fwd(*prim: Any) -> Any:
        dyn = tuple(p.value for p in prim)
        perturbed = tuple(bool(p.perturbed) for p in prim)
        for k, kw in keyword_leaves.items():
            if perturbed[k]:
                raise keyword_error("jax", rules.name, kw, "is differentiated by JAX")
        y = call(*dyn)
        avals = tuple(jax.typeof(v) for v in dyn)
        return y, _Residual(_Plan(None, None, y, avals, perturbed), dyn)

    def call_bwd(res: _Residual, y_bar: Any) -> Any:
        plan = res.plan
        avals = plan.avals
        want = [
            i
            for i, (w, pos) in enumerate(zip(plan.perturbed, sp.dynamic, strict=True))
            if w and _inexact(avals[i]) and sp.arg_of[pos] >= 0
        ]
        bars, _ = output_leaves(y_bar)
        live = [k for k, b in enumerate(bars) if not isinstance(b, SymbolicZero)]
        _, rebuild_out = output_leaves(plan.y)
        shapes = tuple(jax.ShapeDtypeStruct(avals[i].shape, avals[i].dtype) for i in want)

        def host(leaves: Any, bs: Any) -> Any:
            args, kwargs = sp.rebuild(tuple(map(_host, leaves)))
            _, pullback = rrule(*args, **kwargs)
            full: list[Any] = [_ZERO] * len(bars)
            for k, b in zip(live, bs, strict=True):
                full[k] = np.conj(_host(b)) if _is_complex(b) else _host(b)  # JAX's -> ours
            wanted = {sp.dynamic[i] for i in want}
            per_leaf = _wanted_cotangents(sp, pullback(rebuild_out(full)), args, wanted)
            got = []
            for i, a in zip(want, shapes, strict=True):
                c = per_leaf[sp.dynamic[i]]
                c = np.zeros(a.shape, a.dtype) if c is None else _host(c)
                check_leaf(rules.name, "rrule", sp.arg_of[sp.dynamic[i]], c, a, c.dtype == a.dtype)
                got.append(np.conj(c) if _is_complex(c) else c)  # ours -> JAX's
            return tuple(got)

        got: Any = ()
        if want and live:
            bs = [bars[k] for k in live]
            got = jax.pure_callback(host, shapes, res.leaves, bs, vmap_method="sequential")
        out: list[Any] = [_zeros_like_ct(a) for a in avals]
        for j, i in enumerate(want):
            out[i] = got[j] if got else jnp.zeros(avals[i].shape, avals[i].dtype)
        return tuple(out)

    call.defvjp(call_fwd, call_bwd, symbolic_zeros=True)
    return call


# What jax.jit's trace raises at a rule that reads array values on the host or makes a
# data-dependent shape: such a rule runs eagerly, as it did without the jit.
_UNTRACEABLE = (
    jax.errors.ConcretizationTypeError,  # with TracerBool- and TracerIntegerConversionError
    jax.errors.TracerArrayConversionError,
    jax.errors.NonConcreteBooleanIndexError,
)


def _jit_unless_untraceable(
    call: Any, probe: Any = None, eager: Any = None, host: Any = None
) -> Any:
    """``jax.jit(call)``, or the plain call (``eager``, else ``call``) once the jit's trace
    fails where the plain call runs (a rule that reads values on the host works eagerly, not
    under ``jit``).

    Why jit a ``custom_jvp``: eager ``jax.grad`` linearizes it by running its jvp rule under a
    partial-evaluation trace, every primitive of the frule one Python dispatch and one eager
    XLA call, then transposes and evaluates the staged tangent jaxpr primitive by primitive
    (3-10x native JAX at n = 10, ``benchmarks/jax_bridge.py``). Through ``jit``, JAX
    linearizes the jitted jaxpr instead: its JVP, partial evaluation and transpose are cached
    per jaxpr, and the eager call is one compiled forward and one compiled backward (0.2-0.9x
    native at n = 10 and at n = 1e6, where XLA also fuses the rule's elementwise passes).
    Under an outer ``jit`` the inner one is inlined (the same compiled program as without it);
    ``vmap``, ``jacfwd`` and ``hessian`` transform the jitted program as they would the plain
    one.

    ``vjp`` mode's pullback runs when JAX transposes, after this call has returned, where a
    pullback that reads a value on the host could no longer fall back to running eagerly. So a
    ``probe`` (the forward and backward pass, traced by ``jax.eval_shape`` on the first call)
    decides first: a probe that fails for any reason leaves ``eager`` (``call`` unless given)
    to run without the jit, as before, where the rule's own errors surface as they would
    have; a probe that fails converting a traced array to NumPy (a rule that computes on the
    host) leaves ``host()``, built then, to run instead.

    ``host`` (a builder) is the rule run on the host (:func:`_build_jvp_host`): where the
    jit's trace failed converting a traced array to NumPy and the plain call fails too (the
    frule of a SciPy function handed JAX's traced tangents; a SciPy rule mixing SciPy's NumPy
    results with ``jax.numpy``), that call and the later ones run on the host; where the host
    fails as well, the plain call's error is raised."""
    jitted = jax.jit(call)
    plain = call if eager is None else eager
    use: list[Any] = [jitted if probe is None else None]

    def plain_then_host(*dyn: Any) -> Any:
        """The plain call; where it fails, the rule on the host from then on (the plain call's
        error where the host fails as well)."""
        try:
            return plain(*dyn)
        except Exception as e:  # noqa: BLE001 -- the plain call's own error unless host runs
            h = host()
            try:
                out = h(*dyn)
            except Exception:  # noqa: BLE001
                raise e from None
            use[0] = h
            return out

    def run(*dyn: Any) -> Any:
        f = use[0]
        if f is None:
            try:
                jax.eval_shape(probe, *dyn)
                f = jitted
            except jax.errors.TracerArrayConversionError:
                f = host() if host is not None else plain
            except Exception:  # noqa: BLE001 -- any failure: the plain call runs, raising its own
                f = plain
            use[0] = f
        if f is not jitted:
            return f(*dyn)
        try:
            return jitted(*dyn)
        except _UNTRACEABLE as e:
            # the rule runs only eagerly: stop tracing it on every call; one converting a traced
            # array to NumPy may compute on the host only
            on_host = host is not None and isinstance(e, jax.errors.TracerArrayConversionError)
            use[0] = plain_then_host if on_host else plain
            return use[0](*dyn)  # an outer trace's error (or the rule's own) is raised from there

    run.__wrapped__ = plain  # type: ignore[attr-defined]
    return run


class _Plan:
    """Static half of a ``vjp``-mode residual (compared by identity): the pullback to rebuild
    (``None``: recompute the rrule from the inputs), its walk, the forward's output (for its
    structure only), the inputs' avals and which inputs JAX differentiates."""

    __slots__ = ("avals", "perturbed", "pullback", "walk", "y")

    def __init__(
        self, pullback: Any, walk: Walk | None, y: Any, avals: Any, perturbed: Any
    ) -> None:
        self.pullback, self.walk, self.y = pullback, walk, y
        self.avals, self.perturbed = avals, perturbed


class _Residual:
    """A ``vjp``-mode residual: the pullback's arrays (or the inputs) and the ``_Plan``."""

    __slots__ = ("leaves", "plan")

    def __init__(self, plan: _Plan, leaves: Any) -> None:
        self.plan, self.leaves = plan, leaves


jax.tree_util.register_pytree_node(
    _Residual, lambda r: (tuple(r.leaves), r.plan), lambda plan, ls: _Residual(plan, ls)
)


def _explicit_mesh() -> Any:
    """The current abstract mesh when it has explicit axes (JAX's explicit sharding), else None."""
    mesh = jax.sharding.get_abstract_mesh()
    return None if mesh.empty or not mesh.explicit_axes else mesh


def _build_vjp(rules: Rules, sp: Any, keyword_leaves: dict[int, str]) -> Any:
    """The ``custom_vjp`` of a call structure, called through ``jax.jit`` (after the probe), or
    without it where the probe fails. The jitted one computes the cotangent of every input,
    perturbed or not: a jitted program's JVP can be served from JAX's caches with a forward
    traced for another perturbation pattern (seen: an eager ``vjp`` in all arguments after a
    ``jit(vmap(grad))`` in the first alone gave the second a zero cotangent), and in compiled
    code the unused cotangents are dead code. Called eagerly, the forward runs on every call and
    its ``perturbed`` bits spare the work of the others (their ``Thunk``s stay unforced), and
    tell whether a keyword argument the rules cannot differentiate is differentiated (an error):
    a call structure with such a keyword runs eagerly only."""
    eager = _custom_vjp(rules, sp, trust_perturbed=True, keyword_leaves=keyword_leaves)
    if keyword_leaves:
        return eager
    call = _custom_vjp(rules, sp, trust_perturbed=False)

    def probe(*dyn: Any) -> Any:
        # the backward pass as eager grad will run it, traced once (jax.eval_shape): a pullback
        # that reads values on the host fails here, not after the jitted forward has returned
        y, pullback = jax.vjp(call, *dyn)
        return pullback(jax.tree.map(_zeros_like_ct, y))

    host = lambda: _custom_vjp_host(rules, sp, keyword_leaves)
    return _jit_unless_untraceable(call, probe, eager, host)


def _custom_vjp(
    rules: Rules, sp: Any, trust_perturbed: bool, keyword_leaves: dict[int, str] | None = None
) -> Any:
    assert rules.rrule is not None
    rrule = rules.rrule

    @jax.custom_vjp
    def call(*dyn: Any) -> Any:
        args, kwargs = sp.rebuild(dyn)
        return rrule(*args, **kwargs)[0]

    def call_fwd(*prim: Any) -> Any:
        dyn = tuple(p.value for p in prim)
        perturbed = tuple(bool(p.perturbed) or not trust_perturbed for p in prim)
        for k, kw in (keyword_leaves or {}).items():
            if perturbed[k]:
                raise keyword_error("jax", rules.name, kw, "is differentiated by JAX")
        avals = tuple(jax.typeof(v) for v in dyn)
        args, kwargs = sp.rebuild(dyn)
        y, pullback = rrule(*args, **kwargs)
        walk = Walk()
        try:
            walk.visit(pullback)
        except Opaque:  # keep the inputs, recompute the rrule in call_bwd
            return y, _Residual(_Plan(None, None, None, avals, perturbed), dyn)
        return y, _Residual(_Plan(pullback, walk, y, avals, perturbed), walk.leaves)

    def backward(plan: _Plan, leaves: Any, avals: Any, y_bar: Any) -> tuple[Any, ...]:
        """The cotangents of the differentiated dynamic leaves (``None`` for the others)."""
        if plan.walk is None:  # recompute the rrule from the saved inputs
            args, kwargs = sp.rebuild(leaves)
            y, pullback = rrule(*args, **kwargs)
        else:
            pullback = rebuild(plan.pullback, plan.walk, leaves, {})
            y = plan.y
        bars, _ = output_leaves(y_bar)
        bars = [
            _ZERO if isinstance(b, SymbolicZero) else (jnp.conj(b) if _is_complex(b) else b)
            for b in bars
        ]  # JAX's -> ours
        _, rebuild_out = output_leaves(y)
        cts = pullback(rebuild_out(bars))
        wanted = {pos for pos, w in zip(sp.dynamic, plan.perturbed, strict=True) if w}
        per_leaf = _wanted_cotangents(sp, cts, sp.rebuild(avals)[0], wanted)
        out: list[Any] = []
        for pos, p in zip(sp.dynamic, avals, strict=True):
            c = per_leaf[pos]
            if c is None or pos not in wanted or not _inexact(p):
                out.append(None)
                continue
            c = jnp.asarray(c)
            check_leaf(rules.name, "rrule", sp.arg_of[pos], c, p, c.dtype == p.dtype)
            out.append(jnp.conj(c) if _is_complex(c) else c)  # ours -> JAX's
        return tuple(out)

    def call_bwd(res: _Residual, y_bar: Any) -> Any:
        plan = res.plan
        avals = plan.avals  # the primals' shapes, dtypes and shardings
        mesh = _explicit_mesh()
        if mesh is None:
            out = backward(plan, res.leaves, avals, y_bar)
        else:
            # explicit sharding: run the rule with the mesh's axes automatic (its products may
            # contract sharded axes, which explicit mode refuses without an out_sharding), and
            # give each cotangent its primal's sharding, as JAX's own transposes do
            want = [i for i, w in enumerate(plan.perturbed) if w and _inexact(avals[i])]
            shard = tuple(avals[i].sharding for i in want)

            def inner(leaves: Any, y_bar: Any) -> Any:
                got = backward(plan, leaves, avals, y_bar)
                return tuple(
                    jnp.zeros(avals[i].shape, avals[i].dtype) if got[i] is None else got[i]
                    for i in want
                )

            got = jax.sharding.auto_axes(inner, axes=mesh.explicit_axes, out_sharding=shard)(
                res.leaves, y_bar
            )
            full: list[Any] = [None] * len(avals)
            for i, g in zip(want, got, strict=True):
                full[i] = g
            out = tuple(full)
        return tuple(
            _zeros_like_ct(p) if c is None and not _inexact(p) else c
            for c, p in zip(out, avals, strict=True)
        )

    call.defvjp(call_fwd, call_bwd, symbolic_zeros=True)
    return call


def _wanted_cotangents(sp: Any, cts: Any, args: tuple[Any, ...], wanted: set[int]) -> list[Any]:
    """``sp.cotangents(cts, args)``, but the cotangent of a positional argument none of whose
    leaves is in ``wanted`` is not forced (a ``Thunk`` stays unevaluated): ``None`` per leaf."""
    out: list[Any] = []
    for i, a in enumerate(args):
        n = sp.arg_of.count(i)
        if any(sp.arg_of[pos] == i for pos in wanted):
            out.extend(cotangent_leaves(cts[i + 1], a))
        else:
            out.extend([None] * n)
    return out + [None] * (len(sp.leaves) - len(out))
