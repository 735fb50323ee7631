"""Rules for indexing: ``operator.getitem`` (``x[key]``) and the standard's ``indexing_functions``
(``take``, ``take_along_axis``), with NumPy's signatures of the two (``numpy:take``,
``numpy:take_along_axis``).

Maths note
----------
Each of these is a *gather*: a linear map ``G`` that copies elements of ``x`` selected by an index,
``y = G x``. So

* the pushforward is the same gather of the tangent, ``y_dot = G x_dot`` (a chunk of tangents is
  gathered in one call, its leading axes kept in front);
* the pullback is the transpose, ``x_bar = Gᵀ y_bar = scatter_add(zeros_like(x), key, y_bar)``:
  an element selected ``k`` times receives the sum of its ``k`` cotangents (``x[[0, 0, 2]]`` pulls
  ``[1, 2, 3]`` back to ``[3, 0, 3, 0]``).

``take`` and ``take_along_axis`` are written as the equivalent ``x[key]`` with one integer array
per axis (the form of integer-array indexing every Array API library accepts; the keys are built
in ``chainrules.rules._util.indexing``, which ``sort`` uses too), so every rule's
named pullback is the same transpose (``_ungather``) and every pushforward the same gather
(``_gather_tangent``). The pullback calls only :func:`scatter_add`, whose
own rule gathers with ``getitem`` again (and ``reshape`` for host ints): every pullback here is
differentiable once more.

Host-known Python ints in a key (``x[3]``, ``x[1, :]``) are written through size-1 slices by the
scatter where a library could see an element write; integer arrays, masks and everything else go
through the accumulating scatter of the array's library. Indices never leave the device.

>>> import operator, numpy as np, chainrules as cr
>>> import chainrules.rules.indexing.getitem  # registers these rules
>>> y, pullback = cr.rrule(operator.getitem, np.arange(4.0), [0, 0, 2])
>>> pullback(np.array([1.0, 2.0, 3.0]))[1]
array([3., 0., 3., 0.])
>>> cr.frule((cr.NoTangent(), np.ones((2, 3)), cr.NoTangent()), np.take, np.arange(3.0), [2, 2])[1]
array([[1., 1.],
       [1., 1.]])
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import array_api_compat
import numpy as np

from ...core.prelude import *
from ...core.scatter import MASK_KEY_UNDER_JIT, IndexKey, gather, parse_key
from .._util import axis_int, axis_opt, each_direction
from .._util.indexing import along_key, index_axis, take_key
from .._util.numpy_like import numpy_module

__all__: list[str] = []  # rules only: nothing to import from here


# --- shared by the five rules: the transpose of a gather, and the gather of a tangent -------------
def _zeros(xp: Any, x: Any) -> Any:
    """A zero of ``x``'s shape, dtype and device that allocates nothing: ``scatter_add`` copies
    its ``dest`` anyway, so a broadcast 0-d zero saves one array of ``x``'s size. On dask a
    broadcast 0-d array is one chunk of ``x``'s whole shape: ``zeros_like`` keeps ``x``'s chunks
    (and allocates nothing until computed)."""
    if array_api_compat.is_dask_array(x):
        return xp.zeros_like(x)
    dev = device_of(x)
    z = xp.zeros((), dtype=x.dtype) if dev is None else xp.zeros((), dtype=x.dtype, device=dev)
    return xp.broadcast_to(z, tuple(x.shape))


def _like(x: Any) -> Any:
    """What a pullback keeps of ``x`` for :func:`_zeros`: its shape, dtype and device (an
    ``Output`` record), not ``x``, which the pullback must not keep alive; a dask array itself
    (``zeros_like`` keeps its chunks, and a dask array is a graph, not data)."""
    if type(x) is not np.ndarray and array_api_compat.is_dask_array(x):
        return x
    return output(x)


def _ungather(xp: Any, x: Any, key: IndexKey, project: ProjectTo, y_bar: Any) -> Any:
    """``x_bar = scatter_add(zeros_like(x), key, y_bar)``, the transpose of ``y = x[key]``.
    ``project`` is the output's projector (``y`` has ``x``'s dtype: a real ``x`` takes the real
    part of ``y_bar``); an integer ``x`` has no tangent space."""
    if not project.differentiable:
        return NO
    return scatter_add(_zeros(xp, x), key.entries, project(y_bar))


def _gather_pullback(
    name: str, xp: Any, x: Any, y: Any, key: IndexKey, args: tuple[Any, ...]
) -> Callable[[Any], tuple[Any, ...]]:
    """The pullback (``NAME_pullback``) of a gather ``y = x[key]`` with the positional arguments
    ``args``, ``x`` first: the cotangent scattered back onto ``x`` (:func:`_ungather`), and
    ``NoTangent()`` for the others (the key, the indices, an axis)."""
    project, like = ProjectTo(y, xp), _like(x)
    rest = (NO,) * (len(args) - 1)
    y_rank = len(project.shape)

    def ungather(g: Any) -> Any:
        return _ungather(xp, like, key, project, g)

    def body(y_bar: Any) -> tuple[Any, ...]:
        # a chunk of cotangents is scattered one by one and stacked, as an engine's loop would;
        # NumPy's method writes a basic key's chunk at once
        return (each_direction(xp, ungather, y_bar, y_bar.ndim - y_rank), *rest)

    body.__name__ = body.__qualname__ = f"{name}_pullback"  # the rule's own name, in reprs
    return pullback(y, args, chunked=True)(body)


def _gather_tangent(name: str, xp: Any, tangents: tuple[Any, ...], x: Any, key: IndexKey) -> Any:
    """``x_dot[key]``, a chunk of tangents (extra leading axes) included; only ``x`` (the first
    argument) has a tangent."""
    if dtype_kind(x.dtype, xp) not in "fc":
        return NO
    t = tangents_in(name, tangents[:2], (x,))
    return ZERO if t is None else gather(xp, t[0], key, x.ndim)


def _ex(args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *, note: str) -> Any:
    """One example input. ``Example`` keeps a key such as ``(slice(None), array)`` out of the
    complex-dtype sniffing that ``(args, kwargs)`` pairs go through."""
    from ...core.examples import Example

    return Example(args, kwargs or {}, note=note)


# --- operator.getitem -----------------------------------------------------------------------------
def _sequence_positions(x: Any, key: Any) -> Any:
    if not isinstance(key, (int, slice)) or isinstance(key, bool):
        raise TypeError(
            f"getitem rule: a {type(x).__name__} is indexed by an int or a slice, "
            f"not {type(key).__name__}"
        )
    return list(range(len(x)))[key]


def _sequence_getitem_rrule(x: Any, key: Any) -> tuple[Any, Any]:
    """``t[i]`` / ``t[a:b]`` of a tuple or list (the output of a multi-output function)."""
    positions = _sequence_positions(x, key)
    y = x[key]
    n, kind = len(x), type(x)

    @pullback(y, (x, key), chunked=True)  # a chunk rides along in the element's entry
    def getitem_pullback(y_bar: Any) -> tuple[Any, Any]:
        # y_bar: the checked cotangent of the element, or (a slice) the tuple of the elements'
        parts: list[Any] = [ZERO] * n
        if isinstance(positions, int):
            parts[positions] = y_bar
        else:
            for p, e in zip(positions, y_bar):
                parts[p] = e  # a slice selects each position at most once
        return Tangent(*parts, primal_type=kind), NO

    return y, getitem_pullback


def _sequence_getitem_frule(tangents: tuple[Any, ...], x: Any, key: Any) -> tuple[Any, Any]:
    positions = _sequence_positions(x, key)
    y = x[key]
    t = tangents_in("getitem", tangents[:2], (x,))
    if t is None:
        return y, ZERO
    # the tangent of a sequence is a sequence: a local step picks the elements
    x_dot = t[0]
    elements = x_dot.elements() if isinstance(x_dot, Tangent) else tuple(x_dot)
    if isinstance(positions, int):
        return y, elements[positions]
    return y, Tangent(*(elements[p] for p in positions), primal_type=type(y))


def _getitem_examples(rng: np.random.Generator) -> list[Any]:
    def r(*shape: int) -> Any:
        return rng.standard_normal(shape)

    ia = np.array
    v, m = r(6), r(3, 4)
    return [
        _ex((v, 3), note="int"),
        _ex((v, -2), note="negative int"),
        _ex((v, slice(1, 6, 2)), note="slice with step"),
        _ex((v, slice(None, None, -2)), note="negative step"),
        _ex((v, (Ellipsis, None)), note="(..., None)"),
        _ex((v, ia([0, 0, 2, 5, 2])), note="index array with repeats"),
        _ex((v, ia([-1, 0, -1])), note="negative index array"),
        _ex((v, ia([[0, 1], [1, 1]])), note="2-D index array"),
        _ex((v, ia([True, False, True, True, False, False])), note="mask"),
        _ex((m, (1, 2)), note="(int, int)"),
        _ex((m, (-1, slice(None))), note="(negative int, slice)"),
        _ex((m, (slice(None, None, 2), slice(1, None))), note="slices with step"),
        _ex((m, (Ellipsis, None, 1)), note="(..., None, int)"),
        _ex((m, (ia([0, 0, 2]), ia([1, 1, 3]))), note="two index arrays with repeats"),
        _ex((m, (1, ia([0, 0, 3]))), note="(int, index array)"),
        _ex((m, (ia([[0, 2], [2, 2]]), ia([[1, 1], [3, 0]]))), note="2-D index arrays"),
        _ex((m, m > 0), note="2-D mask"),
        _ex((m, ia([True, False, True])), note="mask of the rows"),
        _ex((m, (slice(None), ia([3, 0, 3]))), note="(slice, index array)"),
        _ex((m, (ia([2, 2, 0]), slice(1, 3))), note="(index array, slice)"),
        _ex((r(2, 3, 4), (ia([0, 1, 1]), slice(None), ia([3, 3, 0]))), note="separated"),
        _ex(((r(2), r(3)), 1), note="tuple, int"),
        _ex(((r(2), r(3), r(1)), slice(0, 2)), note="tuple, slice"),
    ]


# the standard leaves integer arrays mixed with slices, and separated index arrays, unspecified:
# array-api-strict refuses those keys
_STRICT_KEYS = tuple(
    Expect("array_api_strict", "the standard leaves this key unspecified", "skip", note)
    for note in ("(slice, index array)", "(index array, slice)", "separated")
)
# the libraries' own limits: a mask key's output shape is its data's; torch has no negative steps
_KEY_LIMITS = (
    *_STRICT_KEYS,
    MASK_KEY_UNDER_JIT,
    Expect("torch", "torch tensors take no negative slice step", "skip", "negative step"),
)


@specialise
def getitem_rrule(x: Any, key: Any, /) -> tuple[Any, Any]:
    if isinstance(x, (tuple, list)):
        return _sequence_getitem_rrule(x, key)
    xp = namespace_of(x, fname="getitem")
    k = parse_key(xp, key, device_of(x))
    y = numpy_result(gather(xp, x, k, x.ndim))  # x[key]: a single element read through a
    # size-1 slice, a NumPy scalar as NumPy gives
    return y, _gather_pullback("getitem", xp, x, y, k, (x, key))


def _basic(key: Any) -> bool:
    """``key`` is Python ints (not bools), slices, ``None`` and ``Ellipsis``, or one of them:
    NumPy's basic indexing, which selects each element at most once (``IndexKey.basic`` of
    :func:`parse_key`, read off the key's types without parsing it)."""
    t = type(key)
    if t is tuple:
        return all(type(e) is int or type(e) is slice or e is None or e is Ellipsis for e in key)
    return t is int or t is slice or key is None or key is Ellipsis


def _numpy_advanced(key: Any) -> bool:
    """``key`` holds a NumPy integer or boolean array of rank >= 1, and otherwise basic entries
    (ints, slices, ``None``, ``Ellipsis``): NumPy's advanced indexing, whose transpose
    ``np.add.at`` computes (an index array may select an element more than once)."""
    advanced = False
    for e in key if type(key) is tuple else (key,):
        if type(e) is np.ndarray:
            if e.dtype.kind not in "iub" or not e.ndim:
                return False
            advanced = True
        elif not (type(e) is int or type(e) is slice or e is None or e is Ellipsis):
            return False
    return advanced


@getitem_rrule.method("numpy")
def _getitem_rrule_numpy(x: Any, key: Any, /) -> Any:
    """A floating NumPy array and a basic key (:func:`_basic`) or an advanced one of NumPy index
    arrays (:func:`_numpy_advanced`): ``x[key]`` as NumPy computes it, and for a NumPy cotangent
    of the output's shape and dtype the transpose written out, a zero array with the cotangent
    written through the same key (a basic key selects each element at most once, so the write
    is the scatter-add; an advanced one adds with ``np.add.at``); any other cotangent goes to
    the generic pullback, built then. The generic rule's key parsing, size-1 slices and scatter
    cost about 8 us around a sub-microsecond read at n=10, and ``x[0]``, ``x[1:]`` are the most
    common operations of the population's test functions (``index`` spelling: 68 of 169
    programs); gathers and masks (``x[idx]``, ``x[x > 0]``) took the generic rule in the
    indexing category's programs.
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.66, median of 313
    cells (0.41 at best)."""
    if type(x) is not np.ndarray or x.dtype.kind not in "fc":
        return NotImplemented
    basic = _basic(key)
    if not basic and not _numpy_advanced(key):
        return NotImplemented
    y = x[key]
    shape, dtype, y_shape = x.shape, x.dtype, np.shape(y)

    def getitem_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, Any, Any]:
        plain = not chunk and (type(y_bar) is np.ndarray or isinstance(y_bar, np.inexact))
        if plain and y_bar.dtype == dtype and y_bar.shape == y_shape:
            g = np.zeros(shape, dtype)
            if basic:
                g[key] = y_bar
            else:
                np.add.at(g, key, y_bar)
            return NO, g, NO
        if chunk and basic and type(y_bar) is np.ndarray and y_bar.dtype == dtype:
            lead = y_bar.shape[:chunk]
            if y_bar.shape[chunk:] == y_shape:  # a chunk written through the key at once
                g = np.zeros((*lead, *shape), dtype)
                g[(slice(None),) * chunk + (key if type(key) is tuple else (key,))] = y_bar
                return NO, g, NO
        # the generic pullback, from stand-ins of x and y made now (this one keeps neither
        # array, and the common case above needs no record of them)
        x_like, y_like = np.zeros(shape, dtype), np.zeros(y_shape, dtype)
        xp = namespace_of(x_like)
        pb: Any = _gather_pullback("getitem", xp, x_like, y_like, parse_key(xp, key), (x_like, key))
        return pb(y_bar, chunk=chunk) if chunk else pb(y_bar)

    return y, getitem_pullback


register_rrule(
    operator.getitem,
    examples=_getitem_examples,
    generic=True,
    expect=_KEY_LIMITS,
    linear=True,
    chunked_pullback=True,
)(getitem_rrule)


@register_frule(operator.getitem, examples=_getitem_examples, generic=True, linear=True)
def getitem_frule(tangents: tuple[Any, ...], x: Any, key: Any, /) -> tuple[Any, Any]:
    if isinstance(x, (tuple, list)):
        return _sequence_getitem_frule(tangents, x, key)
    xp = namespace_of(x, fname="getitem")
    k = parse_key(xp, key, device_of(x))
    return numpy_result(gather(xp, x, k, x.ndim)), _gather_tangent("getitem", xp, tangents, x, k)


# --- take and take_along_axis as keys -------------------------------------------------------------
# NumPy's signatures; the library's own further options (JAX's fill_value=) pass through
_NUMPY_TAKE = signature(
    "take", lambda a, indices, /, axis=None, out=None, mode=None, **library_options: None
)
_NUMPY_TAKE_ALONG_AXIS = signature(
    "take_along_axis", lambda arr, indices, /, axis=-1, **library_options: None
)


# --- examples -------------------------------------------------------------------------------------
def _take_examples(rng: np.random.Generator) -> list[Any]:
    ia = np.array
    v, m = rng.standard_normal(6), rng.standard_normal((3, 4))
    return [
        _ex((v, ia([0, 0, 5, 2, 0])), note="1-D, repeats"),
        _ex((v, ia([4, 4])), {"axis": 0}, note="1-D, axis=0"),
        _ex((m, ia([2, 0, 2])), {"axis": 0}, note="rows, repeats"),
        _ex((m, ia([3, 3, 1, 0])), {"axis": 1}, note="columns, repeats"),
        _ex((m, ia([1, 1])), {"axis": -1}, note="axis=-1"),
        _ex((rng.standard_normal((2, 3, 4)), ia([2, 2, 0])), {"axis": 1}, note="3-D"),
    ]


def _numpy_take_examples(rng: np.random.Generator) -> list[Any]:
    ia = np.array
    v, m = rng.standard_normal(6), rng.standard_normal((3, 4))
    return [
        *_take_examples(rng),
        _ex((v, ia([-1, 0, -1])), note="negative indices"),
        _ex((m, ia([[11, 0], [-1, 11]])), note="axis=None: the flattened array"),
        _ex((m, ia([[0, 3], [3, 3]])), {"axis": 1}, note="2-D indices"),
        _ex((m, ia([-1, 2, -1])), {"axis": 0}, note="negative, axis=0"),
        _ex((m, ia([5, -1, 1])), {"axis": 1, "mode": "wrap"}, note="mode='wrap'"),
        _ex((m, ia([7, -2, 1])), {"axis": 1, "mode": "clip"}, note="mode='clip'"),
        _ex((m, ia([1, 1]), 0), note="positional axis"),
        _ex((v, 4), note="Python-int index"),
    ]


def _take_along_axis_examples(rng: np.random.Generator) -> list[Any]:
    ia = np.array
    v, m = rng.standard_normal(6), rng.standard_normal((3, 4))
    return [
        _ex((v, ia([5, 5, 0])), {"axis": 0}, note="1-D, repeats"),
        _ex((m, ia([[0, 0, 3], [1, 2, 1], [3, 3, 3]])), {"axis": 1}, note="rows, repeats"),
        _ex((m, ia([[2, 2, 0, 1], [0, 0, 0, 0]])), {"axis": 0}, note="axis=0"),
        _ex((m, ia([[1, 1], [0, 3], [2, 2]])), note="default axis=-1"),
        _ex((m, ia([[1, 1, 2]])), {"axis": 1}, note="broadcast indices"),
        _ex(
            (rng.standard_normal((2, 3, 4)), ia([[[0], [2], [2]], [[1], [1], [0]]])),
            {"axis": -1},
            note="3-D",
        ),
    ]


def _numpy_take_along_axis_examples(rng: np.random.Generator) -> list[Any]:
    ia = np.array
    m = rng.standard_normal((3, 4))
    return [
        *_take_along_axis_examples(rng),
        _ex((m, ia([[-1, 0], [-1, -1], [0, 2]])), {"axis": 1}, note="negative indices"),
        _ex((m, ia([11, 0, 11])), {"axis": None}, note="axis=None: the flattened array"),
        _ex((m, ia([[1, 1], [0, 3], [2, 2]]), 1), note="positional axis"),
    ]


# --- take -----------------------------------------------------------------------------------------
@register_rrule("take", examples=_take_examples, linear=True, chunked_pullback=True)
def take_rrule(x: Any, indices: Any, /, *, axis: Any = None) -> tuple[Any, Any]:
    xp = namespace_of(x, indices, fname="take")
    axis_opt(axis, "take")
    # axis=None is passed only when given: dask's take refuses an explicit None
    y = xp.take(x, indices) if axis is None else xp.take(x, indices, axis=axis)
    key = take_key(xp, x, indices, axis, None, "take")
    return y, _gather_pullback("take", xp, x, y, key, (x, indices))


@register_frule("take", examples=_take_examples, linear=True)
def take_frule(
    tangents: tuple[Any, ...], x: Any, indices: Any, /, *, axis: Any = None
) -> tuple[Any, Any]:
    xp = namespace_of(x, indices, fname="take")
    axis_opt(axis, "take")
    y = xp.take(x, indices) if axis is None else xp.take(x, indices, axis=axis)
    if axis is not None or x.ndim == 1:
        # take itself on the tangent, past its chunk axes: no n-d gather key (dask has none)
        if dtype_kind(x.dtype, xp) not in "fc":
            return y, NO
        t = tangents_in("take", tangents[:2], (x,))
        if t is None:
            return y, ZERO
        ax = 0 if axis is None else index_axis(axis, x.ndim, "take")
        return y, xp.take(t[0], indices, axis=t[0].ndim - x.ndim + ax)
    key = take_key(xp, x, indices, axis, None, "take")
    return y, _gather_tangent("take", xp, tangents, x, key)


@register_rrule("numpy:take", examples=_numpy_take_examples, linear=True, chunked_pullback=True)
def numpy_take_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    a = _NUMPY_TAKE.bind(args, kwargs)
    x, indices = a["a"], a["indices"]
    xp = namespace_of(x, fname="take")
    axis_opt(a["axis"], "take")
    if getattr(x, "ndim", None) == 0:
        return _take_0d_rrule(xp, x, args, kwargs)
    y = numpy_module(x).take(*args, **kwargs)
    key = take_key(xp, x, indices, a["axis"], a["mode"], "take")
    return y, _gather_pullback("take", xp, x, y, key, args)


@register_frule("numpy:take", examples=_numpy_take_examples, linear=True)
def numpy_take_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    a = _NUMPY_TAKE.bind(args, kwargs)
    x, indices = a["a"], a["indices"]
    xp = namespace_of(x, fname="take")
    axis_opt(a["axis"], "take")
    if getattr(x, "ndim", None) == 0:  # as from the 1-element vector (NumPy's meaning)
        dots = tangents_in("take", tangents[:2], (x,))
        t = ZERO if dots is None else xp.reshape(dots[0], (*dots.lead(), 1))
        return numpy_take_frule((NO, t, *tangents[2:]), xp.reshape(x, (1,)), *args[1:], **kwargs)
    y = numpy_module(x).take(*args, **kwargs)
    key = take_key(xp, x, indices, a["axis"], a["mode"], "take")
    return y, _gather_tangent("take", xp, tangents, x, key)


def _take_0d_rrule(xp: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """NumPy's take of a 0-d array: the take of the 1-element vector (axis 0, -1 or None),
    whose cotangent is reshaped back to 0-d."""
    y, vector_pullback = numpy_take_rrule(xp.reshape(x, (1,)), *args[1:], **kwargs)

    @pullback(y, args)
    def take_pullback(y_bar: Any) -> tuple[Any, ...]:
        _, x_bar, *rest = vector_pullback(y_bar)
        return (x_bar if isinstance(x_bar, AbstractZero) else xp.reshape(x_bar, ()), *rest)

    return y, take_pullback


# --- take_along_axis ------------------------------------------------------------------------------
def _take_along_axis(x: Any, indices: Any, axis: int) -> tuple[Any, Any, IndexKey]:
    """``(xp, y, key)`` of the standard's ``take_along_axis``: ``y`` and its gather key."""
    xp = namespace_of(x, indices, fname="take_along_axis")
    axis_int(axis, "take_along_axis", ndim=x.ndim, bool_ok=True)
    y = xp.take_along_axis(x, indices, axis=axis)
    return xp, y, along_key(xp, x, indices, axis, "take_along_axis")


def _numpy_take_along_axis(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any, Any, IndexKey]:
    """``(xp, x, y, key)`` of NumPy's ``take_along_axis`` (``axis=None``: the flattened
    array): ``y`` and its gather key."""
    a = _NUMPY_TAKE_ALONG_AXIS.bind(args, kwargs)
    x, indices = a["arr"], a["indices"]
    xp = namespace_of(x, indices, fname="take_along_axis")
    axis_opt(a["axis"], "take_along_axis", ndim=getattr(x, "ndim", None), bool_ok=True)
    y = numpy_module(x).take_along_axis(*args, **kwargs)
    return xp, x, y, along_key(xp, x, indices, a["axis"], "take_along_axis")


@register_rrule("take_along_axis", examples=_take_along_axis_examples, chunked_pullback=True)
def take_along_axis_rrule(x: Any, indices: Any, /, *, axis: int = -1) -> tuple[Any, Any]:
    xp, y, key = _take_along_axis(x, indices, axis)
    return y, _gather_pullback("take_along_axis", xp, x, y, key, (x, indices))


@register_frule("take_along_axis", examples=_take_along_axis_examples)
def take_along_axis_frule(
    tangents: tuple[Any, ...], x: Any, indices: Any, /, *, axis: int = -1
) -> tuple[Any, Any]:
    xp, y, key = _take_along_axis(x, indices, axis)
    return y, _gather_tangent("take_along_axis", xp, tangents, x, key)


@register_rrule(
    "numpy:take_along_axis", examples=_numpy_take_along_axis_examples, chunked_pullback=True
)
def numpy_take_along_axis_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    xp, x, y, key = _numpy_take_along_axis(args, kwargs)
    return y, _gather_pullback("take_along_axis", xp, x, y, key, args)


@register_frule("numpy:take_along_axis", examples=_numpy_take_along_axis_examples)
def numpy_take_along_axis_frule(
    tangents: tuple[Any, ...], *args: Any, **kwargs: Any
) -> tuple[Any, Any]:
    xp, x, y, key = _numpy_take_along_axis(args, kwargs)
    return y, _gather_tangent("take_along_axis", xp, tangents, x, key)
