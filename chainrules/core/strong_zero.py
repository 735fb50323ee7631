"""The strong zero: a product ``v * d`` that is 0 wherever ``v`` is 0, also where the partial
``d`` is ``inf`` or NaN (docs/conventions.md), and the tangent helpers the formula rules and
``strong_multiply``'s own rules share (``align_tangent``, ``finish_tangent``).

``strong_multiply`` is a function with rules of its own, so that a pullback that calls it is
differentiated again (Hessians) through them, not through its mask.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .config import RULE_CONFIG
from .namespaces import host_readable, is_array, namespace_of, scalar_kind, torch_compiling
from .projection import ProjectTo
from .registry import register_frule, register_rrule, traceable, untraced
from .specialise import specialise
from .tangents import AbstractZero, NoTangent, ZeroTangent
from .toolkit import check_cotangent, tangents_in

__all__ = ["align_tangent", "finish_tangent", "strong_multiply", "strong_zero"]

_NO = NoTangent()
_ZERO = ZeroTangent()


def align_tangent(xp: Any, x_dot: Any, a_ndim: int, out_ndim: int) -> Any:
    """Insert axes after a tangent's chunk axes (checked by ``tangents_in``) so that it
    broadcasts against the output (a rank ``out_ndim``); the formula rules here and SciPy's
    special functions' (``rules/_util/special.py``) both use it."""
    extra = getattr(x_dot, "ndim", 0) - a_ndim
    if extra and a_ndim < out_ndim:
        s = tuple(x_dot.shape)
        x_dot = xp.reshape(x_dot, s[:extra] + (1,) * (out_ndim - a_ndim) + s[extra:])
    return x_dot


def _product(v: Any, d: Any, xp: Any, strong: bool) -> Any:
    """``v * d``; with ``strong`` (``v`` a **strong zero**, docs/conventions.md) a zero of ``v``
    gives 0 also where the partial ``d`` is ``inf`` or NaN (``0 * inf`` would be NaN)."""
    if not strong:
        return v * d
    if untraced(v, d):  # strong_multiply's body, without the wrapper's look at the arguments
        return strong_zero(v * d, v, xp)
    return strong_multiply(v, d)


@traceable
def strong_multiply(v: Any, d: Any) -> Any:
    """``v * d``, and 0 wherever ``v`` is 0 -- also where ``d`` is ``inf`` or NaN: the **strong
    zero** product of a cotangent (or tangent) ``v`` and a partial ``d`` (docs/conventions.md).

    A function with rules of its own: a pullback that calls it is differentiated again
    (Hessians) through them, not through the mask. The mask is constant in ``v``, so
    differentiating ``where(v == 0, 0, v * d)`` would lose ``dv * d`` wherever ``v`` is 0 and its
    derivative is not; the rules push forward ``strong_multiply(dv, d) + strong_multiply(v,
    dd)``."""
    return strong_zero(v * d, v, None)


@specialise
def strong_zero(r: Any, v: Any, xp: Any) -> Any:
    """The product ``r = v * d`` with 0 wherever ``v`` is 0: a mask and a select, with no host
    read on a device. ``xp``: the namespace of ``r``, or ``None`` (found here where needed: the
    library methods need none)."""
    if not hasattr(v, "shape"):  # a Python number (a scalar argument's tangent): no array read
        if v != 0 or not hasattr(r, "shape"):
            return r
        return (xp or namespace_of(r)).zeros_like(r)
    cfg = RULE_CONFIG.get()
    if cfg is not None and cfg.linear_tangents:
        # the engine transposes this product (JAX's linearize): the mask, a select on the linear
        # value v, could not be transposed; the plain product (0 * inf = NaN there)
        return r
    return (xp or namespace_of(r)).where(v == 0, 0.0, r)  # a Python zero: r's dtype


@strong_zero.method("torch")
def _strong_zero_torch(r: Any, v: Any, xp: Any) -> Any:
    """An eager CPU tensor outside autograd's graph (:func:`host_readable`, no grad): one sum
    finds whether the product holds an ``inf`` or a NaN and only then masks it, in place (``r``
    is the fresh product), as NumPy's method does; CUDA, ``torch.func``, ``torch.compile`` and a
    graph being built take ``torch.where`` with no host read and no array-api-compat wrapper.
    Torch bridge, forward + backward of ``exp`` at n = 1e6 (benchmarks/torch_bridge.py, CPU
    time, median of 3): 2.6x native with the generic mask, 1.25x with this."""
    import torch

    if type(r) is not torch.Tensor or not isinstance(v, torch.Tensor):
        return NotImplemented
    # r = v * d (both callers): a v on CUDA, wrapped by torch.func or fake makes r so too, and
    # a v that requires grad makes r require it where a graph is being built
    if host_readable(r) and not r.requires_grad:
        # a small real vector: r . r, one BLAS call (0.4 us less than a sum at n = 10; an
        # overflow to inf only costs the mask), as NumPy's vdot
        dot = r.ndim == 1 and r.shape[0] < 4096 and r.dtype.is_floating_point
        if not math.isfinite(abs(complex(torch.dot(r, r) if dot else r.sum()))):
            r.masked_fill_(v == 0, 0)
        return r
    return torch.where(v == 0, torch.zeros((), dtype=r.dtype, device=r.device), r)


@strong_zero.method("numpy")
def _strong_zero_numpy(r: Any, v: Any, xp: Any) -> Any:
    """Host memory: one reduction finds whether the product holds an ``inf`` or a NaN (cheaper
    than the mask at every size), and only then is it masked, in place -- ``r`` is the fresh
    product. Population benchmark: the strong rules (``exp``, ``sqrt``, ``multiply``, ...) are
    most of every program's operations; the generic mask costs them 1-2 us each at n=10.
    Population (``benchmarks.population.methods``, all 339 programs, b20bb44): 0.94 of the generic
    path's time, median of the 559 cells it runs in (0.81 at best)."""
    if isinstance(r, np.generic):  # a NumPy scalar (arithmetic after an element read)
        return r if math.isfinite(abs(complex(r))) or v != 0 else r.dtype.type(0)
    if type(r) is not np.ndarray:
        return NotImplemented
    # v holding one value (a broadcast scalar: a sum's cotangent, passed on by sums and
    # products) is read in O(1): a nonzero one has no zero to mask. Population at scale (a chain
    # of transcendental functions at 1e6): a reduction pass saved per product, 3% of the gradient
    one = r.size >= 4096 and type(v) is np.ndarray and v.size and not any(v.strides)
    if one and v[(0,) * v.ndim] != 0:
        return r
    if r.ndim == 1 and r.size <= 16:  # summed in Python: 0.2-0.4 us less than vdot there
        check = sum(r.tolist())  # (an overflowing sum of finite entries only costs the mask)
    else:
        check = np.vdot(r, r) if r.size < 4096 else np.add.reduce(r, None)
    if not math.isfinite(abs(check)):  # abs: a complex vdot (or sum) too
        np.copyto(r, 0, where=v == 0)  # v may be broadcast in r (a chunk of tangents)
    return r


def finish_tangent(xp: Any, acc: Any, out: Any) -> Any:
    """Shape a pushed-forward sum as ``(*chunk, *out.shape)`` in ``out``'s dtype.

    ``acc`` is ``None`` when every term was zero (then ``ZeroTangent()``). A term of a broadcast
    argument may lack some of the output's axes; it is broadcast to the full shape here.
    """
    if acc is None:
        return _ZERO
    if not is_array(acc):
        acc = xp.asarray(acc, dtype=out.dtype)
    lead = acc.ndim - out.ndim
    if lead < 0 or tuple(acc.shape[lead:]) != tuple(out.shape):
        acc = xp.broadcast_to(acc, tuple(acc.shape[: max(lead, 0)]) + tuple(out.shape))
    if acc.dtype != out.dtype:
        acc = xp.astype(acc, out.dtype)
    return acc


_SCALAR_PROJECTORS: dict[tuple[type, Any], ProjectTo] = {}


def _projector(a: Any, xp: Any) -> ProjectTo:
    """``ProjectTo(a, xp)``; a Python number's depends only on its type and the namespace, and is
    made once (an exponent, a scale: half the operands of a program's scalar arithmetic)."""
    t = type(a)
    if t is float or t is int:
        proj = _SCALAR_PROJECTORS.get((t, xp))
        if proj is None:
            proj = ProjectTo(a, xp)
            if not torch_compiling():  # torch.compile refuses a global write
                _SCALAR_PROJECTORS[t, xp] = proj
        return proj
    return ProjectTo(a, xp)


# --- the rules of strong_multiply ----------------------------------------------------------------
def _conj(xp: Any, a: Any) -> Any:
    return xp.conj(a) if scalar_kind(a, xp) == "c" else a


@register_rrule(strong_multiply)
def _strong_multiply_rrule(v: Any, d: Any) -> tuple[Any, Callable[[Any], Any]]:
    xp = namespace_of(v, d)
    y = strong_multiply(v, d)
    pv, pd = _projector(v, xp), _projector(d, xp)

    def strong_multiply_pullback(y_bar: Any) -> tuple[Any, Any, Any]:
        # y = v d, 0 where v = 0: v_bar = y_bar conj(d), 0 where y_bar = 0 (d may be inf); and
        # d_bar = conj(v) y_bar, 0 where v = 0 (y does not depend on d there)
        y_bar = check_cotangent("strong_multiply", y_bar, y)
        if isinstance(y_bar, AbstractZero):
            return _NO, _ZERO, _ZERO
        return (
            _NO,
            pv(strong_multiply(y_bar, _conj(xp, d))),
            pd(strong_multiply(_conj(xp, v), y_bar)),
        )

    return y, strong_multiply_pullback


@register_frule(strong_multiply)
def _strong_multiply_frule(tangents: tuple[Any, ...], v: Any, d: Any) -> tuple[Any, Any]:
    xp = namespace_of(v, d)
    y = strong_multiply(v, d)
    dots = tangents_in("strong_multiply", tangents, (v, d))
    if dots is None:
        return y, _ZERO
    y_ndim = getattr(y, "ndim", 0)
    acc: Any = None
    for a, other, a_dot, first in ((v, d, dots.values[0], True), (d, v, dots.values[1], False)):
        if isinstance(a_dot, AbstractZero):
            continue
        a_dot = align_tangent(xp, a_dot, getattr(a, "ndim", 0), y_ndim)
        # d(v d) = dv d + v dd, each a strong product: dv's zeros and v's zeros stay 0
        term = strong_multiply(a_dot, other) if first else strong_multiply(other, a_dot)
        acc = term if acc is None else acc + term
    return y, finish_tangent(xp, acc, y)
