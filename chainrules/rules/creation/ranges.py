"""Rules for the numerical ranges and grids: the standard's ``arange``, ``linspace`` and
``meshgrid`` (and NumPy's signatures of them), NumPy's ``logspace`` and ``geomspace``, and NumPy's
index grids ``indices`` and ``ix_`` (non-differentiable).

Differentiable
--------------
* ``linspace(start, stop, num)``: ``y_i = start + w_i (stop - start)`` with the host-known weights
  ``w_i = i / (num - 1)`` (``i / num`` without the endpoint), so ``start_bar = sum((1 - w) y_bar)``
  and ``stop_bar = sum(w y_bar)``; complex ``start``/``stop`` too. NumPy's array ``start``/``stop``
  and ``axis=`` are supported (``retstep=True`` is not).
* ``arange(start, stop, step)``: ``y_i = start + i step``: ``start_bar = sum(y_bar)``,
  ``step_bar = sum(i y_bar)``; ``stop`` only sets the length (zero derivative).
* ``meshgrid(*arrays, indexing='xy'|'ij')``: output ``i`` is array ``i`` broadcast along the other
  axes, so its cotangent is the sum of output ``i``'s cotangent over those axes (a tuple output:
  a ``Tangent`` with one part per output; NumPy's ``sparse=True`` too).
* ``logspace(start, stop, num, endpoint, base)``: ``y = base ** e`` with ``e = start + w (stop -
  start)`` and the weights of ``linspace``, so ``dy = log(base) y ((1 - w) dstart + w dstop)``.
* ``geomspace(start, stop, num, endpoint)``: ``y = start (stop / start) ** w``, so
  ``dy = y ((1 - w) dstart / start + w dstop / stop)`` (real, same-sign endpoints; NumPy's exact
  endpoints ``y_0 = start``, ``y_-1 = stop`` agree with it).

Both take NumPy's array ``start``/``stop`` and ``axis=``; the cotangent of each endpoint sums over
the samples' axis (and over the axes it was broadcast along). ``base`` has no cotangent.

Which library computes a call without array arguments: :mod:`chainrules.rules._util.creation`.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import axis_int, in_dtype, sample_rank
from .._util.creation import *
from .._util.numpy_like import lift_tangent, numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only


# The signatures bind what a rule reads; the call itself goes to the library unchanged (``**kwargs``
# are the library's own keywords, passed on). ``out=`` is named so that it is refused with the
# rules' message.
_LINSPACE = signature(
    "linspace",
    lambda start, stop, /, num, *, dtype=None, device=None, endpoint=True, out=None, **kwargs: None,
)


def _numpy_linspace(  # the template of NumPy's signature (never called)
    start: Any,
    stop: Any,
    /,
    num: Any = 50,
    endpoint: Any = True,
    retstep: Any = False,
    dtype: Any = None,
    axis: Any = 0,
    *,
    out: Any = None,
    **kwargs: Any,
) -> None: ...


_NUMPY_LINSPACE = signature("linspace", _numpy_linspace)
_ARANGE = signature(
    "arange", lambda start, /, stop=None, step=1, *, dtype=None, out=None, **kwargs: None
)
_NUMPY_ARANGE = signature(
    "arange", lambda start, /, stop=None, step=None, dtype=None, *, out=None, **kwargs: None
)
_MESHGRID = signature("meshgrid", lambda *arrays, indexing="xy", out=None, **kwargs: None)

# jax.numpy.arange makes its length from its bounds: under jax.jit they must be concrete
_ARANGE_JIT = Expect("jit", "jax.numpy.arange needs concrete bounds: not traceable", kind="skip")
_C = "creation"  # the kind of the functions that make arrays from shapes and numbers


# --- linspace -------------------------------------------------------------------------------------
def _linspace_rules(numpy: bool) -> Rules:
    sig = _NUMPY_LINSPACE if numpy else _LINSPACE

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        bound = sig.bind(args, kwargs)
        a = {**bound.pop("kwargs"), **bound}  # the library's own keywords (axis=) read too
        if a.get("retstep"):
            raise TypeError("linspace: the rule does not support retstep=True")
        start, stop = a["start"], a["stop"]
        num, endpoint = operator.index(a["num"]), bool(a["endpoint"])
        xp = call_namespace((start, stop), kwargs, "linspace")
        axis_int(a.get("axis", 0), "linspace", ndim=sample_rank(start, stop), bool_ok=True)
        y = call_module(numpy, xp, args, kwargs).linspace(*args, **kwargs)
        axis = operator.index(a.get("axis", 0)) % max(y.ndim, 1)
        div = (num - 1) if endpoint else num
        real = xp.real(y).dtype if xp.isdtype(y.dtype, "complex floating") else y.dtype
        if xp.isdtype(y.dtype, "integral"):
            real = None
        w = None  # the weights of stop, along the samples' axis
        if real is not None:
            w = xp.arange(num, dtype=real, device=device_of(y)) / (div if div > 0 else 1)
            if endpoint and num > 1:  # exactly 1 at the end, as the primal's last sample is stop
                w = xp.where(xp.arange(num, device=device_of(y)) == num - 1, xp.ones_like(w), w)
            shape = [1] * y.ndim
            shape[axis] = num
            w = xp.reshape(w, tuple(shape))
        return xp, start, stop, y, w, axis

    def linspace_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, start, stop, y, w, _ = setup(args, kwargs)
        ps, pe = ProjectTo(start, xp), ProjectTo(stop, xp)
        rest = (NO,) * (len(args) - 2)
        diff = w is not None

        @pullback(y, tangent_args(args, diff))
        def linspace_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not diff:
                return (NO, NO, *rest)
            axis = _num_axis(y, w)
            s = ps(xp.sum(y_bar * (1 - w), axis=axis)) if ps.differentiable else NO
            e = pe(xp.sum(y_bar * w, axis=axis)) if pe.differentiable else NO
            return (s, e, *rest)

        return y, linspace_pullback

    def linspace_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, start, stop, y, w, axis = setup(args, kwargs)
        if w is None:
            return y, NO
        rank = y.ndim - 1  # the broadcast shape of start and stop
        terms = []
        for t, v, weight in ((tangents[1], start, 1 - w), (tangents[2], stop, w)):
            t = forced_tangent(t, v, xp)
            if t is None:
                continue
            t, _ = lift_tangent(xp, t, v, rank, y.dtype, "linspace")
            at = t.ndim - rank + axis  # the samples' axis goes in here (counted from the right)
            if at >= 0:
                s = tuple(t.shape)
                t = xp.reshape(t, (*s[:at], 1, *s[at:]))
            terms.append(t * weight)
        if not terms:
            return y, ZERO
        total = terms[0] if len(terms) == 1 else terms[0] + terms[1]
        lead = tuple(total.shape[: total.ndim - y.ndim])
        return y, in_dtype(xp, xp.broadcast_to(total, lead + tuple(y.shape)), y.dtype)

    return linspace_rrule, linspace_frule


def _num_axis(y: Any, w: Any) -> int:
    """The axis of ``y`` along which the samples run (where the weights are not length 1)."""
    return next((i for i, n in enumerate(w.shape) if n != 1), 0) if y.ndim else 0


register_pair("linspace", _linspace_rules(False), lambda rng: _linspace_examples(rng), kind=_C)
register_pair(
    "numpy:linspace", _linspace_rules(True), lambda rng: _numpy_linspace_examples(rng), kind=_C
)


# --- arange ---------------------------------------------------------------------------------------
def _arange_rules(numpy: bool) -> Rules:
    sig = _NUMPY_ARANGE if numpy else _ARANGE

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        a = sig.bind(args, kwargs)
        xp = call_namespace(args, kwargs, "arange")
        y = call_module(numpy, xp, args, kwargs, False).arange(*args, **kwargs)
        # the roles of the positional arguments: arange(stop) or arange(start, stop[, step])
        names = ("stop", "none") if a["stop"] is None else ("start", "stop")
        return xp, y, (*names, "step", "dtype")[: len(args)]

    def arange_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, y, roles = setup(args, kwargs)
        diff = xp.isdtype(y.dtype, ("real floating", "complex floating"))
        moves = ("start", "stop", "step")  # the roles with a tangent space
        projs = [ProjectTo(a, xp) if r in moves else None for r, a in zip(roles, args)]
        args_in = [a if r in moves else None for r, a in zip(roles, args)]

        @pullback(y, tangent_args(tuple(args_in), diff))
        def arange_pullback(y_bar: Any) -> tuple[Any, ...]:
            out: list[Any] = []
            for role, p in zip(roles, projs):
                if p is None or not diff or not p.differentiable:
                    out.append(NO)
                elif role == "stop":
                    out.append(ZERO)  # the stop only sets the length
                elif role == "start":
                    out.append(p(xp.sum(y_bar)))
                else:
                    i = xp.arange(y.shape[0], dtype=y_bar.dtype, device=device_of(y_bar))
                    out.append(p(xp.sum(y_bar * i)))
            return tuple(out)

        return y, arange_pullback

    def arange_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, y, roles = setup(args, kwargs)
        if not xp.isdtype(y.dtype, ("real floating", "complex floating")):
            return y, NO
        total = None
        i = xp.arange(y.shape[0], dtype=y.dtype, device=device_of(y))
        for role, t, a in zip(roles, tangents[1:], args):
            t = forced_tangent(t, a, xp) if role in ("start", "step") else None
            if t is None:
                continue
            t, _ = lift_tangent(xp, t, a, 0, y.dtype, "arange")
            t = xp.reshape(t, (*tuple(t.shape), 1))
            term = t if role == "start" else t * i
            total = term if total is None else total + term
        if total is None:
            return y, ZERO
        lead = tuple(total.shape[:-1])
        return y, xp.broadcast_to(total, lead + tuple(y.shape))

    return arange_rrule, arange_frule


register_pair(
    "arange", _arange_rules(False), lambda rng: _arange_examples(rng), _ARANGE_JIT, kind=_C
)
register_pair(
    "numpy:arange", _arange_rules(True), lambda rng: _arange_examples(rng), _ARANGE_JIT, kind=_C
)


# --- meshgrid -------------------------------------------------------------------------------------
def _meshgrid_rules(numpy: bool) -> Rules:
    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        xy = _MESHGRID.bind(args, kwargs)["indexing"] == "xy"
        xp = call_namespace(args, kwargs, "meshgrid")
        ys = call_module(numpy, xp, args, kwargs).meshgrid(*args, **kwargs)
        # the axis of the outputs along which argument i runs
        axes = list(range(len(args)))
        if xy and len(args) >= 2:
            axes[0], axes[1] = 1, 0
        return xp, ys, axes

    def meshgrid_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, ys, axes = setup(args, kwargs)
        projs = [ProjectTo(a, xp) for a in args]

        @pullback(ys, args)
        def meshgrid_pullback(y_bars: tuple[Any, ...]) -> tuple[Any, ...]:
            out: list[Any] = []
            for a, y, g, ax, p in zip(args, ys, y_bars, axes, projs):
                if not p.differentiable:
                    out.append(NO)
                elif isinstance(g, AbstractZero):
                    out.append(ZERO)
                else:  # summed over the axes the argument was broadcast along
                    others = tuple(i for i in range(y.ndim) if i != ax)
                    s = xp.sum(g, axis=others) if others else g
                    out.append(p(xp.reshape(s, tuple(a.shape))))
            return tuple(out)

        return ys, meshgrid_pullback

    def meshgrid_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, ys, axes = setup(args, kwargs)
        ts = tangents_in("meshgrid", tangents, args)
        extra = 0 if ts is None else ts.extra
        parts: list[Any] = []
        for i, (a, y, ax) in enumerate(zip(args, ys, axes)):
            if not ProjectTo(y, xp).differentiable:
                parts.append(NO)
                continue
            t = None if ts is None or not has_tangent_space(a, xp) else ts[i]
            if t is None or isinstance(t, AbstractZero):
                parts.append(ZERO)
                continue
            lead = tuple(t.shape[:extra])
            shape = [1] * y.ndim
            if y.ndim:
                shape[ax] = math.prod(tuple(a.shape))
            t = xp.reshape(t, lead + tuple(shape))
            parts.append(in_dtype(xp, xp.broadcast_to(t, lead + tuple(y.shape)), y.dtype))
        return ys, Tangent(*parts, primal_type=type(ys))

    return meshgrid_rrule, meshgrid_frule


register_pair(
    "meshgrid", _meshgrid_rules(False), lambda rng: _meshgrid_examples(rng), kind="sequence"
)
register_pair(
    "numpy:meshgrid",
    _meshgrid_rules(True),
    lambda rng: _numpy_meshgrid_examples(rng),
    kind="sequence",
)


# --- logspace, geomspace --------------------------------------------------------------------------
_LOGSPACE = signature(
    "logspace",
    lambda start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, **options: None,
)
_GEOMSPACE = signature(
    "geomspace", lambda start, stop, num=50, endpoint=True, dtype=None, axis=0, **options: None
)


def _spaced_rules(name: str, fn: Any = None) -> Rules:
    """The rules of ``name``; ``fn``: the library function they are bound to (``jnp.logspace``
    for Python-scalar endpoints, which name no library), else the arguments' library's."""
    sig = _LOGSPACE if name == "logspace" else _GEOMSPACE

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``(xp, y, start, stop, d_start, d_stop, axis)``: the partials of ``y`` (its shape)
        in each endpoint, the endpoints aligned with ``y``; ``None`` partials: no derivative."""
        a = sig.bind(args, kwargs)
        start, stop = a["start"], a["stop"]
        arrays = [v for v in (start, stop) if is_array(v)]
        xp = namespace_of(*arrays, fname=name) if arrays else namespace_of()
        axis_int(a["axis"], name, ndim=sample_rank(start, stop), bool_ok=True)
        if fn is not None and not arrays:
            y = fn(*args, **kwargs)
            xp = namespace_of(y, fname=name)
        else:
            y = getattr(numpy_like_module(arrays[0] if arrays else None, xp), name)(*args, **kwargs)
        if not xp.isdtype(y.dtype, ("real floating", "complex floating")):
            return xp, y, start, stop, None, None, 0
        if xp.isdtype(y.dtype, "complex floating"):
            raise NotImplementedError(f"{name}: the rule supports real outputs only")
        num, endpoint = operator.index(a["num"]), bool(a["endpoint"])
        axis = operator.index(a["axis"]) % max(y.ndim, 1)
        dev = {} if device_of(y) is None else {"device": device_of(y)}
        div = (num - 1) if endpoint else num
        w = xp.arange(num, dtype=y.dtype, **dev) / (div if div > 0 else 1)
        shape = [1] * y.ndim
        shape[axis] = num
        w = xp.reshape(w, tuple(shape))

        def aligned(v: Any) -> Any:  # an endpoint, the samples' axis inserted, as y's dtype
            v = xp.asarray(v, dtype=y.dtype, **dev)
            s = list(v.shape)
            at = len(s) - (y.ndim - 1 - axis)
            return xp.reshape(v, (*s[:at], 1, *s[at:]))

        if name == "logspace":
            c = math.log(float(a["base"])) * y
            return xp, y, start, stop, c * (1 - w), c * w, axis
        return xp, y, start, stop, y * (1 - w) / aligned(start), y * w / aligned(stop), axis

    def spaced_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, y, start, stop, d_start, d_stop, axis = setup(args, kwargs)
        ps, pe = ProjectTo(start, xp), ProjectTo(stop, xp)
        live = d_start is not None
        rest = (NO,) * (len(args) - 2)

        @pullback(y, args if live else (None,) * len(args), name=name)
        def spaced_pullback(y_bar: Any) -> tuple[Any, ...]:
            s = ps(xp.sum(y_bar * d_start, axis=axis)) if ps.differentiable else NO
            e = pe(xp.sum(y_bar * d_stop, axis=axis)) if pe.differentiable else NO
            return (s, e, *rest)

        spaced_pullback.__name__ = spaced_pullback.__qualname__ = f"{name}_pullback"
        return y, spaced_pullback

    def spaced_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, y, start, stop, d_start, d_stop, axis = setup(args, kwargs)
        if d_start is None:
            return y, NO
        dots = tangents_in(name, tangents[:3], (start, stop))
        if dots is None:
            return y, ZERO
        terms = []
        for t, d in zip(dots, (d_start, d_stop)):
            if isinstance(t, AbstractZero):
                continue
            t = in_dtype(xp, t if is_array(t) else xp.asarray(t), y.dtype)
            sh = list(t.shape)  # (*chunk, *endpoint shape): insert the samples' axis
            at = len(sh) - (y.ndim - 1 - axis)
            terms.append(xp.reshape(t, (*sh[:at], 1, *sh[at:])) * d)
        out = terms[0] if len(terms) == 1 else terms[0] + terms[1]
        lead = tuple(out.shape[: out.ndim - y.ndim])
        out = xp.broadcast_to(out, (*lead, *y.shape))
        return y, out

    spaced_rrule.__name__ = spaced_rrule.__qualname__ = f"{name}_rrule"
    spaced_frule.__name__ = spaced_frule.__qualname__ = f"{name}_frule"
    return spaced_rrule, spaced_frule


def _logspace_ex(rng: np.random.Generator) -> list[Any]:
    return [
        ((0.5, 2.0), {"num": 4}),
        ((-1.0, 1.0, 5, False), {}),
        ((np.array([0.0, 1.0]), np.array([1.0, 2.5])), {"num": 3, "axis": 1}),
        ((0.2, 1.2), {"num": 4, "base": 2.0}),
    ]


def _geomspace_ex(rng: np.random.Generator) -> list[Any]:
    return [
        ((0.5, 8.0), {"num": 4}),
        ((-2.0, -0.5, 5, False), {}),
        ((np.array([1.0, 2.0]), np.array([4.0, 3.0])), {"num": 3, "axis": -1}),
    ]


for _name, _examples in (("logspace", _logspace_ex), ("geomspace", _geomspace_ex)):
    _r, _f = _spaced_rules(_name)

    def _bind(obj: Any, kind: str, name: str = _name) -> Any:
        return _spaced_rules(name, obj)[0 if kind == "r" else 1]

    register_rrule(f"numpy:{_name}", examples=_examples, bind=_bind)(_r)
    register_frule(f"numpy:{_name}", examples=_examples, bind=_bind)(_f)


# --- index grids (non-differentiable) ------------------------------------------------------------
numpy_non_differentiable("indices", examples=fixed_examples((((2, 3),), {})))
numpy_non_differentiable(
    "ix_", examples=fixed_examples(((np.array([0, 2]), np.array([1, 0, 1])), {}))
)


# --- examples -------------------------------------------------------------------------------------
def _linspace_examples(rng: Any) -> list[Any]:
    a, b = np.asarray(rng.standard_normal()), np.asarray(rng.standard_normal())
    return [
        ((a, b, 5), {}),
        ((a, b, 4), {"endpoint": False}),
        ((a, b, 1), {}),
        ((a, b, 0), {}),
    ]


def _numpy_linspace_examples(rng: Any) -> list[Any]:
    a, b = np.asarray(rng.standard_normal()), np.asarray(rng.standard_normal())
    c = np.asarray(rng.standard_normal() + 1j * rng.standard_normal())
    return [
        *_linspace_examples(rng),
        ((c, c * 2, 3), {}),  # complex (array-api-strict's linspace drops the imaginary part)
        ((a, b), {}),  # num=50: the dot-product test
        ((a, b, 4, False), {}),
        ((rng.standard_normal(3), rng.standard_normal((2, 3)), 4), {}),  # broadcast arrays
        ((rng.standard_normal(2), b, 3), {"axis": 1}),
        ((rng.standard_normal((2, 3)), b, 4), {"axis": -1}),
    ]


def _arange_examples(rng: Any) -> list[Any]:
    return [
        ((np.asarray(0.25), np.asarray(3.0)), {}),
        ((np.asarray(-1.5), np.asarray(2.0), np.asarray(0.75)), {}),
        ((np.asarray(4.5),), {}),
    ]


def _meshgrid_examples(rng: Any) -> list[Any]:
    a, b, c = rng.standard_normal(2), rng.standard_normal(3), rng.standard_normal(4)
    return [
        ((a, b), {}),
        ((a, b), {"indexing": "ij"}),
        ((a, b, c), {}),
        ((a, b, c), {"indexing": "ij"}),
        ((c,), {}),
        ((a, np.zeros(0)), {}),
    ]


def _numpy_meshgrid_examples(rng: Any) -> list[Any]:
    a, b = rng.standard_normal(2), rng.standard_normal(3)
    return [*_meshgrid_examples(rng), ((a, b), {"sparse": True}), ((a, b, a), {"sparse": True})]
