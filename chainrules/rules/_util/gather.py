"""The gather: rules for the functions whose every output element is a copy of one input
element, or a constant -- NumPy's manipulation functions beyond the standard (``vstack``,
``split``, ``pad``, ``delete``, ...) and NumPy's indexing functions (``choose``, ``compress``,
``diag``, ``put``, ...). A rule module describes such a function by a *plan* and registers it
with :func:`register_gather`.

Maths note: every one is a gather
---------------------------------
Each output element is a copy of one input element, or a constant (the zeros of ``pad``'s
constant mode, of ``diag``). So ``y = G x`` for a 0/1 matrix ``G`` that the function itself can
tell us: called on an **index array** -- ``1 + arange(x.size)`` in ``x``'s shape, the sources
numbered one after another when there are several -- it returns ``src``, the position each output
element was read from (``0``: a constant). Then, with ``x_flat = concat([0], ravel(x), ...)``:

* pushforward: ``y_dot = take(t_flat, src)`` (a chunk of tangents in one ``take``);
* pullback: ``x_bar = scatter_add(zeros, src, y_bar)[1:]``, cut back into the sources' shapes
  (an element read ``k`` times -- ``pad``'s edges, ``resize``'s repeats, ``choose``'s broadcast
  choices -- accumulates its ``k`` cotangents; slot 0 collects the constants' and is dropped).

The index array runs through the same library function as the primal (``jnp.pad`` for JAX
arrays), so ``src`` lives on the arrays' device, is traced under ``jax.jit``, and the pullback
reads nothing on the host. It is built of ``scatter_add``, ``reshape``, ``getitem`` slices and
``take``: every rule made here is differentiable again. Functions whose output *shape* depends
on values (``trim_zeros``, ``delete`` with an index array, ``compress``/``extract``) synchronise
by nature once in the primal: the rule computes ``src`` once and gathers ``y`` from it, so
neither the pullback nor the pushforward adds a sync.

The cost of the one way: the pullback of a pure slicing function (``vstack``, ``split``) is an
accumulating scatter rather than a slice; ``copy`` has its own identity rule.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.namespaces import SequenceExpectedError
from ...core.prelude import *
from . import axis_int, axis_ints, in_dtype
from .numpy_like import numpy_like_module
from .shape import device_kw

_SCALARS = (float, complex)


# --- the gather: sources, index arrays, rules -----------------------------------------------------
@dataclass(frozen=True)
class Source:
    """An input whose elements the output copies: its value (array or Python scalar), the
    positional argument it came in (``None``: a keyword, which gets no cotangent) and its path
    inside a (nested) sequence argument (``()`` for the argument itself)."""

    value: Any
    pos: int | None
    path: tuple[int, ...] = ()


@dataclass(frozen=True)
class Gather:
    """What a rule's plan computed: the output (an array or a tuple/list of them), ``src`` (the
    same structure, integer arrays: 1-based positions in the concatenated sources, 0 for a
    constant) and the sources."""

    xp: Any
    y: Any
    src: Any
    sources: tuple[Source, ...]


def as_array(xp: Any, v: Any, like: Any) -> Any:
    return v if is_array(v) else xp.asarray(v, **device_kw(like))


def index_arrays(xp: Any, values: Sequence[Any], like: Any) -> list[Any]:
    """One index array per value, in its shape: the 1-based positions of its elements in the
    concatenation of all the values (0 is left for constants)."""
    out, start = [], 1
    for v in values:
        a = as_array(xp, v, like)
        n = math.prod(tuple(a.shape))
        out.append(xp.reshape(xp.arange(start, start + n, **device_kw(like)), tuple(a.shape)))
        start += n
    return out


def gather_values(xp: Any, values: Sequence[Any], src: Any, like: Any) -> Any:
    """``y`` from ``src``: the sources flattened behind a zero, gathered (for the functions whose
    output shape depends on values: the primal syncs once, when ``src`` is computed)."""
    arrays = [as_array(xp, v, like) for v in values]
    dtype = arrays[0].dtype if len(arrays) == 1 else xp.result_type(*arrays)
    flat = xp.concat(
        [xp.zeros((1,), dtype=dtype, **device_kw(like))]
        + [in_dtype(xp, xp.reshape(a, (-1,)), dtype) for a in arrays]
    )
    y = xp.reshape(xp.take(flat, xp.reshape(src, (-1,))), tuple(src.shape))
    # the function's own dtype: NumPy's concatenation gives native byte order where ``delete``,
    # ``compress`` and ``extract`` keep a big-endian ``>f8``
    return in_dtype(xp, y, dtype)


def position(args: tuple[Any, ...], k: int) -> int | None:
    """``k`` when the call gave the ``k``-th positional argument positionally, else ``None``."""
    return k if len(args) > k else None


def sequence_sources(name: str, seq: Any, pos: int | None) -> list[Source]:
    """The sources of a (nested) sequence argument (``vstack``'s ``tup``, ``block``'s lists)."""
    if is_array(seq) or not isinstance(seq, (tuple, list)):
        error = SequenceExpectedError if is_array(seq) else TypeError
        raise error(f"{name}: expected a tuple or list of arrays, got {type(seq).__name__}")
    if not seq:
        raise ValueError(f"{name}: needs at least one array")
    out: list[Source] = []

    def walk(v: Any, path: tuple[int, ...]) -> None:
        if isinstance(v, (tuple, list)) and not is_array(v):
            for i, e in enumerate(v):
                walk(e, (*path, i))
        else:
            out.append(Source(v, pos, path))

    walk(seq, ())
    return out


def rebuild(seq: Any, leaves: Sequence[Any]) -> Any:
    """``seq``'s nesting with its leaves replaced, in order."""
    it = iter(leaves)

    def walk(v: Any) -> Any:
        if isinstance(v, (tuple, list)) and not is_array(v):
            return type(v)(walk(e) for e in v)
        return next(it)

    return walk(seq)


def namespace(name: str, values: Sequence[Any]) -> tuple[Any, Any]:
    """``(xp, like)``: the namespace of the array values, and one of them (device, module)."""
    arrays = [v for v in values if is_array(v)]
    if not arrays:
        raise TypeError(f"{name}: expected an array argument")
    return namespace_of(*arrays, fname=name), arrays[0]


def is_floating_value(xp: Any, v: Any) -> bool:
    """Whether ``v`` has a tangent space: a floating or complex array, or a Python float."""
    if type(v) in _SCALARS:
        return True
    return is_array(v) and dtype_kind(v.dtype, xp) in "fc"


def _has_cotangent(xp: Any, s: Source) -> bool:
    """A source gets a cotangent when it came positionally and is a floating array or a Python
    float (a list of numbers gets ``NoTangent()``, as the testers classify it)."""
    return s.pos is not None and is_floating_value(xp, s.value)


def _part(t: Any, path: tuple[int, ...]) -> Any:
    """The tangent of a leaf inside a structural tangent (a zero stays a zero)."""
    for i in path:
        t = unthunk(t)
        if isinstance(t, AbstractZero):
            return t
        t = t.elements()[i] if isinstance(t, Tangent) else t[i]
    return unthunk(t)


def _cotangents(args: tuple[Any, ...], got: dict[tuple[int, tuple[int, ...]], Any]) -> tuple:
    """One cotangent per positional argument: the pieces ``got[(pos, path)]`` put in place, a
    ``Tangent`` (nested as the argument) for sequences, ``NoTangent()`` elsewhere."""

    def build(v: Any, pos: int, path: tuple[int, ...]) -> Any:
        if (pos, path) in got:
            return got[(pos, path)]
        if isinstance(v, (tuple, list)) and not is_array(v) and pos in owners:
            parts = tuple(build(e, pos, (*path, i)) for i, e in enumerate(v))
            return Tangent(*parts, primal_type=type(v))
        return NO

    owners = {pos for pos, _ in got}
    return tuple(build(a, k, ()) for k, a in enumerate(args))


def _nesting(v: Any) -> Any:
    """``v``'s nesting of tuples and lists with ``None`` for every leaf: what
    :func:`_cotangents` reads of the arguments, without keeping them alive."""
    if isinstance(v, (tuple, list)) and not is_array(v):
        return type(v)(map(_nesting, v))
    return None


Plan = Callable[[Any, tuple[Any, ...], dict[str, Any]], Gather]


def gather_rules(name: str, plan: Plan) -> tuple[Callable[..., Any], Callable[[Any, str], Any]]:
    """The rrule and frule of a gather, from ``plan(fn, args, kwargs) -> Gather`` (``fn``: the
    library function called, ``None`` for the module of the arguments' library). Returns the
    default rrule and the ``bind=`` hook that gives each library's function its own rules."""

    def make(fn: Any, kind: str) -> Callable[..., Any]:
        def gather_rrule(*args: Any, **kwargs: Any) -> Any:
            g = plan(fn, args, kwargs)
            xp, y = g.xp, g.y
            multi = isinstance(y, (tuple, list))
            ys, srcs = (tuple(y), tuple(g.src)) if multi else ((y,), (g.src,))
            like = ys[0]
            live = ys and is_floating_value(xp, like)
            projects_y = [ProjectTo(v, xp) for v in ys]
            shapes = [tuple(as_array(xp, s.value, like).shape) for s in g.sources]
            sizes = [math.prod(shape) for shape in shapes]
            total = 1 + sum(sizes)
            # shapes, positions and projectors, not the sources, the arguments or an output (a
            # view of one): the pullback must not keep the inputs alive
            owed = [
                (i, s.pos, s.path, ProjectTo(s.value, xp))
                for i, s in enumerate(g.sources)
                if _has_cotangent(xp, s) and live
            ]
            starts = [1 + sum(sizes[:i]) for i in range(len(sizes))]
            like, nesting = output(like), _nesting(args)

            @pullback(y, args if live else (None,) * len(args), name=name)
            def gather_pullback(y_bar: Any) -> tuple[Any, ...]:
                bars = y_bar if multi else (y_bar,)
                keys, vals = [], []
                for b, s, p in zip(bars, srcs, projects_y):
                    if not isinstance(b, AbstractZero):
                        keys.append(xp.reshape(s, (-1,)))
                        vals.append(xp.reshape(p(b), (-1,)))
                if not keys:
                    return _cotangents(nesting, {})
                key = keys[0] if len(keys) == 1 else xp.concat(keys)
                val = vals[0] if len(vals) == 1 else xp.concat(vals)
                zero = xp.zeros((), dtype=like.dtype, **device_kw(like))
                flat = scatter_add(xp.broadcast_to(zero, (total,)), key, val)
                got: dict[tuple[int, tuple[int, ...]], Any] = {}
                for i, pos, path, p in owed:
                    assert pos is not None  # _has_cotangent: a positional source
                    piece = flat[starts[i] : starts[i] + sizes[i]]
                    got[(pos, path)] = p(xp.reshape(piece, shapes[i]))
                return _cotangents(nesting, got)

            gather_pullback.__name__ = gather_pullback.__qualname__ = f"{name}_pullback"
            return y, gather_pullback

        def gather_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
            g = plan(fn, args, kwargs)
            xp, y = g.xp, g.y
            multi = isinstance(y, (tuple, list))
            ys, srcs = (tuple(y), tuple(g.src)) if multi else ((y,), (g.src,))
            like = ys[0]
            if not ys or not is_floating_value(xp, like):
                return y, NO
            ts = [
                _part(tangents[1 + s.pos], s.path)
                if s.pos is not None and _has_cotangent(xp, s)
                else ZERO
                for s in g.sources
            ]
            dots = tangents_in(name, (NO, *ts), [s.value for s in g.sources])
            if dots is None:
                return y, ZERO
            lead, extra = dots.lead(), dots.extra
            dtype, cplx = like.dtype, dtype_kind(like.dtype, xp) == "c"
            parts = [xp.zeros((*lead, 1), dtype=dtype, **device_kw(like))]
            for t, s in zip(dots, g.sources):
                n = math.prod(tuple(as_array(xp, s.value, like).shape))
                if isinstance(t, AbstractZero):
                    parts.append(xp.zeros((*lead, n), dtype=dtype, **device_kw(like)))
                    continue
                t = as_array(xp, t, like)
                if not cplx and dtype_kind(t.dtype, xp) == "c":
                    t = xp.real(t)  # a complex tangent of a real output: its real part
                parts.append(in_dtype(xp, xp.reshape(t, (*lead, n)), dtype))
            flat = xp.concat(parts, axis=extra)
            outs = [
                xp.reshape(xp.take(flat, xp.reshape(s, (-1,)), axis=extra), (*lead, *v.shape))
                for s, v in zip(srcs, ys)
            ]
            return y, Tangent(*outs, primal_type=type(y)) if multi else outs[0]

        gather_rrule.__name__ = gather_rrule.__qualname__ = f"{name}_rrule"
        gather_frule.__name__ = gather_frule.__qualname__ = f"{name}_frule"
        return gather_rrule if kind == "r" else gather_frule

    return make(None, "r"), make


def register_gather(
    name: str,
    plan: Plan,
    examples: Any,
    module: str,
    expect: tuple[Expect, ...] = (),
    kind: str | None = None,
) -> None:
    """Register the gather rules of ``"numpy:NAME"`` (rrule and frule, one ``bind=`` each);
    ``module`` is the rule module registering them (its ``__name__``: the rules themselves are
    made here), ``kind`` what the function is for engines (``"sequence"``, ``"view"``)."""
    r, make = gather_rules(name, plan)
    meta = {"examples": examples, "expect": expect, "module": module, "bind": make, "kind": kind}
    register_rrule(f"numpy:{name}", **meta)(r)
    register_frule(f"numpy:{name}", **meta)(make(None, "f"))


def function(fn: Any, name: str, like: Any, xp: Any) -> Any:
    """The function of the arguments' library (``jnp.pad`` for JAX arrays, also when NumPy's
    ``np.pad`` was called on them under ``jax.jit``)."""
    return getattr(numpy_like_module(like, xp), name)


def simple_plan(
    name: str,
    template: Callable[..., Any],
    params: dict[str, str],
    prepare: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    from_src: bool = False,
    call: Callable[..., Any] | None = None,
    computes_with: str | None = None,
) -> Plan:
    """The plan of a function whose sources are the parameters ``params`` (name -> ``"array"``
    or ``"sequence"``; ``"choices"``: a sequence or one array): the primal is the call itself, and
    ``src`` the same call with each source replaced by its index array. ``prepare(bound,
    index_kwargs)`` checks the bound arguments and adjusts the keywords of the index call
    (``pad``'s ``constant_values=0``). ``from_src``: gather ``y`` from ``src`` (value-dependent
    output shapes: one call, so one sync). ``call(f, args, kwargs)`` calls the function
    (default: ``f(*args, **kwargs)``). ``computes_with``: the name of the library function that
    computes it, where NumPy documents ``name`` as its alias (``row_stack`` is ``vstack``, which
    ``jax.numpy`` alone has)."""
    sig = signature(name, template)
    order = list(inspect.signature(template).parameters)

    def plan(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Gather:
        a = sig.bind(args, kwargs)
        ikw = dict(kwargs)
        if prepare is not None:
            prepare(a, ikw)
        sources: list[Source] = []
        spans: dict[str, tuple[int, int, str]] = {}
        for p, kind in params.items():
            v = a.get(p)
            if v is None:
                continue
            k = order.index(p)
            pos = position(args, k)
            first = len(sources)
            seq = kind == "sequence" or (kind == "choices" and not is_array(v))
            if seq:
                sources += sequence_sources(name, v, pos)
            else:
                sources.append(Source(v, pos))
            spans[p] = (first, len(sources), "sequence" if seq else "array")
        xp, like = namespace(name, [s.value for s in sources] + list(a.values()))
        idx = index_arrays(xp, [s.value for s in sources], like)
        iargs = list(args)
        for p, (i, j, kind) in spans.items():
            rep = rebuild(a[p], idx[i:j]) if kind == "sequence" else idx[i]
            k = order.index(p)
            if k < len(iargs):
                iargs[k] = rep
            else:
                ikw[p] = rep
        f = function(fn, computes_with or name, like, xp)
        run = call or (lambda f, a, k: f(*a, **k))
        src = run(f, tuple(iargs), ikw)
        if from_src:
            y = gather_values(xp, [s.value for s in sources], src, like)
        else:
            y = run(f, args, kwargs)
        return Gather(xp, y, src, tuple(sources))

    return plan


def axis_check(
    name: str, array: str, what: str = "axis", *, bool_ok: bool = False, count: int = 0
) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    """A ``prepare`` of :func:`simple_plan`: the argument ``what`` (None: the flattened array)
    parsed by ``_util``'s :func:`axis_int` -- one axis, or ``count`` distinct ones with
    :func:`axis_ints` -- against the rank of the argument ``array``, before NumPy sees it.
    ``bool_ok``: NumPy takes True as 1 there."""

    def check(a: dict[str, Any], ikw: dict[str, Any]) -> None:
        v, nd = a.get(what), getattr(a.get(array), "ndim", None)
        if v is None:
            return
        if not count:
            axis_int(v, name, what, ndim=nd, bool_ok=bool_ok)
            return
        axes = axis_ints(v, name, what, ndim=nd, bool_ok=bool_ok)
        if len(axes) != count or len({ax % max(nd or 1, 1) for ax in axes}) != count:
            raise ValueError(f"{name}: {what} must be {count} different axes, got {v!r}")

    return check
