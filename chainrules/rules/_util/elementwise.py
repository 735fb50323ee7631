"""Helpers shared by the elementwise rule modules (``chainrules.rules.elementwise.*``): the
example domains and declared library limits, the standard's ``sign`` of a real array, the one
signature of ``abs``, ``sign``, ``conj``, ``real`` and ``imag``, and two small tangent helpers
of NumPy's functions beyond the standard."""

from __future__ import annotations

from typing import Any

from ...core.prelude import *

# Example domains used by testers (python -m chainrules check); complex rectangles are
# (re_low, re_high, im_low, im_high), chosen away from branch cuts and poles.
R = (-2.0, 2.0)
POS = (0.2, 2.5)
UNIT = (-0.85, 0.85)
C_ANY = (-1.2, 1.2, -1.2, 1.2)
C_RIGHT = (0.3, 2.0, -1.2, 1.2)  # right half-plane: log, sqrt, reciprocal
C_UNIT = (-0.6, 0.6, -0.6, 0.6)  # asin, acos, atanh, atan, asinh

# strong_zero=True (docs/conventions.md): a partial that is inf or NaN at finite inputs (sqrt
# at 0, exp past its overflow) or that carries an operand an upstream masked-out branch made
# non-finite (multiply, divide, pow): a zero cotangent gives 0 there, not 0 * inf = NaN
SZ = {"strong_zero": True}

# torch's own functions of these names (the registry covers torch.atan2 itself) refuse a Python
# scalar operand, which the standard allows: the library's limit, declared once
TORCH_NO_SCALAR = Expect(
    "torch", "torch's own function takes no Python-scalar operand", "skip", "scalar"
)
TORCH_NO_SCALAR_FIRST = Expect(
    "torch", "torch's own function takes no Python-scalar first operand", "skip", "scalar x"
)


@specialise
def real_sign(xp: Any, x: Any) -> Any:
    """The standard's ``sign`` of a real array, the library's own values."""
    return xp.sign(x)


@real_sign.method("torch")
def _real_sign_torch(xp: Any, x: Any) -> Any:
    """``torch.sign`` with NaN kept by a select: array-api-compat's ``sign`` writes NaN through a
    boolean mask, which ``torch.compile``'s fake tensors and ``torch.func.vmap`` refuse (the
    torch bridge's compiled gradients of ``sign`` and ``hypot`` raised: campaign seeds 4024,
    4741). The same values, signed zeros included."""
    import torch

    if not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point:
        return NotImplemented
    return torch.where(torch.isnan(x), x, torch.sign(x))


# --- abs, sign, conj, real, imag: the non-holomorphic unary rules -----------------------------
# one signature for the five: keywords other than out= are accepted and ignored, as before; the
# binding runs only when keywords are given (these rules are on the elementwise hot path)
UNARY = {
    name: signature(name, lambda x, /, *, out=None, **ignored: None)
    for name in ("abs", "sign", "conj", "real", "imag")
}


def unary(name: str, x: Any, kwargs: dict[str, Any]) -> tuple[Any, ProjectTo, bool]:
    """``x``'s namespace, its projector and whether it is complex (``out=`` refused)."""
    if kwargs:
        UNARY[name].bind((x,), kwargs)
    xp = namespace_of(x, fname=name)
    proj = ProjectTo(x, xp)
    return xp, proj, proj.kind == "c"


# --- NumPy's functions beyond the standard ----------------------------------------------------
def lift(xp: Any, t: Any, extra: int, nd: int) -> Any:
    """A tangent with ``extra`` chunk axes, given axes after them so that it broadcasts against
    an output of rank ``nd``."""
    k = t.ndim - extra
    if extra and k < nd:
        s = tuple(t.shape)
        t = xp.reshape(t, s[:extra] + (1,) * (nd - k) + s[extra:])
    return t


def zeros_after(args: tuple[Any, ...], start: int) -> tuple[Any, ...]:
    """Zero cotangents for ``args[start:]`` (constants of the rule)."""
    return tuple(zero_tangent(a) for a in args[start:])


def identity_pullback(name: str, y: Any, args: tuple[Any, ...], x: Any, xp: Any) -> Any:
    """The pullback of a function of ``x = args[0]`` whose derivative is the identity (the other
    arguments constants): ``x_bar = y_bar``, projected onto ``x``."""
    project = ProjectTo(x, xp)

    @pullback(y, args, name=name)
    def identity_pullback(g: Any) -> Any:
        return (project(g), *zeros_after(args, 1))

    return identity_pullback
