"""Projection of a cotangent back onto the tangent space of its primal (ChainRules' ``ProjectTo``).

``ProjectTo(x)`` is built from the primal, *outside* the pullback, and then called on the
cotangent: ``x_bar = project(raw_x_bar)``. It

* sums away the axes the primal was broadcast along (leading axes, and axes where ``x`` has
  length 1), so binary rules can return ``y_bar * partial`` without caring about broadcasting;
* takes the real part for a real primal (the cotangent of a real input of a complex function);
* casts to the primal's dtype (a float32 input gets a float32 cotangent);
* moves the cotangent to the primal's device when it arrived on another one;
* maps integer and boolean primals -- which have no tangent space -- to ``NoTangent``.

The common case (a cotangent that already matches) costs two attribute comparisons.
"""

from __future__ import annotations

from typing import Any

import array_api_compat
import numpy as np

from .namespaces import _DEVICE_ATTR, device_of, dtype_kind, namespace_of
from .tangents import AbstractZero, NoTangent, Tangent, unthunk

__all__ = ["ProjectTo", "project"]

_SCALAR_TYPES = (bool, int, float, complex)
_NUMPY_KIND = {"f": "f", "c": "c", "i": "i", "u": "i", "b": "b", "O": "o", "m": "o", "M": "o"}


class ProjectTo:
    """Projector onto the tangent space of ``x`` (an array, a Python scalar or a tuple of them).

    >>> import numpy as np, chainrules as cr
    >>> project = cr.ProjectTo(np.zeros((3, 1), dtype=np.float32))
    >>> project(np.ones((2, 3, 4))).shape, project(np.ones((2, 3, 4))).dtype
    ((3, 1), dtype('float32'))
    """

    __slots__ = (
        "_check_device",
        "_fast",
        "_fast_device",
        "_parts",
        "device",
        "dtype",
        "kind",
        "shape",
        "xp",
    )

    shape: tuple[int, ...]
    dtype: Any
    kind: str
    xp: Any
    device: Any

    def __init__(self, x: Any, xp: Any = None) -> None:
        self._parts: tuple[ProjectTo, ...] | None = None
        t = type(x)
        self._fast: type | None = None  # a cotangent of this type may take the fast path
        # ... and of this type, when on the primal's device (an array with a .device attribute)
        self._fast_device: type | None = None
        if t is np.ndarray or isinstance(x, np.generic):  # the hot path: no device, no lookup
            self.xp = xp
            self.shape = x.shape
            self.dtype = x.dtype
            self.kind = _NUMPY_KIND[x.dtype.kind]
            self.device = None
            self._check_device = False
            # integer and boolean primals must reach the NoTangent branch of __call__; a NumPy
            # scalar's cotangent is a NumPy scalar of its type (what the operations give)
            self._fast = t if self.kind in "fc" else None
            return
        attr = _DEVICE_ATTR.get(t)  # an array type whose device is its .device (torch's)
        if not attr:
            if t in _SCALAR_TYPES:
                self.kind = "f" if t is float else "c" if t is complex else "i"
                self.shape = ()
                self.dtype = None  # a Python scalar keeps the cotangent's own (array) dtype
                self.xp = xp
                self.device = None
                self._check_device = False
                return
            if isinstance(x, (tuple, list)):
                self._parts = tuple(ProjectTo(e, xp) for e in x)
                self.kind, self.shape, self.dtype, self.xp, self.device = "t", (), None, xp, None
                self._check_device = False
                return
        self.xp = xp if xp is not None else namespace_of(x)
        self.shape = tuple(x.shape)
        self.dtype = x.dtype
        self.kind = dtype_kind(x.dtype, self.xp)
        # NumPy arrays all live on the CPU; other libraries are checked (a JAX tracer's device is
        # None inside jit, and then nothing is checked)
        if attr:
            self.device = x.device
            self._check_device = self.device is not None
            # a cotangent of the type, shape, dtype and device: returned as it is, as NumPy's
            self._fast_device = t if self._check_device and self.kind in "fc" else None
        elif array_api_compat.is_numpy_array(x):
            self.device, self._check_device = None, False
        else:
            self.device = device_of(x)  # (which records whether t reads its .device)
            self._check_device = self.device is not None
            if self._check_device and self.kind in "fc" and _DEVICE_ATTR.get(t):
                self._fast_device = t

    @property
    def differentiable(self) -> bool:
        """False for integer and boolean primals (their projection is always ``NoTangent``)."""
        return self.kind in "fct"

    def __call__(self, dx: Any, extra: int = 0) -> Any:
        """``dx`` projected; ``extra`` leading chunk axes of ``dx`` (a chunk of cotangents, see
        ``docs/conventions.md``, "Reverse-mode chunks") are kept: only the broadcast axes after
        them are summed."""
        if type(dx) is self._fast and dx.shape == self.shape and dx.dtype == self.dtype:  # type: ignore[attr-defined]
            return dx
        if (
            type(dx) is self._fast_device
            and dx.shape == self.shape  # type: ignore[attr-defined]
            and dx.dtype == self.dtype  # type: ignore[attr-defined]
            and dx.device == self.device  # type: ignore[attr-defined]
        ):
            return dx
        kind = self.kind
        if kind == "i" or kind == "b":
            return NoTangent()
        if isinstance(dx, AbstractZero):
            return dx
        dx = unthunk(dx)
        if isinstance(dx, AbstractZero):
            return dx
        if self._parts is not None:
            return self._project_parts(dx, extra)
        if type(dx) in _SCALAR_TYPES and not extra:
            if kind == "f" and type(dx) is complex:
                dx = dx.real
            if self.dtype is None:
                return dx
            return self.xp.asarray(dx, dtype=self.dtype, device=self.device)
        # fast path: the cotangent already matches
        if dx.shape == self.shape and dx.dtype == self.dtype and not self._check_device:
            return dx  # (never with chunk axes: dx has at least extra axes more than x)
        return self._slow(dx, extra)

    def _slow(self, dx: Any, extra: int = 0) -> Any:
        xp = self.xp if self.xp is not None else namespace_of(dx)
        shape = tuple(dx.shape)
        if shape[extra:] != self.shape:
            dx = _unbroadcast(xp, dx, shape, self.shape, extra)
        if self.kind == "f" and dtype_kind(dx.dtype, xp) == "c":
            dx = xp.real(dx)
        if self.dtype is not None and dx.dtype != self.dtype:
            dx = xp.astype(dx, self.dtype)
        if self._check_device and device_of(dx) != self.device:
            dx = array_api_compat.to_device(dx, self.device)
        return dx

    def _project_parts(self, dx: Any, extra: int = 0) -> Any:
        assert self._parts is not None
        elements = dx.elements() if isinstance(dx, Tangent) else tuple(dx)
        if len(elements) != len(self._parts):
            raise ValueError(
                f"cotangent has {len(elements)} elements for a primal of {len(self._parts)}"
            )
        return Tangent(*(p(e, extra) for p, e in zip(self._parts, elements)))

    def __repr__(self) -> str:
        return f"ProjectTo(shape={self.shape}, dtype={self.dtype}, kind={self.kind!r})"


def _unbroadcast(
    xp: Any, dx: Any, shape: tuple[int, ...], target: tuple[int, ...], extra: int = 0
) -> Any:
    """Sum ``dx`` (of ``shape``) down to ``target``, the shape it was broadcast from, after
    ``extra`` leading chunk axes that are kept."""
    lead = len(shape) - extra - len(target)
    ok = lead >= 0 and all(t == s or t == 1 for t, s in zip(target, shape[extra + lead :]))
    if not ok:
        what = f" after {extra} chunk axis(es)" if extra else ""
        raise ValueError(
            f"cotangent of shape {shape} cannot be projected onto a primal of shape {target}"
            f"{what}: the primal does not broadcast to it"
        )
    if lead:
        dx = xp.sum(dx, axis=tuple(range(extra, extra + lead)))
    axes = tuple(
        i + extra
        for i, (t, s) in enumerate(zip(target, shape[extra + lead :]))
        if t == 1 and s != 1
    )
    if axes:
        dx = xp.sum(dx, axis=axes, keepdims=True)
    return dx


def project(x: Any, dx: Any) -> Any:
    """One-shot ``ProjectTo(x)(dx)``."""
    return ProjectTo(x)(dx)
