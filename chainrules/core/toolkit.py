"""The rule toolkit: the one way every rule in chainrules is written, and the way to write yours.

A rule reads top to bottom, as in ChainRules.jl: bind the arguments, compute the primal, build
the projectors from the primal *outside* the pullback, define a **named** pullback, return.
Three helpers take the boilerplate out of it:

* :func:`signature` -- one signature-based binder (``inspect.Signature.bind``): positional-only,
  keyword-only and defaults as the function declares them, and errors that name the function;
* :func:`pullback` -- a decorator for the named pullback: the cotangent it is given is forced
  (``unthunk``), a zero cotangent short-circuits to a zero per argument (``ZeroTangent()`` where the
  argument has a tangent space, ``NoTangent()`` where it has none), every other cotangent is
  checked against the output's shape (a ``ValueError`` naming both shapes) and brought to the
  output's library and dtype (:func:`check_cotangent`), the body returns one cotangent per
  positional argument, and the function's own ``NoTangent()`` is put in front;
* :func:`tangents_in` -- the same for a pushforward: the tangents forced, zeros recognised, the
  number of leading chunk axes found and checked.

>>> import numpy as np, chainrules as cr
>>> def scale(x, factor):
...     return x * factor
>>> @cr.register_rrule(scale)
... def scale_rrule(x, factor):
...     y = scale(x, factor)
...     project = cr.ProjectTo(x)
...
...     @cr.pullback(y, (x, factor))
...     def scale_pullback(y_bar):
...         return project(y_bar * factor), cr.NoTangent()
...
...     return y, scale_pullback
>>> y, pb = cr.rrule(scale, np.ones(3), 2)
>>> pb(np.ones(3))[1]
array([2., 2., 2.])
>>> pb(cr.ZeroTangent())
(NoTangent(), ZeroTangent(), NoTangent())
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .namespaces import (
    _DEVICE_ATTR,
    _numpy_namespace,
    device_of,
    dtype_kind,
    namespace_of,
    torch_compiling,
)
from .signature import (  # the binding of arguments, part of the toolkit
    Signature,
    all_ints,
    signature,
)
from .tangents import AbstractZero, NoTangent, Tangent, Thunk, ZeroTangent, unthunk

__all__ = [
    "Output",
    "Signature",
    "TangentsIn",
    "bring",
    "check_cotangent",
    "output",
    "pullback",
    "signature",
    "tangents_in",
    "zero_tangent",
]

_NO = NoTangent()
_ZERO = ZeroTangent()
_SCALARS = (float, int, complex)


# --- cotangents -----------------------------------------------------------------------------------
def _mismatch(name: str, got: Any, want: Any) -> ValueError:
    return ValueError(
        f"{name}: cotangent of shape {tuple(got)} does not match the output's shape "
        f"{tuple(want)}; a pullback never broadcasts its cotangent"
    )


def _chunk_mismatch(name: str, got: Any, want: Any, extra: int) -> ValueError:
    return ValueError(
        f"{name}: cotangent of shape {tuple(got)} does not match the output's shape "
        f"{tuple(want)} after {extra} leading chunk axis(es)"
    )


class Output:
    """What a pullback keeps of its output ``y`` to check a cotangent: the shape, the dtype, the
    array type, its namespace, library and device -- not ``y`` itself. ``y`` is often a view of
    the rule's input (``reshape``, ``permute_dims``, ``getitem``), and holding it would keep the
    input alive as long as the pullback (issue 15: a linear rule's pullback holds shapes and
    dtypes, not its inputs). Built by :func:`output`; :func:`check_cotangent` and :func:`bring`
    accept it wherever they take the output."""

    __slots__ = ("cpu", "device", "dtype", "lib", "shape", "type", "xp")

    def __init__(
        self, shape: Any, dtype: Any, t: type, xp: Any, lib: Any, device: Any, cpu: Any
    ) -> None:
        self.shape, self.dtype, self.type, self.xp = shape, dtype, t, xp
        self.lib, self.device, self.cpu = lib, device, cpu

    def __repr__(self) -> str:
        return f"Output(shape={tuple(self.shape)}, dtype={self.dtype}, library={self.lib!r})"


def output(y: Any) -> Any:
    """The :class:`Output` record of an array ``y`` (for a tuple or list: a tuple of records);
    a Python scalar, a NumPy scalar (it owns its value), a record and anything without a dtype
    are kept as they are. Reads no array value: only the shape, the dtype and the device."""
    t = type(y)
    if t is _ND:
        xp = _NUMPY_XP[0] if _NUMPY_XP else _numpy_xp()
        return Output(y.shape, y.dtype, t, xp, "numpy", None, True)
    if _DEVICE_ATTR.get(t) and t is not Output:  # an array whose device is its .device
        lib = _library(y)
        device = y.device
        cpu = bool(device.type == "cpu") if lib == "torch" else _on_cpu(y)
        return Output(y.shape, y.dtype, t, namespace_of(y), lib, device, cpu)
    if t in _SCALARS or t is Output or isinstance(y, np.generic):  # a record is its own
        return y
    if isinstance(y, (tuple, list)):
        return tuple(map(output, y))
    dtype = getattr(y, "dtype", None)
    if dtype is None:
        return y
    lib = _library(y)
    device = cpu = None
    if lib not in ("", "numpy"):
        try:
            device = device_of(y)
        except Exception:  # noqa: BLE001 -- a JAX tracer, a sharded array: no one device
            device = None
        cpu = _on_cpu(y)
    return Output(y.shape, dtype, t, namespace_of(y), lib, device, cpu)


_NUMPY_XP: list[Any] = []


def _numpy_xp() -> Any:
    _NUMPY_XP.append(_numpy_namespace())
    return _NUMPY_XP[0]


def _xp_of(like: Any) -> Any:
    if type(like) is Output:
        return like.xp
    return namespace_of(like)


def check_cotangent(
    name: str, y_bar: Any, y: Any, *, what: str = "the cotangent", extra: int = 0
) -> Any:
    """``y_bar`` checked and brought to ``y``: what every pullback does with its cotangent.

    * a ``Thunk`` is forced; zero markers (``ZeroTangent()``, ``NoTangent()``) have every shape
      and are returned as they are;
    * a Python scalar cotangent of a 0-d output becomes a 0-d array of the output's library and
      dtype;
    * an array of another library is converted when both live on the CPU, and refused with a
      ``TypeError`` naming both libraries otherwise; an array of the output's library on another
      device is refused (see :func:`bring`);
    * any other shape than ``y``'s is a ``ValueError`` naming both shapes -- never a broadcast;
    * a cotangent of another dtype *kind* is brought to the output's: a real (or integer or
      boolean) cotangent of a complex output is cast to the output's dtype (PyTorch's ``matmul``
      does not promote it), the real part of a complex cotangent of a real output is taken, an
      integer or boolean cotangent of a real output is cast; another precision of the same kind
      passes (each argument's projector casts to the argument's dtype).

    ``what`` names the cotangent in messages (``"the cotangent of output 1"``). ``y`` may be
    the output itself or its :func:`output` record (what :func:`pullback` keeps). ``extra`` is
    the number of leading chunk axes the caller declares (a chunk of cotangents pulled back in
    one call, the forward mode's chunk convention in reverse): the cotangent's shape must then be
    ``y``'s after exactly ``extra`` leading axes.

    A tuple or list ``y`` (an output nested in a tuple output, such as ``histogramdd``'s list of
    edges) takes a ``Tangent`` or a sequence of as many entries, each checked against its entry
    of ``y`` as above; the checked entries come back as a tuple.

    >>> import numpy as np, chainrules as cr
    >>> cr.check_cotangent("f", 2.0, np.float64(1.0)).shape
    ()
    >>> cr.check_cotangent("f", np.ones(2), np.ones(3))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: f: cotangent of shape (2,) does not match the output's shape (3,); ...
    """
    if isinstance(y_bar, Thunk):
        y_bar = unthunk(y_bar)
    if isinstance(y_bar, AbstractZero):
        return y_bar
    if isinstance(y, (tuple, list)):  # a nested sequence output: entry by entry
        return tuple(
            check_cotangent(name, p, v, what=f"{what}, entry {i}", extra=extra)
            for i, (p, v) in enumerate(zip(tuple_entries(name, y_bar, len(y), None), y))
        )
    y_dtype = getattr(y, "dtype", None)
    if y_dtype is None:  # a Python scalar output: any scalar or 0-d cotangent
        if len(getattr(y_bar, "shape", ())) != extra:
            if extra:
                raise _chunk_mismatch(name, getattr(y_bar, "shape", ()), (), extra)
            raise _mismatch(name, getattr(y_bar, "shape", ()), ())
        return y_bar
    y_shape = y.shape
    t = type(y_bar)
    yt = type(y)
    if yt is Output:
        yt = y.type
    if t in _SCALARS and y_shape == ():
        return _xp_of(y).asarray(y_bar, dtype=y_dtype)
    if t is yt and _DEVICE_ATTR.get(t):  # torch for torch: bring() if the devices differ
        if y_bar.device != y.device:
            y_bar = bring(name, what, y_bar, y)
    elif t is not _ND or yt is not _ND:  # NumPy for NumPy needs no check
        lib = _LIBRARY.get(t)
        if lib is None or lib != _LIBRARY.get(yt) or lib in _CHECKS_DEVICE:
            y_bar = bring(name, what, y_bar, y)
    b_shape = getattr(y_bar, "shape", ())
    if extra:
        if len(b_shape) - extra != len(y_shape) or tuple(b_shape[extra:]) != tuple(y_shape):
            raise _chunk_mismatch(name, b_shape, y_shape, extra)
    elif b_shape != y_shape and tuple(b_shape) != tuple(y_shape):
        raise _mismatch(name, b_shape, y_shape)
    dt = getattr(y_bar, "dtype", None)
    if dt is not None and dt != y_dtype:
        return _to_kind(y_bar, dt, y, y_dtype)
    return y_bar


def _to_kind(v: Any, dt: Any, like: Any, dtype: Any) -> Any:
    """``v`` (of dtype ``dt``) brought to the dtype kind of ``like`` (of ``dtype``), as
    :func:`check_cotangent` documents; integer and boolean primals take any cotangent."""
    want = dtype_kind(dtype)
    if want not in "fc":
        return v
    try:
        got = dtype_kind(dt)
    except TypeError:  # a dtype chainrules does not know: the rule's own error says more
        return v
    if got == want:
        return v
    xp = _xp_of(like)
    if want == "f" and got == "c":
        # a fresh array, not NumPy's strided view of the real parts: the rule then computes what
        # the real cotangent given directly gives, to the last bit (NumPy's loops sum a strided
        # operand in another order: einsum's cotangents differed by an ulp)
        return xp.asarray(xp.real(v), copy=True)
    return xp.astype(v, dtype)


# --- foreign arrays: one rule for every cotangent and tangent -----------------------------------
# The library of an array type: "numpy", "jax", "torch", "cupy", "array_api_strict", "dask";
# "" for other array objects (chainrules.ad's tracers, testing.device_array, any wrapper with
# __array_namespace__: they carry their own namespace and are left to it); None for non-arrays.
_LIBRARY: dict[type, str | None] = {}
_ND = np.ndarray
_CHECKS_DEVICE = frozenset(("torch", "cupy", "array_api_strict"))


def _library(x: Any) -> str | None:
    t = type(x)
    try:
        return _LIBRARY[t]
    except KeyError:
        pass
    import array_api_compat as c

    lib: str | None
    if c.is_jax_array(x):
        lib = "jax"
    elif c.is_numpy_array(x):
        lib = "numpy"
    elif c.is_torch_array(x):
        lib = "torch"
    elif c.is_cupy_array(x):
        lib = "cupy"
    elif c.is_dask_array(x):
        lib = "dask"
    elif _is_strict(x):
        lib = "array_api_strict"
    elif t in _SCALARS or isinstance(x, np.generic):
        lib = "scalar"
    elif hasattr(x, "__array_namespace__") or c.is_array_api_obj(x):
        lib = ""
    else:
        lib = None
    if not torch_compiling():  # torch.compile refuses a global write (namespaces.torch_compiling)
        _LIBRARY[t] = lib
    return lib


def _is_strict(x: Any) -> bool:
    """An array-api-strict array: its namespace is ``array_api_strict`` itself (by identity, never
    by its type's ``__module__``)."""
    strict = sys.modules.get("array_api_strict")
    ns = getattr(x, "__array_namespace__", None)
    return strict is not None and ns is not None and ns() is strict


def _on_cpu(x: Any) -> bool | None:
    """Whether ``x`` lives in host memory (DLPack's ``kDLCPU``); ``None`` where it cannot say
    (a JAX tracer inside ``jit``, a sharded JAX array, a dask array)."""
    lib = _library(x)
    if lib == "numpy":
        return True
    if lib == "torch":  # torch.compile cannot trace DLPack's device enum; .device it can
        return bool(x.device.type == "cpu")
    try:
        dev = x.__dlpack_device__()
    except Exception:  # noqa: BLE001 -- no DLPack device: unknown
        return None
    return int(dev[0]) == 1


def _where(x: Any) -> str:
    t = type(x)
    if t is Output:
        t, lib, dev = x.type, x.lib, x.device
    else:
        lib = _library(x)
        try:
            import array_api_compat

            dev = array_api_compat.device(x)
        except Exception:  # noqa: BLE001 -- only for the message
            dev = None
    on = f" on {dev}" if dev is not None and lib != "numpy" else ""
    return f"a {lib} array ({t.__module__}.{t.__qualname__}){on}"


def bring(name: str, what: str, v: Any, like: Any) -> Any:
    """``v`` -- a cotangent or tangent -- in the library and on the device of ``like`` (an output
    or an argument), or a ``TypeError`` naming the function, ``what`` and both libraries.

    The one rule (``docs/conventions.md``, "Cotangents and tangents of another library"):

    * same library, same device: ``v`` itself;
    * same library (PyTorch, CuPy, array-api-strict), another device: refused -- nothing is moved
      between devices silently; JAX places its arrays itself (and a tracer has no device), so
      JAX arrays are not compared;
    * another library: converted (``from_dlpack``, else ``asarray`` of ``like``'s namespace)
      when ``v`` lives in host memory and ``like`` does too (or its device is unknown, as a JAX
      tracer's inside ``jit``: the converted value is a constant of the trace); refused when
      either lives on an accelerator, and when the conversion fails (a torch tensor that
      requires grad);
    * not an array at all (a list, a string): refused;
    * ``like`` a Python scalar, or either side an array wrapper of its own kind (``chainrules.ad``
      tracers, ``testing.device_array``): ``v`` itself -- their namespaces decide.
    """
    rec = type(like) is Output
    lib_like = like.lib if rec else _library(like)
    if lib_like is None or lib_like in ("", "scalar"):
        return v
    lib = _library(v)
    if lib == lib_like:
        if lib in _CHECKS_DEVICE:
            dv = device_of(v)
            dl = like.device if rec else device_of(like)
            if dv != dl:
                raise TypeError(
                    f"{name}: {what} is on device {dv}, but the primal is on {dl} (both "
                    f"{lib}); move it with to_device first (chainrules never moves a "
                    "cotangent or tangent between devices silently)"
                )
        return v
    if lib == "" or lib == "scalar":
        return v
    if lib is None:
        t = type(v)
        raise TypeError(
            f"{name}: {what} must be an array of the primal's library ({lib_like}), a Python "
            f"scalar or a tangent marker, got {t.__module__}.{t.__qualname__}"
        )
    here = _on_cpu(v)
    there = True if lib_like == "numpy" else like.cpu if rec else _on_cpu(like)
    if here and there is not False:
        xp = _xp_of(like)
        try:
            try:
                return xp.from_dlpack(v)
            except (AttributeError, BufferError, TypeError, RuntimeError, ValueError):
                return xp.asarray(v)
        except Exception as e:  # noqa: BLE001 -- refused below, with the reason
            raise TypeError(
                f"{name}: {what} is {_where(v)} and the primal {_where(like)}; converting it "
                f"to {lib_like} failed ({type(e).__name__}: {e})"
            ) from None
    raise TypeError(
        f"{name}: {what} is {_where(v)}, but the primal is {_where(like)}; chainrules converts "
        "between libraries only in host memory, and never moves an accelerator's array to the "
        f"host (or the host's to an accelerator) silently: convert it to {lib_like} yourself"
    )


def zero_tangent(arg: Any) -> Any:
    """The zero cotangent of an argument: ``ZeroTangent()`` where it has a tangent space (a
    floating or complex array, a Python float or complex), ``NoTangent()`` where it has none
    (integers, booleans, shapes, ``None``, strings). For a tuple or list holding an argument with
    a tangent space, a ``Tangent`` of those zeros that indexes like the sequence."""
    t = type(arg)
    if t is float or t is complex:
        return _ZERO
    if isinstance(arg, type):  # a dtype given as a class (np.float64)
        return _NO
    if t is tuple or t is list:  # a Tangent that indexes like the sequence (concat's arrays)
        if all_ints(arg):  # a shape or axes (the common case): no tangent
            return _NO
        parts = tuple(zero_tangent(e) for e in arg)
        return Tangent(*parts, primal_type=t) if any(p is not _NO for p in parts) else _NO
    dtype = getattr(arg, "dtype", None)
    if dtype is None or t is int or t is bool:
        return _NO
    kind: Any
    if isinstance(dtype, np.dtype):
        kind = dtype.kind
    else:  # torch's, array-api-strict's: dtype_kind's cache first (a getattr that misses
        try:  # raises an AttributeError inside, 1 us on every call)
            kind = dtype_kind(dtype)
        except TypeError:
            kind = getattr(dtype, "kind", None)
            if kind is None:
                raise
    return _ZERO if kind in ("f", "c") else _NO


def _pullback_name(body: Callable[..., Any]) -> str:
    n = getattr(body, "__name__", "pullback")
    return n[: -len("_pullback")] if n.endswith("_pullback") and n != "_pullback" else n


def pullback(
    y: Any, args: Sequence[Any], *, name: str | None = None, chunked: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., tuple[Any, ...]]]:
    """Decorator: make ``body(y_bar)`` the pullback of a rule with output ``y`` and positional
    arguments ``args``.

    The returned pullback takes any cotangent a caller may pass -- an array, a Python scalar, a
    ``Thunk``, ``ZeroTangent()`` / ``NoTangent()``, and for a tuple output a ``Tangent`` or a
    tuple -- and returns ``(NoTangent(), *arg_bars)``:

    * a zero cotangent returns at once, with ``zero_tangent(a)`` for each argument: the body is
      not run;
    * otherwise the cotangent is checked with :func:`check_cotangent` (for a tuple output: each
      entry against each output, zero entries kept as ``ZeroTangent()``, and the body receives a
      tuple) and the body is called;
    * the body returns one cotangent per argument (a tuple, or the value itself for one
      argument); any other number is a ``TypeError`` naming the function.

    ``name`` (for messages) defaults to the body's name without ``_pullback``. An argument
    whose cotangent is always ``NoTangent()`` although it is floating (a function with no
    derivative in it) is passed as ``NoTangent()`` in ``args``.

    ``chunked=True`` declares that the body also takes a chunk of cotangents: the pullback is
    then called as ``pullback(y_bar, chunk=k)`` with ``k`` leading chunk axes on ``y_bar``
    (checked by :func:`check_cotangent`), and the body returns each argument's cotangent with
    the same leading axes. Without it ``chunk=`` is refused. Register such a rule with
    ``chunked_pullback=True`` so that engines know (``docs/conventions.md``, "Reverse-mode
    chunks").
    """
    # the arguments' zero cotangents and the output's record, not the arguments and the output
    # (often a view of an argument): a pullback must not keep its inputs alive
    zeros = (_NO, *map(zero_tangent, args))
    n = len(zeros) - 1
    multi = isinstance(y, (tuple, list))  # named tuples (EighResult) too
    fields = None  # always bound: torch.compile refuses a closure over an unset cell
    if multi:
        fields = getattr(type(y), "_fields", None)
        y = tuple(map(output, y))
    elif type(y) is _ND:  # output(y), written out: once per rule call
        y = Output(
            y.shape, y.dtype, _ND, _NUMPY_XP[0] if _NUMPY_XP else _numpy_xp(), "numpy", None, True
        )
    else:
        y = output(y)

    def decorator(body: Callable[..., Any]) -> Callable[[Any], tuple[Any, ...]]:
        nm = name or _pullback_name(body)
        if multi:
            whats = tuple(f"the cotangent of output {i}" for i in range(len(y)))

            def multi_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
                if chunk and not chunked:
                    raise _no_chunk(nm)
                y_bar = unthunk(y_bar)
                if isinstance(y_bar, AbstractZero):
                    return zeros
                parts = tuple_entries(nm, y_bar, len(y), fields)
                if all(isinstance(p, AbstractZero) for p in parts):
                    return zeros
                checked = tuple(
                    check_cotangent(nm, p, v, what=w, extra=chunk)
                    for p, v, w in zip(parts, y, whats)
                )
                return _finish(nm, n, body(checked))

            wrapper = multi_pullback
        else:

            def single_pullback(y_bar: Any, chunk: int = 0) -> tuple[Any, ...]:
                if isinstance(y_bar, Thunk):
                    y_bar = unthunk(y_bar)
                if isinstance(y_bar, AbstractZero):
                    return zeros
                if chunk:
                    if not chunked:
                        raise _no_chunk(nm)
                    return _finish(nm, n, body(check_cotangent(nm, y_bar, y, extra=chunk)))
                return _finish(nm, n, body(check_cotangent(nm, y_bar, y)))

            wrapper = single_pullback
        # the body's name in reprs (a traceback shows both frames anyway); no functools.wraps:
        # it costs more than the rest of the decorator, once per rule call
        wrapper.__name__ = wrapper.__qualname__ = body.__name__
        return wrapper

    return decorator


def _no_chunk(name: str) -> TypeError:
    return TypeError(
        f"{name}: this pullback takes no chunk of cotangents (chunk=); pull each cotangent "
        "back on its own, or declare the rule chunk-capable (pullback(..., chunked=True) and "
        "register_rrule(..., chunked_pullback=True))"
    )


def _finish(name: str, n: int, out: Any) -> tuple[Any, ...]:
    """A pullback body's result with ``f``'s ``NoTangent()`` in front, its length checked."""
    if type(out) is tuple:
        if len(out) == n:
            return (_NO, *out)
        raise TypeError(
            f"{name}: the pullback returned {len(out)} cotangents, expected {n} (one per "
            "positional argument)"
        )
    if n != 1:
        raise TypeError(
            f"{name}: the pullback returned one cotangent, expected a tuple of {n} (one per "
            "positional argument)"
        )
    return (_NO, out)


def tuple_entries(name: str, y_bar: Any, n: int, fields: Any) -> tuple[Any, ...]:
    """The entries of the cotangent of a tuple output of ``n`` entries (or of the tangent of a
    sequence argument of ``n`` arrays: ``concat``, ``stack``), forced. A ``Tangent``
    reads missing entries as zeros, and named fields in the order of the output's ``fields`` (a
    named tuple such as ``EighResult``; ``None`` for a plain tuple); a tuple (a named tuple
    too) gives its entries in order."""
    if isinstance(y_bar, Tangent):
        named = y_bar._fields  # a Tangent(name=...) of a named tuple's fields
        if named is not None and fields is not None:
            parts = tuple(unthunk(named.get(f, _ZERO)) for f in fields)
        elif named is not None:  # fields for a plain tuple: nothing to read them by
            parts = (_ZERO,) * n
        else:
            parts = tuple(unthunk(p) for p in y_bar._elements or ())
    elif isinstance(y_bar, (tuple, list)):
        parts = tuple(unthunk(p) for p in y_bar)
    else:
        raise TypeError(
            f"{name}: the cotangent of a tuple of {n} outputs must be a Tangent or a tuple, got "
            f"{type(y_bar).__name__}"
        )
    if len(parts) != n:
        raise ValueError(f"{name}: expected a cotangent with {n} entries, got {len(parts)}")
    return parts


# --- tangents -------------------------------------------------------------------------------------
class TangentsIn:
    """The forced tangents of a pushforward's positional arguments (``f_dot`` dropped), with the
    number of leading chunk axes they carry (``extra``). ``values[i]`` is ``ZeroTangent()`` (or
    ``NoTangent()``) where argument ``i``'s tangent is zero."""

    __slots__ = ("extra", "values")

    def __init__(self, values: tuple[Any, ...], extra: int) -> None:
        self.values = values
        self.extra = extra

    def __iter__(self) -> Any:
        return iter(self.values)

    def __getitem__(self, i: int) -> Any:
        return self.values[i]

    def lead(self) -> tuple[int, ...]:
        """The chunk axes' lengths (empty without a chunk)."""
        for t in self.values:
            if not isinstance(t, AbstractZero):
                return tuple(t.shape[: self.extra])
        return ()


def tangents_in(name: str, tangents: Sequence[Any], args: Sequence[Any]) -> TangentsIn | None:
    """The tangents of ``args`` given to an frule, forced and checked, or ``None`` when all are
    zero (the pushforward is then ``ZeroTangent()``).

    Each nonzero tangent of an array argument must have the argument's shape after ``extra``
    leading chunk axes, the same ``extra`` for every argument (a ``ValueError`` naming the
    function otherwise). Tangents of Python scalars are 0-d (or carry only chunk axes).
    ``tangents`` is the frule's tuple ``(f_dot, *arg_dots)``.
    """
    if len(tangents) == 2 and len(args) == 1:  # one argument: the common case, kept short
        t = tangents[1]
        if isinstance(t, Thunk):
            t = unthunk(t)
        if isinstance(t, AbstractZero):
            return None
        a = args[0]
        if isinstance(t, Tangent) or type(t) in (tuple, list):
            return TangentsIn((t,), 0)
        if type(t) is not _ND or type(a) is not _ND:
            lib = _LIBRARY.get(type(t))
            if lib is None or lib != _LIBRARY.get(type(a)) or lib in _CHECKS_DEVICE:
                t = _tangent_of(name, 1, t, a)
        shape, t_shape = getattr(a, "shape", ()), getattr(t, "shape", ())
        k = len(t_shape) - len(shape)
        if k >= 0 and tuple(t_shape[k:]) == tuple(shape):
            dt = getattr(t, "dtype", None)
            if dt is not None and dt != getattr(a, "dtype", dt):
                t = _to_kind(t, dt, a, a.dtype)
            return TangentsIn((t,), k)
        raise ValueError(
            f"{name}: tangent of shape {tuple(t_shape)} does not fit a primal of shape "
            f"{tuple(shape)} (expected the primal's shape after leading chunk axes)"
        )
    ts = tangents[1:]
    if len(ts) != len(args):
        raise ValueError(
            f"{name}: expected {len(args)} argument tangents (after f's own), got {len(ts)}"
        )
    extra: int | None = None
    brought: list[Any] | None = None  # the tangents, where one was forced or brought
    nonzero = False
    for i in range(len(ts)):  # no generator: a pushforward's every call runs this
        t, a = ts[i], args[i]
        if isinstance(t, Thunk):
            t = unthunk(t)
            if brought is None:
                brought = list(ts)
            brought[i] = t
        if isinstance(t, AbstractZero):
            continue
        nonzero = True
        if isinstance(t, Tangent) or type(t) in (tuple, list):
            continue
        u = t
        if type(t) is not _ND or type(a) is not _ND:
            lib = _LIBRARY.get(type(t))
            if lib is None or lib != _LIBRARY.get(type(a)) or lib in _CHECKS_DEVICE:
                u = _tangent_of(name, i + 1, t, a)
        dt = getattr(u, "dtype", None)
        if dt is not None and dt != getattr(a, "dtype", dt):
            u = _to_kind(u, dt, a, a.dtype)
        if u is not t:
            if brought is None:
                brought = list(ts)
            brought[i] = t = u
        shape = tuple(getattr(a, "shape", ()))
        t_shape = tuple(getattr(t, "shape", ()))
        k = len(t_shape) - len(shape)
        if k < 0 or t_shape[k:] != shape:
            raise ValueError(
                f"{name}: tangent of shape {t_shape} does not fit a primal of shape {shape} "
                "(expected the primal's shape after leading chunk axes)"
            )
        if extra is None:
            extra = k
        elif k != extra:
            raise ValueError(
                f"{name}: tangents carry different numbers of chunk axes ({extra} and {k})"
            )
    if not nonzero:
        return None
    return TangentsIn(tuple(ts) if brought is None else tuple(brought), extra or 0)


def _tangent_of(name: str, i: int, t: Any, a: Any) -> Any:
    """Tangent ``t`` of positional argument ``i`` (1-based, after ``f``'s own) brought to the
    argument ``a``'s library and device (:func:`bring`)."""
    return bring(name, f"the tangent of argument {i}", t, a)


def numpy_result(y: Any) -> Any:
    """``y`` with the result type NumPy's own function gives: a 0-d NumPy array, what the
    namespace's reductions and size-1 reads return, is the NumPy scalar that NumPy's reductions
    and integer indexing return (``np.linalg.trace(x)`` is an ``np.float64``). Every other value
    (another library's arrays included) is ``y`` itself. The conversion reads no value."""
    return y[()] if type(y) is np.ndarray and y.ndim == 0 else y
