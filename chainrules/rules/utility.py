"""Rules for the standard's utility functions (``utility_functions``): ``diff`` and, declared
non-differentiable, ``all`` and ``any``; with NumPy's ``diff`` signature (``"numpy:diff"``:
``np.diff(a, n=1, axis=-1, prepend, append)``).

Maths note
----------
``diff`` is linear: with ``z = concat(prepend, x, append)`` along ``axis``, ``y = D^n z`` where
``(D z)_k = z_{k+1} - z_k``. Its adjoint is ``Dᵀ v = -D(pad(v))`` (one zero on each side), and
``n`` of them nest into one call: ``z_bar = (-1)^n diff(y_bar, n=n, prepend=0_n, append=0_n)``
(``n`` zeros on each side). ``z_bar`` is then cut back into the cotangents of ``prepend``, ``x``
and ``append`` (each summed over the axes it was broadcast along: NumPy takes a scalar
``prepend``). The pullback is ``diff`` and slicing only (each with rules): it is differentiable
again. The pushforward is ``diff`` of the concatenated tangents.

Conventions
-----------
* ``prepend``/``append`` are differentiated when they are *positional* arguments (NumPy's
  signature: ``np.diff(a, 1, -1, p, q)``); keyword arguments are never differentiated (the
  contract of ``rrule``): given as keywords -- the only way the standard's keyword-only
  signature takes them -- they are constants.
* ``n = 0`` is the identity (NumPy then ignores ``prepend``/``append``); ``n`` at least the
  length of ``z`` gives an empty output and zero cotangents.
* ``all``/``any`` return booleans: no tangent space.
"""

from __future__ import annotations

import operator
from typing import Any

from ..core.prelude import *
from ._util import along, axis_int, in_dtype
from ._util.numpy_like import numpy_like_module

__all__: list[str] = []  # rules only

_SCALARS = (float, complex, int, bool)

_DIFF = signature("diff", lambda x, /, *, axis=-1, n=1, prepend=None, append=None: None)
_NUMPY_DIFF = signature("diff", lambda x, /, n=1, axis=-1, prepend=None, append=None: None)


def _bind(
    sig: Signature, numpy: bool, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any, int, int, Any, Any]:
    """A ``diff`` call bound: ``(xp, x, n, axis, prepend, append)``, the axis non-negative,
    ``prepend``/``append`` ``None`` when absent."""
    if len(args) > 1 and not numpy:
        raise TypeError(
            "diff takes 1 positional argument in its rule (the standard's parameters after "
            f"x are keyword-only), got {len(args)}"
        )
    a = sig.bind(args, kwargs)
    x, p, q = a["x"], a["prepend"], a["append"]
    xp = namespace_of(x, p, q, fname="diff")
    n = operator.index(a["n"])
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    nd, axis = x.ndim, axis_int(a["axis"], "diff", bool_ok=True)
    if nd == 0 or not -nd <= axis < nd:
        raise ValueError(f"diff: axis {axis} is out of bounds for an array of rank {nd}")
    return xp, x, n, axis % nd, p, q


def _end_shape(v: Any, x: Any, axis: int) -> tuple[int, ...]:
    """The shape ``prepend``/``append`` takes in the concatenation (NumPy broadcasts a scalar or
    lower-rank value to length 1 along the axis)."""
    shape = tuple(getattr(v, "shape", ()))
    if len(shape) == x.ndim:
        return shape
    full = list(x.shape)
    full[axis] = 1
    return tuple(full)


def _diff_rules(sig: Signature, numpy: bool) -> tuple[Any, Any]:
    """``diff`` with the standard's signature or (``numpy``) NumPy's: ``prepend``/``append`` are
    differentiated when positional (``args[3:5]``)."""

    def primal(xp: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if numpy:
            return numpy_like_module(x, xp).diff(*args, **kwargs)
        return xp.diff(x, **kwargs)

    def diff_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, n, ax, p, q = _bind(sig, numpy, args, kwargs)
        y = primal(xp, x, args, kwargs)
        project = ProjectTo(x, xp)
        end_projects = [ProjectTo(v, xp) for v in args[3:5]]  # the positional prepend, append
        # the lengths of prepend and append along the axis in the concatenation (0 when n = 0)
        p_len, a_len = (0 if n == 0 or v is None else _end_shape(v, x, ax)[ax] for v in (p, q))
        m = x.shape[ax]
        total = p_len + m + a_len

        @pullback(y, (x, NO, NO, *args[3:5])[: len(args)])
        def diff_pullback(g: Any) -> tuple[Any, ...]:
            if n == 0:
                z_bar = g
            elif g.shape[ax] == 0:  # an empty output: n >= the concatenated length
                shape = list(g.shape)
                shape[ax] = total
                z_bar = xp.zeros(tuple(shape), dtype=g.dtype, device=device_of(g))
            else:
                pad = list(g.shape)
                pad[ax] = n
                zeros = xp.zeros(tuple(pad), dtype=g.dtype, device=device_of(g))
                # concatenated here, not through diff's prepend=/append=: dask's diff computes
                # those while it builds the graph
                z_bar = xp.diff(xp.concat([zeros, g, zeros], axis=ax), axis=ax, n=n)
                if n % 2:
                    z_bar = -z_bar
            x_bar = project(z_bar[along(ax, slice(p_len, p_len + m))])
            end_bars = (
                (pr(z_bar[along(ax, s)]) if n else ZERO) if pr.differentiable else NO
                for pr, s in zip(end_projects, (slice(0, p_len), slice(p_len + m, total)))
            )  # n = 0: NumPy ignores prepend and append, whose cotangents are zero
            return (x_bar, NO, NO, *end_bars)[: len(args)]

        return y, diff_pullback

    def diff_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, n, ax, p, q = _bind(sig, numpy, args, kwargs)
        y = primal(xp, x, args, kwargs)
        if not ProjectTo(y, xp).differentiable:
            return y, NO
        ts = tangents_in("diff", tangents, args)
        if ts is None:
            return y, ZERO
        # the tangents of x, prepend and append (those of keywords are zero); None where zero
        dots: list[Any] = []
        for t, v in zip((ts[0], *(ts[i] if len(args) > i else ZERO for i in (3, 4))), (x, p, q)):
            if v is None or isinstance(t, AbstractZero) or not ProjectTo(v, xp).differentiable:
                dots.append(None)
            else:
                dots.append(xp.asarray(t, dtype=y.dtype) if type(t) in _SCALARS else t)
        if all(d is None for d in dots):
            return y, ZERO
        extra = ts.extra
        lead = ts.lead() if extra else ()

        def full(t: Any, shape: tuple[int, ...]) -> Any:
            if t is None:
                return xp.zeros(lead + shape, dtype=y.dtype, device=device_of(x))
            pad = (1,) * (len(shape) - (t.ndim - extra))
            t = xp.reshape(t, tuple(t.shape[:extra]) + pad + tuple(t.shape[extra:]))
            return xp.broadcast_to(in_dtype(xp, t, y.dtype), lead + shape)

        t_x = full(dots[0], tuple(x.shape))
        if not n:
            return y, in_dtype(xp, t_x, y.dtype)
        kw = {
            key: full(d, _end_shape(v, x, ax))
            for key, v, d in (("prepend", p, dots[1]), ("append", q, dots[2]))
            if v is not None
        }
        return y, in_dtype(xp, xp.diff(t_x, axis=ax + extra, n=n, **kw), y.dtype)

    return diff_rrule, diff_frule


# --- examples ----------------------------------------------------------------------------------
def _diff_examples(rng: Any) -> list[Any]:
    # array prepend=/append= keywords are in the test suite only: the runner converts positional
    # arguments to each backend's arrays, not keyword ones
    def r(*s: int) -> Any:
        return rng.standard_normal(s)

    m = r(3, 5)
    return [
        ((r(6),), {}),
        ((m,), {}),
        ((m,), {"axis": 0}),
        ((m,), {"n": 2}),
        ((m,), {"axis": 0, "n": 3}),  # n = the length: empty output
        ((m,), {"n": 0}),
        ((r(2, 3, 4),), {"axis": 1}),
        ((r(3, 0),), {}),
        ((r(4) + 1j * r(4),), {}),
    ]


def _numpy_diff_examples(rng: Any) -> list[Any]:
    def r(*s: int) -> Any:
        return rng.standard_normal(s)

    m = r(3, 5)
    return [
        *_diff_examples(rng),
        ((m, 1, -1, r(3, 1), r(3, 2)), {}),  # positional prepend/append: differentiated
        ((m, 2, 0, r(1, 5)), {}),
        ((m, 1, 1, 0.5, r(3, 1)), {}),  # a Python-scalar prepend (broadcast)
        ((m, 1, 0, r(), r(2, 5)), {}),  # a 0-d prepend (broadcast)
        ((r(4) + 1j * r(4), 1, 0, r(2) + 1j * r(2)), {}),
        ((m, 2), {"prepend": 1.0}),
    ]


for _target, _sig, _numpy, _examples in (
    ("diff", _DIFF, False, _diff_examples),
    ("numpy:diff", _NUMPY_DIFF, True, _numpy_diff_examples),
):
    _r, _f = _diff_rules(_sig, _numpy)
    register_rrule(_target, examples=_examples, linear=True)(_r)
    register_frule(_target, examples=_examples, linear=True)(_f)


def _all_any_examples(rng: Any) -> list[Any]:
    b = rng.random((3, 4)) > 0.3
    return [((b,), {}), ((b,), {"axis": 1}), ((rng.standard_normal((2, 3)),), {"keepdims": True})]


non_differentiable("all", "any", examples=_all_any_examples)
