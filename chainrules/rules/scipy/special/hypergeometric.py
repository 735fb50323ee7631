"""``scipy.special``'s hypergeometric functions ``hyp1f1`` and ``hyp2f1``, differentiated in
``x`` (``"scipy:special.NAME"``, see the package).
"""

from __future__ import annotations

from typing import Any

from ..._util.special import MISSING, _Ctx, _int_first_examples, elementwise

# SciPy's hyp1f1 (Boost's hypergeometric_1F1, SciPy 1.17.1) takes time linear in a large
# positive x: about 1.3 s per 1e12 on these machines (1.5 s at 1e12, 13 s at 1e13, ~20 min at
# 1e15), and never returns at x = +inf, unless a is a non-positive integer (a polynomial, at
# once; so is the derivative's hyp1f1(a + 1, b + 1, x) for a <= -1, and a = 0 has derivative 0).
# Its value there is +-inf or NaN otherwise (e^x overflows from x ~ 710).
HYP1F1_X_MAX = 1e12


def _nonpositive_integer(v: Any) -> Any:
    import numpy as np

    return (v <= 0) & (np.floor(v) == v)


def _hyp1f1_refuse(bound: dict[str, Any]) -> None:
    """SciPy's hyp1f1 on NumPy (host) operands: a ``ValueError`` naming hyp1f1 and ``x``
    where x > HYP1F1_X_MAX (and a is not a non-positive integer), before SciPy is called
    (it would hang). One host read per call, of NumPy memory only: JAX's, PyTorch's and CuPy's
    operands are not read (their hyp1f1 is their own and returns)."""
    import numpy as np

    vals = [bound.get(k) for k in ("a", "b", "x")]
    if not all(type(v) in (int, float, np.ndarray) or isinstance(v, np.generic) for v in vals):
        return
    a, x = np.asarray(vals[0]), np.asarray(vals[2])
    if x.dtype.kind not in "biuf":  # complex x: SciPy's other algorithm (specfun)
        return
    with np.errstate(invalid="ignore"):
        slow = (x > HYP1F1_X_MAX) & ~_nonpositive_integer(a)
    if slow.any():
        bad = np.broadcast_to(x, slow.shape)[slow]
        raise ValueError(
            f"hyp1f1: x = {bad.flat[0]!r} is out of the range the rule calls SciPy on: x must be "
            f"<= {HYP1F1_X_MAX:g} (or NaN, or a a non-positive integer); SciPy's hyp1f1 "
            "takes time linear in x there (about 13 s at x = 1e13) and never returns at "
            "x = inf, where its value would overflow to inf anyway"
        )


def _hyp1f1_dx(c: _Ctx, a: Any, b: Any, x: Any) -> Any:
    """``a / b * hyp1f1(a + 1, b + 1, x)``; 0 at a = 0 (hyp1f1(0, b, x) = 1), where x is
    not passed on: hyp1f1(1, b + 1, x) would not return at a huge x the primal allowed."""
    xp = c.xp
    zero = a == 0
    xs = xp.where(zero, xp.zeros_like(x), x)
    return xp.where(zero, xp.zeros_like(c.out), a / b * c.sp.hyp1f1(a + 1, b + 1, xs))


def _reg_hypergeometric() -> None:
    e = elementwise
    e(
        "hyp1f1",
        lambda a, b, x, out=None: None,
        MISSING,
        MISSING,
        _hyp1f1_dx,
        examples=_int_first_examples(2, (-1.0, 1.0), low=1),
        refuse=_hyp1f1_refuse,
    )
    e(
        "hyp2f1",
        lambda a, b, c, x, out=None: None,
        MISSING,
        MISSING,
        MISSING,
        lambda c, a, b, cc, x: a * b / cc * c.sp.hyp2f1(a + 1, b + 1, cc + 1, x),
        examples=_int_first_examples(3, (-0.8, 0.6), low=1),
    )


_reg_hypergeometric()
