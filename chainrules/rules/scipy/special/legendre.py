"""``scipy.special``'s spherical harmonics ``sph_harm_y`` (SciPy's Legendre functions; JAX and
SciPy >= 1.15): complex output of real angles (``"scipy:special.NAME"``, see the package).
"""

from __future__ import annotations

from typing import Any

from ..._util.special import _Ctx, elementwise


def _sph_dtheta(c: _Ctx, n: Any, m: Any, theta: Any, phi: Any) -> Any:
    # dY/dtheta = m cot(theta) Y + sqrt((n - m)(n + m + 1)) exp(-i phi) Y_n^{m+1}
    xp = c.xp
    y = c.out
    up = c.sp.sph_harm_y(n, m + 1, theta, phi, **_sph_kw(c))
    coef = xp.sqrt(xp.astype(xp.asarray((n - m) * (n + m + 1)), theta.dtype))
    rot = xp.exp(-1j * phi)
    return m * xp.cos(theta) / xp.sin(theta) * y + coef * rot * up


def _sph_refuse(bound: dict[str, Any]) -> None:
    if bound.get("diff_n", 0) != 0:
        raise TypeError(
            f"sph_harm_y: the rule supports diff_n=0 only (got {bound['diff_n']!r}); "
            "differentiate the diff_n=0 value instead"
        )


def _sph_kw(c: _Ctx) -> dict[str, Any]:
    n_max = c.kw.get("n_max")
    return {} if n_max is None else {"n_max": n_max}


def _sph_dphi(c: _Ctx, n: Any, m: Any, theta: Any, phi: Any) -> Any:
    return 1j * m * c.out


def _asarray_expect(name: str) -> Any:
    from ....core.examples import Expect

    return Expect(
        "scalar-free",
        f"scipy.special.{name} is a Python function that converts its arguments with "
        "np.asarray (a host copy), so it cannot run on device arrays; JAX's, CuPy's and the rule "
        "are checked by the other columns",
        kind="xfail",
    )


def _sph_expect() -> Any:
    from ....core.examples import Expect

    return (
        Expect(
            "jit",
            "jax.scipy.special.sph_harm_y needs n_max (a host int) under jax.jit, which SciPy's "
            "signature lacks",
            kind="skip",
        ),
        _asarray_expect("sph_harm_y"),  # its primal runs on the host
    )


def _sph_examples(rng: Any) -> list[Any]:
    import numpy as np

    n = np.array([1, 2, 3, 2])
    m = np.array([0, 1, -2, -1])
    return [((n, m, rng.uniform(0.3, 2.8, 4), rng.uniform(-3.0, 3.0, 4)), {})]


def _reg_legendre() -> None:
    e = elementwise
    # spherical harmonics (JAX and SciPy >= 1.15): complex output of real angles
    e(
        "sph_harm_y",
        lambda n, m, theta, phi, *, diff_n=0, n_max=None: None,
        None,
        None,
        _sph_dtheta,
        _sph_dphi,
        examples=_sph_examples,
        refuse=_sph_refuse,
        expect=_sph_expect(),
    )


_reg_legendre()
