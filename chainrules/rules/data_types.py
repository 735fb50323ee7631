"""Rules for the standard's data-type functions (``data_type_functions``): ``astype``; the
others (``can_cast``, ``finfo``, ``iinfo``, ``isdtype``, ``result_type``) and NumPy's queries of
an array's metadata (``shape``, ``ndim``, ``size``, ``iscomplexobj``, ``isrealobj``) have no
derivative and no rule: they are declared of kind ``"metadata"``, so that engines evaluate them on
the arrays under their tracers (``chainrules.core.registry.KINDS``).

Maths notes
-----------
``astype(x, dtype)`` is the identity on values, up to rounding, so

* floating -> floating (float64 -> float32, float32 -> float64, complex -> complex): the
  pushforward casts the tangent, ``y_dot = astype(x_dot, dtype)``; the pullback casts the
  cotangent back to ``x``'s dtype (a float32 input gets a float32 cotangent);
* real -> complex (``y = x + 0i``): the pullback is the real part of ``y_bar``;
* complex -> real (NumPy and JAX keep the real part; the standard does not permit the cast and
  array-api-strict refuses it): ``y = Re x``, so ``y_dot = Re x_dot`` and, with the cotangent
  convention ``x_bar = dL/dRe + i dL/dIm``, ``x_bar = y_bar + 0i``. The rule computes the
  primal as ``astype(real(x), dtype)``, so NumPy's ``ComplexWarning`` is not raised;
* to an integer or boolean dtype: the output has no tangent space (the cast is piecewise
  constant), so every cotangent is ``NoTangent()`` and the pushforward is ``NoTangent()``;
* from an integer or boolean ``x`` to a floating dtype: ``x`` has no tangent space
  (``NoTangent()``); the output's tangent is ``ZeroTangent()``.

``copy=`` and ``device=`` are passed on; the cotangent goes back to ``x``'s device (``ProjectTo``).
The pullback is ``astype`` again (and ``real``), so it can be differentiated once more.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.prelude import *
from ._util import in_dtype

__all__: list[str] = []  # rules only: nothing to import from here

_ASTYPE = signature("astype", lambda x, dtype, /, *, copy=True, device=None: None)


def _astype(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, str, str, Any]:
    """``(x, xp, y, kind of x, kind of y, device)``: the call bound and its primal, the real part
    taken for complex -> real."""
    try:
        a = _ASTYPE.bind(args, kwargs)
    except TypeError as e:
        raise TypeError(
            f"{e} (astype takes the array and the dtype positionally, then copy= and device= as "
            "keywords)"
        ) from None
    x, dtype, device = a["x"], a["dtype"], a["device"]
    xp = namespace_of(x, fname="astype")
    v = x if hasattr(x, "dtype") else xp.asarray(x)
    kw: dict[str, Any] = {"copy": a["copy"]}
    if device is not None:
        kw["device"] = device
    kx = dtype_kind(v.dtype, xp)
    if kx == "c" and not xp.isdtype(dtype, "complex floating"):
        # the real part (NumPy's and JAX's meaning), without NumPy's ComplexWarning
        y = xp.astype(xp.real(v), dtype, **kw)
    else:
        y = xp.astype(v, dtype, **kw)
    return x, xp, y, kx, dtype_kind(y.dtype, xp), device


@register_rrule(
    "astype",
    kind="cast",
    examples=lambda rng: _examples(rng),
    expect=Expect(
        "array_api_strict",
        "the standard forbids casting complex to real",
        "skip",
        "complex -> real",
    ),
)
def astype_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    x, xp, y, kx, ky, _ = _astype(args, kwargs)
    project = ProjectTo(x, xp)
    diff = kx in "fc" and ky in "fc"

    # the dtype (a class such as np.float64 among them) has no tangent; neither has x when the
    # cast is not differentiable
    @pullback(y, (x if diff else None, None))
    def astype_pullback(y_bar: Any) -> tuple[Any, Any]:
        if not diff:
            return NO, NO
        if kx == "c" and dtype_kind(y_bar.dtype, xp) != "c":
            return xp.astype(y_bar, x.dtype), NO  # y = Re x: x_bar = y_bar + 0i
        return project(y_bar), NO  # a cast back (the real part for a real x)

    return y, astype_pullback


@register_frule("astype", examples=lambda rng: _examples(rng))
def astype_frule(tangents: tuple[Any, ...], *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    x, xp, y, kx, ky, device = _astype(args, kwargs)
    if ky not in "fc":
        return y, NO
    if kx not in "fc":
        return y, ZERO
    ts = tangents_in("astype", tangents[:2], (x,))  # the dtype has no tangent
    if ts is None:
        return y, ZERO
    t = ts[0]
    if kx == "c" and ky == "f":
        t = xp.real(t)
    if device is not None:
        t = xp.asarray(t, device=device)
    return y, in_dtype(xp, t, y.dtype)


def _examples(rng: np.random.Generator) -> list[Any]:
    from ..core.examples import Example

    def r(*shape: int) -> Any:
        return rng.standard_normal(shape)

    def c(*shape: int) -> Any:
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)

    f64, c128 = np.dtype("float64"), np.dtype("complex128")
    # float64 and complex128 targets: a cast that rounds (to float32) cannot be judged by
    # finite differences in float64; the tests check those casts with exact values
    return [
        Example((r(3), f64), note="-> float64"),
        Example((r(), f64), note="0-d"),
        Example((r(0, 2), f64), note="zero-size"),
        Example((r(2, 3), c128), note="real -> complex"),
        Example((c(3), c128), note="complex -> complex", complex=True),
        Example((c(2, 2), f64), note="complex -> real (real part)", complex=True),
        Example((r(4), np.dtype("int64")), note="-> int64 (no tangent)"),
        Example((r(4), np.dtype("bool")), note="-> bool (no tangent)"),
        Example((r(3), f64), {"copy": False}, note="copy=False"),
        Example((np.arange(4), f64), note="int64 -> float64 (no tangent for x)"),
    ]


# --- queries of dtypes and shapes: no rule, no derivative ----------------------------------------
register_kind("can_cast", "finfo", "iinfo", "isdtype", "result_type", kind="metadata")
register_kind(
    "numpy:shape",
    "numpy:ndim",
    "numpy:size",
    "numpy:iscomplexobj",
    "numpy:isrealobj",
    kind="metadata",
)
