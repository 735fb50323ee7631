"""``scipy.linalg``'s matrix functions: ``expm``, ``expm_frechet`` and ``sqrtm``
(``"scipy:linalg.NAME"``). The maths notes are in ``docs/rules/scipy-linalg.md``; the short form:

* ``expm``: ``A_bar = L(A^H, Y_bar)``, the Fréchet derivative at ``A^H`` (``expm_frechet``);
  the pushforward is the block-triangular identity ``expm([[A, E], [0, A]]) = [[e^A, L(A, E)],
  [0, e^A]]``, one batched ``expm`` call for a whole chunk of tangents.
* ``sqrtm`` (``X^2 = A``): ``X dX + dX X = dA`` and ``X^H A_bar + A_bar X^H = X_bar`` --
  the same library's ``solve_sylvester``.
"""

from __future__ import annotations

from typing import Any

from ....core.prelude import *
from ..._util import in_dtype, lazy
from ..._util.linalg import _h, positive_definite
from ..._util.scipy_linalg import (
    NO,
    ZERO,
    _first,
    _once,
    _register,
    _square,
    _square_call,
    _square_dot,
)

# --- expm ----------------------------------------------------------------------------------------


def _block(xp: Any, a: Any, e: Any) -> Any:
    """``[[A, E], [0, A]]`` (``E`` may carry leading chunk axes: ``A`` is broadcast)."""
    a = xp.broadcast_to(a, e.shape) if a.shape != e.shape else a
    top = xp.concat([a, e], axis=-1)
    bottom = xp.concat([xp.zeros_like(a), a], axis=-1)
    return xp.concat([top, bottom], axis=-2)


def _frechet(fn: Any, mod: Any, xp: Any, a: Any, e: Any, kw: Any) -> Any:
    """``L(A, E)``: ``expm_frechet`` for one matrix, the block identity for stacks and chunks."""
    if a.ndim == 2 and e.ndim == 2 and hasattr(mod, "expm_frechet"):
        try:
            return mod.expm_frechet(a, e, compute_expm=False)
        except ValueError:  # SciPy's refuses a NaN / inf; the block identity gives NaN, as expm
            pass
    n = a.shape[-1]
    return fn(_block(xp, a, e), **kw)[..., :n, n:]


def _expm_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, _, y = _square_call("expm", fn, sig, args, kwargs)
    project = ProjectTo(a, xp)

    @pullback(y, args, name="expm")
    def expm_pullback(y_bar: Any) -> Any:
        # the adjoint of E -> L(A, E) is L(A^H, .): expm's Taylor coefficients are real
        return project(_frechet(fn, mod, xp, _h(xp, a), y_bar, {}))

    return y, expm_pullback


def _expm_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, _, y, t = _square_dot("expm", fn, sig, tangents, args, kwargs)
    if t is None:
        return y, ZERO
    n = a.shape[-1]
    return y, in_dtype(xp, fn(_block(xp, a, t[0]), **kwargs)[..., :n, n:], y.dtype)


def _expm_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((3, 3)) * 0.5,), {}),
        ((rng.standard_normal((2, 2, 2)),), {}),
        ((rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2)),), {}),
    ]


_register("expm", _expm_rrule, _expm_frule, _expm_ex, zero_d=((0,), (1, 1)))


# --- expm_frechet --------------------------------------------------------------------------------


def _expm_frechet_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    (a, e), b = _first(sig, args, kwargs, 2)
    both = b.get("compute_expm", True)
    xp = namespace_of(a, e, fname="scipy.linalg.expm_frechet")
    _square("expm_frechet", a)
    y = fn(*args, **kwargs)
    n = a.shape[-1]
    pa, pe = ProjectTo(a, xp), ProjectTo(e, xp)
    m = _block(xp, a, xp.astype(e, a.dtype) if e.dtype != a.dtype else e)

    @pullback(y, args, name="expm_frechet")
    def expm_frechet_pullback(y_bar: Any) -> Any:
        # (e^A, L(A, E)) is the top block row of expm([[A, E], [0, A]])
        ea_bar, l_bar = y_bar if both else (ZERO, y_bar)
        like = l_bar if not isinstance(l_bar, AbstractZero) else ea_bar
        zero = xp.zeros_like(like)
        top = xp.concat(
            [
                zero if isinstance(ea_bar, AbstractZero) else ea_bar,
                zero if isinstance(l_bar, AbstractZero) else l_bar,
            ],
            axis=-1,
        )
        mb = xp.concat([top, xp.zeros_like(top)], axis=-2)
        g = _once(lambda: mod.expm_frechet(_h(xp, m), mb, compute_expm=False))
        return (
            lazy(pa, lambda: pa(g()[..., :n, :n] + g()[..., n:, n:])),
            lazy(pe, lambda: pe(g()[..., :n, n:])),
            *[NO] * (len(args) - 2),
        )

    return y, expm_frechet_pullback


def _expm_frechet_frule(
    fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any
) -> Any:
    (a, e), b = _first(sig, args, kwargs, 2)
    both = b.get("compute_expm", True)
    xp = namespace_of(a, e, fname="scipy.linalg.expm_frechet")
    _square("expm_frechet", a)
    y = fn(*args, **kwargs)
    t = tangents_in("expm_frechet", tangents[:3], (a, e))
    if t is None:
        return y, ZERO
    n = a.shape[-1]
    da, de = t
    like = de if da is ZERO or isinstance(da, AbstractZero) else da
    da = xp.zeros_like(like) if isinstance(da, AbstractZero) else da
    de = xp.zeros_like(like) if isinstance(de, AbstractZero) else de
    m = _block(xp, a, e)
    dm = _block(xp, da, de)
    big = _block(xp, m, dm)
    # in the output's precision: SciPy computes expm_frechet of float32 input in float64, while
    # its expm keeps float32 (a float32 block expm lost ~20 ulp of the float64 tangent)
    out = (y[0] if both else y).dtype
    big = big if big.dtype == out else xp.astype(big, out)
    ld = mod.expm(big)[..., : 2 * n, 2 * n :]  # L(M, dM)
    ea_dot, l_dot = ld[..., :n, :n], ld[..., :n, n:]
    if both:
        return y, Tangent(in_dtype(xp, ea_dot, y[0].dtype), in_dtype(xp, l_dot, y[1].dtype))
    return y, in_dtype(xp, l_dot, y.dtype)


def _expm_frechet_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((2, 2)) * 0.5, rng.standard_normal((2, 2))), {}),
        ((rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((3, 3))), {"compute_expm": False}),
    ]


_register(
    "expm_frechet",
    _expm_frechet_rrule,
    _expm_frechet_frule,
    _expm_frechet_ex,
)


# --- sqrtm ----------------------------------------------------------------------------------------
def _sqrtm_rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
    xp, a, _, y = _square_call("sqrtm", fn, sig, args, kwargs)
    project = ProjectTo(a, xp)

    @pullback(y, args, name="sqrtm")
    def sqrtm_pullback(y_bar: Any) -> Any:
        # X dX + dX X = dA; its adjoint: X^H A_bar + A_bar X^H = X_bar
        xh = _h(xp, y)
        return (project(mod.solve_sylvester(xh, xh, y_bar)), *[NO] * (len(args) - 1))

    return y, sqrtm_pullback


def _sqrtm_frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
    xp, _, _, y, t = _square_dot("sqrtm", fn, sig, tangents, args, kwargs)
    if t is None:
        return y, ZERO
    da = xp.astype(t[0], y.dtype) if t[0].dtype != y.dtype else t[0]
    x = xp.broadcast_to(y, da.shape)
    return y, mod.solve_sylvester(x, x, da)


def _sqrtm_ex(rng: Any) -> list[Any]:
    import numpy as np

    return [
        ((positive_definite(rng, (3, 3)),), {}),
        ((np.eye(2) * 2 + 0.3 * rng.standard_normal((2, 2)),), {}),
    ]


_register(
    "sqrtm",
    _sqrtm_rrule,
    _sqrtm_frule,
    _sqrtm_ex,
)
