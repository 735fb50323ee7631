"""Rules for the exponential and logarithmic functions: the standard's ``exp``, ``expm1``,
``log``, ``log1p``, ``log2``, ``log10`` and ``logaddexp``, and NumPy's ``exp2`` and
``logaddexp2``.

``logaddexp``'s partials are ``sigmoid(x1 - x2)`` and ``sigmoid(x2 - x1)``, computed without
overflow and exact at large equal arguments; equal infinities give 1/2 each.
"""

from __future__ import annotations

import math
from typing import Any

from ...core.prelude import *
from .._util.elementwise import C_ANY, C_RIGHT, POS, SZ, TORCH_NO_SCALAR, R
from .._util.shape import device_kw

__all__: list[str] = []  # rules only


def _log1p_dx(xp: Any, out: Any, x: Any) -> Any:
    # 1 / (1 + x), written so that the second operation takes a temporary as its left operand:
    # NumPy then reuses its buffer (one fresh array, not two; t ** -1 is 1 / t)
    return (x + 1) ** -1


scalar_rule("exp", lambda xp, out, x: out, domain=(R,), complex=C_ANY, **SZ)
scalar_rule("expm1", lambda xp, out, x: out + 1, domain=(R,), complex=C_ANY, **SZ)
scalar_rule("log", lambda xp, out, x: 1 / x, domain=(POS,), complex=C_RIGHT, **SZ)
scalar_rule("log1p", _log1p_dx, domain=((-0.6, 2.0),), complex=C_RIGHT, **SZ)
scalar_rule("log2", lambda xp, out, x: 1 / (x * math.log(2)), domain=(POS,), complex=C_RIGHT, **SZ)
scalar_rule(
    "log10",
    lambda xp, out, x: 1 / (x * math.log(10)),
    domain=(POS,),
    complex=C_RIGHT,
    **SZ,
)
scalar_rule("numpy:exp2", lambda xp, out, x: out * math.log(2), domain=(R,), complex=C_ANY, **SZ)


# --- logaddexp ----------------------------------------------------------------------------------
def _sigmoid(xp: Any, t: Any) -> Any:
    """``1 / (1 + exp(-t))`` as ``exp(-logaddexp(0, -t))``: no overflow (``logaddexp`` is the
    library's own, stable), within an ulp of SciPy's ``expit`` in both tails, exactly 1/2 at
    ``t = 0``, and smooth, so its derivatives are right at every order (no branch, no ``abs``;
    ``1 / (1 + exp(-t))`` is 3x faster but its Hessian meets ``exp``'s overflow, and a mask
    against it meets ``0 * inf``). Four passes over the array (a branch per sign took eleven);
    the zero is 0-d (torch's ``logaddexp`` takes no Python number)."""
    zero = xp.zeros((), dtype=t.dtype, **device_kw(t))
    return xp.exp(-xp.logaddexp(zero, -t))


# d/dx1 logaddexp(x1, x2) = sigmoid(x1 - x2): exact at large equal arguments, where exp(x1 - out)
# loses log(2) to rounding (1 instead of 1/2 at 1e20), and finite at infinite ones
def _gap(xp: Any, x1: Any, x2: Any) -> Any:
    """``x1 - x2``, and 0 at equal infinities (``inf - inf``): there each argument's share is
    1/2, the limit along the diagonal and the tie convention of ``maximum``. Finite ties keep
    ``x1 - x2`` itself, so second derivatives there stay right. Masked before the subtraction,
    which would warn at ``inf - inf``; six passes over the array."""
    tie = xp.isinf(x1) & (x1 == x2)
    return xp.where(tie, 0.0, x1) - xp.where(tie, 0.0, x2)


scalar_rule(
    "logaddexp",
    lambda xp, out, x1, x2: _sigmoid(xp, _gap(xp, x1, x2)),
    lambda xp, out, x1, x2: _sigmoid(xp, _gap(xp, x2, x1)),
    domain=(R, R),
    expect=TORCH_NO_SCALAR,
)
scalar_rule(
    "numpy:logaddexp2",
    lambda xp, out, x1, x2: _sigmoid(xp, _gap(xp, x1, x2) * math.log(2)),
    lambda xp, out, x1, x2: _sigmoid(xp, _gap(xp, x2, x1) * math.log(2)),
    domain=(R, R),
)
