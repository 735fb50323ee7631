"""Moving whole arrays between a library under test and NumPy (the testers' reference).

These are *whole-array* transfers, done by the testers outside the rules under test: they are not
scalar indexing, and they are allowed for guarded device arrays.
"""

from __future__ import annotations

from typing import Any

import array_api_compat
import numpy as np

from ..core.namespaces import namespace_of
from ..core.tangents import AbstractZero, Tangent, unthunk

__all__ = [
    "LAYOUTS",
    "TOLERANCES",
    "from_numpy",
    "leaves",
    "like",
    "nest",
    "place",
    "real_dtype",
    "relaid",
    "to_numpy",
]

_SCALARS = (bool, int, float, complex)


# (rtol, atol) by the precision of the array under test, for every comparison of the testers
# (finite differences in tester.py, the device and jit checks in checks.py); atol is relative to
# max(1, |reference|)
TOLERANCES = {"64": (1e-6, 1e-8), "32": (2e-3, 2e-4)}


def to_numpy(x: Any) -> Any:
    """A NumPy copy (or view) of an array of any library; Python scalars become NumPy scalars."""
    x = unthunk(x)
    if isinstance(x, np.ndarray):
        return x
    if type(x) in _SCALARS or isinstance(x, np.generic):
        return np.asarray(x)
    hook = getattr(x, "__chainrules_to_numpy__", None)  # guarded device arrays
    if hook is not None:
        return hook()
    if array_api_compat.is_torch_array(x):
        return x.detach().cpu().resolve_conj().resolve_neg().numpy()
    if array_api_compat.is_cupy_array(x):
        return x.get()
    try:
        return np.from_dlpack(x)
    except (TypeError, BufferError, RuntimeError, AttributeError):
        return np.asarray(x)


def like(ref: Any, value: Any, *, dtype: Any = None) -> Any:
    """``value`` (NumPy) as an array of ``ref``'s library and device, in ``dtype`` (default:
    ``ref``'s). A Python-scalar ``ref`` gives a Python scalar."""
    if type(ref) in _SCALARS:
        v = np.asarray(value)
        return complex(v) if np.iscomplexobj(v) else float(v)
    xp = namespace_of(ref)
    dt = ref.dtype if dtype is None else dtype
    return from_numpy(xp, value, dt, array_api_compat.device(ref))


def from_numpy(xp: Any, value: Any, dtype: Any, device: Any = None) -> Any:
    """``xp.asarray`` of a NumPy value in ``dtype`` on ``device``."""
    value = np.asarray(value)
    if device is None:
        return xp.asarray(value, dtype=dtype)
    return xp.asarray(value, dtype=dtype, device=device)


def real_dtype(xp: Any, dtype: Any) -> Any:
    """The real floating dtype of the same precision (``complex64 -> float32``)."""
    if xp.isdtype(dtype, "complex floating"):
        return xp.float32 if dtype == xp.complex64 else xp.float64
    return dtype


def leaves(x: Any) -> list[Any]:
    """The arrays (or zero markers) in an output or a structural tangent, in order."""
    x = unthunk(x)
    if isinstance(x, Tangent):
        if x.is_sequence:
            out: list[Any] = []
            for e in x.elements():
                out.extend(leaves(e))
            return out
        return [v for _, v in sorted(x.fields().items())]
    if isinstance(x, (tuple, list)):
        res: list[Any] = []
        for e in x:
            res.extend(leaves(e))
        return res
    return [x]


def place(args: list[Any], where: Any, values: Any) -> list[Any]:
    """``args`` with ``values`` put in at ``where``: ``(i, None)`` is argument ``i`` itself,
    ``(i, j)`` element ``j`` of the sequence argument ``i`` (a new sequence of its type)."""
    for (i, j), v in zip(where, values, strict=True):
        if j is None:
            args[i] = v
        else:
            seq = list(args[i])
            seq[j] = v
            args[i] = type(args[i])(seq)
    return args


def nest(like: Any, parts: Any) -> Any:
    """The cotangent of the output ``like`` from one part per leaf (the inverse of
    :func:`leaves` for tuples and lists): a ``Tangent`` for each tuple or list, nested as
    ``like`` is (``histogramdd``'s ``(counts, [edges, ...])`` takes
    ``Tangent(c, Tangent(e0, e1))``), the part itself for an array."""
    it = iter(parts)

    def build(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return Tangent(*(build(e) for e in v), primal_type=type(v))
        return next(it)

    return build(like)


def is_zero_value(x: Any) -> bool:
    """True for a zero marker or an all-zero array."""
    x = unthunk(x)
    if isinstance(x, AbstractZero):
        return True
    return bool(np.all(to_numpy(x) == 0))


# the memory layouts a NumPy array's values are also checked in, beside C order: column-major,
# every other row of a larger buffer, negative strides -- where a fast path beside a rule would
# assume contiguity (issue 27, item 3)
LAYOUTS = ("F", "strided", "reversed")


def relaid(a: Any, layout: str) -> Any:
    """The NumPy array ``a`` with the same values in ``layout`` (one of :data:`LAYOUTS`; ``"C"``:
    ``a`` itself). Anything else, and a 0-d array, is returned as it is."""
    if type(a) is not np.ndarray or a.ndim == 0 or layout == "C":
        return a
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":  # every other row (element, for a vector) of a larger buffer
        buf = np.zeros((2 * a.shape[0], *a.shape[1:]), a.dtype)
        buf[::2] = a
        return buf[::2]
    if layout == "reversed":
        return np.flip(np.flip(a).copy())
    raise ValueError(f"relaid: layout must be 'C' or one of {LAYOUTS}, got {layout!r}")
