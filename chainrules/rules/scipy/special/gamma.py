"""``scipy.special``'s gamma function and its family: ``gamma``, ``gammaln``, ``loggamma``,
``digamma``, ``polygamma``, ``rgamma``, ``beta``, ``betaln``, ``poch``, ``multigammaln``,
``factorial``, ``comb``, the incomplete ``gammainc``, ``gammaincc`` and ``betainc`` (in ``x``
only), ``zeta``; ``gammasgn`` (piecewise constant) and ``bernoulli`` (of an integer)
(``"scipy:special.NAME"``, see the package).
"""

from __future__ import annotations

from typing import Any

from ....core.prelude import *
from ..._util.special import MISSING, _Ctx, _int_first_examples, _polygamma, elementwise


def _digamma(c: _Ctx, x: Any) -> Any:
    return c.sp.digamma(x)


def _comb_d(c: _Ctx, big_n: Any, k: Any) -> tuple[Any, Any]:
    """``comb = Gamma(N + 1) / (Gamma(k + 1) Gamma(N - k + 1))`` (with ``N + k - 1`` for ``N``
    when ``repetition``): digamma differences where it is nonzero, 0 where SciPy returns 0."""
    xp, sp, out = c.xp, c.sp, c.out
    if c.kw.get("exact"):  # an integer, piecewise constant in N and k
        zero = xp.zeros_like(xp.asarray(out, dtype=xp.float64))
        return zero, zero
    rep = bool(c.kw.get("repetition"))
    nr = big_n + k - 1 if rep else big_n
    a, b, m = sp.digamma(nr + 1), sp.digamma(k + 1), sp.digamma(nr - k + 1)
    zero = xp.zeros_like(out)
    if rep:  # SciPy's 1 at k == 0 <= N: constant in N; in k the formula's where N > 0
        one = (k == 0) & (big_n >= 0)
        dn = xp.where(one, zero, out * (a - m))
        dk = xp.where(one & (big_n == 0), zero, out * (a - b))
        return dn, dk
    valid = (k <= nr) & (nr >= 0) & (k >= 0)
    return xp.where(valid, out * (a - m), zero), xp.where(valid, out * (m - b), zero)


def _gammainc_dx(c: _Ctx, a: Any, x: Any) -> Any:
    # x**(a-1) exp(-x) / Gamma(a)
    xp, sp = c.xp, c.sp
    return xp.exp(sp.xlogy(a - 1, x) - x - sp.gammaln(a))


def _betainc_dx(c: _Ctx, a: Any, b: Any, x: Any) -> Any:
    # x**(a-1) (1-x)**(b-1) / B(a, b)
    xp, sp = c.xp, c.sp
    return xp.exp(sp.xlogy(a - 1, x) + sp.xlog1py(b - 1, -x) - sp.betaln(a, b))


def _multigammaln_da(c: _Ctx, a: Any, d: Any) -> Any:
    # sum_{j < d} digamma(a - j/2); d is SciPy's Python int (host metadata)
    acc = c.sp.digamma(a)
    for j in range(1, int(d)):
        acc = acc + c.sp.digamma(a - j / 2)
    return acc


def _factorial_d(c: _Ctx, n: Any) -> Any:
    xp = c.xp
    return xp.where(n < 0, xp.zeros_like(c.out), c.out * c.sp.digamma(n + 1))


def _polygamma_examples(rng: Any) -> list[Any]:
    # n a Python int: torch.special.polygamma takes no other
    return [((1, rng.uniform(0.3, 2.5, 4)), {}), ((2, rng.uniform(0.3, 2.5, (2, 3))), {})]


def _multigammaln_examples(rng: Any) -> list[Any]:
    return [((rng.uniform(1.6, 4.0, 4), 3), {}), ((rng.uniform(0.6, 3.0, (2, 3)), 1), {})]


def _comb_examples(rng: Any) -> list[Any]:
    return [
        ((rng.uniform(4.0, 7.0, 4), rng.uniform(0.5, 3.0, 4)), {}),
        ((rng.uniform(2.0, 5.0, (2, 3)), rng.uniform(0.5, 2.0, 3)), {"repetition": True}),
    ]


def _reg_gamma() -> None:
    pos = ((0.3, 2.5),)
    e = elementwise
    # gamma family
    e("gamma", lambda x, out=None: None, lambda c, x: c.out * c.sp.digamma(x), domain=pos)
    e("gammaln", lambda x, out=None: None, _digamma, domain=pos)
    e("loggamma", lambda x, out=None: None, _digamma, domain=pos)
    e("digamma", lambda x, out=None: None, lambda c, x: _polygamma(c, 1, x), domain=pos)
    e(
        "polygamma",
        lambda n, x, out=None: None,
        None,
        lambda c, n, x: _polygamma(c, n + 1, x),
        examples=_polygamma_examples,
    )
    e(
        "beta",
        lambda a, b, out=None: None,
        lambda c, a, b: c.out * (c.sp.digamma(a) - c.sp.digamma(a + b)),
        lambda c, a, b: c.out * (c.sp.digamma(b) - c.sp.digamma(a + b)),
        domain=(pos[0], pos[0]),
    )
    e(
        "betaln",
        lambda a, b, out=None: None,
        lambda c, a, b: c.sp.digamma(a) - c.sp.digamma(a + b),
        lambda c, a, b: c.sp.digamma(b) - c.sp.digamma(a + b),
        domain=(pos[0], pos[0]),
    )
    e(
        "poch",
        lambda z, m, out=None: None,
        lambda c, z, m: c.out * (c.sp.digamma(z + m) - c.sp.digamma(z)),
        lambda c, z, m: c.out * c.sp.digamma(z + m),
        domain=(pos[0], (0.2, 1.5)),
    )
    e("multigammaln", lambda a, d: None, _multigammaln_da, None, examples=_multigammaln_examples)
    e("factorial", lambda n, exact=False: None, _factorial_d, domain=((0.2, 3.5),))
    e(
        "comb",
        lambda N, k, *, exact=False, repetition=False: None,
        lambda c, n, k: _comb_d(c, n, k)[0],
        lambda c, n, k: _comb_d(c, n, k)[1],
        examples=_comb_examples,
    )
    # rgamma = 1/Gamma: rgamma' = -rgamma digamma (at the poles of Gamma, NaN: see the docs)
    e(
        "rgamma",
        lambda z, out=None: None,
        lambda c, z: -c.out * c.sp.digamma(z),
        domain=((0.3, 3.0),),
    )
    # incomplete functions: the derivative in x only
    e(
        "gammainc",
        lambda a, x, out=None: None,
        MISSING,
        _gammainc_dx,
        examples=_int_first_examples(1, (0.3, 3.0)),
    )
    e(
        "gammaincc",
        lambda a, x, out=None: None,
        MISSING,
        lambda c, a, x: -_gammainc_dx(c, a, x),
        examples=_int_first_examples(1, (0.3, 3.0)),
    )
    e(
        "betainc",
        lambda a, b, x, out=None: None,
        MISSING,
        MISSING,
        _betainc_dx,
        examples=_int_first_examples(2, (0.1, 0.9)),
    )
    # Riemann's and Hurwitz's zeta
    e(
        "zeta",
        lambda x, q=None, out=None: None,
        MISSING,
        lambda c, x, q: -x * c.sp.zeta(x + 1, q),
        examples=_int_first_examples(1, (0.5, 2.5), low=2),
        also=("_ufuncs._zeta",),  # what scipy.special.zeta(x, q) calls: polygamma's pullback
    )


_reg_gamma()


# piecewise constant and integer functions
zero_derivative("scipy:special.gammasgn", domain=((0.3, 3.0),))
non_differentiable("scipy:special.bernoulli", examples=lambda rng: [((5,), {})])
