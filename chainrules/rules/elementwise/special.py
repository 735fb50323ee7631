"""Rules for NumPy's special functions ``sinc`` and ``i0``.

``i0' = i1``, computed from ``I1(x) = (1/pi) int_0^pi exp(x cos t) cos t dt`` with the
trapezoidal rule on 129 nodes (exponentially accurate for a periodic analytic integrand: the
aliasing error is ``I_256(x) / I_1(x) < 1e-16`` up to ``|x| = 713``, where ``i0`` overflows)
scaled by ``exp(|x|)``, and from its power series for ``|x| < 1``
(``chainrules.rules._util.bessel_i1``). Built from ``exp``, ``cos`` and ``sum``: differentiable
again.
"""

from __future__ import annotations

import math
from typing import Any

from ...core.prelude import *
from .._util import bessel_i1, safe
from .._util.elementwise import R

__all__: list[str] = []  # rules only


def _sinc_d(xp: Any, out: Any, x: Any) -> Any:
    # d/dx sin(pi x)/(pi x) = (cos(pi x) - sinc(x)) / x, continued at x = 0 by its Taylor term
    # -pi^2 x / 3: 0 there, with the derivative sinc''(0) = -pi^2 / 3 (a 0 constant gave 0)
    taylor = (-(math.pi**2) / 3) * x
    return xp.where(x == 0, taylor, (xp.cos(math.pi * x) - out) / safe(xp, x))


scalar_rule("numpy:sinc", _sinc_d, domain=(R,))


# strong_zero: I1 overflows to inf at finite x (|x| > ~713; docs/conventions.md)
scalar_rule(
    "numpy:i0", lambda xp, out, x: bessel_i1(xp, x), domain=((-3.0, 3.0),), strong_zero=True
)
