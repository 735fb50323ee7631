"""``scipy.linalg``'s special matrices (``"scipy:linalg.NAME"``): the structured ones
(``block_diag``, ``toeplitz``, ``circulant``, ``hankel``, ``leslie``, ``companion``,
``fiedler_companion``, ``fiedler``, ``convolution_matrix``) take their pullbacks from static
slicing and reshapes of the array namespace; the constant ones (``hadamard``, ``dft``, ``helmert``,
``hilbert``, ``invhilbert``, ``pascal``, ``invpascal``), functions of integers only, are
non-differentiable. Nothing reads array values on the host.
"""

from __future__ import annotations

import math
from typing import Any

from ....core.prelude import *
from ..._util import in_dtype
from ..._util.scipy_linalg import (
    NO,
    ZERO,
    _conj,
    _cplx,
    _first,
    _gather,
    _register,
    _t,
    _zeros_of,
)

# --- structured matrices: toeplitz, hankel, circulant, convolution_matrix, leslie, companion,
# fiedler_companion, fiedler, block_diag ---------------------------------------------------------
# Each is a fixed arrangement of its inputs' entries: the pushforward gathers the tangents with a
# static (host-built) index, the pullback sums the cotangent along diagonals -- a pad, a reshape
# and a sum, whatever the values.


def _antidiagonal_sums(xp: Any, g: Any) -> Any:
    """``s[..., t] = sum_{i + j = t} g[..., i, j]`` (length ``m + n - 1``): ``g`` padded with
    ``m`` zero columns, flattened, cut by ``m`` and read as ``m`` rows of ``m + n - 1``, so that
    row ``i`` is shifted by ``i``."""
    m, n = g.shape[-2], g.shape[-1]
    lead = tuple(g.shape[:-2])
    z = xp.zeros((*lead, m, m), dtype=g.dtype, device=device_of(g))
    flat = xp.reshape(xp.concat([g, z], axis=-1), (*lead, m * (n + m)))
    return xp.sum(xp.reshape(flat[..., : m * (n + m - 1)], (*lead, m, n + m - 1)), axis=-2)


def _diagonal_sums(xp: Any, g: Any) -> Any:
    """``s[..., n - 1 + i - j]`` summed: the sums along the diagonals of ``g`` (``n`` columns)."""
    return _antidiagonal_sums(xp, xp.flip(g, axis=-1))


def _toeplitz_index(m: int, n: int) -> Any:
    import numpy as np

    return (n - 1) + np.arange(m)[:, None] - np.arange(n)[None, :]


def _structured(name: str, fn_args: Any, back: Any, dot: Any, examples: Any, **meta: Any) -> None:
    """Register a structured-matrix rule: ``fn_args(sig, args, kwargs) -> (xp, arrays, static)``
    picks the differentiable inputs, ``back(xp, arrays, static, g)`` gives their cotangents and
    ``dot(xp, arrays, static, dots)`` the output tangent from their tangents (zeros filled in)."""

    def rrule(fn: Any, mod: Any, sig: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, static = fn_args(sig, args, kwargs)
        y = fn(*args, **kwargs)
        projects = [ProjectTo(a, xp) for a in arrays]
        empty = math.prod(y.shape) == 0  # an empty y (SciPy's of an empty input) is constant

        @pullback(y, args, name=name)
        def structured_pullback(y_bar: Any) -> Any:
            if empty:
                return (
                    *(p(xp.zeros_like(a)) for p, a in zip(projects, arrays)),
                    *[NO] * (len(args) - len(arrays)),
                )
            bars = back(xp, arrays, static, y_bar)
            out = [p(b) for p, b in zip(projects, bars)]
            return (*out, *[NO] * (len(args) - len(out)))

        structured_pullback.__name__ = f"{name}_pullback"
        return y, structured_pullback

    def frule(fn: Any, mod: Any, sig: Any, tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, arrays, static = fn_args(sig, args, kwargs)
        y = fn(*args, **kwargs)
        t = tangents_in(name, tangents[: 1 + len(arrays)], arrays)
        if t is None or math.prod(y.shape) == 0:
            return y, ZERO
        lead = t.lead()
        # in y's dtype, or the input's where it is complex and y real (fiedler's |a_i - a_j|:
        # the tangent's imaginary part counts)
        kinds = [xp.result_type(a.dtype, y.dtype) for a in arrays]
        dots = [
            xp.zeros((*lead, *a.shape), dtype=k, device=device_of(a))
            if isinstance(d, AbstractZero)
            else (xp.astype(d, k) if d.dtype != k else d)
            for d, a, k in zip(t, arrays, kinds)
        ]
        return y, in_dtype(xp, dot(xp, arrays, static, dots), y.dtype)

    rrule.__name__, frule.__name__ = f"_{name}_rrule", f"_{name}_frule"
    _register(name, rrule, frule, examples, **meta)


def _vectors(name: str, sig: Any, args: Any, kwargs: Any, n: int) -> Any:
    vals, b = _first(sig, args, kwargs, n)
    arrays = [v for v in vals if v is not None]
    xp = namespace_of(*arrays, fname=f"scipy.linalg.{name}")
    for v in arrays:
        if getattr(v, "ndim", 0) != 1:
            raise ValueError(
                f"{name}: the rule takes 1-D inputs, got shape {tuple(getattr(v, 'shape', ()))}"
            )
    return xp, vals, b


def _toeplitz_args(sig: Any, args: Any, kwargs: Any) -> Any:
    xp, (c, r), _ = _vectors("toeplitz", sig, args, kwargs, 2)
    if r is None and len(args) > 1:
        raise TypeError("toeplitz: give r by keyword when it is None")
    return xp, (c,) if r is None else (c, r), r is None


def _toeplitz_back(xp: Any, arrays: Any, conj_r: bool, g: Any) -> Any:
    m = arrays[0].shape[-1]
    n = m if conj_r else arrays[1].shape[-1]
    s = _diagonal_sums(xp, g)  # s[n - 1 + k]: c[k]; s[n - 1 - k]: r[k], k >= 1
    c_bar = s[..., n - 1 :]
    r_bar = xp.concat([_zeros_of(xp, s, 1), xp.flip(s[..., : n - 1], axis=-1)], axis=-1)
    if conj_r:  # r = conj(c)
        return (c_bar + xp.conj(r_bar) if _cplx(xp, r_bar) else c_bar + r_bar,)
    return c_bar, r_bar


def _toeplitz_dot(xp: Any, arrays: Any, conj_r: bool, dots: Any) -> Any:
    dc = dots[0]
    dr = _conj(xp, dc) if conj_r else dots[1]
    m, n = dc.shape[-1], dr.shape[-1]
    return _gather(
        xp, xp.concat([xp.flip(dr[..., 1:], axis=-1), dc], axis=-1), _toeplitz_index(m, n)
    )


def _toeplitz_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(3), rng.standard_normal(4)), {}),
        ((rng.standard_normal(3),), {}),
        ((rng.standard_normal(2) + 1j * rng.standard_normal(2),), {}),
    ]


_structured(
    "toeplitz", _toeplitz_args, _toeplitz_back, _toeplitz_dot, _toeplitz_ex, zero_d=((0, 1),)
)


def _hankel_args(sig: Any, args: Any, kwargs: Any) -> Any:
    xp, (c, r), _ = _vectors("hankel", sig, args, kwargs, 2)
    return xp, (c,) if r is None else (c, r), None


def _hankel_back(xp: Any, arrays: Any, static: Any, g: Any) -> Any:
    m = arrays[0].shape[-1]
    s = _antidiagonal_sums(xp, g)  # s[t]: c[t] for t < m, r[t - m + 1] after
    if len(arrays) == 1:
        return (s[..., :m],)
    return s[..., :m], xp.concat([_zeros_of(xp, s, 1), s[..., m:]], axis=-1)


def _hankel_dot(xp: Any, arrays: Any, static: Any, dots: Any) -> Any:
    import numpy as np

    dc = dots[0]
    m = dc.shape[-1]
    if len(dots) == 1:
        v, n = xp.concat([dc, _zeros_of(xp, dc, m - 1)], axis=-1), m
    else:
        n = dots[1].shape[-1]
        v = xp.concat([dc, dots[1][..., 1:]], axis=-1)
    return _gather(xp, v, np.arange(m)[:, None] + np.arange(n)[None, :])


def _hankel_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(3), rng.standard_normal(4)), {}),
        ((rng.standard_normal(3),), {}),
        ((rng.standard_normal(2) + 1j, rng.standard_normal(2) + 1j), {}),
    ]


_structured("hankel", _hankel_args, _hankel_back, _hankel_dot, _hankel_ex)


def _one_vector(name: str) -> Any:
    def args_of(sig: Any, args: Any, kwargs: Any) -> Any:
        xp, (c,), b = _vectors(name, sig, args, kwargs, 1)
        return xp, (c,), b

    return args_of


def _circulant_back(xp: Any, arrays: Any, static: Any, g: Any) -> Any:
    n = arrays[0].shape[-1]
    s = _diagonal_sums(xp, g)  # s[n - 1 + i - j]; (i - j) mod n folds the negative offsets
    return (s[..., n - 1 :] + xp.concat([_zeros_of(xp, s, 1), s[..., : n - 1]], axis=-1),)


def _circulant_dot(xp: Any, arrays: Any, static: Any, dots: Any) -> Any:
    import numpy as np

    n = dots[0].shape[-1]
    return _gather(xp, dots[0], (np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def _vector_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(3),), {}),
        ((rng.standard_normal(4),), {}),
        ((rng.standard_normal(2) + 1j * rng.standard_normal(2),), {}),
    ]


_structured(
    "circulant",
    _one_vector("circulant"),
    _circulant_back,
    _circulant_dot,
    _vector_ex,
    zero_d=((0,),),
)


def _conv_args(sig: Any, args: Any, kwargs: Any) -> Any:
    xp, (a,), b = _vectors("convolution_matrix", sig, args, kwargs, 1)
    n, mode = b["n"], b.get("mode", "full")
    m = a.shape[-1]
    if mode == "full":
        tb = te = 0
    elif mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    else:  # "valid" (the library raises for anything else)
        tb = te = min(n, m) - 1
    return xp, (a,), (int(n), tb, m + int(n) - 1 - tb - te)


def _conv_back(xp: Any, arrays: Any, static: Any, g: Any) -> Any:
    n, tb, _ = static
    m = arrays[0].shape[-1]
    s = _diagonal_sums(xp, g)  # y[i, j] = a[i + tb - j]: a[k] at s[n - 1 + k - tb]
    return (s[..., n - 1 - tb : n - 1 - tb + m],)


def _conv_dot(xp: Any, arrays: Any, static: Any, dots: Any) -> Any:
    import numpy as np

    n, tb, rows = static
    m = dots[0].shape[-1]
    k = np.arange(rows)[:, None] + tb - np.arange(n)[None, :]
    idx = np.where((k >= 0) & (k < m), k, m)  # m: the appended zero
    return _gather(xp, xp.concat([dots[0], _zeros_of(xp, dots[0], 1)], axis=-1), idx)


def _conv_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(3), 4), {}),
        ((rng.standard_normal(4), 3), {"mode": "same"}),
        ((rng.standard_normal(4), 2), {"mode": "valid"}),
    ]


_structured("convolution_matrix", _conv_args, _conv_back, _conv_dot, _conv_ex)


def _leslie_args(sig: Any, args: Any, kwargs: Any) -> Any:
    xp, (f, s), _ = _vectors("leslie", sig, args, kwargs, 2)
    return xp, (f, s), None


def _leslie_back(xp: Any, arrays: Any, static: Any, g: Any) -> Any:
    return g[..., 0, :], xp.linalg.diagonal(g, offset=-1)


def _leslie_dot(xp: Any, arrays: Any, static: Any, dots: Any) -> Any:
    import numpy as np

    n = dots[0].shape[-1]
    idx = np.full((n, n), 2 * n - 1)  # the appended zero
    idx[0, :] = np.arange(n)
    idx[np.arange(1, n), np.arange(n - 1)] = n + np.arange(n - 1)
    return _gather(xp, xp.concat([dots[0], dots[1], _zeros_of(xp, dots[0], 1)], axis=-1), idx)


def _leslie_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(3), rng.standard_normal(2)), {}),
        ((rng.standard_normal(4), rng.standard_normal(3)), {}),
    ]


_structured("leslie", _leslie_args, _leslie_back, _leslie_dot, _leslie_ex)


# companion and fiedler_companion: entries -a[k] / a[0] (and constants) at fixed places
def _monic_back(xp: Any, a: Any, w_bar: Any) -> Any:
    """The cotangent of ``a`` from that of ``w = -a[1:] / a[0]``."""
    a0 = _conj(xp, a[..., :1])
    head = xp.sum(w_bar * _conj(xp, a[..., 1:]), axis=-1, keepdims=True) / (a0 * a0)
    return xp.concat([head, -w_bar / a0], axis=-1)


def _monic_dot(xp: Any, a: Any, da: Any) -> Any:
    a0 = a[..., :1]
    return -da[..., 1:] / a0 + a[..., 1:] * da[..., :1] / (a0 * a0)


def _companion_index(n: int) -> Any:
    """Positions in ``concat(w, [1, 0])`` of ``companion``'s ``(n - 1) x (n - 1)`` entries."""
    import numpy as np

    k = n - 1
    idx = np.full((k, k), k + 1)
    idx[0, :] = np.arange(k)
    idx[np.arange(1, k), np.arange(k - 1)] = k
    return idx


def _fiedler_companion_index(size: int) -> Any:
    """The same for ``fiedler_companion`` (SciPy's pattern of sub- and superdiagonals)."""
    import numpy as np

    n = size - 1
    one, zero = n, n + 1
    c = np.full((n, n), zero)
    c[range(3, n, 2), range(1, n - 2, 2)] = one
    c[range(2, n, 2), range(1, n - 1, 2)] = np.arange(3, size, 2) - 1
    c[range(0, n - 2, 2), range(2, n, 2)] = one
    c[range(0, n - 1, 2), range(1, n, 2)] = np.arange(2, size, 2) - 1
    c[0, 0] = 0
    if n > 1:
        c[1, 0] = one
    return c


def _monic(name: str, index: Any) -> None:
    def args_of(sig: Any, args: Any, kwargs: Any) -> Any:
        xp, (a,), _ = _vectors(name, sig, args, kwargs, 1)
        if a.shape[-1] < 2 and name == "fiedler_companion":
            return xp, (a,), None  # SciPy's is empty then: y is constant (see _structured)
        if a.shape[-1] < 2:
            raise ValueError(f"{name}: the rule takes at least 2 coefficients")
        return xp, (a,), index(a.shape[-1])

    def back(xp: Any, arrays: Any, idx: Any, g: Any) -> Any:
        import numpy as np

        k = arrays[0].shape[-1] - 1
        pos = np.array([int(np.flatnonzero(idx.reshape(-1) == i)[0]) for i in range(k)])
        flat = xp.reshape(g, (*g.shape[:-2], g.shape[-2] * g.shape[-1]))
        w_bar = xp.take(flat, xp.asarray(pos, device=device_of(g)), axis=-1)
        return (_monic_back(xp, arrays[0], w_bar),)

    def dot(xp: Any, arrays: Any, idx: Any, dots: Any) -> Any:
        w = _monic_dot(xp, arrays[0], dots[0])
        return _gather(xp, xp.concat([w, _zeros_of(xp, w, 2)], axis=-1), idx)

    zero_d = ((0,),) if name == "fiedler_companion" else None  # companion refuses one
    _structured(name, args_of, back, dot, _monic_ex, zero_d=zero_d)


def _monic_ex(rng: Any) -> list[Any]:
    out: list[Any] = []
    for n, lead in ((4, 2.0), (3, -2.0), (5, 2.0)):
        a = rng.standard_normal(n)
        a[0] += lead  # a leading coefficient away from 0
        out.append(((a,), {}))
    return out


_monic("companion", _companion_index)
_monic("fiedler_companion", _fiedler_companion_index)


def _fiedler_back(xp: Any, arrays: Any, static: Any, g: Any) -> Any:
    # F_ij = |a_i - a_j|: a kink at a tie, where sign 0 gives the minimum-norm subgradient
    a = arrays[0]
    s = xp.sign(a[..., :, None] - a[..., None, :])
    return (xp.sum((g + _t(xp, g)) * s, axis=-1),)


def _fiedler_dot(xp: Any, arrays: Any, static: Any, dots: Any) -> Any:
    # d|w| = Re(conj(sign w) dw): for complex a, sign is w / |w|
    a, da = arrays[0], dots[0]
    s = xp.sign(a[..., :, None] - a[..., None, :])
    dw = da[..., :, None] - da[..., None, :]
    return xp.real(xp.conj(s) * dw) if xp.isdtype(s.dtype, "complex floating") else s * dw


def _fiedler_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal(3),), {}),
        ((rng.permutation(5) * 0.7 + rng.uniform(0, 0.1, 5),), {}),
    ]


_structured(
    "fiedler", _one_vector("fiedler"), _fiedler_back, _fiedler_dot, _fiedler_ex, zero_d=((0,),)
)


def _block_args(sig: Any, args: Any, kwargs: Any) -> Any:
    if kwargs:
        raise TypeError(f"block_diag: takes no keyword arguments, got {sorted(kwargs)}")
    if not args:
        raise TypeError("block_diag: the rule needs at least one array")
    xp = namespace_of(*args, fname="scipy.linalg.block_diag")
    for a in args:
        if getattr(a, "ndim", 0) > 2:
            raise ValueError(
                f"block_diag: the rule takes arrays of at most 2 dimensions, got {tuple(a.shape)}"
            )
    shapes = [
        (1, 1) if a.ndim == 0 else ((1, a.shape[0]) if a.ndim == 1 else tuple(a.shape))
        for a in args
    ]
    return xp, tuple(args), shapes


def _block_back(xp: Any, arrays: Any, shapes: Any, g: Any) -> Any:
    out, r, c = [], 0, 0
    for a, (p, q) in zip(arrays, shapes):
        out.append(xp.reshape(g[..., r : r + p, c : c + q], a.shape))
        r, c = r + p, c + q
    return tuple(out)


def _block_dot(xp: Any, arrays: Any, shapes: Any, dots: Any) -> Any:
    lead = tuple(dots[0].shape[: dots[0].ndim - arrays[0].ndim])
    cols = sum(q for _, q in shapes)
    rows, c = [], 0
    for d, (p, q) in zip(dots, shapes):
        d = xp.reshape(d, (*lead, p, q))
        parts = [xp.zeros((*lead, p, c), dtype=d.dtype, device=device_of(d)), d]
        parts.append(xp.zeros((*lead, p, cols - c - q), dtype=d.dtype, device=device_of(d)))
        rows.append(xp.concat(parts, axis=-1))
        c += q
    return xp.concat(rows, axis=-2)


def _block_ex(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((2, 2)), rng.standard_normal((1, 3))), {}),
        ((rng.standard_normal(2), rng.standard_normal((2, 1)), rng.standard_normal(())), {}),
        ((rng.standard_normal((2, 2)) + 1j, rng.standard_normal((1, 1))), {}),
    ]


_structured("block_diag", _block_args, _block_back, _block_dot, _block_ex)


# --- constant matrices: functions of integers only ------------------------------------------------
def _n_ex(rng: Any) -> list[Any]:
    return [((3,), {}), ((4,), {})]


non_differentiable("scipy:linalg.hadamard", examples=lambda rng: [((2,), {}), ((4,), {})])
non_differentiable(
    *(f"scipy:linalg.{n}" for n in ("dft", "helmert", "hilbert", "invhilbert")),
    "scipy:linalg.pascal",
    "scipy:linalg.invpascal",
    examples=_n_ex,
)
