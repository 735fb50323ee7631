"""``scipy.special``'s convenience and information-theory functions: ``expit``,
``log_expit``, ``logit``, ``entr``, ``rel_entr``, ``kl_div``, ``xlogy``, ``xlog1py``, ``boxcox``,
``boxcox1p`` (``"scipy:special.NAME"``, see the package).
"""

from __future__ import annotations

from typing import Any

from ..._util.special import _Ctx, _safe, elementwise


def _boxcox_dl(c: _Ctx, logx: Any, xl: Any, lmbda: Any) -> Any:
    """``d/d lambda`` of ``(x**l - 1) / l``: ``(x**l log x - y) / l``, and ``(log x)**2 / 2`` at
    ``l = 0`` (its limit)."""
    xp = c.xp
    small = lmbda == 0
    ls = xp.where(small, xp.ones_like(lmbda), lmbda)
    return xp.where(small, logx * logx / 2, (xl * logx - c.out) / ls)


def _logit_d(c: _Ctx, x: Any) -> Any:
    xp = c.xp
    d = 1 / (x * (1 - x))
    eps = c.kw.get("eps")  # torch's clamp: the derivative is 0 where x is clamped
    if eps is not None:
        d = xp.where((x >= eps) & (x <= 1 - eps), d, xp.zeros_like(d))
    return d


def _xlogy_dy(c: _Ctx, x: Any, y: Any) -> Any:
    xp = c.xp
    return xp.where(x == 0, xp.zeros_like(c.out), x / _safe(xp, y))


def _xlog1py_dy(c: _Ctx, x: Any, y: Any) -> Any:
    xp = c.xp
    return xp.where(x == 0, xp.zeros_like(c.out), x / _safe(xp, 1 + y))


def _reg_convenience() -> None:
    e = elementwise
    # logistic
    e("expit", lambda x, out=None: None, lambda c, x: c.out * (1 - c.out), domain=((-4.0, 4.0),))
    # d/dx log(expit(x)) = 1 - expit(x) = expit(-x)
    e("log_expit", lambda x, out=None: None, lambda c, x: c.sp.expit(-x), domain=((-4.0, 4.0),))
    e("logit", lambda x, eps=None, out=None: None, _logit_d, domain=((0.05, 0.95),))
    # entropies and x log y
    e("entr", lambda x, out=None: None, lambda c, x: -(c.xp.log(x) + 1), domain=((0.1, 3.0),))
    e(
        "rel_entr",
        lambda x, y, out=None: None,
        lambda c, x, y: c.xp.log(x / y) + 1,
        lambda c, x, y: -(x / y),  # not -x / y: a bool x has no negative
        domain=((0.1, 3.0), (0.1, 3.0)),
    )
    e(
        "kl_div",
        lambda x, y, out=None: None,
        lambda c, x, y: c.xp.log(x / y),
        lambda c, x, y: 1 - x / y,
        domain=((0.1, 3.0), (0.1, 3.0)),
    )
    e(
        "xlogy",
        lambda x, y, out=None: None,
        lambda c, x, y: c.xp.log(y),
        _xlogy_dy,
        domain=((-2.0, 2.0), (0.1, 3.0)),
    )
    e(
        "xlog1py",
        lambda x, y, out=None: None,
        lambda c, x, y: c.xp.log1p(y),
        _xlog1py_dy,
        domain=((-2.0, 2.0), (-0.8, 2.0)),
    )
    # Box-Cox transforms
    e(
        "boxcox",
        lambda x, lmbda, out=None: None,
        lambda c, x, lmbda: x ** (lmbda - 1),
        lambda c, x, lmbda: _boxcox_dl(c, c.xp.log(x), x**lmbda, lmbda),
        domain=((0.3, 3.0), (-1.0, 1.0)),
    )
    e(
        "boxcox1p",
        lambda x, lmbda, out=None: None,
        lambda c, x, lmbda: (1 + x) ** (lmbda - 1),
        lambda c, x, lmbda: _boxcox_dl(c, c.xp.log1p(x), (1 + x) ** lmbda, lmbda),
        domain=((-0.5, 3.0), (-1.0, 1.0)),
    )


_reg_convenience()
