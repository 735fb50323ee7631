"""Traced arrays, their traces and the dispatcher shared by both modes.

A :class:`Tracer` stands for an array inside a function being differentiated. It carries the
trace that made it (``_trace``, with a nesting ``level``), its value (``_value``: an array of the
user's library, or a tracer of an outer, lower-level trace when transformations are nested) and
the mode's data (``_aux``: a tape node in reverse mode, a chunk of tangents in forward mode).

Every way a user's code can touch an array ends in :func:`dispatch`: the functions of the
namespace returned by ``x.__array_namespace__()`` (a ``TracedNamespace`` wrapping the
array's own namespace), Python operators and indexing, and -- for NumPy-backed tracers -- NumPy's
own functions through ``__array_ufunc__`` / ``__array_function__``. ``dispatch`` finds the
innermost (highest-level) trace among the arguments and lets it process the call; with no
tracers it calls the function itself. Rules therefore run unchanged on tracers of outer traces,
which is how forward-over-reverse Hessians differentiate pullbacks.

Nothing here reads an array value: shapes, dtypes and devices are metadata.
"""

from __future__ import annotations

import itertools
import operator
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ..core import registry
from ..core.calls import keywords_to_positions
from ..core.namespaces import device_of, dtype_kind, is_array, namespace_of
from ..core.registry import function_name
from ._derive import derived_rule
from ._errors import array_conversion, host_read, in_place_write, no_rule

__all__ = ["ABOVE", "Trace", "Tracer", "dispatch", "primal"]


class _Above:
    """The functions of modules above this one that the tracer calls. Those modules import this
    one, and an import back would be a circle, so each hands its functions over at its import,
    as ``_api`` hands the config the engine: ``_classes`` gives :func:`tracer_class` (the class
    of a created tracer), ``_pytree`` gives ``is_flat`` and ``call_pytree`` (the calls whose
    tracers sit in a pytree or a keyword). ``chainrules.ad`` imports both."""

    tracer_class: Callable[[Any], type[Tracer]]
    is_flat: Callable[[tuple[Any, ...], dict[str, Any]], bool]
    call_pytree: Callable[[Any, tuple[Any, ...], dict[str, Any]], Any]


ABOVE = _Above()

_LEVELS = itertools.count(1)
_new = object.__new__
_SEQ = (list, tuple)
# the traces' written-out common cases (ForwardTrace.process, ReverseTrace.process): the types
# of a tracer's value, and of a plain constant beside it, that they handle without _unwrap
FAST_VALUES = frozenset((np.ndarray, np.float64))
FAST_CONSTS = frozenset((float, int, np.ndarray, np.float64))


# What a function is -- a constant (comparisons, index finders, dtype queries), a creation
# function, one that takes a sequence of arrays, a NumPy view -- is its registration's ``kind``
# (chainrules.core.registry.KINDS), read through registry.entry_of: one dict access, never the
# function's name.
_entry_of = registry.entry_of


class Trace:
    """One differentiation in progress. ``level`` orders nested traces: inner ones are higher."""

    __slots__ = ("cls", "level")

    def __init__(self, cls: type[Tracer]) -> None:
        self.level = next(_LEVELS)
        self.cls = cls

    def process(self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        raise NotImplementedError

    def wrap(self, value: Any, aux: Any, cls: type[Tracer] | None = None) -> Tracer:
        """A new tracer of this trace (``object.__new__``: array classes may forbid their own
        constructor)."""
        t: Any = _new(cls or self.cls)
        t._trace = self
        t._value = value
        t._aux = aux
        return t

    def const(self, value: Any) -> Tracer:
        """``value`` as a constant of this trace (no tape node, zero tangent)."""
        raise NotImplementedError

    def is_const(self, t: Tracer) -> bool:
        """True when ``t`` (a tracer of this trace) does not depend on this trace's inputs."""
        raise NotImplementedError

    def host_read(self, t: Tracer) -> bool:
        """Whether ``t`` (a tracer of this trace that depends on its inputs) may be read on the
        host: never for a differentiation (the derivative would be lost); a recording
        (``chainrules.ad.jit``) allows it and stops recording."""
        return False

    def assigned(self, t: Tracer) -> None:
        """``t`` (a tracer of this trace) is about to stand for a written value (``t[k] = v``,
        ``t += v``): a recording whose input it is stops recording."""


def _deepest(seq: Any) -> Trace | None:
    """The innermost trace among the tracers inside the nested lists and tuples ``seq``."""
    top: Trace | None = None
    for e in seq:
        tr = e._trace if isinstance(e, Tracer) else _deepest(e) if type(e) in _SEQ else None
        if tr is not None and (top is None or tr.level > top.level):
            top = tr
    return top


def dispatch(fn: Any, args: Any, kwargs: dict[str, Any]) -> Any:
    """Call ``fn(*args, **kwargs)``, letting the innermost trace among the arguments process it."""
    top: Trace | None = None
    for a in args:
        if isinstance(a, Tracer):
            tr = a._trace
            if top is None or tr.level > top.level:
                top = tr
        elif type(a) in _SEQ:
            for e in a:
                if isinstance(e, Tracer):
                    tr = e._trace
                    if top is None or tr.level > top.level:
                        top = tr
                elif type(e) in _SEQ and _deepest(e) is not None:
                    # np.block([[a, b], [c, d]]): found by NumPy's protocol, not by the rules
                    # (which take one level of sequence), so it came back here without end
                    raise TypeError(
                        f"chainrules.ad: {function_name(fn)}: traced arrays inside nested lists "
                        "(lists of lists) are not supported; combine each inner list first "
                        "(np.concatenate or np.stack of each row), then the results"
                    )
    if kwargs:
        moved = False
        for v in kwargs.values():
            if isinstance(v, Tracer):
                tr = v._trace
                if top is None or tr.level > top.level:
                    top = tr
                moved = moved or not tr.is_const(v)
        if moved:  # np.average(x, weights=w): w to its position, where rules differentiate
            args, kwargs = keywords_to_positions(fn, tuple(args), kwargs, _is_tracer)
    if top is None:
        return fn(*args, **kwargs)
    return top.process(fn, args, kwargs)


def _is_tracer(v: Any) -> bool:
    return isinstance(v, Tracer)


def primal(x: Any) -> Any:
    """The array under every level of tracing."""
    while isinstance(x, Tracer):
        x = x._value
    return x


def floating(y: Any) -> bool:
    """True for a floating or complex array (of any library, traced or not)."""
    dt = getattr(y, "dtype", None)
    k = getattr(dt, "kind", None)  # NumPy and CuPy dtypes: one attribute read
    if type(k) is str:
        return k == "f" or k == "c"
    if dt is None or isinstance(y, type):
        return False
    try:
        return dtype_kind(dt) in "fc"
    except TypeError:
        return False


def lift_like(raw: Any, like: Any) -> Any:
    """``raw`` (an array of the user's library) as a constant at every tracing level of ``like``,
    so that it mixes with ``like``'s value in rules without a namespace clash."""
    if not isinstance(like, Tracer):
        return raw
    if isinstance(raw, Tracer) and raw._trace.level == 0:
        raw = raw._value  # a created array: a plain value wherever it meets a trace
    if isinstance(raw, Tracer) and raw._trace.level >= like._trace.level:
        return raw  # already at (or above) like's levels: a cotangent from an outer trace
    return like._trace.const(lift_like(raw, like._value))


_GENERIC: list[type] = []


def _np_generic() -> type:
    if not _GENERIC:
        import numpy as np

        _GENERIC.append(np.generic)
    return _GENERIC[0]


def lookup_rule(find: Callable[[Any], Any], kind: str, fn: Any) -> Any:
    """The ``kind`` rule of ``fn`` (``find`` is the registry's public ``find_rrule`` or
    ``find_frule``); ``None`` for a function whose registration says its result carries no
    derivative (``entry.constant``: it is evaluated on the values, at every level -- a comparison
    inside a Hessian, whose rule would call the library's function on tracers); the rule derived
    from its other mode's (``_derive``); else ``NoRuleError``. An object with a
    ``__chainrules_rule__(kind)`` method and no registration (``_pytree.FlatCall``) is asked."""
    e = _entry_of(fn)
    if e is not None and e.constant:
        return None
    if e is not None and e.kind == "write":
        raise in_place_write(fn)
    if e is None:  # no registration: an object that derives its rules (_pytree.FlatCall)?
        own = getattr(fn, "__chainrules_rule__", None)
        if own is not None:
            return own(kind)
    rule = find(fn) or derived_rule(kind, fn)
    if rule is None:
        raise no_rule(kind, fn)
    return rule


# --- traces in progress -------------------------------------------------------------------------
# The traces whose function is running (call_user pushes them), innermost last. While one runs,
# the floating arrays that the traced namespace creates from no array (xp.zeros(n),
# xp.asarray(0.1), xp.arange(n)) are "created" tracers: tracers of CREATED, a trace of level 0,
# below every real trace. They are plain values to every real trace (each one unwraps them), so
# they cost nothing and never tie a constant to the wrong level, but they are the engine's
# objects: a traced value written into one (buf[k] = t) becomes a functional update,
# array_namespace(created, tracer) sees one namespace, and plain operations among created arrays
# stay created (so that buf = xp.ones(n) * 2; buf[k] = t works too).
ACTIVE: list[Trace] = []


class CreatedTrace(Trace):
    """The level-0 trace of created arrays: an operation on them alone is the library's own
    (on the values), with floating results created again; a real trace unwraps them."""

    __slots__ = ()

    def __init__(self) -> None:
        self.level = 0
        self.cls = None  # type: ignore[assignment]  # each created tracer has its library's class

    def process(self, fn: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        vals = [plain(a) for a in args]
        kw = {k: plain(v) for k, v in kwargs.items()} if kwargs else kwargs
        return _created(fn(*vals, **kw))

    def const(self, value: Any) -> Tracer:
        return self.wrap(value, None, ABOVE.tracer_class(value))

    def is_const(self, t: Tracer) -> bool:
        return True


CREATED = CreatedTrace()


def plain(a: Any) -> Any:
    """``a`` with created tracers (at the top or in a tuple or list) replaced by their values."""
    if isinstance(a, Tracer):
        return a._value if a._trace is CREATED else a
    if type(a) in _SEQ and any(isinstance(e, Tracer) and e._trace is CREATED for e in a):
        return type(a)(plain(e) for e in a)
    return a


def plain_kwargs(trace: Trace, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with created arrays and ``trace``'s constants (data lifted by an inner trace)
    as their values (a copy only when there is one)."""
    for v in kwargs.values():
        if isinstance(v, Tracer) and (v._trace is CREATED or v._trace is trace):
            return {
                k: e._value if isinstance(e, Tracer) and e._trace is trace else plain(e)
                for k, e in kwargs.items()
            }
    return kwargs


def memory_root(v: Any) -> Any:
    """The array whose memory ``v`` looks into: the end of NumPy's ``base`` chain (a view's
    array), or ``torch``'s ``_base``; ``v`` itself for an array that is no view or a library
    that says nothing."""
    while True:
        b = getattr(v, "base", None)
        if b is None:
            b = getattr(v, "_base", None)
        if b is None or type(b) is bytes or not hasattr(b, "shape"):
            return v
        v = b


def forget_written(raw: Any) -> None:
    """Before a write in place into ``raw`` (the value of a created array): the running reverse
    traces drop the copies they keep of arrays in its memory (``ReverseTrace._capture``), so
    that a rule called afterwards gets the written values."""
    root = None
    for tr in ACTIVE:
        c = getattr(tr, "captured", None)
        if c:
            if root is None:
                root = memory_root(raw)
            c.pop(id(root), None)


def _created(y: Any) -> Any:
    if type(y) is tuple or type(y) is list:
        return type(y)(_created(e) for e in y)
    if isinstance(y, Tracer) or not floating(y) or not is_array(y):
        return y
    return CREATED.const(y)


def created(y: Any) -> Any:
    """A floating array made by the traced namespace, as a created tracer while a
    transformation runs (unchanged outside traced code)."""
    if not ACTIVE:
        return y
    return _created(y)


def is_constant(x: Any) -> bool:
    """True when ``x`` depends on no input at any tracing level (reading it loses nothing)."""
    while isinstance(x, Tracer):
        if not x._trace.is_const(x):
            return False
        x = x._value
    return True


def readable(x: Any) -> bool:
    """True when ``x``'s value may be read on the host: every tracing level holds it constant or
    allows the read (``Trace.host_read``)."""
    while isinstance(x, Tracer):
        tr = x._trace
        if not tr.is_const(x) and not tr.host_read(x):
            return False
        x = x._value
    return True


class Tracer:
    """An array inside a function being differentiated (see the module docs).

    The methods live here; the storage (``_trace``, ``_value``, ``_aux``) is added by the
    per-namespace subclasses made by ``chainrules.ad._classes.tracer_class``.
    """

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]
    _trace: Trace
    _value: Any
    _aux: Any
    _view: Any  # set on views only: (base, key), or (None, None) for a view not followed
    _views: Any  # set on bases only: weak references to the (base, key) views made of it
    __array_priority__ = 1000

    _ns: ClassVar[Any]  # a TracedNamespace (chainrules.ad._namespace)
    _base: ClassVar[Any]
    _ops: ClassVar[dict[str, Any]]
    _numpy: ClassVar[bool] = False

    # -- the standard's attributes (metadata: never a value read) --------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._value.shape)

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return self._value.size

    @property
    def dtype(self) -> Any:
        return self._value.dtype

    @property
    def device(self) -> Any:
        return device_of(primal(self))

    @property
    def T(self) -> Any:
        return _mark_view(self._ns.permute_dims(self, tuple(range(self.ndim))[::-1]), self)

    @property
    def mT(self) -> Any:
        return _mark_view(self._ns.matrix_transpose(self), self)

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        return self._ns

    @staticmethod
    def __chainrules_call__(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The engines' hook for registered Python functions (``scatter_add``, ``unsum``, ...):
        a function that finds this method on the type of one of its arguments calls it instead
        of running its body, so the call is recorded like any namespace function. A call whose
        tracers sit deeper in its arguments (a dict, a named tuple, nested tuples) or in keyword
        arguments is recorded as a flat call over its array leaves, differentiated by ``fn``'s
        rules (``_pytree``)."""
        if not kwargs:
            for a in args:
                if not isinstance(a, Tracer) and (
                    isinstance(a, tuple) or type(a) is list or type(a) is dict
                ):
                    break
            else:  # no keyword and no container (the common call): dispatch sees every tracer
                return dispatch(fn, args, kwargs)
        if ABOVE.is_flat(args, kwargs):
            return dispatch(fn, args, kwargs)
        return ABOVE.call_pytree(fn, args, kwargs)

    def to_device(self, device: Any, /, *, stream: Any = None) -> Any:
        if device == self.device:
            return self
        raise TypeError("chainrules.ad: moving a traced array to another device is not supported")

    def __repr__(self) -> str:
        return (
            f"Tracer(shape={self.shape}, dtype={self.dtype}, level={self._trace.level}, "
            f"{type(self._trace).__name__})"
        )

    # -- host reads are refused: they would detach the value from differentiation ----------------
    def _host(self, what: str, *args: Any) -> Any:
        if readable(self):  # depends on no input: reading it loses no derivative
            return _HOST_READS[what](primal(self), *args)
        raise host_read(what)

    def __bool__(self) -> bool:
        return self._host("bool(x)")

    def __float__(self) -> float:
        return self._host("float(x)")

    def __int__(self) -> int:
        return self._host("int(x)")

    def __complex__(self) -> complex:
        return self._host("complex(x)")

    def __index__(self) -> int:
        return self._host("operator.index(x)")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        if readable(self):  # data, not a function of the inputs (a fitted model's mean_)
            import numpy as np

            # copy as asked: np.array(t) passes copy=True and trusts the result to be new
            return np.array(primal(self), dtype=dtype, copy=copy)
        raise array_conversion()

    def __len__(self) -> int:
        if not self.ndim:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __iter__(self) -> Any:
        if not self.ndim:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    # -- indexing ---------------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        tk = type(key)
        if tk is list or (tk is tuple and any(type(k) in _SEQ for k in key)):
            key = _sequence_key(self, key)
        y = dispatch(operator.getitem, (self, key), {})
        if isinstance(y, Tracer) and y.ndim and _basic_key(key):
            y._view = (self, key)  # a NumPy view: writes into y reach self
            _remember_view(self, y)  # and writes into self reach y
        return y

    def __setitem__(self, key: Any, value: Any) -> None:
        """``x[key] = v``, recorded as a functional update: ``x`` becomes a new traced value (the
        old one and ``v`` both get cotangents); a view made by basic indexing writes through to
        its base, as in NumPy. A created array written with an untraced value is written in
        place, by the library itself (rules were given copies of it: ``ReverseTrace._capture``)."""
        if self._trace is CREATED:
            v = plain(value)
            if not isinstance(v, Tracer) and type(v) not in _SEQ:
                forget_written(self._value)
                self._value[primal_key(key)] = v
                return
        _assign(self, _updated(self, key, value))

    def _inplace(self, op: str, other: Any) -> Any:
        if self._trace is CREATED:  # with untraced values: the library's own, in place
            o = plain(other)
            if not isinstance(o, Tracer) and type(o) not in _SEQ:
                v = self._value
                forget_written(v)
                r = _IN_PLACE[op](v, o)
                if r is not v:  # a library with no in-place operators (JAX)
                    _assign(self, self._trace.const(r))
                return self
        # dispatch: ``other`` may be a tracer of an inner trace (acc += t, acc created)
        other = array_like(self, other)
        r = dispatch(self._ops[op], (self, other), _NO_KWARGS)
        if tuple(r.shape) != tuple(self.shape):  # NumPy's a op= b never changes a's shape
            raise ValueError(
                f"chainrules.ad: a {op}= b: non-broadcastable output operand with shape "
                f"{tuple(self.shape)} doesn't match the broadcast shape {tuple(r.shape)}"
            )
        _assign(self, r)
        return self


_IN_PLACE: dict[str, Callable[[Any, Any], Any]] = {
    op: getattr(operator, f"i{op}")
    for op in (
        *("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul"),
        *("and", "or", "xor", "lshift", "rshift"),
    )
}
_HOST_READS: dict[str, Callable[[Any], Any]] = {
    "bool(x)": bool,
    "float(x)": float,
    "int(x)": int,
    "complex(x)": complex,
    "operator.index(x)": operator.index,
    "x.item()": lambda v, *args: v.item(*args),  # NumPy's: item(k) indexes the flat array
    "x.tolist()": lambda v: v.tolist(),
}


def _sequence_key(x: Tracer, key: Any) -> Any:
    """NumPy reads a list (or a tuple inside a tuple key) of indices as an index array."""
    base = namespace_of(primal(x))

    def arr(k: Any) -> Any:
        return (
            base.asarray(k) if type(k) in _SEQ and not any(isinstance(e, Tracer) for e in k) else k
        )

    return arr(key) if type(key) is list else tuple(arr(k) for k in key)


def _int_index(k: Any) -> bool:
    """An integer index: a Python int or a NumPy integer scalar (``x[np.argmax(v)]``, an element
    of an index array), both basic indexing in NumPy (``x[i]`` of a matrix is a view of a row);
    not a bool, which NumPy reads as a mask."""
    return type(k) is int or isinstance(k, _np_integer())


def _np_integer() -> type:
    if len(_GENERIC) < 2:
        import numpy as np

        _GENERIC[:] = [np.generic, np.integer]
    return _GENERIC[1]


def _basic_key(key: Any) -> bool:
    """A key of ints, slices, ``None`` and ``...``: NumPy's getitem returns a view."""
    for k in key if type(key) is tuple else (key,):
        if not (_int_index(k) or type(k) is slice or k is None or k is Ellipsis):
            return False
    return True


def _assign(x: Tracer, new: Any) -> None:
    """Make ``x`` (the object the user holds) stand for ``new``; a view writes into its base."""
    if not isinstance(new, Tracer):
        new = x._trace.const(new)
    x._trace.assigned(x)
    view = getattr(x, "_view", None)
    if view is not None:
        base, key = view
        if base is None:
            raise TypeError(
                "chainrules.ad: writing into the result of a reshape, transpose or similar view "
                "of a traced array would change its base in NumPy, which the engine does not "
                "track; write into the base array (or a slice of it), or copy first"
            )
        base[key] = new  # NumPy changes the base: so does the engine
    if new.dtype != x.dtype:
        new = x._ns.astype(new, x.dtype)
    obj: Any = x  # the storage slots are the subclasses' (tracer_class)
    obj._trace = new._trace
    obj._value = new._value
    obj._aux = new._aux
    if getattr(x, "_views", None):
        _refresh_views(x)


def _remember_view(base: Tracer, view: Tracer) -> None:
    """Record ``view`` (``base[key]``, basic indexing) on ``base``, weakly: a view the code no
    longer holds cannot be read, so it needs no update."""
    views = getattr(base, "_views", None)
    if views is None:
        views = []
        obj: Any = base
        obj._views = views
    elif len(views) >= 32:  # drop the views that are gone (x[i] in a loop)
        views[:] = [r for r in views if r() is not None]
    views.append(weakref.ref(view))


def _refresh_views(base: Tracer) -> None:
    """After a write into ``base``: each view of it the code still holds stands for
    ``base[key]`` again, as a NumPy view sees every write into its base (``v = y[1:3]; y[1] =
    t`` changes ``v``), and so on for the views of those views."""
    for r in list(base._views):
        v = r()
        if v is None:
            continue
        if v._view[0] is None:
            raise TypeError(
                "chainrules.ad: a write into an array while a reshape, transpose or similar "
                "view of it is held: in NumPy the view may see the write, which the engine does "
                "not follow; take the view after the write, or copy it (v = y.T.copy())"
            )
        if v._view[0] is not base:
            continue
        new = dispatch(operator.getitem, (base, v._view[1]), {})
        if not isinstance(new, Tracer):
            new = base._trace.const(new)
        obj: Any = v
        obj._trace = new._trace
        obj._value = new._value
        obj._aux = new._aux
        if getattr(v, "_views", None):
            _refresh_views(v)


def _updated(x: Tracer, key: Any, value: Any) -> Any:
    """``x`` with ``x[key] = value``, from differentiable operations (``where``, ``take``,
    ``reshape``, ``broadcast_to``) and masks built from shapes and ``key`` alone: no value of
    ``x`` or ``value`` is read. Repeated indices follow the backend: the positions are assigned by
    the backend itself."""
    xp = x._ns
    p = primal(x)
    base = namespace_of(p)
    dev = device_of(p)
    kw: dict[str, Any] = {} if dev is None else {"device": dev}
    shape = tuple(x.shape)
    if not isinstance(value, Tracer):
        if not is_array(value):
            value = base.asarray(value, dtype=x.dtype, **kw)
        value = lift_like(value, x)
    # a traced mask of x's shape (a recording's: comparisons carry no derivative) and one value:
    # NumPy's x[mask] = v is where(mask, v, x) (SciPy's logsumexp writes so)
    mask = isinstance(key, Tracer) and key.dtype == base.bool and tuple(key.shape) == shape
    if mask and value.ndim == 0:
        return xp.where(key, value, x)
    key = primal_key(key)
    # the positions are marked through size-1 slices where the key has ints (a host index): no
    # single-element write, which guarded device arrays refuse
    skey = _int_slices(key, shape)
    if value.ndim == 0:
        mask = base.zeros(shape, dtype=base.bool, **kw)
        mask[skey] = True
        return xp.where(mask, value, x)
    # which element of the (broadcast) value lands where: computed by the backend's own setitem
    target_shape = tuple(base.zeros(shape, dtype=base.bool, **kw)[key].shape)
    starget_shape = tuple(base.zeros(shape, dtype=base.bool, **kw)[skey].shape)
    n = 1
    for d in target_shape:
        n *= d
    if n == 0:  # an empty selection (a False mask): nothing is written
        return x
    src = base.full(shape, -1, dtype=base.int64, **kw)
    src[skey] = base.reshape(base.arange(n, dtype=base.int64, **kw), starget_shape)
    flat = xp.reshape(xp.broadcast_to(value, target_shape), (n,))
    gathered = xp.reshape(xp.take(flat, base.reshape(base.clip(src, 0, None), (-1,))), shape)
    return xp.where(src >= 0, gathered, x)


def _int_slices(key: Any, shape: tuple[int, ...]) -> Any:
    """A basic index (ints, slices, ``None``, ``...``) with each int ``i`` as the size-1 slice
    at ``i``: the same positions, with the int's axis kept (an int out of ``shape``'s bounds is
    an ``IndexError``, as NumPy's). Other keys are returned as given."""
    if not _basic_key(key):
        return key
    ks = key if type(key) is tuple else (key,)
    if not any(_int_index(k) for k in ks):
        return key
    used = sum(1 for k in ks if k is not None and k is not Ellipsis)
    out, axis = [], 0
    for k in ks:
        if k is Ellipsis:
            axis += len(shape) - used
        elif _int_index(k):
            k = operator.index(k)  # a NumPy integer as the int it stands for
            size = shape[axis] if axis < len(shape) else 0
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {size}")
            out.append(slice(k, k + 1) if k != -1 else slice(-1, None))
            axis += 1
            continue
        elif k is not None:
            axis += 1
        out.append(k)
    return tuple(out)


def primal_key(key: Any) -> Any:
    """An index with traced parts refused (an index is never differentiated)."""
    for k in key if type(key) is tuple else (key,):
        if isinstance(k, Tracer):
            raise TypeError("chainrules.ad: a traced array cannot be used as an index")
    return key


_NO_KWARGS: dict[str, Any] = {}  # shared by the operators: never mutated


def _holds_tracer(v: Any) -> bool:
    return isinstance(v, Tracer) or (type(v) in _SEQ and any(_holds_tracer(e) for e in v))


def array_like(t: Any, v: Any) -> Any:
    """``v``, a list or tuple of plain values (no tracer inside) operated with the NumPy tracer
    ``t``, as the array NumPy makes of it: NumPy's operators and ufuncs take any array_like
    (``x[0] - [3, 5, 2]`` is ``x[0] - numpy.asarray([3, 5, 2])``). Any other ``v`` as it is
    (a sequence holding tracers goes to ``dispatch``, which looks inside it)."""
    if t._numpy and type(v) in _SEQ and not _holds_tracer(v):
        import numpy as np

        return np.asarray(v)
    return v


def _binary(op: str, reflected: bool = False) -> Callable[[Tracer, Any], Any]:
    """``__op__`` (or, ``reflected``, ``__rop__``: the operands swapped)."""

    def method(self: Tracer, other: Any) -> Any:
        # the trace that processes it: self's, unless other is a tracer of an inner trace;
        # a sequence operand goes through dispatch, which looks inside it
        operands = (other, self) if reflected else (self, other)
        tr = self._trace
        if isinstance(other, Tracer):
            o = other._trace
            if o is not tr and o.level > tr.level:
                tr = o
        elif type(other) in _SEQ:
            other = array_like(self, other)
            if type(other) in _SEQ:
                return dispatch(self._ops[op], operands, {})
            operands = (other, self) if reflected else (self, other)
        return tr.process(self._ops[op], operands, _NO_KWARGS)

    method.__name__ = f"__r{op}__" if reflected else f"__{op}__"
    return method


def _unary(op: str) -> Callable[[Tracer], Any]:
    def method(self: Tracer) -> Any:
        return self._trace.process(self._ops[op], (self,), _NO_KWARGS)

    method.__name__ = f"__{op}__"
    return method


_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
_BITWISE = ("and", "or", "xor", "lshift", "rshift")  # masks and indices (x > 0) | (x < -1)
for _op in (*_ARITHMETIC, *_BITWISE):
    setattr(Tracer, f"__{_op}__", _binary(_op))
    setattr(Tracer, f"__r{_op}__", _binary(_op, reflected=True))
for _op in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(Tracer, f"__{_op}__", _binary(_op))
for _op in ("neg", "pos", "abs", "invert"):
    setattr(Tracer, f"__{_op}__", _unary(_op))


def _inplace_op(op: str) -> Callable[[Tracer, Any], Any]:
    def method(self: Tracer, other: Any) -> Any:  # x op= y: x itself changes, as in NumPy
        return self._inplace(op, other)

    method.__name__ = f"__i{op}__"
    return method


for _op in (*_ARITHMETIC, *_BITWISE):
    setattr(Tracer, f"__i{_op}__", _inplace_op(_op))


def _mark_view(y: Any, base: Any = None) -> Any:
    """Mark ``y`` a view the engine does not follow (``reshape``, ``transpose``, ``real``, ...
    of ``base``): a write into ``y`` is refused, and so is a write into ``base`` while ``y`` is
    held (NumPy's ``y`` may see it)."""
    if isinstance(y, Tracer):
        y._view = (None, None)
        if isinstance(base, Tracer) and y is not base:
            _remember_view(base, y)
    return y
