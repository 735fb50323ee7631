"""Rules for NumPy's window functions: ``kaiser``, differentiable in ``beta``, and the
non-differentiable ``bartlett``, ``blackman``, ``hamming`` and ``hanning`` (outputs set by an
integer size alone).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import bessel_i1, in_dtype
from .._util.creation import *
from .._util.numpy_like import numpy_like_module, numpy_non_differentiable

__all__: list[str] = []  # rules only


# --- kaiser: the window, differentiable in beta -------------------------------------------------
_KAISER = signature("kaiser", lambda M, beta: None)


def _kaiser_rules(fn: Any = None) -> Rules:
    """``w_n = I0(beta u_n) / I0(beta)``, ``u_n = sqrt(1 - r_n^2)``, ``r_n = 2n/(M-1) - 1``:
    ``dw/dbeta = u I1(beta u) / I0(beta) - w I1(beta) / I0(beta)`` (``I1 = I0'``). ``fn``: the
    library function the rules are bound to (a Python-number ``beta`` names no library)."""

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        a = _KAISER.bind(args, kwargs)
        m, beta = operator.index(a["M"]), a["beta"]
        if fn is not None and not is_array(beta):
            y = fn(*args, **kwargs)
        else:
            xb = namespace_of(beta, fname="kaiser")
            y = numpy_like_module(beta, xb).kaiser(*args, **kwargs)
        xp = namespace_of(y, fname="kaiser")
        dev = {} if device_of(y) is None else {"device": device_of(y)}
        b = xp.asarray(beta, dtype=y.dtype, **dev)
        if m <= 1:  # a single sample: w = 1 whatever beta is
            return xp, y, beta, xp.zeros_like(y)
        r = 2 * xp.arange(m, dtype=y.dtype, **dev) / (m - 1) - 1
        u = xp.sqrt(xp.clip(1 - r * r, 0.0, None))
        i0b = numpy_like_module(y, xp).i0(b)
        d = (u * bessel_i1(xp, b * u) - y * bessel_i1(xp, b)) / i0b
        return xp, y, beta, d

    def kaiser_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, y, beta, d = setup(args, kwargs)
        project = ProjectTo(beta, xp)

        positional = len(args) == 2  # a keyword beta gets no cotangent (the contract)

        @pullback(y, (NO, beta) if positional else (NO,) * len(args))
        def kaiser_pullback(y_bar: Any) -> Any:
            return (NO, project(xp.sum(y_bar * d))) if positional else NO

        return y, kaiser_pullback

    def kaiser_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, y, beta, d = setup(args, kwargs)
        if len(args) < 2:  # a keyword beta has no tangent
            return y, ZERO
        dots = tangents_in("kaiser", (tangents[0], tangents[2]), (beta,))
        if dots is None:
            return y, ZERO
        t = in_dtype(xp, xp.asarray(dots.values[0]), y.dtype)
        return y, xp.reshape(t, (*t.shape, 1)) * d

    return kaiser_rrule, kaiser_frule


def _kaiser_ex(rng: np.random.Generator) -> list[Any]:
    return [((8, 3.5), {}), ((5, 0.7), {}), ((1, 2.0), {}), ((6,), {"beta": 12.0})]


def _kaiser_bind(obj: Any, kind: str) -> Any:
    return _kaiser_rules(obj)[0 if kind == "r" else 1]


_kr, _kf = _kaiser_rules()
register_rrule("numpy:kaiser", examples=_kaiser_ex, bind=_kaiser_bind)(_kr)
register_frule("numpy:kaiser", examples=_kaiser_ex, bind=_kaiser_bind)(_kf)


# --- non-differentiable: the windows of a size alone -------------------------------------------
numpy_non_differentiable(
    "bartlett", "blackman", "hamming", "hanning", examples=fixed_examples(((5,), {}), ((1,), {}))
)
