"""Markers of the rule families (issue 28 item 1): every engine and transformation runs one
registered rule of each family -- elementwise, reductions, linear algebra, indexing, scatter,
manipulation, FFT, scipy.special -- and a user's rule that has only an rrule or only an frule.

A family marker is a user's ``@chainrules.traceable`` function whose body calls its family's
function of the arrays' own library (``xp.pow``, ``xp.prod``, ``xp.matmul``, ``xp.take``,
``chainrules.scatter_add``, ``xp.concat``, ``xp.fft.irfft``, the library's ``gammaln``) and whose
rrule and frule **delegate to that function's registered rule** (``chainrules.rrule`` /
``chainrules.frule``) and give 3x its derivative. So a cell that says ``rule`` ran the family's
registered rule under that engine and transformation, with the family's arguments (lists of
arrays, integer index arrays, complex outputs), and got it right: 3x the true derivative exactly
means the registered rule's derivative is the truth. The primal is the registered rule's own, so a
second-order cell differentiates the rule's operations, and the library's rules again, never the
marker: a Hessian that used the rule at the inner level is 3x the truth.

The linear families (indexing, scatter, manipulation, FFT) get squared inputs in the program
(the engine's own operators), so that every family has a Hessian to check. The nonlinearity
sits before the marker, never after it: a nonlinear function of a marker's output would make the
outer level of a Hessian differentiate the marker again (9x where both levels use the rule, 3x
where only the inner does), and the cell could not tell the two engines' ways apart from a wrong
value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import chainrules as cr

from ...core.table import scipy_namespace
from .marker_rules import _NO, _ZERO, Marker, _dot


def _scaled(t: Any) -> Any:
    """3x a tangent or cotangent of any structure (a zero stays the zero)."""
    t = cr.unthunk(t)
    if isinstance(t, (cr.AbstractZero, cr.NoTangent)) or t is None:
        return t
    if isinstance(t, cr.Tangent):
        if t.is_sequence:
            return cr.Tangent(*map(_scaled, t), primal_type=t.primal_type)
        return cr.Tangent(primal_type=t.primal_type, **{k: _scaled(v) for k, v in t.items()})
    if isinstance(t, (tuple, list)):
        return type(t)(map(_scaled, t))
    return 3 * t


def _family_marker(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """A traceable marker calling ``function(*args)`` (its family's function of the arrays'
    library), with an rrule and frule that are 3x that function's registered rules."""

    def body(*args: Any, **kwargs: Any) -> Any:
        return function(*args)(*args, **kwargs)

    body.__name__ = body.__qualname__ = f"marker_{name}"
    marker = cr.traceable(body)

    @cr.register_rrule(marker)
    def _rrule(*args: Any, **kwargs: Any) -> Any:
        y, pullback = cr.rrule(function(*args), *args, **kwargs)

        def family_pullback(g: Any) -> Any:
            return (_NO, *map(_scaled, pullback(g)[1:]))

        return y, family_pullback

    @cr.register_frule(marker)
    def _frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        y, dy = cr.frule((_NO, *tangents[1:]), function(*args), *args, **kwargs)
        return y, _scaled(dy)

    return marker


def _ns(*args: Any) -> Any:
    arrays = [a for a in args if not isinstance(a, (list, tuple))]
    arrays += [e for a in args if isinstance(a, (list, tuple)) for e in a]
    return cr.namespace_of(*arrays)


marker_pow = _family_marker("pow", lambda x, w: _ns(x, w).pow)
marker_prod = _family_marker("prod", lambda x: _ns(x).prod)
marker_matmul = _family_marker("matmul", lambda a, b: _ns(a, b).matmul)
marker_take = _family_marker("take", lambda x, i: _ns(x).take)
marker_scatter = _family_marker("scatter_add", lambda d, i, v: cr.scatter_add)
marker_concat = _family_marker("concat", lambda xs: _ns(xs).concat)
marker_irfft = _family_marker("irfft", lambda x: _ns(x).fft.irfft)


def _gammaln(x: Any) -> Any:
    """``gammaln`` of the arrays' library (``jax.scipy.special``, ``torch.special``); SciPy's
    ufunc where the namespace has no SciPy of its own (a tracer's, whose ufuncs dispatch)."""
    special = scipy_namespace(_ns(x), "special")
    if special is None:
        import scipy.special

        special = scipy.special
    return special.gammaln


marker_gammaln = _family_marker("gammaln", _gammaln)


# --- a user's rule of one mode: y = sin(x) * exp(w) ---------------------------------------------
def _one_mode(x: Any, w: Any) -> Any:
    xp = cr.namespace_of(x, w)
    return xp.sin(x) * xp.exp(w)


@cr.traceable
def marker_rrule_only(x: Any, w: Any) -> Any:
    return _one_mode(x, w)


@cr.register_rrule(marker_rrule_only)
def _marker_rrule_only_rrule(x: Any, w: Any) -> Any:
    xp = cr.namespace_of(x, w)

    def marker_rrule_only_pullback(g: Any) -> Any:
        g = _dot(g)
        if g is None:
            return _NO, _ZERO, _ZERO
        return _NO, 3 * (g * xp.cos(x) * xp.exp(w)), 3 * (g * xp.sin(x) * xp.exp(w))

    return _one_mode(x, w), marker_rrule_only_pullback


@cr.traceable
def marker_frule_only(x: Any, w: Any) -> Any:
    return _one_mode(x, w)


@cr.register_frule(marker_frule_only)
def _marker_frule_only_frule(tangents: Any, x: Any, w: Any) -> Any:
    xp = cr.namespace_of(x, w)
    dx, dw = _dot(tangents[1]), _dot(tangents[2])
    terms = [
        None if dx is None else xp.cos(x) * xp.exp(w) * dx,
        None if dw is None else xp.sin(x) * xp.exp(w) * dw,
    ]
    present = [t for t in terms if t is not None]
    if not present:
        return _one_mode(x, w), _ZERO
    return _one_mode(x, w), 3 * sum(present[1:], present[0])


FAMILY_MARKERS: tuple[Marker, ...] = (
    Marker("elementwise", marker_pow, (("x", 3), ("w", 3)), lambda f, p, c: (f(p[0], p[1]),)),
    Marker(  # prod over the last axis of a (3, 2) matrix
        "reduction",
        marker_prod,
        (("x", 6),),
        lambda f, p, c: (f(p[0].reshape((3, 2)), axis=-1),),
    ),
    Marker(  # (3, 2) @ (2,): both operands differentiated
        "linear algebra",
        marker_matmul,
        (("a", 6), ("b", 2)),
        lambda f, p, c: (f(p[0].reshape((3, 2)), p[1]),),
    ),
    Marker(  # take with a repeated index (its pullback accumulates)
        "indexing",
        marker_take,
        (("x", 3),),
        lambda f, p, c: (f(p[0] * p[0], c[0]),),
        (np.array([0, 2, 2]),),
    ),
    Marker(  # scatter_add(dest, index, values): both arrays differentiated
        "scatter",
        marker_scatter,
        (("dest", 3), ("values", 2)),
        lambda f, p, c: (f(p[0] * p[0], c[0], p[1] * p[1]),),
        (np.array([0, 2]),),
    ),
    Marker(  # concat of a list of two arrays
        "manipulation",
        marker_concat,
        (("x", 2), ("w", 1)),
        lambda f, p, c: (f([p[0] * p[0], p[1] * p[1]]),),
    ),
    Marker(  # irfft(x * x, n=3): a real input taken as a half spectrum, 3 real outputs
        "fft", marker_irfft, (("x", 2),), lambda f, p, c: (f(p[0] * p[0], n=3),)
    ),
    Marker("scipy.special", marker_gammaln, (("x", 3),), lambda f, p, c: (f(p[0]),)),
    Marker("rrule only", marker_rrule_only, (("x", 3), ("w", 3)), lambda f, p, c: (f(p[0], p[1]),)),
    Marker("frule only", marker_frule_only, (("x", 3), ("w", 3)), lambda f, p, c: (f(p[0], p[1]),)),
)
