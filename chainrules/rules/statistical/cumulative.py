"""Cumulative sums and products: the standard's ``cumulative_sum`` and ``cumulative_prod`` (and
NumPy's ``cumsum``, ``cumprod``), and NumPy's ``nancumsum`` and ``nancumprod``.

Maths notes
-----------
* ``cumulative_sum``: the pullback is the reversed cumulative sum of ``y_bar``, as two flips
  around a ``cumulative_sum`` (the standard has no reverse scan); on JAX, one
  ``jax.lax.cumsum(reverse=True)`` (``_revcumsum``'s JAX method: no flip of a sharded axis).
  The flip-free ``sum(y_bar) - cumulative_sum(y_bar) + y_bar`` is not used: it is NaN wherever
  ``y_bar`` holds an ``inf`` (``inf - inf``), and it matched the flips bitwise in 0 of 200 random
  rows of 1000 (relative error to 3e-15 in float64, 2e-6 in float32).
* ``cumulative_prod``: exact with zeros. The pullback divides by nothing (so it is finite where
  the product overflows: rows of 1e300 with zeros): with ``E_i = prod_{k<i} x_k`` the exclusive
  product (0 after a zero, also where NumPy's ``inf * 0`` gives NaN), ``x_bar_i = E_i * h_i`` for
  ``h_i = y_bar_i + x_{i+1} h_{i+1}`` (conjugated partials for complex ``x``). The array API has no
  scan: ``h`` is a parallel scan of affine maps (``ceil(log2 n)`` steps of slices and products,
  taking ``0 * inf`` as 0). It is differentiable at exact zeros too (second derivatives). The
  pushforward divides by nothing either: ``y_dot_i = x_i y_dot_{i-1} + E_i x_dot_i``, the same
  scan forward, its ``0 * inf`` masks read from the primal only (a magnitude scan of ``|x|`` and
  ``|E|``), so it stays linear in the tangent (JAX transposes it) and exact at second order. Not
  covered: an overflowed ``E_i`` times a zero tangent entry (NaN; masking it reads the tangent).
  NumPy inputs with no zero and no overflow take the division formulas (the NumPy methods of
  ``_cumprod_back`` and ``_cumprod_push``, which read the host). No host reads otherwise.
* ``nancumsum``, ``nancumprod`` are the plain rules applied to ``x`` with NaNs replaced by 0 (1
  for the product), their cotangents zeroed at the NaNs.

The standard's functions are registered twice: under the standard's name with its keyword-only
signature (``include_initial``), and under ``"numpy:NAME"`` with NumPy's (``axis`` positional;
``axis=None`` flattens). The positional arguments after the array are never differentiated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import along, in_dtype
from .._util.statistical import *

__all__: list[str] = []  # rules only


# fmt: off
_CUMSUM, _CUMPROD = (  # NumPy >= 2.1's cumulative_sum (which has out=) takes the standard rule
    signatures(
        name,
        lambda x, /, *, axis=None, dtype=None, out=None, include_initial=False: None,
        lambda x, /, axis=None, dtype=None, out=None: None,
    )
    for name in ("cumulative_sum", "cumulative_prod")
)
# fmt: on


def _bind_cumulative(
    sig: Signature, numpy: bool, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any, Any, int, dict[str, Any]]:
    """A cumulative call bound: ``(xp, x, work, axis, kw)``, ``work`` the array accumulated (``x``
    flattened for NumPy's ``axis=None``) along ``axis``; ``kw`` holds ``include_initial``."""
    xp, x, axes, kw = bind(sig, numpy, args, kwargs)
    kw["include_initial"] = bool(kw.get("include_initial", False))
    if kw.pop("axis", None) is None:
        if x.ndim > 1 and not numpy:
            raise ValueError(f"{sig.name}: axis is required for arrays of rank {x.ndim}")
        # NumPy's cumsum/cumprod flatten when axis is None
        return xp, x, (xp.reshape(x, (-1,)) if x.ndim != 1 else x), 0, kw
    return xp, x, x, axes[0] if axes else 0, kw  # a 0-d x: axis 0 or -1, nothing reduced


@specialise
def _revcumsum(xp: Any, v: Any, axis: int) -> Any:
    """``v``'s cumulative sum along ``axis`` from the end (``y_i = sum_{k>=i} v_k``): the
    pullback of ``cumulative_sum``."""
    return xp.flip(xp.cumulative_sum(xp.flip(v, axis=axis), axis=axis), axis=axis)


@_revcumsum.method("jax")
def _revcumsum_jax(xp: Any, v: Any, axis: int) -> Any:
    """``jax.lax.cumsum(reverse=True)``: one reversed scan. Under JAX's SPMD partitioner each
    flip of a sharded axis is a collective-permute: 4 collectives against the 2 of JAX's own
    transpose of ``cumsum`` (``tests/interop/test_jax_sharding.py`` counts them)."""
    import jax

    return jax.lax.cumsum(v, axis=axis % v.ndim, reverse=True)


def _mul0(xp: Any, a: Any, b: Any) -> Any:
    """``a * b`` with ``0 * inf = 0``: in exact arithmetic an overflowed ``inf`` times an exact
    zero is 0, and no ``inf * 0`` is formed (no NaN, no warning). Only those places are masked,
    so the product stays differentiable at ordinary zeros (second derivatives)."""
    z = ((a == 0) & xp.isinf(b)) | ((b == 0) & xp.isinf(a))
    return xp.where(z, 0.0, a) * xp.where(z, 0.0, b)


def _shift(xp: Any, v: Any, s: int, axis: int, fill: float, reverse: bool) -> Any:
    """``v`` moved ``s`` places along ``axis`` (towards the end; to the start if ``reverse``),
    the vacated places set to ``fill``: slices and a concat, no flip."""
    pad = xp.full_like(v[along(axis, slice(0, s))], fill)
    if reverse:
        return xp.concat((v[along(axis, slice(s, None))], pad), axis=axis)
    return xp.concat((pad, v[along(axis, slice(None, -s))]), axis=axis)


def _affine_scan(xp: Any, a: Any, b: Any, m: Any, axis: int, reverse: bool, extra: int = 0) -> Any:
    """``h`` with ``h_i = b_i + a_i * h_{i-1}`` along ``axis`` (``h_{i+1}`` if ``reverse``), from
    ``h = 0`` outside: a parallel (Hillis-Steele) scan of the affine maps, ``ceil(log2 n)`` steps
    of slices and products, with no division -- the array API has no scan. ``b`` is the linear
    input (a tangent or a cotangent, with ``extra`` leading chunk axes) and ``m`` the magnitude of
    its coefficient (``|E|`` for ``E t``, 1 for a cotangent). The masks read only the primal
    (``a``, ``m``), so the map stays linear in ``b`` as traced (JAX transposes it): only a primal
    0 times an overflowed coefficient (or an overflowed product of ``a`` times a zero
    coefficient) is taken as 0. Not masked: an overflowed coefficient times a zero entry of ``b``
    (NaN; masking it would read ``b``)."""
    n, s = a.shape[axis], 1
    while s < n:  # n is a shape: known on the host
        ms = _shift(xp, m, s, axis, 0.0, reverse)
        z = ((a == 0) & xp.isinf(ms)) | (xp.isinf(a) & (ms == 0))  # primal only
        b = b + xp.where(z, 0.0, a) * xp.where(z, 0.0, _shift(xp, b, s, axis + extra, 0.0, reverse))
        m = m + _mul0(xp, xp.abs(a), ms)
        a = _mul0(xp, a, _shift(xp, a, s, axis, 1.0, reverse))
        s *= 2
    return b, m


@specialise
def _cumprod_back(xp: Any, x: Any, g: Any, axis: int, conj: bool) -> Any:
    """The pullback of ``cumulative_prod`` along ``axis``, with no division:
    ``x_bar_i = E_i * h_i``, ``E_i = prod_{k<i} x_k`` (the exclusive product, 0 after a zero) and
    ``h_i = g_i + x_{i+1} h_{i+1}`` (a reverse affine scan, linear in ``g``). Exact with zeros,
    and finite where the cumulative product overflows (rows of 1e300 with zeros)."""
    e = _exclusive_prod(xp, x, axis)
    if conj:  # conjugated partials: complex inputs' convention
        x, e = xp.conj(x), xp.conj(e)
    a = _shift(xp, x, 1, axis, 0.0, True)
    h, m = _affine_scan(xp, a, g, xp.ones_like(xp.abs(a)), axis, True)
    # E_i * h_i with 0 * inf = 0, decided on the primal: m_i is the size of h_i's coefficients
    z = ((e == 0) & xp.isinf(m)) | (xp.isinf(e) & (m == 0))
    return xp.where(z, 0.0, e) * xp.where(z, 0.0, h)


@specialise
def _cumprod_push(xp: Any, x: Any, t: Any, axis: int, extra: int) -> Any:
    """The pushforward of ``cumulative_prod`` along ``axis`` (``t``'s ``extra`` leading chunk axes
    before it), with no division: ``y_dot_i = x_i y_dot_{i-1} + E_i t_i``, a forward affine
    scan (``E`` the exclusive product), linear in ``t`` (:func:`_affine_scan`)."""
    e = _exclusive_prod(xp, x, axis)
    return _affine_scan(xp, x, e * t, xp.abs(e), axis, False, extra)[0]


@_cumprod_back.method("numpy")
def _cumprod_back_numpy(xp: Any, x: Any, g: Any, axis: int, conj: bool) -> Any:
    """By division, ``x_bar_i = sum_{j >= i} g_j y_j / x_i`` (``y`` the cumulative product), where
    ``y`` has no zero and no overflow (the host reads it: NumPy arrays live there): two passes
    over ``y`` instead of the scan's ``log2 n``.
    Population: not reached (b20bb44); ``np.cumprod``'s pullback 0.17 of the generic time at n = 10,
    0.06 at n = 1e6."""
    with np.errstate(all="ignore"):
        y = _divisible_cumprod(x, g, axis)
        if y is None:
            return NotImplemented
        if conj:
            y, x = np.conj(y), np.conj(x)
        return np.flip(np.cumsum(np.flip(g * y, axis=axis), axis=axis), axis=axis) / x


@_cumprod_push.method("numpy")
def _cumprod_push_numpy(xp: Any, x: Any, t: Any, axis: int, extra: int) -> Any:
    """By division, ``y_dot = y * cumsum(t / x)`` where ``y`` has no zero and no overflow: one
    pass instead of the scan's ``log2 n``.
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.75, median of 11
    cells (0.70 at best)."""
    with np.errstate(all="ignore"):
        y = _divisible_cumprod(x, t, axis)
        if y is None:
            return NotImplemented
        return y * np.cumsum(t / x, axis=axis - x.ndim)


def _divisible_cumprod(x: Any, other: Any, axis: int) -> Any:
    """The NumPy methods' condition and product: NumPy's cumulative product of ``x`` along
    ``axis`` when ``x`` and ``other`` (the cotangent or the tangent) are NumPy arrays and the
    product has no zero and no overflow (dividing it by ``x`` is then exact enough), else
    ``None``. Call under ``np.errstate``."""
    if type(x) is not np.ndarray or type(other) is not np.ndarray:
        return None
    y = np.cumprod(x, axis=axis)
    return y if np.isfinite(y).all() and y.all() else None


def _exclusive_prod(xp: Any, x: Any, axis: int) -> Any:
    """``E_i = prod_{k<i} x_k`` along ``axis``, exactly 0 after a zero even where the product
    before it overflowed (NumPy's ``inf * 0`` is NaN there). The product itself is taken of
    ``x``, so its derivative is the true one at zeros (second derivatives)."""
    drop_last = along(axis, slice(None, -1))
    e = xp.cumulative_prod(x, axis=axis, include_initial=True)[drop_last]
    nonzero = xp.astype(x != 0, x.dtype)
    after = xp.cumulative_prod(nonzero, axis=axis, include_initial=True)[drop_last] == 0
    return xp.where(after & xp.isnan(e), xp.zeros_like(e), e)


def _cumulative_rules(name: str, sig: Signature, numpy: bool) -> Rules:
    """``cumulative_sum`` and ``cumulative_prod``: the maths notes' formulas on the working array,
    the constant first entry that ``include_initial`` adds dropped from the cotangent."""
    is_prod = name == "cumulative_prod"

    def cumulative_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, x, work, ax, kw = _bind_cumulative(sig, numpy, args, kwargs)
        y = getattr(xp, name)(work, axis=ax, **kw)
        project = ProjectTo(x, xp)
        first = 1 if kw["include_initial"] else 0
        nos = consts(args)
        # the shape, not x, and the input only for the product: the pullback must not keep x
        xshape, prod_in = tuple(x.shape), work if is_prod else None

        @pullback(y, (x, *nos), name=name)
        def cumulative_pullback(y_bar: Any) -> tuple[Any, ...]:
            g = y_bar[along(ax, slice(1, None))] if first else y_bar
            if is_prod:
                w_bar = _cumprod_back(xp, prod_in, g, ax, project.kind == "c")
            else:
                w_bar = _revcumsum(xp, g, ax)
            x_bar = xp.reshape(w_bar, xshape) if len(xshape) != 1 else w_bar
            return (project(x_bar), *nos)

        return y, cumulative_pullback

    def cumulative_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, x, work, ax, kw = _bind_cumulative(sig, numpy, args, kwargs)
        y = getattr(xp, name)(work, axis=ax, **kw)
        ts = tangent(name, tangents, args, ProjectTo(x, xp))
        if ts is None:
            return y, ZERO
        t, extra = ts[0], ts.extra
        if work is not x:  # flatten the primal axes, keep the chunk axes
            t = xp.reshape(t, (*tuple(t.shape[:extra]), -1))
        if not is_prod:
            y_dot = xp.cumulative_sum(t, axis=ax + extra, include_initial=kw["include_initial"])
            return y, in_dtype(xp, y_dot, y.dtype)
        y_dot = _cumprod_push(xp, work, t, ax, extra)
        if kw["include_initial"]:
            zero = xp.zeros_like(y_dot[along(ax + extra, slice(0, 1))])
            y_dot = xp.concat((zero, y_dot), axis=ax + extra)
        return y, in_dtype(xp, y_dot, y.dtype)

    return cumulative_rrule, cumulative_frule


def _cumulative_ex(with_zeros: bool, numpy: bool) -> Any:
    def make(rng: Any) -> list[Any]:
        v = rng.uniform(0.5, 1.5, 6)
        m = rng.uniform(0.5, 1.5, (3, 4))
        if with_zeros:
            v[2] = 0.0
            m[0, 1] = m[0, 3] = m[2, 0] = 0.0
        common = [((v,), {}), ((m,), {"axis": 1}), ((m,), {"axis": 0})]
        if with_zeros:  # and one without: the division formulas of NumPy's methods
            common.append(((rng.uniform(0.5, 1.5, (2, 5)),), {"axis": 1}))
        if numpy:  # NumPy's signature: axis positional, axis=None flattens
            return [*common, ((m, -1), {}), ((m,), {})]
        return [
            *common,
            ((v,), {"include_initial": True}),
            ((m,), {"axis": -1, "include_initial": True}),
        ]

    return make


for _name, _np_name, _zeros, _sigs, _linear in (
    ("cumulative_sum", "cumsum", False, _CUMSUM, True),
    ("cumulative_prod", "cumprod", True, _CUMPROD, False),
):
    register_both(
        _name,
        (_np_name,),
        _cumulative_rules,
        _sigs,
        _cumulative_ex(_zeros, numpy=False),
        _cumulative_ex(_zeros, numpy=True),
        linear=_linear,
    )


# --- NumPy's nancumsum, nancumprod: the plain rule on x with NaNs filled ------------------------
def _nan_cumulative_ex(rng: Any) -> list[Any]:
    m = nan_entries(rng, 3, 4) / 6 + 0.5
    return [((nan_entries(rng, 6) / 4 + 0.5,), {}), ((m,), {"axis": 1}), ((m, 0), {})]


register_filled("nancumsum", "cumsum", 0.0, _nan_cumulative_ex)
register_filled("nancumprod", "cumprod", 1.0, _nan_cumulative_ex)
