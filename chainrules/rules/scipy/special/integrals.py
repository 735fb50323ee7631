"""``scipy.special``'s exponential and trigonometric integrals and the dilogarithm: ``exp1``,
``expi``, ``expn``, ``sici``, ``spence`` (``"scipy:special.NAME"``, see the package).
"""

from __future__ import annotations

from typing import Any

from ..._util.special import _Ctx, _safe, elementwise


def _expn_dx(c: _Ctx, n: Any, x: Any) -> Any:
    # E_n' = -E_{n-1} (n >= 1); E_0 = exp(-x) / x, so E_0' = -exp(-x) (x + 1) / x**2
    xp = c.xp
    e0 = -xp.exp(-x) * (x + 1) / (x * x)
    if isinstance(n, int):
        return e0 if n == 0 else -c.sp.expn(n - 1, x)
    nm1 = xp.where(n == 0, xp.ones_like(n), n - 1)
    return xp.where(n == 0, e0, -c.sp.expn(nm1, x))


def _spence_d(c: _Ctx, z: Any) -> Any:
    # spence(z) = int_1^z log(t) / (1 - t) dt: spence' = log(z) / (1 - z), -1 at z = 1
    xp = c.xp
    one = z == 1
    return xp.where(one, -xp.ones_like(c.out), xp.log(z) / _safe(xp, 1 - z))


def _reg_integrals() -> None:
    pos = ((0.3, 2.5),)
    e = elementwise
    # exponential integrals
    e("exp1", lambda x, out=None: None, lambda c, x: -c.xp.exp(-x) / x, domain=pos)
    e("expi", lambda x, out=None: None, lambda c, x: c.xp.exp(x) / x, domain=pos)
    e("expn", lambda n, x, out=None: None, None, _expn_dx, domain=("int", pos[0]))
    e(
        "sici",
        lambda x, out=None: None,
        lambda c, x: (c.xp.sin(x) / x, c.xp.cos(x) / x),
        nout=2,
        domain=pos,
    )
    e("spence", lambda z, out=None: None, _spence_d, domain=((0.2, 2.5),))


_reg_integrals()
