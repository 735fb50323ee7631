"""Rules for the standard's ``fft`` extension -- ``fft``, ``ifft``, ``fftn``, ``ifftn``, ``rfft``,
``irfft``, ``rfftn``, ``irfftn``, ``hfft``, ``ihfft``, ``fftshift``, ``ifftshift`` (every ``n`` /
``s`` / ``axis`` / ``axes`` / ``norm``) -- and NumPy's names (``"numpy:fft.NAME"``: positional
``n``/``axis``/``norm``, ``norm=None`` meaning ``"backward"``, ``out=`` rejected; ``jax.numpy.fft``
follows NumPy). ``fftfreq`` and ``rfftfreq`` are non-differentiable (their inputs are sizes).

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
``-1`` in ``s`` means the input's length (``2 * (m - 1)`` for the last axis of
``irfftn``); repeated axes and ``axes=()`` are rejected (ValueError). Forward mode pushes chunks of
tangents (extra leading axes): the transform axes are counted from the end.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from ..core.namespaces import device_of, dtype_kind, namespace_of
from ..core.projection import ProjectTo
from ..core.registry import register_frule, register_rrule
from ..core.scalar_rule import non_differentiable
from ..core.tangents import AbstractZero, NoTangent, ZeroTangent, unthunk
from ._util import cotangent, in_dtype, numpy_kwargs, tangent_extra

__all__ = ["resize"]

_NO = NoTangent()
_ZERO = ZeroTangent()
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
}
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
}


# --- resize: truncate or zero-pad along axes, a function with rules ------------------------------
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
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    lengths = (lengths,) if isinstance(lengths, int) else tuple(lengths)
    if len(axes) != len(lengths):
        raise ValueError(f"resize: {len(axes)} axes but {len(lengths)} lengths")
    out = []
    for a in axes:
        a = operator.index(a)
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"resize: axis {a} is out of bounds for an array of rank {x.ndim}")
        out.append(a - x.ndim if a >= 0 else a)
    for n in lengths:
        if operator.index(n) < 0:
            raise ValueError(f"resize: lengths must be non-negative, got {lengths!r}")
    return tuple(out), tuple(operator.index(n) for n in lengths)


@register_rrule(resize, examples=lambda rng: _resize_ex(rng), generic=True)
def _resize_rrule(x: Any, axes: Any, lengths: Any) -> Any:
    y = resize(x, axes, lengths)
    ax, _ = _resize_args(x, axes, lengths)
    back = tuple(x.shape[a] for a in ax)
    project = ProjectTo(x)

    def resize_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero):
            return _NO, _ZERO, _NO, _NO
        y_bar = cotangent("resize", y_bar, y)
        return _NO, project(resize(y_bar, ax, back)), _NO, _NO

    return y, resize_pullback


@register_frule(resize, examples=lambda rng: _resize_ex(rng), generic=True)
def _resize_frule(tangents: Any, x: Any, axes: Any, lengths: Any) -> Any:
    y = resize(x, axes, lengths)
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero):
        return y, _ZERO
    tangent_extra("resize", t, x)
    ax, ns = _resize_args(x, axes, lengths)
    return y, resize(t, ax, ns)


# --- the call, normalised ------------------------------------------------------------------------
class _Call:
    """A transform call: the array, its (negative) axes, output lengths ``s``, input lengths
    ``m`` and ``norm``; ``nargs`` positional arguments (NumPy's n/axis/norm get NoTangent)."""

    __slots__ = ("axes", "kind", "m", "n_d", "name", "nargs", "norm", "s", "x", "xp")

    def __init__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], numpy: bool):
        self.name = name
        self.n_d, self.kind = _SPECS[name]
        if not args:
            raise TypeError(f"fft.{name} needs an array argument")
        x, *pos = args
        names = ("s", "axes", "norm", "out") if self.n_d else ("n", "axis", "norm", "out")
        order = names if numpy else ()
        if len(pos) > len(order):
            raise TypeError(
                f"fft.{name} takes {1 + len(order)} positional argument(s) in its rule, got "
                f"{len(args)}"
                + ("" if numpy else " (the standard's parameters after x are keyword-only)")
            )
        params = dict(zip(order, pos))
        for k, v in kwargs.items():
            if k in params:
                raise TypeError(f"fft.{name} got multiple values for argument {k!r}")
            params[k] = v
        numpy_kwargs(f"fft.{name}", params, ())
        params.pop("out", None)
        unknown = set(params) - set(names)
        if unknown:
            raise TypeError(f"fft.{name} got unexpected keyword arguments {sorted(unknown)}")
        self.xp = namespace_of(x, fname=f"fft.{name}")
        self.x = x
        self.nargs = len(args)
        norm = params.get("norm")
        self.norm = "backward" if norm is None else norm
        if self.norm not in _NORMS:
            raise ValueError(f"fft.{name}: norm must be one of {_NORMS} or None, got {norm!r}")
        if self.n_d:
            axes, s = self._nd_axes(params.get("axes"), params.get("s"))
        else:
            axis = params.get("axis", -1)
            axes, s = self._nd_axes((-1 if axis is None else axis,), (params.get("n"),))
        self.axes = axes
        self.m = tuple(x.shape[a] for a in axes)
        last = len(axes) - 1
        self.s = tuple(
            self._length(n, m, self.kind == "c2r" and i == last)
            for i, (n, m) in enumerate(zip(s, self.m))
        )

    def _nd_axes(self, axes: Any, s: Any) -> tuple[tuple[int, ...], tuple[Any, ...]]:
        nd, name = self.x.ndim, f"fft.{self.name}"
        if s is not None:
            s = tuple(s)
        if axes is None:  # all axes, or NumPy's last len(s) axes
            axes = tuple(range(-(nd if s is None else len(s)), 0))
        else:
            axes = (axes,) if isinstance(axes, int) else tuple(axes)
        out = []
        for a in axes:
            if not isinstance(a, int) or isinstance(a, bool):
                raise TypeError(f"{name}: axes must be ints, got {axes!r}")
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

    def _length(self, n: Any, m: int, half: bool) -> int:
        """The transform's logical length on one axis: ``n``, or the default for None / -1."""
        if n is None or (self.n_d and not isinstance(n, bool) and isinstance(n, int) and n == -1):
            return 2 * (m - 1) if half else m
        try:
            if isinstance(n, bool) or operator.index(n) < 1:
                raise TypeError
        except TypeError:
            raise ValueError(f"fft.{self.name}: invalid number of data points {n!r}") from None
        return operator.index(n)

    def primal(self) -> Any:
        return _transform(self.xp, self.name, self.x, self.s, self.axes, self.norm)

    def no_tangents(self) -> tuple[Any, ...]:
        return (_NO,) * (self.nargs - 1)


def _transform(xp: Any, name: str, v: Any, s: tuple[int, ...], axes: Any, norm: str) -> Any:
    """``xp.fft.NAME`` over ``axes`` with lengths ``s`` (a 1-D name takes ``n`` and ``axis``)."""
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


def _fft_rrule(c: _Call) -> Any:
    xp, x, name, s, axes = c.xp, c.x, c.name, c.s, c.axes
    y = c.primal()
    project = ProjectTo(x, xp)
    adj, norm = _ADJOINT[name], _SWAP[c.norm]
    # the lengths of the adjoint's result: s, or on the last axis of a Hermitian input the bins
    # the primal read
    got = (*s[:-1], s[-1] // 2 + 1) if c.kind == "c2r" else s

    def fft_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero) or not project.differentiable:
            return (_NO, _ZERO if project.differentiable else _NO, *c.no_tangents())
        y_bar = cotangent(f"fft.{name}", y_bar, y)
        if c.kind == "c2c":
            g = _transform(xp, adj, _as_complex(xp, y_bar, y), s, axes, norm)
        elif c.kind == "r2c":
            y_bar = _as_complex(xp, y_bar, y)
            y_bar = y_bar * _weights(xp, y_bar, s[-1], axes[-1], inverse=True)
            g = _transform(xp, adj, y_bar, s, axes, norm)
        else:
            g = _transform(xp, adj, _as_real(xp, y_bar), s, axes, norm)
            g = g * _weights(xp, g, s[-1], axes[-1], inverse=False)
        g = resize(g, axes, c.m) if got != c.m else g
        return (_NO, project(g), *c.no_tangents())

    fft_pullback.__qualname__ = f"{name}_pullback"
    return y, fft_pullback


def _fft_frule(tangents: Any, c: _Call) -> Any:
    xp, x = c.xp, c.x
    y = c.primal()
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero) or not ProjectTo(x, xp).differentiable:
        return y, _ZERO
    tangent_extra(f"fft.{c.name}", t, x)
    # the axes are negative: they hold for a tangent with leading chunk axes too
    y_dot = _transform(xp, c.name, t, c.s, c.axes, c.norm)
    return y, in_dtype(xp, y_dot, y.dtype)


# --- fftshift, ifftshift -------------------------------------------------------------------------
class _ShiftCall:
    __slots__ = ("axes", "name", "nargs", "x", "xp")

    def __init__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], numpy: bool):
        if not args:
            raise TypeError(f"fft.{name} needs an array argument")
        x, *pos = args
        if len(pos) > (1 if numpy else 0):
            raise TypeError(
                f"fft.{name} takes {2 if numpy else 1} positional argument(s) in its rule, got "
                f"{len(args)}"
            )
        params = dict(zip(("axes",), pos))
        for k, v in kwargs.items():
            if k in params or k != "axes":
                raise TypeError(f"fft.{name} got an unexpected or repeated argument {k!r}")
            params[k] = v
        self.name, self.x, self.nargs = name, x, len(args)
        self.xp = namespace_of(x, fname=f"fft.{name}")
        axes = params.get("axes")
        nd = x.ndim
        if axes is None:
            axes = tuple(range(-nd, 0))
        else:
            axes = (axes,) if isinstance(axes, int) else tuple(axes)
            for a in axes:
                if not isinstance(a, int) or isinstance(a, bool) or not -nd <= a < nd:
                    raise ValueError(f"fft.{name}: invalid axis {a!r} for an array of rank {nd}")
            axes = tuple(a - nd if a >= 0 else a for a in axes)
        self.axes = axes

    def shift(self, name: str, v: Any) -> Any:
        return getattr(self.xp.fft, name)(v, axes=self.axes) if self.axes else v


def _shift_rrule(c: _ShiftCall) -> Any:
    y = c.shift(c.name, c.x)
    project = ProjectTo(c.x, c.xp)
    other = "ifftshift" if c.name == "fftshift" else "fftshift"
    rest = (_NO,) * (c.nargs - 1)

    def shift_pullback(y_bar: Any) -> tuple[Any, ...]:
        if isinstance(y_bar, AbstractZero) or not project.differentiable:
            return (_NO, _ZERO if project.differentiable else _NO, *rest)
        y_bar = cotangent(f"fft.{c.name}", y_bar, y)
        return (_NO, project(c.shift(other, y_bar)), *rest)

    shift_pullback.__qualname__ = f"{c.name}_pullback"
    return y, shift_pullback


def _shift_frule(tangents: Any, c: _ShiftCall) -> Any:
    y = c.shift(c.name, c.x)
    t = unthunk(tangents[1])
    if isinstance(t, AbstractZero) or not ProjectTo(c.x, c.xp).differentiable:
        return y, _ZERO
    tangent_extra(f"fft.{c.name}", t, c.x)
    return y, in_dtype(c.xp, c.shift(c.name, t), y.dtype)


# --- registration --------------------------------------------------------------------------------
def _register(
    name: str, call: Any, rrule: Any, frule: Any, examples: Any, np_examples: Any
) -> None:
    for numpy, target, ex in (
        (False, f"fft.{name}", examples),
        (True, f"numpy:fft.{name}", np_examples),
    ):

        def r(*args: Any, _numpy: bool = numpy, **kwargs: Any) -> Any:
            return rrule(call(name, args, kwargs, _numpy))

        def f(tangents: Any, *args: Any, _numpy: bool = numpy, **kwargs: Any) -> Any:
            return frule(tangents, call(name, args, kwargs, _numpy))

        r.__name__ = r.__qualname__ = f"{name}_rrule"
        f.__name__ = f.__qualname__ = f"{name}_frule"
        register_rrule(target, examples=ex)(r)
        register_frule(target, examples=ex)(f)


def _examples(name: str, numpy: bool) -> Callable[[Any], list[Any]]:
    return lambda rng: _EXAMPLES[name](rng, numpy)


for _name in _SPECS:
    _register(_name, _Call, _fft_rrule, _fft_frule, _examples(_name, False), _examples(_name, True))
for _name in ("fftshift", "ifftshift"):
    _register(
        _name,
        _ShiftCall,
        _shift_rrule,
        _shift_frule,
        _examples(_name, False),
        _examples(_name, True),
    )


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


def _c2c_ex(rng: Any, numpy: bool) -> list[Any]:
    out: list[Any] = [
        ((_c(rng, 8),), {}),
        ((_c(rng, 3, 5),), {"n": 8, "axis": 0, "norm": "ortho"}),  # zero padding
        ((_c(rng, 3, 5),), {"n": 3, "norm": "forward"}),  # truncation
        ((_c(rng, 2, 3, 4),), {"axis": 1, "n": 5}),
        ((_r(rng, 6),), {"norm": "ortho"}),  # a real input: the cotangent is projected
        ((_c(rng, 0, 4),), {}),  # zero-size batch
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
        ((_c(rng, 0, 3),), {"axes": (1,)}),
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
        ((_r(rng, 0, 4),), {}),
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
        ((_c(rng, 0, 4),), {}),
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
        ((_r(rng, 0, 4),), {"axes": (1,)}),
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
        ((_c(rng, 0, 4),), {"axes": (1,)}),
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


_EXAMPLES: dict[str, Callable[[Any, bool], list[Any]]] = {
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
