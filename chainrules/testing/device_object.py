"""The device of ``device_array`` (``chainrules.testing.device``): the :class:`Device` object and
``DEVICE``, the :class:`DeviceMismatchError` a device array raises when it meets host data, and
the checks that need no array (a namespace's ``device=`` argument, single-element keys)."""

from __future__ import annotations

from typing import Any

import numpy as np

BACKINGS = ("numpy", "array_api_strict")


class Device:
    """A device object in the standard's sense: compared by name, hashable, printable.

    >>> from chainrules.testing.device import DEVICE, Device
    >>> DEVICE == Device("chainrules_device"), DEVICE == "cpu"
    (True, False)
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.name == self.name

    def __hash__(self) -> int:
        return hash((Device, self.name))

    def __repr__(self) -> str:
        return f"Device({self.name!r})"


DEVICE = Device("chainrules_device")


class DeviceMismatchError(TypeError):
    """A device array met a host array (or a device array of the other backing) in one
    operation, or host code converting it implicitly (``numpy.asarray(x)``). A ``TypeError``, as
    CuPy's and array-api-strict's are."""


_SCALARS = (bool, int, float, complex)


# argument types a namespace function passes through untouched (the fast path of unwrapping)
_PLAIN = frozenset((bool, int, float, complex, str, slice, type(None), type(Ellipsis)))


def _describe(x: Any) -> str:
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}"


def _is_host_array(x: Any) -> bool:
    """An array of another library (NumPy, array-api-strict, ...), not a Python scalar."""
    if isinstance(x, type):  # dtype classes such as np.float32 have an `__array__` attribute
        return False
    return (
        isinstance(x, np.ndarray)
        or hasattr(x, "__array_namespace__")
        or hasattr(x, "__dlpack__")
        or hasattr(x, "__array__")
    )


def _check_device(device: Any, where: str) -> None:
    if device is not None and device != DEVICE:
        raise ValueError(
            f"{where}: the device namespace creates arrays on {DEVICE!r} only, got "
            f"device={device!r} (move a result to the host with x.to_device('cpu'))"
        )


def _element_key(key: Any, ndim: int) -> bool:
    """True when ``key`` picks exactly one element by host integers (all axes indexed by
    ints): ``x[2]`` of a vector, ``x[1, 2]`` or ``x[..., 1, 2]`` of a matrix, ``x[()]`` of a 0-d
    array. ``x[0]`` of a matrix (a row), slices, ``None`` and index arrays are not."""
    t = type(key)
    if t is int or isinstance(key, np.integer):
        return ndim == 1
    if t is not tuple:
        return False
    n = 0
    ellipsis = False
    for k in key:
        if type(k) is int or isinstance(k, np.integer):
            n += 1
        elif k is Ellipsis:
            ellipsis = True
        else:
            return False
    # x[...] of a 0-d array is a whole-array view, not an element read
    return n == ndim and (n > 0 or not ellipsis)


def _fmt_key(key: Any) -> str:
    if type(key) is not tuple:
        return repr(int(key))
    if not key:
        return "()"
    return ", ".join("..." if k is Ellipsis else repr(int(k)) for k in key)
