"""Rules for ``scipy.signal`` -- ``convolve`` and ``correlate``, registered as
``"scipy:signal.NAME"`` so that each covers ``scipy.signal.NAME``, ``jax.scipy.signal.NAME`` and
``cupyx.scipy.signal.NAME``. Each rule is bound to the function it was found for (``bind_in=``):
the primal is that function's result, and the pullback and pushforward call ``convolve`` and
``correlate`` of the module the registry found it in (with the user's ``method``), so they stay on
the arrays' device and inside a ``jax.jit`` trace.

Maths (n-d, per axis; ``N1``, ``N2`` the inputs' lengths; ``rc(v) = flip(conj(v))`` over every
axis). SciPy's ``correlate(a, b) = convolve(a, rc(b))`` in every mode, so both are one convolution
``y = crop(a * k)`` with the kernel ``k = b`` (convolve) or ``k = rc(b)`` (correlate):

* the full convolution ``(a * k)[n] = sum_m a[m] k[n - m]`` has length ``N1 + N2 - 1``; the mode
  keeps the window starting at ``0`` (``'full'``), ``(N2 - 1) // 2`` with length ``N1``
  (``'same'``: SciPy's centring, also for even ``N2``) or ``min(N1, N2) - 1`` with length
  ``|N1 - N2| + 1`` (``'valid'``, where SciPy swaps the inputs when ``in2`` is the larger);
* pullback: ``Y_full`` is the cotangent zero-padded to the full shape at that window;
  ``a_bar = correlate(Y_full, k, 'valid')`` and ``k_bar = correlate(Y_full, a, 'valid')``
  (``Y_full`` is at least as large as either input, so SciPy swaps nothing), then
  ``b_bar = k_bar`` (convolve) or ``rc(k_bar)`` (correlate: ``k`` is conjugate-linear in ``b``);
* pushforward: ``crop(da * k + a * dk)``; a chunk of tangents is one more leading axis, convolved
  in ``'full'`` mode with a length-1 axis of the other operand, then cropped.

Nothing reads array values on the host.
"""

from __future__ import annotations

import math
from typing import Any

from ...core.prelude import *
from ...core.registry import Source
from .._util import in_dtype, traceable_module

_MODES = ("full", "same", "valid")

# SciPy converts its inputs with numpy.asarray, which a guarded device array refuses
_GUARD = Expect(
    "scalar-free",
    "scipy.signal converts its inputs with numpy.asarray, which a guarded device array refuses "
    "(that is SciPy's property; CuPy users have cupyx.scipy.signal)",
)


def _window(mode: str, n1: int, n2: int) -> tuple[int, int]:
    """Start and length of the ``mode`` output inside the full convolution, along one axis."""
    if mode == "full":
        return 0, n1 + n2 - 1
    if mode == "same":
        return (n2 - 1) // 2, n1
    return min(n1, n2) - 1, abs(n1 - n2) + 1


def _rc(xp: Any, v: Any, axes: tuple[int, ...]) -> Any:
    """``flip(conj(v))`` over ``axes``."""
    v = xp.conj(v) if xp.isdtype(v.dtype, "complex floating") else v
    return xp.flip(v, axis=axes) if axes else v


def _pad_to(xp: Any, g: Any, windows: list[tuple[int, int]], full: tuple[int, ...]) -> Any:
    """``g`` zero-padded to ``full`` with its entries at ``windows`` (static widths, trailing
    axes: ``g`` may carry leading axes)."""
    nd = len(full)
    for i, ((start, length), n) in enumerate(zip(windows, full)):
        ax = i - nd
        after = n - start - length
        if start == 0 and after == 0:
            continue
        parts = []
        shape = list(g.shape)
        if start:
            shape[ax] = start
            parts.append(xp.zeros(tuple(shape), dtype=g.dtype, device=_dev(g)))
        parts.append(g)
        if after:
            shape[ax] = after
            parts.append(xp.zeros(tuple(shape), dtype=g.dtype, device=_dev(g)))
        g = xp.concat(parts, axis=ax)
    return g


def _crop(v: Any, windows: list[tuple[int, int]]) -> Any:
    """The ``windows`` of ``v``'s trailing axes (``v`` may carry leading axes)."""
    idx = tuple(slice(s, s + n) for s, n in windows)
    return v[(..., *idx)]


def _dev(x: Any) -> Any:
    from ...core.namespaces import device_of

    return device_of(x)


def _conv_setup(name: str, sig: Any, args: Any, kwargs: Any) -> Any:
    b = sig.bind(args, kwargs)
    vals = list(b.values())
    a, k_in, mode = vals[0], vals[1], vals[2]
    xp = namespace_of(a, k_in, fname=f"scipy.signal.{name}")
    if mode not in _MODES:
        raise ValueError(f"{name}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    rest = {n: v for n, v in list(b.items())[3:]}  # method (and JAX's precision), passed on
    return xp, a, k_in, mode, rest


def _make(name: str) -> tuple[Any, Any]:
    """The rrule and frule of ``scipy.signal.<name>`` (``convolve`` or ``correlate``), bound to
    one library's function ``fn`` and its module ``mod``."""
    corr = name == "correlate"

    def rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
        xp, a, b, mode, rest = _conv_setup(name, sig, args, kwargs)
        y = fn(*args, **kwargs)
        nd = a.ndim
        windows = [_window(mode, a.shape[i], b.shape[i]) for i in range(nd)]
        full = tuple(a.shape[i] + b.shape[i] - 1 for i in range(nd))
        axes = tuple(range(nd))
        pa, pb = ProjectTo(a, xp), ProjectTo(b, xp)
        need_a = not isinstance(zero_tangent(a), NoTangent)
        need_b = not isinstance(zero_tangent(b), NoTangent)
        empty = 0 in (*a.shape, *b.shape)  # no product of entries: y does not move

        @pullback(y, args, name=name)
        def conv_pullback(y_bar: Any) -> Any:
            if empty:
                return (
                    pa(xp.zeros_like(a)) if need_a else NO,
                    pb(xp.zeros_like(b)) if need_b else NO,
                    *[NO] * (len(args) - 2),
                )
            g = _pad_to(xp, y_bar, windows, full)

            def a_bar() -> Any:  # correlate(g, k) with k = b (convolve) or rc(b): convolve(g, b)
                other = mod.convolve if corr else mod.correlate
                return pa(other(g, b, mode="valid", **rest))

            def b_bar() -> Any:
                k_bar = mod.correlate(g, a, mode="valid", **rest)
                return pb(_rc(xp, k_bar, axes) if corr else k_bar)

            # deferred (docs/conventions.md, only the cotangents asked for)
            return (
                Thunk(a_bar) if need_a else NO,
                Thunk(b_bar) if need_b else NO,
                *[NO] * (len(args) - 2),
            )

        return y, conv_pullback

    def frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, a, b, mode, rest = _conv_setup(name, sig, args, kwargs)
        y = fn(*args, **kwargs)
        t = tangents_in(name, tangents[:3], (a, b))
        if t is None or 0 in (*a.shape, *b.shape):  # an empty operand: y does not move
            return y, ZERO
        nd, extra = a.ndim, t.extra
        windows = [_window(mode, a.shape[i], b.shape[i]) for i in range(nd)]
        da, db = t
        lead = tuple((db if isinstance(da, AbstractZero) else da).shape[:extra])
        c = math.prod(lead)

        def lift(v: Any) -> Any:  # the primal operand against a chunk axis: one length-1 axis
            return xp.expand_dims(v, axis=0) if extra else v

        def fold(v: Any) -> Any:  # the chunk axes as one
            return xp.reshape(v, (c, *v.shape[extra:])) if extra else v

        k = _rc(xp, b, tuple(range(nd))) if corr else b
        # JAX's convolve wants one input at least as large as the other on every axis, also in
        # 'full' mode: the chunked operand is zero-padded at the end of each axis to the larger
        # length (appending zeros to a factor appends zeros to the full convolution, and each
        # term's window is read from its start)
        big = tuple(max(a.shape[i], b.shape[i]) for i in range(nd))

        def grow(v: Any) -> Any:
            n = v.shape[v.ndim - nd :]
            return _pad_to(xp, v, [(0, m) for m in n], big)

        acc: Any = None
        if not isinstance(da, AbstractZero):
            acc = _crop(mod.convolve(grow(fold(da)), lift(k), mode="full", **rest), windows)
        if not isinstance(db, AbstractZero):
            dk = fold(db)
            if corr:  # rc over the primal's axes, not the chunk axis
                dk = _rc(xp, dk, tuple(range(dk.ndim - nd, dk.ndim)))
            term = _crop(mod.convolve(grow(dk), lift(a), mode="full", **rest), windows)
            acc = term if acc is None else acc + term
        y_dot = acc
        if extra:
            y_dot = xp.reshape(y_dot, (*lead, *y.shape))
        return y, in_dtype(xp, y_dot, y.dtype)

    rrule.__name__ = rrule.__qualname__ = f"{name}_rrule"
    frule.__name__ = frule.__qualname__ = f"{name}_frule"
    return rrule, frule


def _register(name: str, examples: Any) -> None:
    rrule, frule = _make(name)

    def bind(obj: Any, kind: str, src: Source) -> Any:
        # the library's own signal module (where the registry found obj), its functions
        # traceable (TraceableModule: a pullback differentiated again)
        mod = traceable_module(src.module)
        impl = rrule if kind == "r" else frule
        sig = signature(f"scipy.signal.{name}", obj)  # this library's own signature

        call = traceable(obj)  # the primal's call traceable too

        def rule(*args: Any, **kwargs: Any) -> Any:
            return impl(call, mod, sig, *args, **kwargs)

        rule.__name__ = rule.__qualname__ = impl.__name__
        return rule

    target = f"scipy:signal.{name}"
    register_rrule(target, bind_in=bind, examples=examples, expect=_GUARD)(rrule)
    register_frule(target, bind_in=bind, examples=examples, expect=_GUARD)(frule)


def _convolve_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(5), rng.standard_normal(3)), {}),
        ((rng.standard_normal(5), rng.standard_normal(4)), {"mode": "same"}),  # even in2
        ((rng.standard_normal((3, 4)), rng.standard_normal((3, 2))), {"mode": "same"}),
        (  # in2 the larger: SciPy swaps for 'valid'
            (
                rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2)),
                rng.standard_normal((3, 3)),
            ),
            {"mode": "valid"},
        ),
    ]


def _correlate_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(4), rng.standard_normal(2)), {"mode": "same"}),  # even in2
        ((rng.standard_normal(3), rng.standard_normal(5)), {}),
        (
            (
                rng.standard_normal((3, 3)),
                rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2)),
            ),
            {"mode": "valid"},
        ),
    ]


_register("convolve", _convolve_ex)
_register("correlate", _correlate_ex)
