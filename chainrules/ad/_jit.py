"""``jit(f)``: record the library calls of ``f`` once per argument signature, then replay them.

The first call of ``jit(f)`` with arrays of some types, shapes and dtypes (and equal non-array
arguments) runs ``f`` on tracers of a :class:`JitTrace`, the lowest trace of all: every call that
reaches the engine on them (a NumPy function, an operator, a registered traceable function) runs
on the values and is recorded, with the traced arguments as slots. ``f`` may itself be a
transformation (``jit(grad(f))``): its rules and pullbacks run on the recording's tracers, so the
recording holds the forward pass and the backward pass as plain library calls. The recorded
calls become one Python function (generated source, constants bound as its globals); later
calls with the same signature run it, with no tracer, no rule look-up and no tape.

A boolean or integer 0-d value read on the host (``if x > 0:``, Python's ``max``, ``int(n)``:
the program branches on it) is a guard: the replay computes it again and raises ``_Branch``
where it differs, and that call is recorded as another branch of its signature (at most
``MAX_BRANCHES``). What a recording cannot replay, it does not record. It stops (and the
signature runs ``f`` as it is, every call) when another traced value is read on the host
(``float(x)``, ``numpy.asarray(x)``), when an input is written into, when a call
returns something other than an array (``numpy.allclose``), when a call writes into ``out=``,
or when the recording raises (``f`` is then called as it is, which raises the error a user
would see without ``jit``). A replayed call whose result has another shape than when it was
recorded (data-dependent shapes: ``unique``, a boolean mask) ends the replay; that call and the
later ones of its signature run ``f`` as it is.

The contract is ``jax.jit``'s: ``f`` is a function of its arguments. Arrays it closes over, or
creates from no argument (``numpy.random`` inside ``f``), are constants of the recording;
Python side effects happen at the recording only. Pass what changes as arguments.
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.namespaces import dtype_kind, is_array, namespace_of
from ..core.pytree import DataclassNode, flatten, unflatten
from ._classes import tracer_class
from ._tracer import _SEQ, ACTIVE, CREATED, Trace, Tracer, _entry_of

__all__ = ["jit"]

_CONST = -1  # an argument's slot: a constant of the recording
MAX_SIGNATURES = 64  # recordings kept per jitted function (least recently used dropped)


class _Stop(Exception):
    """A call the recording cannot hold (a tracer of another trace among its arguments)."""


class _Mismatch(Exception):
    """A replayed call returned another shape than when it was recorded."""


class _Branch(Exception):
    """A value the recording read on the host (a guard) is another at this call."""


_GUARD = object()  # the ``fn`` of a guard among the recorded calls
MAX_GUARDS = 256  # values read on the host per recording
MAX_BRANCHES = 8  # recordings kept per signature, one per outcome of its guards


class JitTrace(Trace):
    """Records every call made on its tracers as ``(fn, values, slots, kwargs, kwslots,
    outputs)``; a tracer's ``_aux`` is its slot, ``None`` for a constant of the recording."""

    __slots__ = ("buffers", "guards", "inputs", "n", "ops", "rerun", "why")

    def __init__(self, cls: type[Tracer]) -> None:
        super().__init__(cls)
        self.ops: list[Any] = []
        self.n = 0
        self.inputs = 0
        self.why: str | None = None  # why the recording stopped
        self.rerun = False  # its result is not the function's: it wrote into an argument
        self.buffers: dict[int, Any] = {}  # slot -> dtype, shape: a large array a ufunc made
        self.guards = 0

    def new(self, value: Any) -> Tracer:
        t = self.wrap(value, self.n, tracer_class(value))
        self.n += 1
        return t

    def const(self, value: Any) -> Tracer:
        return self.wrap(value, None, tracer_class(value))

    def is_const(self, t: Tracer) -> bool:
        return t._aux is None

    def host_read(self, t: Tracer) -> bool:
        """A read of a boolean or integer 0-d value (``if x > 0:``, Python's ``max``, ``int(n)``)
        is a guard: the replay computes the value again and goes on only where it is the same
        (the branch taken, the count read); any other read stops the recording."""
        v = t._value
        if (
            self.why is None
            and tuple(getattr(v, "shape", (1,))) == ()
            and dtype_kind(v.dtype) in "bui"
            and self.guards < MAX_GUARDS
        ):
            self.guards += 1
            self.ops.append((_GUARD, [_copy(v)], [t._aux], {}, {}, ("guard",)))
        else:
            self.stop("a traced value is read on the host (float, numpy.asarray, ...)")
        return True

    def assigned(self, t: Tracer) -> None:
        if t._aux is not None and t._aux < self.inputs:
            self.stop("an argument is written into", rerun=True)

    def stop(self, why: str, rerun: bool = False) -> None:
        """Stop recording, saying why; ``rerun``: the recording's result differs from the
        function's (an array of the caller's was written functionally, not in place)."""
        if self.why is None:
            self.why = why
        self.rerun = self.rerun or rerun

    def _arg(self, a: Any) -> tuple[Any, int]:
        """``(value, slot)`` of one argument (``_CONST`` for a constant)."""
        if isinstance(a, Tracer):
            if a._trace is self:
                return a._value, _CONST if a._aux is None else a._aux
            if a._trace is CREATED:  # created by the code: its value now (it may be written)
                return _copy(a._value), _CONST
            raise _Stop("a tracer of another trace reached the recording's call")
        return a, _CONST

    def process(self, fn: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        vals: list[Any] = []
        slots: list[Any] = []
        reads = False
        for a in args:
            if type(a) in _SEQ and any(isinstance(e, Tracer) for e in a):
                pairs = [self._arg(e) for e in a]
                vs = tuple(p[0] for p in pairs)
                ss = tuple(p[1] for p in pairs)
                vals.append(type(a)(vs))
                slots.append((type(a), ss, vs))
                reads = reads or any(s != _CONST for s in ss)
            else:
                v, s = self._arg(a)
                vals.append(v)
                slots.append(s)
                reads = reads or s != _CONST
        kw: dict[str, Any] = {}
        kwslots: dict[str, int] = {}
        for k, a in kwargs.items():
            kw[k], kwslots[k] = self._arg(a)
            reads = reads or kwslots[k] != _CONST
        if "out" in kw:
            self.stop("a call writes into out=", rerun=True)
        y = fn(*vals, **kw)
        if not reads:  # constants only: a constant of the recording
            return _consts(self, y)
        e = _entry_of(fn)
        if e is not None and e.kind == "metadata":  # shapes, dtypes: fixed by the signature
            return _consts(self, y)
        out, outspec = self._outputs(y)
        if _writable(fn, kw) and type(y) is np.ndarray and y.nbytes >= _MIN_BUFFER:
            self.buffers[outspec[1]] = (y.dtype, y.shape)
        self.ops.append((fn, vals, slots, kw, kwslots, outspec))
        return out

    def _outputs(self, y: Any) -> tuple[Any, Any]:
        if type(y) is tuple or type(y) is list or _named(y):
            parts = [self._outputs(e) for e in y]
            outs = [p[0] for p in parts]
            out = type(y)(*outs) if _named(y) else type(y)(outs)
            return out, ("seq", tuple(p[1] for p in parts))
        if is_array(y) and not isinstance(y, Tracer):
            t = self.new(y)
            return t, ("slot", t._aux, tuple(y.shape))
        if y is None:  # numpy.put, copyto, fill_diagonal: it wrote into an argument
            self.stop("a call writes into its argument in place", rerun=True)
        else:
            self.stop(f"a call returns a {type(y).__name__}, not an array")
        return y, ("const",)


# NumPy's own threshold for eliding a temporary (``NPY_MIN_ELIDE_BYTES``): below it a fresh array
# costs less than the ``out=`` argument's handling
_MIN_BUFFER = 256 * 1024


def _writable(fn: Any, kw: dict[str, Any]) -> bool:
    """``fn(..., **kw)`` is a NumPy ufunc of one output that allocates it: it returns a fresh
    array, never a view, and it can write its result into an argument it reads (``out=``)."""
    return type(fn) is np.ufunc and fn.nout == 1 and "out" not in kw and "where" not in kw


def _named(y: Any) -> bool:
    return isinstance(y, tuple) and hasattr(y, "_fields")


def _consts(trace: JitTrace, y: Any) -> Any:
    if type(y) is tuple or type(y) is list:
        return type(y)(_consts(trace, e) for e in y)
    if is_array(y) and not isinstance(y, Tracer):
        return trace.const(y)
    return y


def _copy(v: Any) -> Any:
    """A copy of the array ``v`` (where its library makes one): what the recording may write."""
    copy = getattr(v, "copy", None)
    if callable(copy):
        return copy()
    try:
        return namespace_of(v).asarray(v, copy=True)
    except Exception:  # noqa: BLE001  (an immutable array: JAX's)
        return v


# --- the replay: generated source ---------------------------------------------------------------
class _Source:
    """The source of a replay function; its constants are globals ``c<i>`` of the code."""

    def __init__(self) -> None:
        self.globals: dict[str, Any] = {"_Mismatch": _Mismatch, "_Branch": _Branch}
        self.lines: list[str] = []

    def const(self, v: Any) -> str:
        if v is None or v is Ellipsis or type(v) in (bool, int, str):
            return "..." if v is Ellipsis else repr(v)
        name = f"c{len(self.globals)}"
        self.globals[name] = v
        return name

    def arg(self, slot: Any, value: Any) -> str:
        if type(slot) is tuple:
            kind, slots, values = slot
            parts = [self.arg(s, v) for s, v in zip(slots, values)]
            if kind is list:
                return "[" + ", ".join(parts) + "]"
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        return self.const(value) if slot == _CONST else f"s{slot}"

    def unpack(self, src: str, spec: Any) -> None:
        if spec[0] == "slot":
            self.lines.append(f"s{spec[1]} = {src}")
            self.lines.append(f"if s{spec[1]}.shape != {spec[2]!r}: raise _Mismatch")
        elif spec[0] == "seq":
            for i, sp in enumerate(spec[1]):
                if sp[0] != "const":
                    self.unpack(f"{src}[{i}]", sp)

    def tree(self, treedef: Any, leaves: Any) -> str:
        if treedef is None:
            return next(leaves)
        t, keys, children = treedef
        parts = [self.tree(c, leaves) for c in children]
        if t is dict:
            return "{" + ", ".join(f"{self.const(k)}: {p}" for k, p in zip(keys, parts)) + "}"
        if t is list:
            return "[" + ", ".join(parts) + "]"
        inner = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        if type(keys) is DataclassNode:  # a registered dataclass: its fields by name
            return f"{self.const(keys.build)}({self.const(t)}, {inner})"
        return inner if t is tuple else f"{self.const(t)}(*{inner})"


def _read(slot: Any, into: set[int]) -> None:
    """Add the slots an argument's ``slot`` reads (a sequence's, recursively) to ``into``."""
    if type(slot) is tuple:
        for s in slot[1]:
            _read(s, into)
    elif slot != _CONST:
        into.add(slot)


def _written(spec: Any, into: list[int]) -> None:
    """Append the slots an output ``spec`` writes to ``into``."""
    if spec[0] == "slot":
        into.append(spec[1])
    elif spec[0] == "seq":
        for sp in spec[1]:
            _written(sp, into)


_SCALARS = (int, float, complex, bool, str, type(None), type(Ellipsis))


def _inside() -> None:
    raise RuntimeError(
        "chainrules.ad.jit: a replay function (from recordings) was called inside a "
        "transformation; call the jitted function, which runs the function itself there"
    )


def _const_key(v: Any) -> Any:
    """A constant argument as a key: a Python scalar (or a tuple of them) by its type and
    ``repr`` (``-0.0`` is not ``0.0``, ``nan`` is itself), anything else by identity."""
    if type(v) in _SCALARS:
        return (type(v), repr(v))
    if type(v) is tuple and all(type(e) in _SCALARS for e in v):
        return (tuple, repr(v))
    return ("id", id(v))


def _arg_key(slot: Any, value: Any, alias: dict[int, int]) -> Any:
    if type(slot) is tuple:
        kind, slots, values = slot
        return (kind, tuple(_arg_key(s, v, alias) for s, v in zip(slots, values)))
    return ("c", _const_key(value)) if slot == _CONST else alias.get(slot, slot)


def _renamed(slot: Any, alias: dict[int, int]) -> Any:
    if type(slot) is tuple:
        kind, slots, values = slot
        return (kind, tuple(_renamed(s, alias) for s in slots), values)
    return alias.get(slot, slot)


def _shared(ops: list[Any], results: set[int]) -> list[Any]:
    """The recorded calls with each repeated one (the same function of the same arguments, a
    pure library call: the same results) left out and its results read from the first: a
    Hessian's forward and reverse passes compute some values twice. A result of the recording
    is never read from another call's (the caller would get one array twice)."""
    alias: dict[int, int] = {}
    first: dict[Any, Any] = {}
    out: list[Any] = []
    for fn, vals, slots, kw, kwslots, outspec in ops:
        slots = [_renamed(s, alias) for s in slots]
        kwslots = {k: _renamed(s, alias) for k, s in kwslots.items()}
        op = (fn, vals, slots, kw, kwslots, outspec)
        made: list[int] = []
        _written(outspec, made)
        if fn is not _GUARD and not results.intersection(made):
            key = (
                id(fn),
                tuple(_arg_key(sl, v, alias) for sl, v in zip(slots, vals)),
                tuple((k, _arg_key(kwslots[k], v, alias)) for k, v in kw.items()),
            )
            earlier = first.get(key)
            if earlier is not None and earlier[0] == _shapes(outspec):
                alias.update(zip(made, earlier[1]))
                continue
            first[key] = (_shapes(outspec), made)
        out.append(op)
    return out


def _shapes(spec: Any) -> Any:
    """An output spec without its slots: the structure and shapes a call returned."""
    if spec[0] == "slot":
        return ("slot", spec[2])
    if spec[0] == "seq":
        return ("seq", tuple(_shapes(sp) for sp in spec[1]))
    return spec


def _live(ops: list[Any], results: set[int]) -> list[Any]:
    """The recorded calls a result or a guard needs. Every recorded call is a library function
    of its arguments (a write in place stops the recording), so a call whose outputs nothing
    reads can go: ``jit(grad(f))`` computes ``f``'s value and the cotangents of arguments that
    are not differentiated, and returns neither."""
    needed = set(results)
    keep: list[Any] = []
    for op in reversed(ops):
        made: list[int] = []
        _written(op[5], made)
        if op[0] is _GUARD or any(s in needed for s in made):
            keep.append(op)
            for s in (*op[2], *op[4].values()):
                _read(s, needed)
    return keep[::-1]


def _buffer_plan(
    ops: list[Any],
    buffers: dict[int, Any],
    reads: list[set[int]],
    last: dict[int, int],
    results: set[int],
) -> dict[int, int]:
    """``{call: slot}``: the calls that write their result into an intermediate array they read
    last (``out=``) instead of a fresh one, as NumPy elides a temporary in ``a * b + c``.

    A slot qualifies where a ufunc made it (a fresh array: no caller's array, no constant and no
    view of either), no call but a ufunc reads it (so no view of it exists: writing into it
    changes no other slot), it is not a result, and it has the call's result's dtype and shape.
    At 1e6 elements each array the replay allocates costs its pages' faults, about as much as the
    pass that fills it (the programs at scale of ``benchmarks/population``)."""
    if not buffers:
        return {}
    viewed: set[int] = set()  # slots some call other than a ufunc reads: a view may exist
    for (fn, _, _, kw, _, _), r in zip(ops, reads):
        if not _writable(fn, kw):
            viewed |= r
    into: dict[int, int] = {}
    for i, (_, _, _, _, _, outspec) in enumerate(ops):
        o = outspec[1] if outspec[0] == "slot" else None
        if o not in buffers:
            continue
        for s in sorted(reads[i]):
            if (
                s in buffers
                and last[s] == i
                and s not in results
                and s not in viewed
                and buffers[s] == buffers[o]
            ):
                into[i] = s
                break
    return into


def _compile(trace: JitTrace, out_leaves: list[Any], outdef: Any) -> Callable[..., Any]:
    """The recorded calls of ``trace`` as one Python function of its input arrays.

    Each slot is deleted after the last call that reads it (an output never read, at once): the
    replay holds only the arrays still needed, as the engine's tape releases each pullback's
    residuals once it has run. Kept to the end, every intermediate of a program at 1e6 elements
    stays alive (a chain of 25 operations: 23 arrays of 8 MB), and the allocator's fresh pages
    cost more than the calls (benchmarks/population, the programs at scale under ``--jit``)."""
    src = _Source()
    results = {o._aux for o in out_leaves if isinstance(o, Tracer) and o._trace is trace}
    ops = _live(_shared(trace.ops, results), results)
    last: dict[int, int] = {}  # slot -> the index of the last call that reads it
    reads: list[set[int]] = []
    for i, (_, _, slots, _, kwslots, _) in enumerate(ops):
        r: set[int] = set()
        for s in (*slots, *kwslots.values()):
            _read(s, r)
        reads.append(r)
        for s in r:
            last[s] = i
    into = _buffer_plan(ops, trace.buffers, reads, last, results)
    for i, (fn, vals, slots, kw, kwslots, outspec) in enumerate(ops):
        if fn is _GUARD:  # the value read when recorded: the same at this call, or a branch
            src.lines.append(f"if s{slots[0]} != {src.const(vals[0])}: raise _Branch")
        else:
            args = [src.arg(s, v) for s, v in zip(slots, vals)]
            args += [f"{k}={src.arg(kwslots[k], v)}" for k, v in kw.items()]
            if i in into:
                args.append(f"out=s{into[i]}")
            call = f"{src.const(getattr(fn, '__chainrules_body__', fn))}({', '.join(args)})"
            if outspec[0] == "slot":
                src.unpack(call, outspec)
            else:
                src.lines.append(f"y = {call}")
                src.unpack("y", outspec)
                src.lines.append("del y")
        made: list[int] = []  # (a guard's spec writes none)
        _written(outspec, made)
        dead = [s for s in reads[i] if last[s] == i and s not in results]
        dead += [s for s in made if s not in last and s not in results]
        if dead:
            src.lines.append("del " + ", ".join(f"s{s}" for s in sorted(dead)))
    names = []
    for o in out_leaves:
        if isinstance(o, Tracer) and o._trace is trace and o._aux is not None:
            names.append(f"s{o._aux}")
        elif is_array(v := o._value if isinstance(o, Tracer) else o):
            names.append(f"{src.const(_copy)}({src.const(v)})")  # each call its own array
        else:
            names.append(src.const(v))
    body = "\n    ".join([*src.lines, f"return {src.tree(outdef, iter(names))}"])
    params = ", ".join(f"s{i}" for i in range(trace.inputs))
    # a traceable function's body runs in place of its wrapper (no tracer reaches a replay:
    # the jitted function replays only outside transformations); a replay function called
    # inside one says so rather than differentiate those bodies
    src.globals["_ACTIVE"], src.globals["_inside"] = ACTIVE, _inside
    body = f"if _ACTIVE: _inside()\n    {body}"
    text = f"def replay({params}):\n    {body}\n"
    exec(compile(text, "<chainrules.ad.jit>", "exec"), src.globals)
    replay: Any = src.globals["replay"]
    replay.source = text
    return replay


def _signature(leaves: list[Any]) -> tuple[Any, ...]:
    """Types, shapes and dtypes of the arrays; the other leaves themselves (hashable)."""
    key: list[tuple[Any, ...]] = []
    for e in leaves:
        if is_array(e) and not isinstance(e, Tracer):
            key.append((type(e), tuple(e.shape), e.dtype))
        else:
            hash(e)  # TypeError: an unhashable argument, never cached
            key.append((type(e), e))
    return tuple(key)


def _positional(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Types, shapes and dtypes of positional arrays: the key of a replay found without
    flattening (``AttributeError`` for an argument with no shape)."""
    return tuple([(type(a), a.shape, a.dtype) for a in args])


def _fast_key(args: tuple[Any, ...], kwargs: dict[str, Any], leaves: list[Any]) -> Any:
    """:func:`_positional` of the call when its arguments are all positional arrays, else
    ``None``."""
    if kwargs or len(leaves) != len(args) or not all(is_array(a) for a in args):
        return None
    return _positional(args)


def _record(f: Callable[..., Any], leaves: list[Any], treedef: Any) -> tuple[Any, Any]:
    """``(f's result, replay function or why none)`` of a call recorded on these leaves; the
    result is ``_RERUN`` where the recording's is not the function's."""
    from ._user_rules import call_user

    arrays = [e for e in leaves if is_array(e)]
    trace = JitTrace(tracer_class(arrays[0]))
    # on copies: a call that writes into an argument in place (numpy.put) stops the recording,
    # and the function then runs on the caller's arrays, which it writes once, as without jit
    traced = [trace.new(_copy(e)) if is_array(e) else e for e in leaves]
    trace.inputs = trace.n
    args, kwargs = unflatten(treedef, traced)
    y = call_user(f, args, kwargs)
    out_leaves, outdef = flatten(y)
    values = [
        o._value if isinstance(o, Tracer) and o._trace in (trace, CREATED) else o
        for o in out_leaves
    ]
    if any(isinstance(o, Tracer) and o._trace not in (trace, CREATED) for o in out_leaves):
        trace.stop("the result holds a tracer of another transformation")
    if trace.why is not None:
        return (_RERUN if trace.rerun else unflatten(outdef, values)), trace.why
    replay = _compile(trace, out_leaves, outdef)
    return unflatten(outdef, values), _Branches([replay]) if trace.guards else replay


class _Branches:
    """The replays of one signature whose recordings read values on the host (guards), one per
    outcome recorded: each is tried in turn; ``_Branch`` where none has this call's outcome."""

    def __init__(self, replays: list[Any]) -> None:
        self.replays = replays

    @property
    def source(self) -> str:
        return "\n".join(r.source for r in self.replays)

    def __call__(self, *arrays: Any) -> Any:
        for r in self.replays:
            try:
                return r(*arrays)
            except _Branch:
                continue
        raise _Branch


def _branched(old: Any, new: Any) -> Any:
    """The cache's entry after a call that no recording of the entry ``old`` replays (``None``,
    or branches that missed) was recorded as ``new`` (a replay, branches or why none)."""
    if not isinstance(old, _Branches) or type(new) is str:
        return new
    if len(old.replays) >= MAX_BRANCHES:
        return _MANY
    return _Branches([*old.replays, *(new.replays if isinstance(new, _Branches) else [new])])


def jit(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f``, recorded once per argument signature and replayed: its library calls (forward and,
    for ``jit(grad(f))``, backward) run with no per-operation dispatch.

    The signature is the arguments' structure, the arrays' types, shapes and dtypes, and the
    other arguments themselves (a call with an unhashable one runs ``f`` as it is). ``f`` must be
    a function of its arguments, as under ``jax.jit``: arrays it closes over or creates from no
    argument are constants of the recording. What cannot be replayed -- a value read on the host
    (Python control flow on values), a write into an argument, a result whose shape depends on
    values -- runs ``f`` as it is (see the module docs). ``jitted.recordings`` maps each
    signature seen to its replay function (its generated code in ``.source``) or to the reason
    it runs ``f`` as it is.

    >>> import numpy as np
    >>> from chainrules import ad
    >>> g = ad.jit(ad.grad(lambda x: np.sum(np.sin(x) * x)))
    >>> g(np.array([0.0, 1.0]))  # recorded
    array([0.        , 1.38177329])
    >>> g(np.array([1.0, 2.0]))  # replayed
    array([1.38177329, 0.07700375])
    """
    cache: OrderedDict[Any, Any] = OrderedDict()  # signature -> replay or why none
    fast: dict[Any, Any] = {}  # (type, shape, dtype) of positional arrays -> replay
    lock = threading.Lock()

    warned: list[bool] = []

    def keep(key: Any, replay: Any) -> None:
        with lock:
            cache[key] = replay
            if len(cache) > MAX_SIGNATURES:
                fast.pop(cache.popitem(last=False)[0][2], None)
                if not warned:
                    warned.append(True)
                    warnings.warn(
                        f"chainrules.ad.jit({getattr(f, '__name__', 'f')}): more than "
                        f"{MAX_SIGNATURES} argument signatures recorded, each call recording "
                        "again: a non-array argument is part of the signature (a Python float "
                        "that changes at every call, a step size), as is each array's shape "
                        "and dtype. Pass values that change as arrays",
                        RuntimeWarning,
                        stacklevel=3,
                    )
            if key[2] is not None:
                if type(replay) is str:
                    fast.pop(key[2], None)
                else:
                    fast[key[2]] = replay

    def jitted(*args: Any, **kwargs: Any) -> Any:
        if ACTIVE:  # inside a transformation or a recording: f as it is, on its tracers
            return f(*args, **kwargs)
        missed = False  # a guard differed: this call's branch is recorded below
        if not kwargs:  # the common call: arrays, positionally, replayed at once
            try:
                replay = fast.get(_positional(args))
            except (AttributeError, TypeError):
                replay = None
            if replay is not None:
                try:
                    return replay(*args)
                except _Branch:
                    missed = True
                except _Mismatch:
                    pass  # the signature's entry says so below
        leaves, treedef = flatten((args, kwargs))
        try:
            key = (treedef, _signature(leaves), _fast_key(args, kwargs, leaves))
        except TypeError:
            return f(*args, **kwargs)
        replay = cache.get(key)
        if type(replay) is str or not any(is_array(e) for e in leaves):
            return f(*args, **kwargs)
        if replay is not None and not missed:
            try:
                return replay(*[e for e in leaves if is_array(e)])
            except _Branch:
                pass
            except _Mismatch:
                keep(key, _SHAPES)
                return f(*args, **kwargs)
        try:
            y, new = _record(f, leaves, treedef)
        except Exception as e:  # noqa: BLE001  (f as it is raises what the user would see)
            y, new = _RERUN, f"the recording raised {type(e).__name__}: {e}"
        keep(key, _branched(replay, new))
        return f(*args, **kwargs) if y is _RERUN else y

    jitted.__name__ = f"jit({getattr(f, '__name__', 'f')})"
    jitted.__doc__ = getattr(f, "__doc__", None)
    jitted.recordings = cache  # type: ignore[attr-defined]
    return jitted


_RERUN = object()
_SHAPES = "a replayed call returned another shape than when it was recorded"
_MANY = (
    f"more than {MAX_BRANCHES} outcomes of the values read on the host (branches, counts) "
    "were recorded"
)
