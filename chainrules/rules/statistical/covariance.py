"""Covariance and correlation: NumPy's ``cov`` and ``corrcoef`` (torch's ``cov``, of its own
signature, is in ``torch_numpy``; both use :class:`~chainrules.rules._util.statistical.Cov`).

Maths notes
-----------
``C = Xc W Xc^H / f`` with ``Xc = X - avg`` (``avg = X w / sum(w)``), ``W = diag(fweights *
aweights)`` and ``f`` NumPy's normaliser. Since ``Xc w = 0``, the centring drops out of the
pullback: ``X_bar = (C_bar + C_bar^H) Xc W / f``. The weights are constants (keyword arguments).
``corrcoef``'s ``R = C_ij / sqrt(C_ii C_jj)`` has a diagonal of 1 whatever ``C`` is: its
cotangent there is dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import adjoint, conj, in_dtype, is_complex
from .._util.numpy_like import numpy_like_module
from .._util.statistical import Cov

__all__: list[str] = []  # rules only


def _cov_template(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: Any = None,
    fweights: Any = None,
    aweights: Any = None,
    *,
    dtype: Any = None,
) -> None: ...


def _corrcoef_template(
    x: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: Any = None,
    ddof: Any = None,
    *,
    dtype: Any = None,
) -> None: ...


_COV = signature("cov", _cov_template)


def _real(xp: Any, x: Any) -> Any:
    """The real part of a complex array; a real one as it is."""
    return xp.real(x) if is_complex(xp, x) else x


_CORRCOEF = signature("corrcoef", _corrcoef_template, ("bias", "ddof"))


def _cov_rules(name: str) -> Any:
    sig = _COV if name == "cov" else _CORRCOEF
    corr = name == "corrcoef"

    def parts(args: Any, kwargs: Any) -> tuple[Any, Any, Any]:
        a = sig.bind(args, kwargs)
        c = Cov(name, a)
        y = getattr(numpy_like_module(c.Xc, c.xp), name)(*args, **kwargs)
        return c, y, a

    def scales(c: Cov) -> Any:
        xp = c.xp
        d = xp.linalg.diagonal(c.C) if hasattr(xp, "linalg") else None
        s = 1 / xp.sqrt(_real(xp, d))  # NumPy's: a Hermitian C's diagonal is real
        return s, c.C * s[:, None] * s[None, :]

    def cov_rrule(*args: Any, **kwargs: Any) -> Any:
        c, y, _ = parts(args, kwargs)
        xp = c.xp
        seen = tuple(a if i < 2 else NO for i, a in enumerate(args))

        @pullback(y, seen, name=name)
        def cov_pullback(y_bar: Any) -> tuple[Any, ...]:
            p = c.C.shape[0]
            Cb = xp.reshape(y_bar, (p, p))
            if corr:  # R's diagonal is 1 whatever C is: its cotangent is dropped
                s, R = scales(c)
                eye = xp.eye(p, dtype=Cb.dtype)
                Cb = Cb * (1 - eye)
                # s = 1 / sqrt(Re diag C) is real: d s_i / s_i = -(s_i^2 / 2) d Re C_ii
                RbS = conj(xp, Cb + adjoint(xp, Cb))
                dd = -(s * s / 2) * _real(xp, xp.sum(RbS * R, axis=1))
                Cb = Cb * s[:, None] * s[None, :] + eye * dd
            # C = Xc W Xc^H / f: Xc_bar = (C_bar + C_bar^H) Xc W / f, the centring drops out
            X_bar = ((Cb + adjoint(xp, Cb)) @ c.Xcw) / c.fact
            m_bar, y_bar2 = c.back(X_bar)
            out = [m_bar] + [NO] * (len(args) - 1)
            if len(args) > 1 and args[1] is not None:
                out[1] = y_bar2
            return tuple(out) if len(out) > 1 else out[0]

        return y, cov_pullback

    def cov_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        c, y, _ = parts(args, kwargs)
        xp = c.xp
        ts = tangents_in(name, tangents, args)
        if ts is None:
            return y, ZERO
        tm = ts[0] if ProjectTo(c.m, xp).differentiable else ZERO
        ty = ts[1] if len(args) > 1 and args[1] is not None else ZERO
        if ty is not ZERO and not ProjectTo(args[1], xp).differentiable:
            ty = ZERO
        if isinstance(tm, AbstractZero) and isinstance(ty, AbstractZero):
            return y, ZERO
        lead = ts.lead()
        dC = c.C_dot(c.X_dot(tm, ty, ts.extra, lead))
        if corr:
            s, R = scales(c)
            dd = _real(xp, xp.linalg.diagonal(dC)) * s * s  # d(diag C) / diag C
            dC = dC * s[:, None] * s[None, :] - R * (dd[..., :, None] + dd[..., None, :]) / 2
            dC = dC * (1 - xp.eye(R.shape[0], dtype=dC.dtype))  # the diagonal stays 1
        return y, in_dtype(xp, xp.reshape(dC, (*lead, *tuple(y.shape))), y.dtype)

    return cov_rrule, cov_frule


def _cov_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 6))
    return [
        ((m,), {}),
        ((m.T,), {"rowvar": False}),
        ((rng.standard_normal(5), rng.standard_normal(5)), {}),
        ((m,), {"bias": True}),
        Example((m,), {"ddof": 2, "aweights": rng.uniform(0.5, 1.5, 6)}, note="weights"),
        Example((m,), {"fweights": np.array([1, 2, 1, 3, 1, 2])}, note="weights"),
        ((rng.standard_normal(6),), {}),  # one variable: a 0-d result
    ]


def _corrcoef_ex(rng: Any) -> list[Any]:
    m = rng.standard_normal((3, 6))
    return [
        ((m,), {}),
        ((m.T,), {"rowvar": False}),
        ((rng.standard_normal(5), rng.standard_normal(5)), {}),
        ((rng.standard_normal((2, 5)), rng.standard_normal(5)), {}),
    ]


_COV_EXPECT = Expect(
    "scalar-free",
    "the checker moves positional arrays to the device, not keywords: np.cov itself refuses the "
    "host weights beside device data",
    example="weights",
)

_CORR_EXPECT = Expect(
    "numpy",
    "the float32 finite-difference reference of an entry whose derivative is ~0 is float32 "
    "rounding of np.corrcoef itself (-2.7e-8, above the 1e-8 absolute tolerance)",
    example="#0",
    dtype="float32",
    phase="test_frule",
)

for _name, _ex in (("cov", _cov_ex), ("corrcoef", _corrcoef_ex)):
    _r, _f = _cov_rules(_name)
    _expect = _COV_EXPECT if _name == "cov" else _CORR_EXPECT
    register_rrule(f"numpy:{_name}", examples=_ex, expect=_expect)(_r)
    register_frule(f"numpy:{_name}", examples=_ex, expect=_expect)(_f)
