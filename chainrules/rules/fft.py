"""Rules for the standard's ``fft`` extension -- ``fft``, ``ifft``, ``fftn``, ``ifftn``, ``rfft``,
``irfft``, ``rfftn``, ``irfftn``, ``hfft``, ``ihfft``, ``fftshift``, ``ifftshift`` (every ``n`` /
``s`` / ``axis`` / ``axes`` / ``norm``) -- and NumPy's names (``"numpy:fft.NAME"``: positional
``n``/``axis``/``norm``, ``norm=None`` meaning ``"backward"``, ``out=`` rejected; ``jax.numpy.fft``
follows NumPy). ``fftfreq`` and ``rfftfreq`` are non-differentiable (their inputs are sizes).
NumPy's 2-D names ``fft2``, ``ifft2``, ``rfft2``, ``irfft2`` (``"numpy:"`` only) are ``fftn`` & co
with ``axes=(-2, -1)`` by default, and share their rules.

Maths notes
-----------
Every transform is linear over the reals, so its pullback is its adjoint. With ``swap`` exchanging
``"backward"`` and ``"forward"`` (``"ortho"`` stays), the adjoint of a transform with ``norm`` is
the opposite transform with ``swap(norm)`` -- the one with the same scale factor:

==================  ================================================================
primal              pullback of ``y_bar`` (before fitting back to the input's lengths)
==================  ================================================================
``fft(n)``          ``ifft(y_bar, n, norm=swap(norm))``           (``ifft``: ``fft``)
``fftn(s)``         ``ifftn(y_bar, s, norm=swap(norm))``          (``ifftn``: ``fftn``)
``rfft(n)``         ``irfft(y_bar / w, n, norm=swap(norm))``
``rfftn(s)``        ``irfftn(y_bar / w, s, norm=swap(norm))``     (``w`` along the last axis)
``irfft(n)``        ``w * rfft(y_bar, n, norm=swap(norm))``
``irfftn(s)``       ``w * rfftn(y_bar, s, norm=swap(norm))``
``hfft(n)``         ``w * ihfft(y_bar, n, norm=swap(norm))``
``ihfft(n)``        ``hfft(y_bar / w, n, norm=swap(norm))``
``fftshift``        ``ifftshift(y_bar)``                           (and the other way round)
==================  ================================================================

``w`` weighs the ``n // 2 + 1`` non-redundant bins of a Hermitian spectrum of length ``n``: 1 for
the zero-frequency bin and (even ``n``) the Nyquist bin, which appear once in the full spectrum, 2
for the others, which stand for themselves and their mirror images. The half-spectrum transforms
read only the real part of the bins of weight 1 (the imaginary part of the Nyquist and DC bins is
discarded); the rules follow that: their cotangent there is real. The real-input transforms
(``rfft``, ``ihfft``, and ``fft`` of a real array) project their cotangent onto the reals.

``n`` (``s``) larger than the input's length zero-pads it, smaller truncates it; the cotangent is
then fitted back -- truncated where the primal padded, zero-padded where it truncated -- by
:func:`resize`, a function with rules of its own (its adjoint is itself, with the lengths
exchanged). Every pullback is built from transforms, ``resize`` and elementwise products, so it can
be differentiated again. Nothing reads an array value on the host: lengths, axes and the weights'
positions are static.

Conventions: ``axes=None`` with ``s`` given means the last ``len(s)`` axes (NumPy's); an entry
``-1`` in ``s`` means the input's length (``2 * (m - 1)`` for the last axis of ``irfftn``);
repeated axes and ``axes=()`` are rejected (ValueError), except for ``fftn`` / ``ifftn`` of a 0-d
array, which transform no axis: the primal is ``f``'s (``x`` itself in NumPy, ``x`` cast to
complex in the standard's), the pullback the projected cotangent. Forward mode pushes chunks of
tangents (extra leading axes): the transform axes are counted from the end.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.prelude import *
from ._util import axis_ints, in_dtype

__all__ = ["resize"]

_NORMS = ("backward", "ortho", "forward")
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}

# name -> (takes s/axes, kind); kinds: "c2c" complex to complex, "r2c" real input (rfft, ihfft),
# "c2r" Hermitian input (irfft, hfft): the last transform axis has n // 2 + 1 bins on one side
_SPECS: dict[str, tuple[bool, str]] = {
    "fft": (False, "c2c"),
    "ifft": (False, "c2c"),
    "fftn": (True, "c2c"),
    "ifftn": (True, "c2c"),
    "rfft": (False, "r2c"),
    "rfftn": (True, "r2c"),
    "ihfft": (False, "r2c"),
    "irfft": (False, "c2r"),
    "irfftn": (True, "c2r"),
    "hfft": (False, "c2r"),
    # NumPy's 2-D names: fftn & co with axes=(-2, -1) by default
    "fft2": (True, "c2c"),
    "ifft2": (True, "c2c"),
    "rfft2": (True, "r2c"),
    "irfft2": (True, "c2r"),
}
_TWO_D = ("fft2", "ifft2", "rfft2", "irfft2")
# the transform whose swapped-norm version is each one's adjoint (up to the weights w)
_ADJOINT = {
    "fft": "ifft",
    "ifft": "fft",
    "fftn": "ifftn",
    "ifftn": "fftn",
    "rfft": "irfft",
    "rfftn": "irfftn",
    "irfft": "rfft",
    "irfftn": "rfftn",
    "hfft": "ihfft",
    "ihfft": "hfft",
    "fft2": "ifftn",
    "ifft2": "fftn",
    "rfft2": "irfftn",
    "irfft2": "rfftn",
}


# --- resize: truncate or zero-pad along axes, a function with rules ------------------------------
@traceable  # an engine differentiating the FFT pullbacks again records one call, using its rules
def resize(x: Any, axes: Any, lengths: Any) -> Any:
    """``x`` truncated or zero-padded at the end of each axis in ``axes`` to the matching entry of
    ``lengths`` (what the transforms do to their input for ``n``/``s``). No copy when nothing
    changes. Its adjoint is ``resize`` back to ``x``'s lengths, so it has rules of its own and the
    FFT pullbacks built on it can be differentiated again."""
    xp = namespace_of(x, fname="resize")
    axes, lengths = _resize_args(x, axes, lengths)
    for a, n in zip(axes, lengths):
        m = x.shape[a]
        if n < m:
            x = x[(*(slice(None),) * (x.ndim + a), slice(0, n), Ellipsis)]
        elif n > m:
            shape = list(x.shape)
            shape[a] = n - m
            pad = xp.zeros(tuple(shape), dtype=x.dtype, device=device_of(x))
            x = xp.concat((x, pad), axis=a)
    return x


def _resize_args(x: Any, axes: Any, lengths: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Axes as negative ints (so that they also hold for a tangent with leading chunk axes)."""
    axes = axis_ints(axes, "resize", "axes")
    lengths = (lengths,) if isinstance(lengths, int) else tuple(lengths)
    if len(axes) != len(lengths):
        raise ValueError(f"resize: {len(axes)} axes but {len(lengths)} lengths")
    out = []
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"resize: axis {a} is out of bounds for an array of rank {x.ndim}")
        out.append(a - x.ndim if a >= 0 else a)
    for n in lengths:
        if operator.index(n) < 0:
            raise ValueError(f"resize: lengths must be non-negative, got {lengths!r}")
    return tuple(out), tuple(operator.index(n) for n in lengths)


# the rules bind their call by name, so a misplaced argument is an error that names resize
_RESIZE = signature("resize", lambda x, axes, lengths: None)


@register_rrule(resize, examples=lambda rng: _resize_ex(rng), generic=True)
def resize_rrule(*args: Any, **kwargs: Any) -> Any:
    bound = _RESIZE.bind(args, kwargs)
    x, axes, lengths = bound["x"], bound["axes"], bound["lengths"]
    y = resize(x, axes, lengths)
    ax, _ = _resize_args(x, axes, lengths)
    back = tuple(x.shape[a] for a in ax)
    project = ProjectTo(x)
    rest = (NO,) * (len(args) - 1)  # axes and lengths, where given by position

    @pullback(y, (x, axes, lengths))
    def resize_pullback(y_bar: Any) -> tuple[Any, ...]:
        return project(resize(y_bar, ax, back)), *rest

    return y, resize_pullback


@register_frule(resize, examples=lambda rng: _resize_ex(rng), generic=True)
def resize_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
    bound = _RESIZE.bind(args, kwargs)
    x, axes, lengths = bound["x"], bound["axes"], bound["lengths"]
    y = resize(x, axes, lengths)
    ts = tangents_in("resize", tangents[:2], (x,))  # axes and lengths have no tangents
    if ts is None:
        return y, ZERO
    ax, ns = _resize_args(x, axes, lengths)
    return y, resize(ts[0], ax, ns)


# --- binding a transform's call ------------------------------------------------------------------
# the standard's signatures (keyword-only after x) and NumPy's (positional n/axis/norm, out=); a
# norm of None means "backward"
_SIGNATURES: dict[tuple[str, bool], Signature] = {}
for _name, (_nd, _) in _SPECS.items():
    _fname = f"fft.{_name}"
    if _nd:
        _SIGNATURES[_name, False] = signature(
            _fname, lambda x, /, *, s=None, axes=None, norm=None, out=None: None
        )
        _SIGNATURES[_name, True] = signature(
            _fname, lambda x, /, s=None, axes=None, norm=None, out=None: None
        )
    else:
        _SIGNATURES[_name, False] = signature(
            _fname, lambda x, /, *, n=None, axis=-1, norm=None, out=None: None
        )
        _SIGNATURES[_name, True] = signature(
            _fname, lambda x, /, n=None, axis=-1, norm=None, out=None: None
        )
for _name in _TWO_D:  # NumPy only
    _SIGNATURES[_name, True] = signature(
        f"fft.{_name}", lambda x, /, s=None, axes=(-2, -1), norm=None, out=None: None
    )
for _name in ("fftshift", "ifftshift"):
    _SIGNATURES[_name, False] = signature(f"fft.{_name}", lambda x, /, *, axes=None: None)
    _SIGNATURES[_name, True] = signature(f"fft.{_name}", lambda x, /, axes=None: None)


def _arguments(
    name: str, numpy: bool, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The call of ``fft.NAME`` bound by name (a TypeError naming the function otherwise)."""
    try:
        return _SIGNATURES[name, numpy].bind(args, kwargs)
    except TypeError as e:
        if numpy or len(args) < 2:
            raise
        raise TypeError(f"{e} (the standard's parameters after x are keyword-only)") from None


def _transform_args(
    name: str, a: dict[str, Any]
) -> tuple[Any, tuple[int, ...], tuple[int, ...], str]:
    """A bound transform call normalised: ``(xp, axes, s, norm)`` with the axes negative and
    ``s`` the transform's logical lengths along them."""
    n_d, kind = _SPECS[name]
    x, fname = a["x"], f"fft.{name}"
    xp = namespace_of(x, fname=fname)
    norm = "backward" if a["norm"] is None else a["norm"]
    if norm not in _NORMS:
        raise ValueError(f"{fname}: norm must be one of {_NORMS} or None, got {a['norm']!r}")
    if name in _NO_AXES and x.ndim == 0 and a["axes"] in (None, ()) and a["s"] in (None, ()):
        return xp, (), (), norm  # nothing to transform: f gives x (NumPy) or x as complex
    if n_d:
        axes, s = _nd_axes(fname, x.ndim, a["axes"], a["s"])
    else:
        axis = a["axis"]
        axes, s = _nd_axes(fname, x.ndim, (-1 if axis is None else axis,), (a["n"],))
    last = len(axes) - 1
    lengths = tuple(
        _length(fname, n_d, n, x.shape[ax], kind == "c2r" and i == last)
        for i, (n, ax) in enumerate(zip(s, axes))
    )
    return xp, axes, lengths, norm


# fftn / ifftn of a 0-d array transform no axis: f returns x (NumPy) or x cast to complex (the
# standard's), a linear map with no scaling under any norm
_NO_AXES = ("fftn", "ifftn")


def _nd_axes(name: str, nd: int, axes: Any, s: Any) -> tuple[tuple[int, ...], tuple[Any, ...]]:
    if s is not None:
        s = tuple(s)
    if axes is None:  # all axes, or NumPy's last len(s) axes
        axes = tuple(range(-(nd if s is None else len(s)), 0))
    else:
        axes = axis_ints(axes, name, "axes")
    out = []
    for a in axes:
        if not -nd <= a < nd:
            raise ValueError(f"{name}: axis {a} is out of bounds for an array of rank {nd}")
        out.append(a - nd if a >= 0 else a)
    if not out:
        raise ValueError(f"{name}: the rule needs at least one axis to transform")
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axes {axes!r} are not supported by the rule")
    if s is None:
        s = (None,) * len(out)
    elif len(s) != len(out):
        raise ValueError(f"{name}: s {s!r} and axes {axes!r} have different lengths")
    return tuple(out), s


def _length(name: str, n_d: bool, n: Any, m: int, half: bool) -> int:
    """The transform's logical length on one axis: ``n``, or the default for None / -1."""
    if n is None or (n_d and not isinstance(n, bool) and isinstance(n, int) and n == -1):
        return 2 * (m - 1) if half else m
    try:
        if isinstance(n, bool) or operator.index(n) < 1:
            raise TypeError
    except TypeError:
        raise ValueError(f"{name}: invalid number of data points {n!r}") from None
    return operator.index(n)


def _transform(xp: Any, name: str, v: Any, s: tuple[int, ...], axes: Any, norm: str) -> Any:
    """``xp.fft.NAME`` over ``axes`` with lengths ``s`` (a 1-D name takes ``n`` and ``axis``)."""
    if name in _TWO_D:  # fft2 is fftn over the given axes
        name = name[:-1] + "n"
    f = getattr(xp.fft, name)
    if name.endswith("n"):
        return f(v, s=s, axes=axes, norm=norm)
    return f(v, n=s[0], axis=axes[0], norm=norm)


def _weights(xp: Any, v: Any, n: int, axis: int, inverse: bool) -> Any:
    """The weights ``w`` of the ``n // 2 + 1`` bins of a Hermitian spectrum of length ``n``
    (``1 / w`` when ``inverse``), shaped to broadcast along ``axis`` (negative) of ``v``: 1 at
    the zero-frequency and Nyquist bins, 2 (or 1/2) elsewhere. Built on the device from
    ``arange``: no host data, and a constant for the AD engines."""
    k = xp.arange(n // 2 + 1, device=device_of(v))
    dt = v.dtype
    real = xp.float32 if dt == xp.complex64 else xp.float64 if dt == xp.complex128 else dt
    once = xp.astype((k == 0) | (k * 2 == n), real)
    w = 0.5 + 0.5 * once if inverse else 2.0 - once
    return xp.reshape(w, (n // 2 + 1,) + (1,) * (-axis - 1))


def _as_complex(xp: Any, v: Any, like: Any) -> Any:
    """A cotangent of a complex output as a complex array (a real one is accepted)."""
    if dtype_kind(v.dtype, xp) == "c":
        return v
    return xp.astype(v, like.dtype)


def _as_real(xp: Any, v: Any) -> Any:
    """A cotangent of a real output as a real array (the real part of a complex one)."""
    return xp.real(v) if dtype_kind(v.dtype, xp) == "c" else v


# --- the transforms ------------------------------------------------------------------------------
def _fft_rules(name: str, numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The rules of ``fft.NAME`` (``numpy``: NumPy's signature): the pullback is the adjoint
    transform with the swapped norm (the maths notes' table)."""
    kind, adj = _SPECS[name][1], _ADJOINT[name]
    fname = f"fft.{name}"

    def fft_rrule(*args: Any, **kwargs: Any) -> Any:
        a = _arguments(name, numpy, args, kwargs)
        x = a["x"]
        xp, axes, s, norm = _transform_args(name, a)
        project = ProjectTo(x, xp)
        if not axes:  # a 0-d fftn / ifftn: the identity (or a cast to complex)
            y = getattr(xp.fft, name)(x, norm=norm)
            rest0 = (NO,) * (len(args) - 1)

            @pullback(y, (x if project.differentiable else None, *args[1:]), name=fname)
            def cast_pullback(y_bar: Any) -> tuple[Any, ...]:
                return (project(y_bar) if project.differentiable else NO, *rest0)

            cast_pullback.__qualname__ = f"{name}_pullback"
            return y, cast_pullback
        y = _transform(xp, name, x, s, axes, norm)
        m = tuple(x.shape[ax] for ax in axes)
        back = _SWAP[norm]
        # the lengths of the adjoint's result: s, or on the last axis of a Hermitian input the
        # bins the primal read
        got = (*s[:-1], s[-1] // 2 + 1) if kind == "c2r" else s
        rest = (NO,) * (len(args) - 1)  # NumPy's positional n / axis / norm

        @pullback(y, (x if project.differentiable else None, *args[1:]), name=fname)
        def fft_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (NO, *rest)
            if kind == "c2c":
                g = _transform(xp, adj, _as_complex(xp, y_bar, y), s, axes, back)
            elif kind == "r2c":
                y_bar = _as_complex(xp, y_bar, y)
                y_bar = y_bar * _weights(xp, y_bar, s[-1], axes[-1], inverse=True)
                g = _transform(xp, adj, y_bar, s, axes, back)
            else:
                g = _transform(xp, adj, _as_real(xp, y_bar), s, axes, back)
                g = g * _weights(xp, g, s[-1], axes[-1], inverse=False)
            g = resize(g, axes, m) if got != m else g
            return (project(g), *rest)

        fft_pullback.__qualname__ = f"{name}_pullback"
        return y, fft_pullback

    def fft_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        a = _arguments(name, numpy, args, kwargs)
        x = a["x"]
        xp, axes, s, norm = _transform_args(name, a)
        y = (
            getattr(xp.fft, name)(x, norm=norm)
            if not axes
            else _transform(xp, name, x, s, axes, norm)
        )
        ts = tangents_in(fname, tangents[:2], (x,))  # n / axis / norm have no tangents
        if ts is None or not ProjectTo(x, xp).differentiable:
            return y, ZERO
        if not axes:  # a 0-d fftn / ifftn: the tangent (chunk axes included) cast like x
            return y, in_dtype(xp, ts[0], y.dtype)
        # the axes are negative: they hold for a tangent with leading chunk axes too
        return y, in_dtype(xp, _transform(xp, name, ts[0], s, axes, norm), y.dtype)

    return fft_rrule, fft_frule


# --- fftshift, ifftshift -------------------------------------------------------------------------
def _shift_rules(name: str, numpy: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The rules of ``fft.fftshift`` / ``fft.ifftshift``: a permutation, undone by the other."""
    other = "ifftshift" if name == "fftshift" else "fftshift"
    fname = f"fft.{name}"

    def shift(xp: Any, which: str, v: Any, axes: tuple[int, ...]) -> Any:
        return getattr(xp.fft, which)(v, axes=axes) if axes else v

    def shift_setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        a = _arguments(name, numpy, args, kwargs)
        x, axes = a["x"], a["axes"]
        xp = namespace_of(x, fname=fname)
        nd = x.ndim
        if axes is None:
            axes = tuple(range(-nd, 0))
        else:
            axes = axis_ints(axes, fname, "axes")
            for ax in axes:
                if not -nd <= ax < nd:
                    raise ValueError(f"{fname}: invalid axis {ax!r} for an array of rank {nd}")
            axes = tuple(ax - nd if ax >= 0 else ax for ax in axes)
        return x, xp, axes, shift(xp, name, x, axes)

    def shift_rrule(*args: Any, **kwargs: Any) -> Any:
        x, xp, axes, y = shift_setup(args, kwargs)
        project = ProjectTo(x, xp)
        rest = (NO,) * (len(args) - 1)

        @pullback(y, (x if project.differentiable else None, *args[1:]), name=fname)
        def shift_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not project.differentiable:
                return (NO, *rest)
            return (project(shift(xp, other, y_bar, axes)), *rest)

        shift_pullback.__qualname__ = f"{name}_pullback"
        return y, shift_pullback

    def shift_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        x, xp, axes, y = shift_setup(args, kwargs)
        ts = tangents_in(fname, tangents[:2], (x,))
        if ts is None or not ProjectTo(x, xp).differentiable:
            return y, ZERO
        return y, in_dtype(xp, shift(xp, name, ts[0], axes), y.dtype)

    return shift_rrule, shift_frule


# --- registration --------------------------------------------------------------------------------
def _examples(name: str, numpy: bool) -> Callable[[Any], list[Any]]:
    return lambda rng: _EXAMPLES[name](rng, numpy)


# array-api-strict's complex transforms take complex input only; example #4 is real
_COMPLEX_ONLY = {
    n: Expect("array_api_strict", f"array-api-strict's {n} takes complex input", "skip", "#4")
    for n in ("fft", "ifft", "fftn", "ifftn")
}

# torch's transforms (oneMKL on CPU) refuse a zero-size batch: "DFTI ERROR: Inconsistent
# configuration parameters"
_TORCH_EMPTY = Expect("torch", "torch's CPU FFT refuses a zero-size batch", "skip", "zero-size")

for _name in (*_SPECS, "fftshift", "ifftshift"):
    _targets = ((False, f"fft.{_name}"), (True, f"numpy:fft.{_name}"))
    for _numpy, _target in _targets[1:] if _name in _TWO_D else _targets:
        _rules = _shift_rules if _name.endswith("shift") else _fft_rules
        _rrule, _frule = _rules(_name, _numpy)
        _rrule.__name__ = _rrule.__qualname__ = f"{_name}_rrule"
        _frule.__name__ = _frule.__qualname__ = f"{_name}_frule"
        _expect: tuple[Expect, ...] = ()
        if not _numpy and not _name.endswith("shift"):
            _expect = (_TORCH_EMPTY, *((_COMPLEX_ONLY[_name],) if _name in _COMPLEX_ONLY else ()))
        register_rrule(_target, examples=_examples(_name, _numpy), expect=_expect)(_rrule)
        register_frule(_target, examples=_examples(_name, _numpy), expect=_expect)(_frule)


def _freq_ex(rng: Any) -> list[Any]:
    return [((5,), {}), ((6,), {"d": 0.5}), ((1,), {})]


# NumPy's positional d is not in the examples: non_differentiable computes a call without array
# arguments with array-api-compat's NumPy namespace, whose fftfreq takes d by keyword only
non_differentiable(
    "fft.fftfreq", "fft.rfftfreq", "numpy:fft.fftfreq", "numpy:fft.rfftfreq", examples=_freq_ex
)


# --- examples ------------------------------------------------------------------------------------
def _c(rng: Any, *shape: int) -> Any:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _r(rng: Any, *shape: int) -> Any:
    return rng.standard_normal(shape)


def _empty(x: Any, **kwargs: Any) -> Example:
    """A zero-size batch (its note names it for the declared limits)."""
    return Example((x,), kwargs, note="zero-size batch", complex=bool(np.iscomplexobj(x)))


def _c2c_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_c(rng, 8),), {}),
        ((_c(rng, 3, 5),), {"n": 8, "axis": 0, "norm": "ortho"}),  # zero padding
        ((_c(rng, 3, 5),), {"n": 3, "norm": "forward"}),  # truncation
        ((_c(rng, 2, 3, 4),), {"axis": 1, "n": 5}),
        ((_r(rng, 6),), {"norm": "ortho"}),  # a real input: the cotangent is projected
        _empty(_c(rng, 0, 4)),
    ]
    if numpy:
        out += [((_c(rng, 5), 7, 0, "ortho"), {}), ((_c(rng, 3, 4), None, 0, None), {})]
    return out


def _c2c_nd_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_c(rng, 3, 4),), {}),
        ((_c(rng, 2, 3, 4),), {"s": (5, 2), "axes": (0, 2), "norm": "ortho"}),
        ((_c(rng, 2, 3, 4),), {"s": (2, 6), "axes": (-1, 0), "norm": "forward"}),
        ((_c(rng, 3, 4),), {"axes": (1,)}),
        ((_r(rng, 3, 2),), {"s": (4, 2), "axes": (0, 1)}),
        _empty(_c(rng, 0, 3), axes=(1,)),
    ]
    if numpy:
        out += [((_c(rng, 2, 3, 4), (4,), (1,), "ortho"), {}), ((_c(rng, 3, 4), None, (0,)), {})]
    return out


def _r2c_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_r(rng, 7),), {}),  # odd n: no Nyquist bin
        ((_r(rng, 8),), {}),  # even n: a Nyquist bin
        ((_r(rng, 3, 6),), {"n": 9, "axis": 0, "norm": "ortho"}),  # padding, odd n
        ((_r(rng, 3, 6),), {"n": 4, "norm": "forward"}),  # truncation, even n
        ((_r(rng, 2, 5),), {"n": 8, "axis": -1}),  # padding, even n
        ((_r(rng, 2, 3, 5),), {"axis": 1, "norm": "ortho", "n": 1}),
        _empty(_r(rng, 0, 4)),
    ]
    if numpy:
        out += [((_r(rng, 5), 6, 0, "forward"), {}), ((_r(rng, 4, 3), None, 0, None), {})]
    return out


def _c2r_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_c(rng, 5),), {}),  # n = 8: even
        ((_c(rng, 5),), {"n": 9}),  # odd n, exactly the bins it reads
        ((_c(rng, 3, 4),), {"n": 4, "axis": 0}),  # even n, exact
        ((_c(rng, 6, 3),), {"n": 3, "axis": 0, "norm": "ortho"}),  # more bins than read
        ((_c(rng, 2, 3),), {"n": 10, "norm": "forward"}),  # fewer bins: padded
        ((_c(rng, 2, 3),), {"n": 7, "norm": "ortho"}),  # fewer bins, odd n
        ((_c(rng, 3),), {"n": 1}),
        _empty(_c(rng, 0, 4)),
    ]
    if numpy:
        out += [((_c(rng, 4), 6, 0, "ortho"), {}), ((_c(rng, 3, 4), None, 0, None), {})]
    return out


def _rfftn_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_r(rng, 3, 4),), {}),
        ((_r(rng, 3, 5),), {}),
        ((_r(rng, 2, 3, 5),), {"s": (4, 6), "axes": (0, 2), "norm": "ortho"}),
        ((_r(rng, 2, 3, 5),), {"s": (3, 3), "axes": (2, 1), "norm": "forward"}),
        ((_r(rng, 4, 5),), {"s": (7,), "axes": (0,)}),
        _empty(_r(rng, 0, 4), axes=(1,)),
    ]
    if numpy:
        out += [
            ((_r(rng, 2, 3, 4), (5, 2), (0, 2), "ortho"), {}),
            ((_r(rng, 3, 4), None, (0,)), {}),
        ]
    return out


def _irfftn_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_c(rng, 3, 3),), {}),
        ((_c(rng, 2, 3, 4),), {"s": (3, 7), "axes": (0, 2), "norm": "ortho"}),
        ((_c(rng, 3, 4),), {"s": (5, 4), "axes": (1, 0), "norm": "forward"}),
        ((_c(rng, 4, 5),), {"s": (6,), "axes": (0,)}),
        ((_c(rng, 2, 6),), {"s": (3, 5), "axes": (0, 1)}),  # fewer bins read than given
        _empty(_c(rng, 0, 4), axes=(1,)),
    ]
    if numpy:
        out += [
            ((_c(rng, 2, 3, 4), (3, 4), (0, 2), "ortho"), {}),
            ((_c(rng, 3, 4), None, (0,)), {}),
        ]
    return out


def _shift_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_r(rng, 5),), {}),
        ((_r(rng, 4, 5),), {}),
        ((_r(rng, 3, 5),), {"axes": 0}),
        ((_r(rng, 2, 3, 5),), {"axes": (0, -1)}),
        ((_c(rng, 3, 4),), {"axes": (1,)}),
        ((_r(rng, 0, 3),), {}),
    ]
    if numpy:
        out += [((_r(rng, 3, 5), 1), {}), ((_r(rng, 3, 5), (0, 1)), {})]
    return out


def _resize_ex(rng: Any) -> list[Any]:
    return [
        ((_r(rng, 5), -1, 3), {}),
        ((_r(rng, 3, 4), (0, 1), (5, 2)), {}),
        ((_c(rng, 2, 3), (1,), (6,)), {}),
        ((_r(rng, 2, 3), 0, 2), {}),
    ]


def _fft2_ex(rng: Any, numpy: bool) -> list[Any]:
    return [
        ((_c(rng, 3, 4),), {}),
        ((_c(rng, 2, 3, 4),), {"s": (4, 3), "norm": "ortho"}),  # padding and truncation
        ((_c(rng, 2, 3, 2), None, (0, 2), "forward"), {}),
        ((_r(rng, 3, 2),), {"axes": (1, 0)}),
    ]


def _rfft2_ex(rng: Any, numpy: bool) -> list[Any]:
    return [
        ((_r(rng, 3, 4),), {}),
        ((_r(rng, 2, 3, 5),), {"s": (4, 6), "norm": "ortho"}),
        ((_r(rng, 3, 2, 3), None, (0, 2), "forward"), {}),
    ]


def _irfft2_ex(rng: Any, numpy: bool) -> list[Any]:
    return [
        ((_c(rng, 3, 3),), {}),
        ((_c(rng, 2, 3, 4),), {"s": (3, 7), "norm": "ortho"}),
        ((_c(rng, 3, 2, 3), (2, 5), (0, 2), "forward"), {}),
    ]


_EXAMPLES: dict[str, Callable[[Any, bool], list[Any]]] = {
    "fft2": _fft2_ex,
    "ifft2": _fft2_ex,
    "rfft2": _rfft2_ex,
    "irfft2": _irfft2_ex,
    "fft": _c2c_ex,
    "ifft": _c2c_ex,
    "fftn": _c2c_nd_ex,
    "ifftn": _c2c_nd_ex,
    "rfft": _r2c_ex,
    "ihfft": _r2c_ex,
    "irfft": _c2r_ex,
    "hfft": _c2r_ex,
    "rfftn": _rfftn_ex,
    "irfftn": _irfftn_ex,
    "fftshift": _shift_ex,
    "ifftshift": _shift_ex,
}
