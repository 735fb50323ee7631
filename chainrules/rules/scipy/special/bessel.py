"""``scipy.special``'s Bessel functions: ``i0``, ``i0e``, ``i1``, ``i1e``, ``j0``, ``j1``,
``y0``, ``y1``, and of any order ``jv``, ``yn``, ``iv``, ``ive`` (``"scipy:special.NAME"``, see
the package).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._util.elementwise import real_sign
from ..._util.special import MISSING, SplitPartial, _Ctx, _safe, elementwise


def _i1_d(c: _Ctx, x: Any) -> Any:
    # I1' = I0 - I1 / x, 1/2 at 0
    xp = c.xp
    return xp.where(x == 0, xp.full_like(c.out, 0.5), c.sp.i0(x) - c.out / _safe(xp, x))


def _i1e_d(c: _Ctx, x: Any) -> Any:
    # i1e = exp(-|x|) I1: i1e' = i0e - i1e (sign(x) + 1/x), 1/2 at 0
    xp = c.xp
    xs = _safe(xp, x)
    return xp.where(
        x == 0, xp.full_like(c.out, 0.5), c.sp.i0e(x) - c.out * (real_sign(xp, x) + 1 / xs)
    )


# --- j0, j1, y0, y1 and of any order: the rest of autograd's table --------------------------------
# SciPy's and CuPy's only: jax.scipy.special and torch.special have none of these names (torch's
# bessel_j0/bessel_y0 are other names). The derivatives in x come from the same library's siblings
# by the standard recurrences; a real order v has no closed-form derivative (MISSING), an integer
# order n (yn) no tangent space.
def _j1_d(c: _Ctx, x: Any) -> Any:
    # J1' = J0 - J1 / x, 1/2 at 0 (its limit)
    xp = c.xp
    return xp.where(x == 0, xp.full_like(c.out, 0.5), c.sp.j0(x) - c.out / _safe(xp, x))


def _iv_dx(c: _Ctx, v: Any, x: Any) -> Any:
    # I_v' = (I_{v-1} + I_{v+1}) / 2
    return (c.sp.iv(v - 1, x) + c.sp.iv(v + 1, x)) / 2


def _ive_dx(c: _Ctx, v: Any, x: Any) -> Any:
    # ive = exp(-|Re x|) I_v: d ive = (ive_{v-1} + ive_{v+1}) / 2 dx - sign(Re x) ive d(Re x),
    # not holomorphic for complex x (one derivative, ive' on real x)
    xp = c.xp
    re = xp.real(x) if xp.isdtype(x.dtype, "complex floating") else x
    return SplitPartial((c.sp.ive(v - 1, x) + c.sp.ive(v + 1, x)) / 2, -real_sign(xp, re) * c.out)


def _jv_dx(c: _Ctx, v: Any, x: Any) -> Any:
    # J_v' = (J_{v-1} - J_{v+1}) / 2
    return (c.sp.jv(v - 1, x) - c.sp.jv(v + 1, x)) / 2


def _yn_dx(c: _Ctx, n: Any, x: Any) -> Any:
    # Y_n' = (Y_{n-1} - Y_{n+1}) / 2 (SciPy's yn takes negative n: Y_{-n} = (-1)^n Y_n)
    return (c.sp.yn(n - 1, x) - c.sp.yn(n + 1, x)) / 2


def _order_examples(xrange: tuple[float, float]) -> Callable[[Any], list[Any]]:
    """An integer order array (its cotangent is not asked for: an integer has no tangent space,
    and a real order's derivative has no closed form) broadcast against float x."""

    def examples(rng: Any) -> list[Any]:
        import numpy as np

        return [
            ((np.array([0, 1, 2, 3]), rng.uniform(*xrange, 4)), {}),
            ((np.array([1, 2, 4]), rng.uniform(*xrange, (2, 3))), {}),
        ]

    return examples


def _reg_bessel() -> None:
    e = elementwise
    # Bessel functions of order 0 and 1
    e("i0", lambda x, out=None: None, lambda c, x: c.sp.i1(x), domain=((-3.0, 3.0),))
    e(
        "i0e",
        lambda x, out=None: None,
        lambda c, x: c.sp.i1e(x) - real_sign(c.xp, x) * c.out,
        domain=((-3.0, 3.0),),
    )
    e("i1", lambda x, out=None: None, _i1_d, domain=((-3.0, 3.0),))
    e("i1e", lambda x, out=None: None, _i1e_d, domain=((-3.0, 3.0),))
    e("j0", lambda x, out=None: None, lambda c, x: -c.sp.j1(x), domain=((-4.0, 4.0),))
    e("j1", lambda x, out=None: None, _j1_d, domain=((-4.0, 4.0),))
    e("y0", lambda x, out=None: None, lambda c, x: -c.sp.y1(x), domain=((0.3, 4.0),))
    e(
        "y1",
        lambda x, out=None: None,
        lambda c, x: c.sp.y0(x) - c.out / x,  # Y1' = Y0 - Y1 / x (Y1 has a pole at 0)
        domain=((0.3, 4.0),),
    )
    # of any order
    e("jv", lambda v, z, out=None: None, MISSING, _jv_dx, examples=_order_examples((-4.0, 4.0)))
    e("yn", lambda n, x, out=None: None, None, _yn_dx, examples=_order_examples((0.3, 4.0)))
    e("iv", lambda v, z, out=None: None, MISSING, _iv_dx, examples=_order_examples((-3.0, 3.0)))
    # ive has a kink at x = 0 (exp(-|x|)): examples on one side, sign(0) = 0 there
    e("ive", lambda v, z, out=None: None, MISSING, _ive_dx, examples=_order_examples((0.2, 3.0)))


_reg_bessel()
