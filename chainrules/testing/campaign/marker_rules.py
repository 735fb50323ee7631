"""The marker functions and their rules: each rule gives three times the true derivative, so a
result says whether an engine used the rule or differentiated the body (:mod:`.markers`). Each
:class:`Marker` says how a program calls its function; ``rules_disabled`` unregisters the rules
for the mutation check."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import chainrules as cr

from ...core import registry

_NO = cr.NoTangent()  # module level: NoTangent() called under TorchDynamo breaks the graph


_ZERO = cr.ZeroTangent()


def _dot(t: Any) -> Any:
    """A tangent or cotangent as an array, or ``None`` for a zero."""
    t = cr.unthunk(t)
    return None if isinstance(t, cr.AbstractZero) else t


def _three_times(terms: list[Any]) -> Any:
    """3x the sum of the non-``None`` terms (the marking), or ``ZeroTangent()`` if none."""
    present = [t for t in terms if t is not None]
    if not present:
        return _ZERO
    out = present[0]
    for t in present[1:]:
        out = out + t
    return 3 * out


# --- (a) keyword: y = sin(x) * cos(w), called as f(x, w=w) --------------------------------------


# The rules compute the primal with the body's function, not by calling the marker: a rule that
# called its own marker by keyword would be traced again when an engine differentiates the rule.
def _keyword(x: Any, w: Any) -> Any:
    xp = cr.namespace_of(x, w)
    return xp.sin(x) * xp.cos(w)


@cr.traceable
def marker_keyword(x: Any, w: Any = None) -> Any:
    return _keyword(x, w)


@cr.register_rrule(marker_keyword)
def _marker_keyword_rrule(x: Any, w: Any = None) -> Any:
    xp = cr.namespace_of(x, w)

    def marker_keyword_pullback(g: Any) -> Any:
        g = _dot(g)
        if g is None:
            return _NO, _ZERO, _ZERO
        return _NO, 3 * (g * xp.cos(x) * xp.cos(w)), 3 * (-g * xp.sin(x) * xp.sin(w))

    return _keyword(x, w), marker_keyword_pullback


@cr.register_frule(marker_keyword)
def _marker_keyword_frule(tangents: Any, x: Any, w: Any = None) -> Any:
    xp = cr.namespace_of(x, w)
    dx, dw = _dot(tangents[1]), _dot(tangents[2])
    terms = [
        None if dx is None else xp.cos(x) * xp.cos(w) * dx,
        None if dw is None else -xp.sin(x) * xp.sin(w) * dw,
    ]
    return _keyword(x, w), _three_times(terms)


# --- (b) pytree: y = sin(p["w"]) * u + cos(s), p = {"w": w, "t": (u, s)} -------------------------
def _pytree(p: Any) -> Any:
    w, (u, s) = p["w"], p["t"]
    xp = cr.namespace_of(w, u, s)
    return xp.sin(w) * u + xp.cos(s)


@cr.traceable
def marker_pytree(p: Any) -> Any:
    return _pytree(p)


@cr.register_rrule(marker_pytree)
def _marker_pytree_rrule(p: Any) -> Any:
    w, (u, s) = p["w"], p["t"]
    xp = cr.namespace_of(w, u, s)

    def marker_pytree_pullback(g: Any) -> Any:
        g = _dot(g)
        if g is None:
            return _NO, _ZERO
        dw = 3 * (g * xp.cos(w) * u)
        du = 3 * (g * xp.sin(w))
        ds = 3 * (-g * xp.sin(s))
        return _NO, cr.Tangent(w=dw, t=cr.Tangent(du, ds))

    return _pytree(p), marker_pytree_pullback


def _field(t: Any, key: Any) -> Any:
    """Field ``key`` of a structural tangent, or ``None`` for a zero."""
    t = None if t is None else _dot(t)
    return None if t is None else _dot(t[key])


@cr.register_frule(marker_pytree)
def _marker_pytree_frule(tangents: Any, p: Any) -> Any:
    w, (u, s) = p["w"], p["t"]
    xp = cr.namespace_of(w, u, s)
    dp = tangents[1]
    dw, dt = _field(dp, "w"), _field(dp, "t")
    du, ds = _field(dt, 0), _field(dt, 1)
    terms = [
        None if dw is None else xp.cos(w) * u * dw,
        None if du is None else xp.sin(w) * du,
        None if ds is None else -xp.sin(s) * ds,
    ]
    y = _pytree(p)
    return y, _three_times(terms)


# --- (c) several outputs: (sin(x), x * cos(x)) --------------------------------------------------
def _outputs(x: Any) -> Any:
    xp = cr.namespace_of(x)
    return xp.sin(x), x * xp.cos(x)


@cr.traceable
def marker_outputs(x: Any) -> Any:
    return _outputs(x)


@cr.register_rrule(marker_outputs)
def _marker_outputs_rrule(x: Any) -> Any:
    xp = cr.namespace_of(x)

    def marker_outputs_pullback(gs: Any) -> Any:
        gs = cr.unthunk(gs)
        if isinstance(gs, cr.AbstractZero):
            return _NO, _ZERO
        g1, g2 = _dot(gs[0]), _dot(gs[1])
        terms = [
            None if g1 is None else g1 * xp.cos(x),
            None if g2 is None else g2 * (xp.cos(x) - x * xp.sin(x)),
        ]
        return _NO, _three_times(terms)

    return _outputs(x), marker_outputs_pullback


@cr.register_frule(marker_outputs)
def _marker_outputs_frule(tangents: Any, x: Any) -> Any:
    xp = cr.namespace_of(x)
    dx = _dot(tangents[1])
    y = _outputs(x)
    if dx is None:
        return y, _ZERO
    return y, (3 * (xp.cos(x) * dx), 3 * ((xp.cos(x) - x * xp.sin(x)) * dx))


# --- (d) integer arguments: y = sin(k * x) * n, k a Python int, n an integer array ------------
def _integer(x: Any, k: int, n: Any) -> Any:
    xp = cr.namespace_of(x, n)
    return xp.sin(k * x) * xp.astype(n, x.dtype)


@cr.traceable
def marker_integer(x: Any, k: int, n: Any) -> Any:
    return _integer(x, k, n)


@cr.register_rrule(marker_integer)
def _marker_integer_rrule(x: Any, k: int, n: Any) -> Any:
    xp = cr.namespace_of(x, n)

    def marker_integer_pullback(g: Any) -> Any:
        g = _dot(g)
        if g is None:
            return _NO, _ZERO, _NO, _NO
        return _NO, 3 * (g * k * xp.cos(k * x) * xp.astype(n, x.dtype)), _NO, _NO

    return _integer(x, k, n), marker_integer_pullback


@cr.register_frule(marker_integer)
def _marker_integer_frule(tangents: Any, x: Any, k: int, n: Any) -> Any:
    xp = cr.namespace_of(x, n)
    dx = _dot(tangents[1])
    y = _integer(x, k, n)
    if dx is None:
        return y, _ZERO
    return y, 3 * (k * xp.cos(k * x) * xp.astype(n, x.dtype) * dx)


# --- the markers as programs of one flat vector -------------------------------------------------
@dataclass(frozen=True)
class Marker:
    """One marker and how a program calls it.

    ``pieces``: the names and sizes of the slices of ``v`` that are its arrays; ``call(fn, parts,
    consts)`` calls ``fn`` (the marker, or its bridge's wrapper) on those slices the marker's way,
    with ``consts`` (its ``constants`` as the engine's arrays, made outside the differentiated
    function), and returns a tuple of outputs.
    """

    kind: str
    fn: Callable[..., Any]
    pieces: tuple[tuple[str, int], ...]
    call: Callable[[Callable[..., Any], list[Any], tuple[Any, ...]], tuple[Any, ...]]
    constants: tuple[np.ndarray, ...] = ()
    n_outputs: int = 1

    @property
    def body(self) -> Callable[..., Any]:
        """The function ``traceable`` wraps: the body itself, which never reaches a rule."""
        body: Callable[..., Any] = getattr(self.fn, "__wrapped__")  # noqa: B009
        return body

    @property
    def n(self) -> int:
        return sum(s for _, s in self.pieces)

    def split(self, v: Any) -> list[Any]:
        out, k = [], 0
        for _, s in self.pieces:
            out.append(v[k : k + s])
            k += s
        return out

    def point(self, shift: float = 0.0) -> np.ndarray:
        """The input ``v`` (away from the zeros of every derivative)."""
        return np.linspace(0.3, 1.3, self.n) + shift

    def tangent(self) -> np.ndarray:
        """The tangent the ``jvp`` cells push forward."""
        return np.linspace(-1.0, 1.0, self.n) + 0.25

    def outputs(self, fn: Callable[..., Any], v: Any, consts: tuple[Any, ...]) -> tuple[Any, ...]:
        return self.call(fn, self.split(v), consts)

    def weights(self) -> list[np.ndarray]:
        """The fixed cotangent of each output (``L = sum_k sum(c_k * y_k)``)."""
        return [np.linspace(0.5, 1.5, 3) + k for k in range(self.n_outputs)]  # 3 elements each


MARKERS: dict[str, Marker] = {
    m.kind: m
    for m in (
        Marker(
            "keyword",
            marker_keyword,
            (("x", 3), ("w", 3)),
            lambda f, p, c: (f(p[0], w=p[1]),),
        ),
        Marker(  # the same function, every array by keyword: no positional argument at all
            "keywords-only",
            marker_keyword,
            (("x", 3), ("w", 3)),
            lambda f, p, c: (f(x=p[0], w=p[1]),),
        ),
        Marker(
            "pytree",
            marker_pytree,
            (("w", 3), ("t[0]", 3), ("t[1]", 3)),
            lambda f, p, c: (f({"w": p[0], "t": (p[1], p[2])}),),
        ),
        Marker(
            "outputs",
            marker_outputs,
            (("x", 3),),
            lambda f, p, c: tuple(f(p[0])),
            n_outputs=2,
        ),
        Marker(
            "integer",
            marker_integer,
            (("x", 3),),
            lambda f, p, c: (f(p[0], 2, c[0]),),
            (np.array([1, -2, 3]),),
        ),
    )
}


@contextlib.contextmanager
def rules_disabled(markers: tuple[Marker, ...] | None = None) -> Iterator[None]:
    """The mutation: the markers' rules unregistered for the duration of the ``with`` (the
    registry restored in ``finally``). Every cell that said ``rule`` must then say ``body`` or
    ``error``."""
    state = registry.snapshot()
    try:
        for fn in {m.fn: None for m in (MARKERS.values() if markers is None else markers)}:
            registry.unregister(fn)  # once per function (two markers share one)
        yield
    finally:
        registry.restore(state)
