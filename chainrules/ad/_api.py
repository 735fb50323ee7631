"""The public transformations: grad, value_and_grad, vjp, jvp, jacobian, hessian."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.namespaces import dtype_kind, is_array, namespace_of
from ..core.pytree import flatten, is_node, register_hint, unflatten
from ..core.tangents import AbstractZero, unthunk
from ._classes import tracer_class
from ._config import AD_CONFIG
from ._forward import ForwardTrace
from ._reverse import Node, ReverseTrace, backward
from ._tracer import CREATED, Tracer, lift_like, primal
from ._user_rules import call_user

_NDARRAY = np.ndarray

__all__ = [
    "DEFAULT_CHUNK_THRESHOLD",
    "DEFAULT_REV_CHUNK",
    "HESSIAN_CHUNK_THRESHOLD",
    "JACOBIAN_CHUNK_ELEMENTS",
    "default_chunk_size",
    "grad",
    "hessian",
    "jacobian",
    "jvp",
    "value_and_grad",
    "vjp",
]

DEFAULT_CHUNK_THRESHOLD = 16
"""The smallest default chunk of ``jacobian(mode="fwd")`` (ForwardDiff's choice, which uses 12):
inputs so large that :data:`JACOBIAN_CHUNK_ELEMENTS` allows fewer tangents per pass still get 16."""

DEFAULT_REV_CHUNK = 128
"""The smallest default chunk of ``jacobian(mode="rev")``: outputs too large for
:data:`JACOBIAN_CHUNK_ELEMENTS` are still pulled back 128 cotangents per pass."""

JACOBIAN_CHUNK_ELEMENTS = 2**20
"""The element budget of ``jacobian``'s default chunk: ``chunk * size <= 2**20`` (8 MiB of
float64), where ``size`` is the largest array the chunk multiplies that the engine knows before
the passes (forward mode: the input; reverse mode: the output and each input), so each chunked
seed, input tangent and cotangent stays within 8 MiB. The budget also fixes the work per pass:
``chunk * n`` columns' worth of arithmetic, against a fixed Python cost per pass, so the chunk
shrinks as the arrays grow and the overhead's share stays the same. At n = m = 1000 it is one
pass (time against chunk is flat from about 250 up, ``benchmarks/peers.py --chunks``); past
2**20 / 16 = 65536 elements the floors (:data:`DEFAULT_CHUNK_THRESHOLD`,
:data:`DEFAULT_REV_CHUNK`) take over. Intermediates larger than those arrays are ``chunk`` times
their own size and are not seen by the budget: pass ``chunk_size=`` for such functions."""


HESSIAN_CHUNK_THRESHOLD = 128
"""``hessian``: inputs up to this many elements are pushed forward in one chunk, larger ones in
``ceil(n / 128)`` nearly equal chunks. Each forward pass runs the whole reverse pass (a tape and
its pullbacks) on tracers, so the engine's fixed cost per pass is far larger than in
``jacobian``, and the chunk that pays is larger: at n = 200 two passes of 100 take a third of the
time of ForwardDiff's 13 passes of 16 (``benchmarks/peers.py --hessian``)."""


def default_chunk_size(n: int, threshold: int | None = None, *, size: int | None = None) -> int:
    """The default chunk of ``jacobian(mode="fwd")`` for an input of ``n`` elements.

    The whole input up to ``threshold`` elements, else the smallest chunk that splits ``n`` into
    ``ceil(n / threshold)`` nearly equal passes (ForwardDiff's split). Without ``threshold`` it
    is the element budget's: ``max(DEFAULT_CHUNK_THRESHOLD, JACOBIAN_CHUNK_ELEMENTS // size)``
    with ``size`` the largest array a pass multiplies by the chunk (``n`` by default), so the
    whole input is one pass up to 1024 elements, and 2048 elements give 4 passes of 512."""
    t = threshold if threshold is not None else _budget_threshold(DEFAULT_CHUNK_THRESHOLD, n, size)
    if n <= t:
        return max(n, 1)
    return math.ceil(n / math.ceil(n / t))


def _budget_threshold(floor: int, n: int, size: int | None) -> int:
    """The largest chunk the element budget allows for arrays of ``max(n, size)`` elements, and
    at least ``floor``."""
    return max(floor, JACOBIAN_CHUNK_ELEMENTS // max(n, size or 0, 1))


# --- arguments ---------------------------------------------------------------------------------
def _argnums(argnums: int | Sequence[int], nargs: int, fname: str) -> tuple[int, ...]:
    if type(argnums) is int and 0 <= argnums < nargs:  # the common case
        return (argnums,)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not -nargs <= a < nargs:
            raise ValueError(
                f"{fname}: argnums={argnums!r} does not fit a call with {nargs} positional "
                "argument(s)"
            )
    return tuple(a % nargs for a in nums)


def _arg_name(f: Callable[..., Any], i: int) -> str:
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return f"argument {i}"
    if i < len(params) and params[i].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        return f"argument {i} ({params[i].name!r})"
    return f"argument {i}"


_PY_OR_NP_SCALARS = frozenset(
    (float, complex, np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128)
)


def _leaf(x: Any, f: Callable[..., Any], i: int, fname: str) -> Any:
    """Validate one differentiable leaf: a floating or complex array (a Python float becomes a
    0-d NumPy float64 array)."""
    if type(x) is _NDARRAY:  # the common case, without the lookups below
        k = x.dtype.kind
        if k == "f" or k == "c":
            return x
    elif type(x) in _PY_OR_NP_SCALARS:  # 2.0, np.float64(2.0): a 0-d NumPy array
        return np.asarray(x)
    if isinstance(x, Tracer) or is_array(x):
        if isinstance(x, Tracer) and x._trace is CREATED:
            x = x._value  # an array the calling traced code created: a plain input
        kind = dtype_kind(x.dtype)
        if kind in "fc":
            return x
        what = f"dtype {x.dtype}"
    else:
        what = f"type {type(x).__name__}"
    raise TypeError(
        f"{fname}: {_arg_name(f, i)} of {getattr(f, '__name__', f)!s} has {what}; only "
        "floating-point and complex arrays can be differentiated (cast integer data with "
        "astype, or leave the argument out of argnums)" + register_hint(x)
    )


def _inputs(
    f: Callable[..., Any], args: tuple[Any, ...], nums: tuple[int, ...], fname: str
) -> tuple[list[Any], list[Any], list[Any]]:
    """Leaves of the differentiated arguments, and per argument its tree definition."""
    if len(nums) == 1:  # one real NumPy array (vjp, jvp, jacobian): _leaf's first case, inline
        a = args[nums[0]]
        if type(a) is _NDARRAY and a.dtype.kind in "fc":
            return [a], [None], [1]
    leaves: list[Any] = []
    defs: list[Any] = []
    counts: list[Any] = []
    for i in nums:
        a = args[i]
        if is_node(a):  # a pytree (core.pytree)
            ls, d = flatten(a)
        else:
            ls, d = [a], None
        ls = [_leaf(x, f, i, fname) for x in ls]
        leaves.extend(ls)
        defs.append(d)
        counts.append(len(ls))
    return leaves, defs, counts


def _call(
    f: Callable[..., Any],
    new: list[Any],
    kwargs: dict[str, Any],
    args: tuple[Any, ...],
    nums: tuple[int, ...],
    fname: str,
) -> Any:
    """``call_user(f, new, kwargs)``; a ``TypeError`` from ``f`` while a differentiated argument
    is a list or tuple (``grad(f)([1.0, 2.0])``) gets a message that names the argument."""
    try:
        return call_user(f, new, kwargs)
    except TypeError as err:
        better = _sequence_error(f, args, nums, fname, err)
        if better is None:
            raise
        raise better from err


def _sequence_error(
    f: Callable[..., Any], args: tuple[Any, ...], nums: tuple[int, ...], fname: str, err: Exception
) -> TypeError | None:
    """The error for ``f`` failing on a differentiated list or tuple argument: the engine traced
    it as a pytree (one scalar or array per element), while ``f`` most likely wanted an array.
    ``None`` when no differentiated argument is a list or tuple."""
    i = next((i for i in nums if type(args[i]) in (list, tuple)), None)
    if i is None:
        return None
    a = args[i]
    leaves = flatten(a)[0]
    what = f"{len(leaves)} elements"
    if len({is_array(x) or type(x) for x in leaves}) == 1:  # one kind of element: say which
        what = f"{len(leaves)} {'array' if is_array(leaves[0]) else type(leaves[0]).__name__}s"
    name = getattr(f, "__name__", "f")
    label = _arg_name(f, i)
    pname = label.split("'")[1] if "'" in label else "x"
    return TypeError(
        f"{fname}: {label} of {name} is a {type(a).__name__} of {what}; {fname} differentiates "
        f"a {type(a).__name__} as a pytree (each element traced on its own, the derivative a "
        f"{type(a).__name__} too), and {name} used it where an array is expected. If {name} "
        f"expects an array, pass one: np.asarray({pname}) (or xp.asarray for another array "
        f"library). The error was TypeError: {err}"
    )


def _substitute(
    args: tuple[Any, ...], nums: tuple[int, ...], defs: list[Any], counts: list[int], new: list[Any]
) -> list[Any]:
    out = list(args)
    k = 0
    for i, d, c in zip(nums, defs, counts):
        out[i] = new[k] if d is None else unflatten(d, new[k : k + c])  # None: one array
        k += c
    return out


def _regroup(argnums: Any, defs: list[Any], counts: list[int], vals: list[Any]) -> Any:
    """Per-leaf results back into the argument structure (a tuple when argnums is a tuple)."""
    if type(argnums) is int and defs[0] is None:  # one array argument
        return vals[0]
    trees = []
    k = 0
    for d, c in zip(defs, counts):
        trees.append(unflatten(d, vals[k : k + c]))
        k += c
    return trees[0] if isinstance(argnums, int) else tuple(trees)


def _ns(*arrays: Any) -> Any:
    """The namespace to assemble results from ``arrays``: the traced one when one of them is a
    tracer (of an outer transformation: a Jacobian of a Jacobian), else the library's own."""
    for a in arrays:
        if isinstance(a, Tracer):
            return a.__array_namespace__()
    return namespace_of(primal(arrays[0]))


def _zeros_like(x: Any) -> Any:
    p = primal(x)
    return namespace_of(p).zeros_like(p)


_NP_ONES: dict[Any, Any] = {}


def _ones_like(x: Any) -> Any:
    p = primal(x)
    if (type(p) is _NDARRAY or isinstance(p, np.generic)) and p.shape == ():  # the common seed
        one = _NP_ONES.get(p.dtype)
        if one is None:
            one = _NP_ONES[p.dtype] = np.ones((), dtype=p.dtype)
            one.flags.writeable = False
    else:
        one = namespace_of(p).ones_like(p)
    return lift_like(one, x)


_NUMBERS = (float, int, complex, np.generic)


def _number_like(t: Any, x: Any) -> Any:
    """A tangent or cotangent given as a Python or NumPy number, for the 0-d array ``x``: a 0-d
    array of ``x``'s library and dtype (a real number for a complex ``x`` stays real-valued)."""
    if not isinstance(t, _NUMBERS):
        return t
    p = primal(x)
    if type(p) is _NDARRAY or not is_array(p):
        dt = getattr(p, "dtype", None)
        if (
            dt is not None
            and np.dtype(dt).kind == "f"
            and isinstance(t, complex | np.complexfloating)
        ):
            return np.asarray(t)
        return np.asarray(t, dtype=dt)
    xp = namespace_of(p)
    return xp.asarray(t, dtype=p.dtype, device=getattr(p, "device", None))


def _finish_ct(ct: Any, x: Any, chunk: int = 0) -> Any:
    ct = unthunk(ct)
    if ct is None or isinstance(ct, AbstractZero):
        if chunk:
            p = primal(x)
            return namespace_of(p).zeros((chunk, *tuple(p.shape)), dtype=p.dtype)
        return _zeros_like(x)
    return ct


# --- reverse mode ------------------------------------------------------------------------------
class ComplexLossError(TypeError, ValueError):
    """``grad`` of a complex scalar: a TypeError (as autograd's) and a ValueError (as before)."""


class _Recording:
    """A forward run of ``f`` on reverse tracers: its tape, input nodes and output."""

    __slots__ = ("defs", "in_nodes", "in_values", "out", "trace")

    def __init__(
        self,
        f: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        nums: tuple[int, ...],
        fname: str,
    ) -> None:
        leaves, defs, counts = _inputs(f, args, nums, fname)
        cls = tracer_class(leaves[0]) if leaves else Tracer
        trace = ReverseTrace(cls)
        wrapped = [
            trace.wrap(x, Node(None, ()), tracer_class(x) if i else cls)
            for i, x in enumerate(leaves)
        ]
        self.trace = trace
        self.in_nodes = [w._aux for w in wrapped]
        self.in_values = leaves
        self.out = _call(
            f, _substitute(args, nums, defs, counts, wrapped), kwargs, args, nums, fname
        )
        self.defs = (defs, counts)

    def pull(self, seeds: list[tuple[Any, Any]], release: bool, chunk: int = 0) -> list[Any]:
        """Cotangents of the inputs for ``seeds`` = [(output leaf, cotangent), ...]; with
        ``chunk`` > 0 each cotangent carries a leading axis of that length (a chunk pulled back
        in one pass) and so does each input's cotangent."""
        trace = self.trace
        node_seeds: list[tuple[Node, Any]] = []
        for y, ct in seeds:
            if isinstance(y, Tracer) and y._trace is trace and y._aux is not None:
                node_seeds.append((y._aux, ct))
        backward(trace.tape, node_seeds, release, chunk)
        if release:
            trace.tape = []
        out = []
        for node, x in zip(self.in_nodes, self.in_values):
            out.append(_finish_ct(node.ct, x, chunk))
            node.ct = None
            node.owned = False
        return out


def _output_value(y: Any, trace: Any) -> Any:
    """An output leaf of ``trace``'s function without that trace (and a created array, which
    exists only inside traced code, as the library's own array)."""
    if isinstance(y, Tracer) and (y._trace is trace or y._trace is CREATED):
        return y._value
    return y


def _scalar_output(y: Any, fname: str, f: Callable[..., Any]) -> None:
    if isinstance(y, Tracer):  # the common case: a real 0-d NumPy value, checked directly
        v = y._value
        if (
            (type(v) is _NDARRAY or isinstance(v, np.generic))
            and v.shape == ()
            and v.dtype.kind == "f"
        ):
            return
    if type(y) is float or type(y) is int:
        return  # a loss that does not depend on the arguments: a zero gradient
    shape = getattr(y, "shape", None)
    name = getattr(f, "__name__", "f")
    if shape is None or isinstance(y, (tuple, list, dict)):
        raise TypeError(
            f"{fname}: {name} must return a real scalar (a 0-d array, an array of one element "
            f"or a Python float), got {type(y).__name__}; use chainrules.ad.jacobian or "
            "chainrules.ad.vjp for other outputs"
        )
    if math.prod(tuple(shape)) != 1:
        raise ValueError(
            f"{fname}: {name} returned an array of shape {tuple(shape)}, not a scalar; return "
            "a 0-d array (or one element), or use chainrules.ad.jacobian or chainrules.ad.vjp "
            "for non-scalar outputs"
        )
    if dtype_kind(y.dtype) == "c":
        raise ComplexLossError(
            f"{fname}: {name} returned a complex scalar; grad needs a real loss (take abs, real "
            "or a squared modulus), or use chainrules.ad.vjp with a complex cotangent"
        )


def _value_and_grad_of_array(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], i: int, x: Any
) -> tuple[Any, Any]:
    """``value_and_grad``'s common call -- ``argnums`` one int, that argument a real NumPy array
    -- with ``_Recording`` (its ``_inputs``, ``_substitute``), ``pull`` and ``_regroup`` written
    out for the one leaf: at n = 10 their general bookkeeping was 8-15% of a whole gradient."""
    cls = tracer_class(x)
    trace = ReverseTrace(cls)
    node = Node(None, ())
    wrapped = list(args)
    wrapped[i] = trace.wrap(x, node, cls)
    y = call_user(f, wrapped, kwargs)
    del wrapped
    _scalar_output(y, "grad", f)
    value = _output_value(y, trace)
    if type(value) is float or type(value) is int:
        value = np.asarray(float(value))
    seeds = []
    if isinstance(y, Tracer) and y._trace is trace and y._aux is not None:
        seeds.append((y._aux, _ones_like(value)))
    backward(trace.tape, seeds, True)
    trace.tape = []
    ct = node.ct
    node.ct = None
    return value, _finish_ct(ct, x)


def value_and_grad(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0
) -> Callable[..., tuple[Any, Any]]:
    """``f``'s value and its gradient with respect to the arguments ``argnums``.

    ``f`` returns a real scalar (a 0-d array). Arguments may be arrays or pytrees (tuples, lists,
    named tuples, dicts) of arrays; the gradient has the same structure. For a complex input the
    gradient is ``dL/dRe + i dL/dIm`` (chainrules' convention: JAX returns its conjugate).
    """

    def value_and_grad_f(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if type(argnums) is int and 0 <= argnums < len(args):
            x = args[argnums]
            if type(x) is _NDARRAY and x.dtype.kind == "f":
                return _value_and_grad_of_array(f, args, kwargs, argnums, x)
        nums = _argnums(argnums, len(args), "grad")
        rec = _Recording(f, args, kwargs, nums, "grad")
        y = rec.out
        _scalar_output(y, "grad", f)
        value = _output_value(y, rec.trace)
        if type(value) is float or type(value) is int:
            value = np.asarray(float(value))
        grads = rec.pull([(y, _ones_like(value))], release=True)
        defs, counts = rec.defs
        return value, _regroup(argnums, defs, counts, grads)

    value_and_grad_f.__name__ = f"value_and_grad({getattr(f, '__name__', 'f')})"
    return value_and_grad_f


def grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    """The gradient of a scalar function ``f`` with respect to the arguments ``argnums``.

    >>> import numpy as np
    >>> from chainrules.ad import grad
    >>> grad(lambda x: np.sum(np.sin(x) * np.exp(x)))(np.array([0.0, 1.0]))
    array([1.        , 3.75604923])
    """
    vg = value_and_grad(f, argnums)

    def grad_f(*args: Any, **kwargs: Any) -> Any:
        return vg(*args, **kwargs)[1]

    grad_f.__name__ = f"grad({getattr(f, '__name__', 'f')})"
    return grad_f


def vjp(f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
    """``(y, pullback)``: ``f(*args)`` and a function from a cotangent of ``y`` (same structure)
    to a tuple of cotangents, one per positional argument. The pullback may be called many
    times (the tape is kept until it is garbage-collected)."""
    nums = tuple(range(len(args)))
    return vjp_of(f, args, kwargs, nums, nums)


def vjp_of(f: Any, args: Any, kwargs: Any, nums: tuple[int, ...], argnums: Any) -> Any:
    """:func:`vjp` by the arguments ``nums``, cotangents grouped as ``argnums`` (int or tuple)."""
    rec = _Recording(f, args, kwargs, nums, "vjp")
    out_leaves, out_def = flatten(rec.out)
    y = unflatten(out_def, [_output_value(o, rec.trace) for o in out_leaves])

    def pullback(ct: Any) -> Any:
        cts, _ = flatten(ct)
        if len(cts) != len(out_leaves):
            raise ValueError(
                f"vjp: the cotangent has {len(cts)} leaves; the output has {len(out_leaves)}"
            )
        for c, o in zip(cts, out_leaves):
            cs, os_ = tuple(getattr(c, "shape", ())), tuple(getattr(o, "shape", ()))
            if not isinstance(c, AbstractZero) and cs != os_:
                raise ValueError(
                    f"vjp: cotangent of shape {cs} does not match the output's shape {os_}"
                )
        seeds = []
        for o, c in zip(out_leaves, cts):
            v = _output_value(o, rec.trace)
            seeds.append((o, lift_like(_number_like(c, v), v)))
        grads = rec.pull(seeds, release=False)
        defs, counts = rec.defs
        return _regroup(argnums, defs, counts, grads)

    return y, pullback


# --- forward mode ------------------------------------------------------------------------------
def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """``(f(*primals), J @ tangents)``: push ``tangents`` (the structure of ``primals``) forward.

    A tangent may carry a leading chunk axis (``(k, *x.shape)``): the ``k`` directions are pushed
    in one pass and the output tangent has the same leading axis.
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    nums = tuple(range(len(primals)))
    leaves, defs, counts = _inputs(f, primals, nums, "jvp")
    tleaves, _ = flatten(tangents)
    if len(tleaves) != len(leaves):
        raise ValueError("jvp: the tangents do not have the structure of the primals")
    tleaves = [_number_like(t, x) for t, x in zip(tleaves, leaves)]
    chunk: tuple[int, ...] = ()
    for x, t in zip(leaves, tleaves):
        if isinstance(t, AbstractZero):
            continue
        extra = t.ndim - x.ndim
        if extra < 0 or tuple(t.shape[extra:]) != tuple(x.shape):
            raise ValueError(
                f"jvp: tangent of shape {tuple(t.shape)} does not fit a primal of shape "
                f"{tuple(x.shape)} (expected the primal's shape after optional chunk axes)"
            )
        chunk = tuple(t.shape[:extra])
    trace = ForwardTrace(tracer_class(leaves[0]) if leaves else Tracer)
    wrapped = [trace.new(x, t) for x, t in zip(leaves, tleaves)]
    out = _call(f, _substitute(primals, nums, defs, counts, wrapped), {}, primals, nums, "jvp")
    return _split_forward(out, trace, chunk)


def _split_forward(out: Any, trace: ForwardTrace, chunk: tuple[int, ...]) -> tuple[Any, Any]:
    leaves, d = flatten(out)
    vals, dots = [], []
    for o in leaves:
        if isinstance(o, Tracer) and o._trace is trace and not isinstance(o._aux, AbstractZero):
            vals.append(o._value)
            dots.append(o._aux)
        else:
            o = _output_value(o, trace)
            vals.append(o)
            p = primal(o)
            xp = namespace_of(p)
            dots.append(xp.zeros(chunk + tuple(p.shape), dtype=p.dtype))
    return unflatten(d, vals), unflatten(d, dots)


def _seed_chunk(x: Any, start: int, k: int) -> Any:
    """Tangents ``e_start ... e_{start+k-1}`` of ``x`` as one ``(k, *x.shape)`` array: rows of an
    identity matrix, made by ``eye`` with an offset (no element writes)."""
    p = primal(x)
    xp = namespace_of(p)
    n = math.prod(x.shape)
    from ..core.namespaces import device_of

    dev = device_of(p)
    kw = {"dtype": x.dtype} if dev is None else {"dtype": x.dtype, "device": dev}
    e = xp.eye(k, n, k=start, **kw)
    return lift_like(xp.reshape(e, (k, *tuple(x.shape))), x)


class _Blocks:
    """The Jacobian blocks (output leaf x input leaf), each preallocated as one 2-D array and
    written a block at a time through a slice: forward mode writes a chunk's ``k`` columns of
    ``J`` as ``k`` contiguous rows of ``J``'s transpose (the buffer is laid out ``(*in, *out)``
    and the result is a ``permute_dims`` view of it, so nothing is copied at the end); reverse mode
    writes a block of rows of ``J``. No element is ever written on its own."""

    def __init__(self, transposed: bool) -> None:
        self.transposed = transposed
        self.views: dict[tuple[int, int], Any] = {}
        self.parts: dict[tuple[int, int], list[Any]] = {}

    def _alloc(self, key: tuple[int, int], like: Any, rows: int, cols: int) -> Any:
        v = self.views.get(key)
        if v is None:
            p = primal(like)
            xp = namespace_of(p)
            from ..core.namespaces import device_of

            dev = device_of(p)
            kw = {"dtype": like.dtype} if dev is None else {"dtype": like.dtype, "device": dev}
            v = self.views[key] = xp.zeros((rows, cols), **kw)
        return v

    def write(self, key: tuple[int, int], rows: int, cols: int, start: int, block: Any) -> None:
        """Rows ``start : start + len(block)`` of the 2-D buffer. Libraries whose arrays are
        immutable (JAX) collect the blocks and concatenate them at the end instead."""
        parts = self.parts.get(key)
        if parts is None and isinstance(block, Tracer):  # of an outer transformation: the
            parts = self.parts[key] = []  # blocks are put together by the traced namespace
        if parts is None:
            v = self._alloc(key, block, rows, cols)
            try:
                v[start : start + block.shape[0], ...] = block
                return
            except (TypeError, NotImplementedError, ValueError):
                parts = self.parts[key] = []
                del self.views[key]
        parts.append(block)

    def result(self, key: tuple[int, int], like_in: Any, like_out: Any, m: int, n: int) -> Any:
        parts = self.parts.get(key)
        xp = _ns(*(parts or ()), like_out)
        in_shape, out_shape = tuple(like_in.shape), tuple(like_out.shape)
        if parts is not None:  # immutable arrays: put the blocks together
            buf = xp.concat(parts, axis=0)
        else:
            buf = self.views.get(key)
            if buf is None:  # no dependence: zeros
                buf = self._alloc(
                    key, like_out, n if self.transposed else m, m if self.transposed else n
                )
        if not self.transposed:
            return xp.reshape(buf, out_shape + in_shape)
        full = xp.reshape(buf, in_shape + out_shape)
        ni, no = len(in_shape), len(out_shape)
        if ni == 0 or no == 0:
            return full
        return xp.permute_dims(full, tuple(range(ni, ni + no)) + tuple(range(ni)))


def jacobian(
    f: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    *,
    mode: str = "fwd",
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """The Jacobian of ``f`` with respect to the arguments ``argnums``.

    For an output of shape ``out`` and an input of shape ``in`` the block has shape
    ``(*out, *in)`` (JAX's layout). ``mode="fwd"`` pushes ``chunk_size`` basis tangents per pass
    through the chunked frules (``ceil(n / chunk_size)`` passes for an input of ``n`` elements)
    and writes each pass's columns into the preallocated result through a reshaped 2-D view.
    ``mode="rev"`` records ``f`` once and runs the tape backwards once per chunk of
    ``chunk_size`` one-hot cotangents (``ceil(m / chunk_size)`` passes for an output of ``m``
    elements), each pass writing a block of rows of the result. The default chunk in both modes
    is bounded by an element budget, :data:`JACOBIAN_CHUNK_ELEMENTS` (``chunk * size <= 2**20``,
    ``size`` the input's elements in forward mode, the largest of the output's and each input's
    in reverse mode), split into nearly equal passes (:func:`default_chunk_size`), and is at
    least :data:`DEFAULT_CHUNK_THRESHOLD` (forward) or :data:`DEFAULT_REV_CHUNK` (reverse):
    up to 1024 elements, one pass. Rules
    registered with ``chunked_pullback=True`` pull the whole chunk back in one call; others run
    once per cotangent of the chunk. Pytrees of inputs and outputs give nested results: the output
    structure outside, the input structure inside.
    """
    if mode not in ("fwd", "rev"):
        raise ValueError(f"jacobian: mode must be 'fwd' or 'rev', got {mode!r}")
    return _jacobian(f, argnums, mode, chunk_size, None, "jacobian")


def _jacobian(
    f: Callable[..., Any],
    argnums: int | Sequence[int],
    mode: str,
    chunk_size: int | None,
    threshold: int | None,
    fname: str,
) -> Callable[..., Any]:
    """``jacobian``; ``threshold`` sets the forward mode's default chunk (see
    :func:`default_chunk_size`)."""
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"{fname}: chunk_size must be a positive int, got {chunk_size!r}")

    def jacobian_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), "jacobian")
        leaves, defs, counts = _inputs(f, args, nums, "jacobian")
        if mode == "fwd":
            out_leaves, out_def, blocks = _jac_fwd(
                f, args, kwargs, nums, leaves, defs, counts, chunk_size, threshold
            )
        else:
            out_leaves, out_def, blocks = _jac_rev(f, args, kwargs, nums, leaves, chunk_size)
        per_out = []
        for oi, o in enumerate(out_leaves):
            m = math.prod(o.shape)
            row = [
                blocks.result((oi, ii), x, o, m, math.prod(x.shape)) for ii, x in enumerate(leaves)
            ]
            per_out.append(_regroup(argnums, defs, counts, row))
        return unflatten(out_def, per_out)

    jacobian_f.__name__ = f"jacobian({getattr(f, '__name__', 'f')})"
    return jacobian_f


def _jac_fwd(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    nums: tuple[int, ...],
    leaves: list[Any],
    defs: list[Any],
    counts: list[int],
    chunk_size: int | None,
    threshold: int | None = None,
) -> tuple[list[Any], Any, _Blocks]:
    blocks = _Blocks(transposed=True)
    out_leaves: list[Any] | None = None
    out_def: Any = None
    for ii, x in enumerate(leaves):
        n = math.prod(x.shape)
        k = chunk_size if chunk_size is not None else default_chunk_size(n, threshold)
        for start in range(0, max(n, 1), k):
            kk = min(k, n - start)
            trace = ForwardTrace(tracer_class(x))
            new = list(leaves)
            new[ii] = trace.new(x, _seed_chunk(x, start, kk)) if kk > 0 else x
            out = _call(
                f, _substitute(args, nums, defs, counts, new), kwargs, args, nums, "jacobian"
            )
            ol, od = flatten(out)
            if out_leaves is None:
                out_leaves = [_output_value(o, trace) for o in ol]
                out_def = od
            if kk <= 0:
                continue
            for oi, o in enumerate(ol):
                if not (
                    isinstance(o, Tracer)
                    and o._trace is trace
                    and not isinstance(o._aux, AbstractZero)
                ):
                    continue  # no dependence: the block stays zero
                y = o._value
                m = math.prod(y.shape)
                dot = o._aux
                xp = _ns(dot)
                if tuple(dot.shape) != (kk, *tuple(y.shape)):
                    dot = xp.broadcast_to(dot, (kk, *tuple(y.shape)))
                # the chunk's kk columns of J are kk contiguous rows of J's transpose
                blocks.write((oi, ii), n, m, start, xp.reshape(dot, (kk, m)))
    if out_leaves is None:  # no differentiated input: evaluate once for the output structure
        out = f(*args, **kwargs)
        out_leaves, out_def = flatten(out)
    return out_leaves, out_def, blocks


def _jac_rev(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    nums: tuple[int, ...],
    leaves: list[Any],
    chunk_size: int | None,
) -> tuple[list[Any], Any, _Blocks]:
    rec = _Recording(f, args, kwargs, nums, "jacobian")
    ol, od = flatten(rec.out)
    blocks = _Blocks(transposed=False)
    out_leaves = [_output_value(o, rec.trace) for o in ol]
    for oi, (o, y) in enumerate(zip(ol, out_leaves)):
        m = math.prod(y.shape)
        if not (isinstance(o, Tracer) and o._trace is rec.trace and o._aux is not None):
            continue
        if chunk_size is not None:
            b = chunk_size
        else:  # the budget bounds the chunked output cotangent and each input's cotangent
            widest = max((math.prod(x.shape) for x in leaves), default=1)
            b = default_chunk_size(m, _budget_threshold(DEFAULT_REV_CHUNK, m, widest))
        for start in range(0, m, b):
            bb = min(b, m - start)
            seed = _seed_chunk(y, start, bb)  # bb one-hot cotangents of the output, one chunk
            grads = rec.pull([(o, seed)], release=False, chunk=bb)
            for ii, (x, g) in enumerate(zip(leaves, grads)):
                n = math.prod(x.shape)
                if tuple(g.shape) != (bb, *tuple(x.shape)):
                    raise ValueError(
                        f"jacobian: a chunk of {bb} cotangents came back to the input of shape "
                        f"{tuple(x.shape)} with shape {tuple(g.shape)}: a rule registered with "
                        "chunked_pullback=True dropped or mangled the chunk axis"
                    )
                blocks.write((oi, ii), m, n, start, _ns(y, g).reshape(g, (bb, n)))
    return out_leaves, od, blocks


def hessian(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, *, chunk_size: int | None = None
) -> Callable[..., Any]:
    """The Hessian of a scalar function: forward mode (chunked frules) over the reverse-mode
    gradient. Every pullback on the way must be built from functions with registered rules.

    Each forward pass pushes a chunk of ``chunk_size`` basis tangents through the whole gradient
    computation; by default the whole input up to :data:`HESSIAN_CHUNK_THRESHOLD` (128)
    elements, else ``ceil(n / 128)`` nearly equal chunks (a larger chunk than ``jacobian``'s,
    because every pass records and runs a tape)."""
    return _jacobian(
        grad(f, argnums), argnums, "fwd", chunk_size, HESSIAN_CHUNK_THRESHOLD, "hessian"
    )


def chunk_size_for(n: int, requested: int | None) -> int:
    """``requested``, or the forward mode's default chunk for ``n`` elements
    (:func:`default_chunk_size`)."""
    return requested if requested is not None else default_chunk_size(n)


AD_CONFIG.use_engine(vjp, jvp)  # rules' rrule_via_ad / frule_via_ad (``_config``)
