"""``autograd.numpy``: NumPy itself. chainrules.ad's tracers take part in NumPy's dispatch
(``__array_ufunc__``, ``__array_function__``), so plain NumPy functions are traced. What autograd
adds is here: ``array`` (and ``asarray``) of sequences holding traced values, built with
``stack``."""

import builtins as _b
import sys as _sys
import types as _types

import numpy as _np
from numpy import *  # noqa: F403
from numpy import fft, random  # noqa: F401

# ``import autograd.numpy.random`` (and fft) is NumPy's own module; linalg is NumPy's with
# autograd's ``norm`` of a list of values
for _m in ("fft", "random"):
    _sys.modules[f"{__name__}.{_m}"] = getattr(_np, _m)
linalg = _types.ModuleType(f"{__name__}.linalg")
linalg.__dict__.update({k: v for k, v in vars(_np.linalg).items() if not k.startswith("__")})
_sys.modules[linalg.__name__] = linalg

from chainrules.ad import Tracer as _Tracer  # noqa: E402

__version__ = _np.__version__


def _has_tracer(x):
    if isinstance(x, _Tracer):
        return True
    if type(x) in (list, tuple):
        return _b.any(_has_tracer(e) for e in x)
    return False


def _build(x, dtype):
    if type(x) in (list, tuple) and _has_tracer(x):
        return _np.stack([_build(e, dtype) for e in x])
    if isinstance(x, _Tracer):
        return x if dtype is None else x.astype(dtype)
    return _np.array(x, dtype=dtype)


def array(obj, dtype=None, *args, **kwargs):
    if _has_tracer(obj):
        return _build(obj, dtype)
    return _np.array(obj, dtype, *args, **kwargs)


def asarray(obj, dtype=None, *args, **kwargs):
    if _has_tracer(obj):
        return _build(obj, dtype)
    return _np.asarray(obj, dtype, *args, **kwargs)


# --- autograd.numpy's functions of lists (autograd's numpy_wrapper has the same) ---------------
def _listify(a):
    return array(a) if type(a) in (list, tuple) else a


def mean(a, *args, **kwargs):
    return _np.mean(_listify(a), *args, **kwargs)


def std(a, *args, **kwargs):
    return _np.std(_listify(a), *args, **kwargs)


def var(a, *args, **kwargs):
    return _np.var(_listify(a), *args, **kwargs)


def _norm(x, *args, **kwargs):
    return _np.linalg.norm(_listify(x), *args, **kwargs)


linalg.norm = _norm


def vstack(tup):
    return _np.concatenate([_np.atleast_2d(m) for m in tup], axis=0)


row_stack = vstack


def hstack(tup):
    arrs = [_np.atleast_1d(m) for m in tup]
    return _np.concatenate(arrs, 0 if arrs[0].ndim == 1 else 1)


def column_stack(tup):
    arrs = []
    for v in tup:
        a = asarray(v)
        arrs.append(_np.reshape(a, (-1, 1)) if a.ndim < 2 else a)
    return _np.concatenate(arrs, 1)


class _RClass:
    """``r_[...]``: NumPy's own unless a traced value is in the key; then the pieces (slices as
    NumPy makes them) are concatenated."""

    def __getitem__(self, key):
        key = key if type(key) is tuple else (key,)
        if not _has_tracer(key):
            return _np.r_[key]
        return _np.concatenate([_piece(k) for k in key], axis=0)


class _CClass:
    def __getitem__(self, key):
        key = key if type(key) is tuple else (key,)
        if not _has_tracer(key):
            return _np.c_[key]
        cols = []
        for k in key:
            a = _piece(k)
            cols.append(_np.reshape(a, (-1, 1)) if a.ndim < 2 else a)
        return _np.concatenate(cols, axis=-1)


def _piece(k):
    if isinstance(k, _Tracer):
        return _np.atleast_1d(k)
    return _np.r_[k] if isinstance(k, slice) else _np.atleast_1d(_np.asarray(k))


r_ = _RClass()
c_ = _CClass()


def make_diagonal(D, offset=0, axis1=0, axis2=1):
    """autograd's complement to ``diagonal`` (``offset=0, axis1=-1, axis2=-2`` only)."""
    if not (offset == 0 and axis1 == -1 and axis2 == -2):
        raise NotImplementedError(
            "Currently make_diagonal only supports offset=0, axis1=-1, axis2=-2"
        )
    return D[..., None] * _np.eye(D.shape[-1], dtype=D.dtype)


def _is_np_or_traced(x):
    if isinstance(x, (_Tracer, _np.ndarray, _np.generic)):
        return True
    return type(x) in (list, tuple) and _b.any(_is_np_or_traced(e) for e in x)


def where(condition, *args, **kwargs):
    """autograd's ``where``: keyword ``x``/``y`` accepted, Python inputs give Python outputs."""
    if not args and not kwargs:
        return _np.where(condition)
    if len(args) + len(kwargs) != 2:
        raise ValueError("either both or neither of x and y should be given")
    x = args[0] if len(args) > 0 else kwargs.get("x")
    y = args[1] if len(args) > 1 else kwargs.get("y")
    res = _np.where(condition, x, y)
    if _b.any(_is_np_or_traced(v) for v in (condition, x, y)):
        return res
    return res.tolist() if isinstance(res, _np.ndarray) else res


__all__ = [n for n in dir() if not n.startswith("_")]
