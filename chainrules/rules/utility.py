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

import numpy as np

from ..core.namespaces import device_of, namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import _reject_out, non_differentiable
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._util import along, cotangent, in_dtype, tangent_extra
from .searching import numpy_like_module

__all__: list[str] = []  # rules only

_NO = NoTangent()
_ZERO = ZeroTangent()
_NP_ORDER = ("n", "axis", "prepend", "append")
_SCALARS = (float, complex, int, bool)


class _Diff:
    """A ``diff`` call, normalised: the array, ``n``, the axis, and ``prepend``/``append`` with
    their positional slots (``None`` when given as keywords or absent)."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any], numpy: bool) -> None:
        if not args:
            raise TypeError("diff needs an array argument")
        _reject_out("diff", kwargs)
        x, *pos = args
        if pos and not numpy:
            raise TypeError(
                "diff takes 1 positional argument in its rule (the standard's parameters after "
                f"x are keyword-only), got {len(args)}"
            )
        if len(pos) > len(_NP_ORDER):
            raise TypeError(f"diff takes at most 5 positional arguments, got {len(args)}")
        params = dict(zip(_NP_ORDER, pos))
        for k, v in kwargs.items():
            if k in params:
                raise TypeError(f"diff got multiple values for argument {k!r}")
            params[k] = v
        self.xp = namespace_of(x, params.get("prepend"), params.get("append"), fname="diff")
        self.x, self.args, self.kwargs, self.numpy = x, args, kwargs, numpy
        self.n = operator.index(params.get("n", 1))
        if self.n < 0:
            raise ValueError(f"diff: n must be non-negative, got {self.n}")
        nd = x.ndim
        a = operator.index(params.get("axis", -1))
        if nd == 0 or not -nd <= a < nd:
            raise ValueError(f"diff: axis {a} is out of bounds for an array of rank {nd}")
        self.axis = a % nd
        # prepend and append: (value, index in the pullback's tuple when positional, else None)
        self.ends: list[tuple[Any, int | None]] = []
        for i, k in ((2, "prepend"), (3, "append")):
            v = params.get(k)
            self.ends.append((v, 2 + i if len(pos) > i else None))
        self.nargs = len(args)

    def primal(self) -> Any:
        if self.numpy:
            return numpy_like_module(self.x, self.xp).diff(*self.args, **self.kwargs)
        return self.xp.diff(self.x, **self.kwargs)

    def end_shape(self, v: Any) -> tuple[int, ...]:
        """The shape ``prepend``/``append`` takes in the concatenation (NumPy broadcasts a
        scalar or lower-rank value to length 1 along the axis)."""
        shape = tuple(getattr(v, "shape", ()))
        if len(shape) == self.x.ndim:
            return shape
        full = list(self.x.shape)
        full[self.axis] = 1
        return tuple(full)

    def lengths(self) -> tuple[int, int]:
        """Lengths of ``prepend`` and ``append`` along the axis in the concatenation."""
        if self.n == 0:
            return 0, 0
        return tuple(  # type: ignore[return-value]
            0 if v is None else self.end_shape(v)[self.axis] for v, _ in self.ends
        )


def _diff_rules(numpy: bool) -> tuple[Any, Any]:
    def diff_rrule(*args: Any, **kwargs: Any) -> Any:
        c = _Diff(args, kwargs, numpy)
        xp, x, ax, n = c.xp, c.x, c.axis, c.n
        y = c.primal()
        project = ProjectTo(x, xp)
        projs = [ProjectTo(v, xp) if s else None for v, s in c.ends]  # prepend, append

        def diff_pullback(y_bar: Any) -> tuple[Any, ...]:
            out: list[Any] = [_NO] * (c.nargs + 1)
            if isinstance(y_bar, AbstractZero):
                out[1] = _ZERO if project.differentiable else _NO
                for p, (_, slot) in zip(projs, c.ends):
                    if slot is not None and p is not None:
                        out[slot] = _ZERO if p.differentiable else _NO
                return tuple(out)
            g = cotangent("diff", y_bar, y)
            p_len, a_len = c.lengths()
            m = x.shape[ax]
            total = p_len + m + a_len
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
                z_bar = xp.diff(g, axis=ax, n=n, prepend=zeros, append=zeros)
                if n % 2:
                    z_bar = -z_bar
            out[1] = project(z_bar[along(ax, slice(p_len, p_len + m))])
            for p, (_v, slot), s in zip(projs, c.ends, (slice(0, p_len), slice(p_len + m, total))):
                if slot is not None and p is not None:
                    out[slot] = p(z_bar[along(ax, s)]) if p.differentiable else _NO
            return tuple(out)

        return y, diff_pullback

    def diff_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        c = _Diff(args, kwargs, numpy)
        xp, x, ax = c.xp, c.x, c.axis
        y = c.primal()
        if not ProjectTo(y, xp).differentiable:
            return y, _NO
        dots: list[Any] = []
        for t, v in ((tangents[1], x), *((tangents[s] if s else _ZERO, v) for v, s in c.ends)):
            t = unthunk(t)
            if v is None or isinstance(t, AbstractZero) or not ProjectTo(v, xp).differentiable:
                dots.append(None)
                continue
            if type(t) in _SCALARS:
                t = xp.asarray(t, dtype=y.dtype)
            dots.append((t, tangent_extra("diff", t, v) if v is x else t.ndim - np.ndim(v)))
        if all(d is None for d in dots):
            return y, _ZERO
        extra = max(e for d in dots if d is not None for e in (d[1],))
        lead = next(tuple(d[0].shape[:extra]) for d in dots if d is not None and d[1] == extra)

        def full(d: Any, shape: tuple[int, ...]) -> Any:
            if d is None:
                return xp.zeros(lead + shape, dtype=y.dtype, device=device_of(x))
            t, e = d
            pad = (1,) * (len(shape) - (t.ndim - e))
            t = xp.reshape(t, tuple(t.shape[:e]) + pad + tuple(t.shape[e:]))
            return xp.broadcast_to(in_dtype(xp, t, y.dtype), lead + shape)

        t_x = full(dots[0], tuple(x.shape))
        kw: dict[str, Any] = {}
        if c.n:
            for key, (v, _), d in zip(("prepend", "append"), c.ends, dots[1:]):
                if v is not None:
                    kw[key] = full(d, c.end_shape(v))
        y_dot = xp.diff(t_x, axis=ax + extra, n=c.n, **kw) if c.n else t_x
        return y, in_dtype(xp, y_dot, y.dtype)

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


_r, _f = _diff_rules(numpy=False)
register_rrule("diff", examples=_diff_examples)(_r)
register_frule("diff", examples=_diff_examples)(_f)
_r, _f = _diff_rules(numpy=True)
register_rrule("numpy:diff", examples=_numpy_diff_examples)(_r)
register_frule("numpy:diff", examples=_numpy_diff_examples)(_f)


def _all_any_examples(rng: Any) -> list[Any]:
    b = rng.random((3, 4)) > 0.3
    return [((b,), {}), ((b,), {"axis": 1}), ((rng.standard_normal((2, 3)),), {"keepdims": True})]


non_differentiable("all", "any", examples=_all_any_examples)
