"""Rules for NumPy's creation functions beyond the standard (``"numpy:NAME"``).

Differentiable
--------------
* ``logspace(start, stop, num, endpoint, base)``: ``y = base ** e`` with ``e = start + w (stop -
  start)`` and the host-known weights ``w_i = i / (num - 1)`` (``i / num`` without the endpoint),
  so ``dy = log(base) y ((1 - w) dstart + w dstop)``.
* ``geomspace(start, stop, num, endpoint)``: ``y = start (stop / start) ** w``, so
  ``dy = y ((1 - w) dstart / start + w dstop / stop)`` (real, same-sign endpoints; NumPy's exact
  endpoints ``y_0 = start``, ``y_-1 = stop`` agree with it).

Both take NumPy's array ``start``/``stop`` and ``axis=``; the cotangent of each endpoint sums over
the samples' axis (and over the axes it was broadcast along). ``base`` has no cotangent.

Non-differentiable (integer or index outputs, or outputs set by an integer size alone): ``tri``,
``identity``, ``indices``, ``diag_indices``, ``diag_indices_from``, ``tril_indices``,
``tril_indices_from``, ``triu_indices``, ``triu_indices_from``, ``mask_indices``, ``ix_`` and the
windows ``bartlett``, ``blackman``, ``hamming``, ``hanning``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import (
    AbstractZero,
    Expect,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    device_of,
    is_array,
    namespace_of,
    pullback,
    register_frule,
    register_rrule,
    signature,
    tangents_in,
)
from ._util import axis_int, bessel_i1, in_dtype, sample_rank
from ._util.numpy_like import numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()


# --- logspace, geomspace --------------------------------------------------------------------------
_LOGSPACE = signature(
    "logspace",
    lambda start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, **options: None,
)
_GEOMSPACE = signature(
    "geomspace", lambda start, stop, num=50, endpoint=True, dtype=None, axis=0, **options: None
)


def _spaced_rules(name: str, fn: Any = None) -> tuple[Callable[..., Any], Callable[..., Any]]:
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
        rest = (_NO,) * (len(args) - 2)

        @pullback(y, args if live else (None,) * len(args), name=name)
        def spaced_pullback(y_bar: Any) -> tuple[Any, ...]:
            s = ps(xp.sum(y_bar * d_start, axis=axis)) if ps.differentiable else _NO
            e = pe(xp.sum(y_bar * d_stop, axis=axis)) if pe.differentiable else _NO
            return (s, e, *rest)

        spaced_pullback.__name__ = spaced_pullback.__qualname__ = f"{name}_pullback"
        return y, spaced_pullback

    def spaced_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, y, start, stop, d_start, d_stop, axis = setup(args, kwargs)
        if d_start is None:
            return y, _NO
        dots = tangents_in(name, tangents[:3], (start, stop))
        if dots is None:
            return y, _ZERO
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


# --- kaiser: the window, differentiable in beta -------------------------------------------------
_KAISER = signature("kaiser", lambda M, beta: None)


def _kaiser_rules(fn: Any = None) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``w_n = I0(beta u_n) / I0(beta)``, ``u_n = sqrt(1 - r_n^2)``, ``r_n = 2n/(M-1) - 1``:
    ``dw/dbeta = u I1(beta u) / I0(beta) - w I1(beta) / I0(beta)`` (``I1 = I0'``). ``fn``: the
    library function the rules are bound to (a Python-number ``beta`` names no library)."""

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        a = _KAISER.bind(args, kwargs)
        m, beta = operator.index(a["M"]), a["beta"]
        if fn is not None and not is_array(beta):
            y = fn(*args, **kwargs)
        else:
            xb = namespace_of(beta, fname="kaiser")
            y = numpy_like_module(beta, xb).kaiser(*args, **kwargs)
        xp = namespace_of(y, fname="kaiser")
        dev = {} if device_of(y) is None else {"device": device_of(y)}
        b = xp.asarray(beta, dtype=y.dtype, **dev)
        if m <= 1:  # a single sample: w = 1 whatever beta is
            return xp, y, beta, xp.zeros_like(y)
        r = 2 * xp.arange(m, dtype=y.dtype, **dev) / (m - 1) - 1
        u = xp.sqrt(xp.clip(1 - r * r, 0.0, None))
        i0b = numpy_like_module(y, xp).i0(b)
        d = (u * bessel_i1(xp, b * u) - y * bessel_i1(xp, b)) / i0b
        return xp, y, beta, d

    def kaiser_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, y, beta, d = setup(args, kwargs)
        project = ProjectTo(beta, xp)

        positional = len(args) == 2  # a keyword beta gets no cotangent (the contract)

        @pullback(y, (_NO, beta) if positional else (_NO,) * len(args))
        def kaiser_pullback(y_bar: Any) -> Any:
            return (_NO, project(xp.sum(y_bar * d))) if positional else _NO

        return y, kaiser_pullback

    def kaiser_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, y, beta, d = setup(args, kwargs)
        if len(args) < 2:  # a keyword beta has no tangent
            return y, _ZERO
        dots = tangents_in("kaiser", (tangents[0], tangents[2]), (beta,))
        if dots is None:
            return y, _ZERO
        t = in_dtype(xp, xp.asarray(dots.values[0]), y.dtype)
        return y, xp.reshape(t, (*t.shape, 1)) * d

    return kaiser_rrule, kaiser_frule


def _kaiser_ex(rng: np.random.Generator) -> list[Any]:
    return [((8, 3.5), {}), ((5, 0.7), {}), ((1, 2.0), {}), ((6,), {"beta": 12.0})]


def _kaiser_bind(obj: Any, kind: str) -> Any:
    return _kaiser_rules(obj)[0 if kind == "r" else 1]


_kr, _kf = _kaiser_rules()
register_rrule("numpy:kaiser", examples=_kaiser_ex, bind=_kaiser_bind)(_kr)
register_frule("numpy:kaiser", examples=_kaiser_ex, bind=_kaiser_bind)(_kf)


# --- non-differentiable: index builders and windows ---------------------------------------------
def _ints(*calls: tuple[tuple[Any, ...], dict[str, Any]]) -> Callable[[Any], list[Any]]:
    return lambda rng: list(calls)


def _square(rng: np.random.Generator) -> list[Any]:
    return [((rng.standard_normal((3, 3)),), {}), ((rng.standard_normal((3, 4)),), {"k": 1})]


numpy_non_differentiable("tri", examples=_ints(((3,), {}), ((2, 3, 1), {})), kind="creation")
numpy_non_differentiable("identity", examples=_ints(((3,), {})))
numpy_non_differentiable("indices", examples=_ints((((2, 3),), {})))
numpy_non_differentiable("diag_indices", examples=_ints(((3,), {}), ((2, 3), {})))
numpy_non_differentiable(
    "diag_indices_from", examples=lambda rng: [((rng.standard_normal((3, 3)),), {})]
)
numpy_non_differentiable(
    "tril_indices", "triu_indices", examples=_ints(((3,), {}), ((3, 1, 4), {}))
)
numpy_non_differentiable("tril_indices_from", "triu_indices_from", examples=_square)
numpy_non_differentiable("mask_indices", examples=_ints(((3, np.triu), {}), ((3, np.tril, -1), {})))
numpy_non_differentiable("ix_", examples=_ints(((np.array([0, 2]), np.array([1, 0, 1])), {})))
numpy_non_differentiable(
    "bartlett", "blackman", "hamming", "hanning", examples=_ints(((5,), {}), ((1,), {}))
)

# an array from a Python iterable: its elements are host values (no tangent, as for a list);
# the examples are iterables of ints, which the testers pass as they are
numpy_non_differentiable(
    "fromiter",
    examples=_ints(((range(5), np.float64), {}), (((1, 2, 3), "float32"), {"count": 2})),
    expect=Expect(
        "jax",
        "jax.numpy.fromiter refuses every call (NotImplementedError: it may be impure)",
        kind="skip",
    ),
)
