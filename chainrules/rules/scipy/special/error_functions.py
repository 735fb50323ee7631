"""``scipy.special``'s error functions, the normal distribution's and the Fresnel integrals:
``erf``, ``erfc``, ``erfcx``, ``erfinv``, ``erfcinv``, ``dawsn``, ``wofz``, ``ndtr``,
``log_ndtr``, ``ndtri``, ``owens_t``, ``fresnel`` (``"scipy:special.NAME"``, see the package).
"""

from __future__ import annotations

import math
from typing import Any

from ..._util.special import _Ctx, elementwise

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


# --- partials -------------------------------------------------------------------------------------
def _gauss(c: _Ctx, x: Any) -> Any:
    return c.xp.exp(-x * x / 2) / _SQRT_2PI


def _owens_dh(c: _Ctx, h: Any, a: Any) -> Any:
    # dT/dh = -exp(-h**2/2) erf(h a / sqrt 2) / (2 sqrt(2 pi))
    xp = c.xp
    # h * h * -0.5, not -h * h / 2: a bool h has no negative
    return -xp.exp(h * h * -0.5) * c.sp.erf(h * a / math.sqrt(2)) / (2 * _SQRT_2PI)


def _owens_da(c: _Ctx, h: Any, a: Any) -> Any:
    # dT/da = exp(-h**2 (1 + a**2) / 2) / (2 pi (1 + a**2))
    xp = c.xp
    q = 1 + a * a
    return xp.exp(h * h * q * -0.5) / (2 * math.pi * q)


def _reg_error_functions() -> None:
    e = elementwise
    # the error functions
    e(
        "erf",
        lambda x, out=None: None,
        lambda c, x: 2 / _SQRT_PI * c.xp.exp(-x * x),
        domain=((-2.0, 2.0),),
    )
    e(
        "erfc",
        lambda x, out=None: None,
        lambda c, x: -2 / _SQRT_PI * c.xp.exp(-x * x),
        domain=((-2.0, 2.0),),
    )
    e(
        "erfcx",
        lambda x, out=None: None,
        lambda c, x: 2 * x * c.out - 2 / _SQRT_PI,
        domain=((-1.5, 3.0),),
    )
    e(
        "erfinv",
        lambda x, out=None: None,
        lambda c, x: _SQRT_PI / 2 * c.xp.exp(c.out * c.out),
        domain=((-0.9, 0.9),),
    )
    e(
        "erfcinv",
        lambda y, out=None: None,
        lambda c, y: -_SQRT_PI / 2 * c.xp.exp(c.out * c.out),
        domain=((0.1, 1.9),),
    )
    e("dawsn", lambda x, out=None: None, lambda c, x: 1 - 2 * x * c.out, domain=((-3.0, 3.0),))
    e(
        "wofz",
        lambda z, out=None: None,
        lambda c, z: -2 * z * c.out + 2j / _SQRT_PI,
        domain=((-2.0, 2.0),),
        complex=(-2.0, 2.0, 0.1, 2.0),
    )
    # the normal distribution
    e("ndtr", lambda x, out=None: None, _gauss, domain=((-3.0, 3.0),))
    e(
        "log_ndtr",
        lambda x, out=None: None,
        lambda c, x: c.xp.exp(-x * x / 2 - c.out) / _SQRT_2PI,
        domain=((-5.0, 3.0),),
    )
    e(
        "ndtri",
        lambda x, out=None: None,
        lambda c, x: _SQRT_2PI * c.xp.exp(c.out * c.out / 2),
        domain=((0.05, 0.95),),
    )
    e(
        "owens_t",
        lambda h, a, out=None: None,
        _owens_dh,
        _owens_da,
        domain=((-2.0, 2.0), (-2.0, 2.0)),
    )
    # Fresnel integrals
    e(
        "fresnel",
        lambda x, out=None: None,
        lambda c, x: (c.xp.sin(math.pi / 2 * x * x), c.xp.cos(math.pi / 2 * x * x)),
        nout=2,
        domain=((-1.5, 1.5),),
    )


_reg_error_functions()
