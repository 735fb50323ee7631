"""Rules for the arrays made from existing data: the standard's ``asarray`` and ``from_dlpack``,
NumPy's ``asarray`` and ``array``, and NumPy's ``fromiter`` (non-differentiable).

* ``asarray``/``from_dlpack`` (and NumPy's ``asarray``/``array``): the identity on arrays, with the
  cotangent cast back to the input's dtype; nested lists of Python numbers get a ``Tangent`` per
  element (read through size-1 slices, no element reads).
* ``fromiter``: its elements are host values of a Python iterable (no tangent, as for a list).

Which library computes a call without array arguments: :mod:`chainrules.rules._util.creation`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.prelude import *
from .._util import in_dtype
from .._util.creation import *
from .._util.numpy_like import numpy_non_differentiable

__all__: list[str] = []  # rules only

_SCALARS = (float, complex, int, bool)
_C = "creation"  # the kind of the functions that make arrays from shapes and numbers

_ASARRAY = signature("asarray", lambda obj, /, *, out=None, **kwargs: None)
_NUMPY_ASARRAY = signature(
    "asarray", lambda obj, /, dtype=None, order=None, *, out=None, **kwargs: None
)
_NUMPY_ARRAY = signature("array", lambda obj, /, dtype=None, *, out=None, **kwargs: None)
_FROM_DLPACK = signature("from_dlpack", lambda obj, /, *, out=None, **kwargs: None)


# --- asarray, array, from_dlpack: the identity on arrays ------------------------------------------
def _sequence_cotangent(xp: Any, g: Any, obj: Any) -> Any:
    """The cotangent of a nested list/tuple of numbers that ``asarray`` stacked into ``g``: a
    ``Tangent`` per element, each read through a size-1 slice (no element read)."""
    if isinstance(obj, (list, tuple)):
        parts = []
        for i, e in enumerate(obj):
            sub = xp.reshape(g[i : i + 1, ...], tuple(g.shape[1:]))
            parts.append(_sequence_cotangent(xp, sub, e))
        return Tangent(*parts, primal_type=type(obj))
    p = ProjectTo(obj, xp)
    if not p.differentiable:
        return NO
    return p(g)


def _identity_rules(sig: Signature, numpy: bool) -> Rules:
    """The rules of ``sig.name`` called with the signature ``sig`` (``numpy``: NumPy's)."""
    name = sig.name

    def setup(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        obj = sig.bind(args, kwargs)["obj"]
        xp = call_namespace((obj,) if is_array_arg(obj) else (), kwargs, name)
        if sig is _FROM_DLPACK and is_array_arg(obj):
            # an array of the namespace's own library: from_dlpack gives a view of its data,
            # which reshape to its own shape gives (asarray, where copy= or device= is asked)
            # without the DLPack protocol -- which traced arrays (JAX's, torch.func's) and
            # tensors that require grad refuse ("Can't export tensors that require gradient")
            y = xp.asarray(obj, **kwargs) if kwargs else xp.reshape(obj, tuple(obj.shape))
            return xp, obj, y
        y = getattr(call_module(numpy, xp, args, kwargs, False), name)(*args, **kwargs)
        return xp, obj, y

    def identity_rrule(*args: Any, **kwargs: Any) -> Any:
        xp, obj, y = setup(args, kwargs)
        seq = isinstance(obj, (list, tuple))
        p = None if seq else ProjectTo(obj, xp)
        diff = ProjectTo(y, xp).differentiable
        rest = (NO,) * (len(args) - 1)
        back = None if seq or not is_array(obj) else namespace_of(obj)
        # a nested list as a whole gets ZeroTangent() for a zero cotangent (the output stands in)
        zeros_of = (y if seq else obj, *args[1:])
        nested = obj if seq else None  # an array obj is not kept: the pullback must not hold it

        @pullback(y, tangent_args(zeros_of, diff))
        def identity_pullback(y_bar: Any) -> tuple[Any, ...]:
            if not diff:
                return (NO, *rest)
            if seq:
                return (_sequence_cotangent(xp, y_bar, nested), *rest)
            assert p is not None
            if not p.differentiable:
                return (NO, *rest)
            g = y_bar
            if back is not None and back is not xp:  # from_dlpack across libraries
                g = back.from_dlpack(g)
            if tuple(getattr(g, "shape", ())) != p.shape and p.shape:  # NumPy's ndmin
                g = namespace_of(g).reshape(g, p.shape)
            return (p(g), *rest)

        return y, identity_pullback

    def identity_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        xp, obj, y = setup(args, kwargs)
        if not ProjectTo(y, xp).differentiable:
            return y, NO
        # a nested list's tangent is a Tangent (or tuple) per element: stacked below
        ts = tangents_in(name, tangents[:2], (obj,))
        if ts is None:
            return y, ZERO
        t = ts[0]
        if isinstance(obj, (list, tuple)):
            return y, in_dtype(xp, _stack_tangent(xp, t, obj, y), y.dtype)
        if not has_tangent_space(obj, xp):
            return y, ZERO
        if type(t) in _SCALARS:
            t = xp.asarray(t, dtype=y.dtype)
        extra = t.ndim - len(tuple(getattr(obj, "shape", ())))
        t = xp.reshape(t, tuple(t.shape[:extra]) + tuple(y.shape))
        return y, in_dtype(xp, t, y.dtype)

    return identity_rrule, identity_frule


def _stack_tangent(xp: Any, t: Any, obj: Any, y: Any) -> Any:
    """The tangent of ``asarray(nested list)``: the element tangents stacked (chunk axes lead)."""
    if isinstance(obj, (list, tuple)):
        elements = t.elements() if isinstance(t, Tangent) else tuple(t)
        parts = [_stack_tangent(xp, e, o, y) for e, o in zip(elements, obj)]
        extra = max(p.ndim for p in parts) - (y.ndim - 1) if parts else 0
        return xp.stack([xp.asarray(p, dtype=y.dtype) for p in parts], axis=max(extra, 0))
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return xp.zeros((), dtype=y.dtype)
    return xp.asarray(t, dtype=y.dtype) if type(t) in _SCALARS else t


register_pair(
    "asarray",
    _identity_rules(_ASARRAY, False),
    lambda rng: _asarray_examples(rng),
    kind="conversion",
)
register_pair(
    "numpy:asarray",
    _identity_rules(_NUMPY_ASARRAY, True),
    lambda rng: _asarray_examples(rng),
    kind="conversion",
)
register_pair(
    "numpy:array", _identity_rules(_NUMPY_ARRAY, True), lambda rng: _numpy_array_examples(rng)
)
register_pair(
    "from_dlpack",
    _identity_rules(_FROM_DLPACK, False),
    lambda rng: _from_dlpack_examples(rng),
    # the column calls jax.numpy.from_dlpack itself under jit, which needs __dlpack__ (the rule
    # does not: the bridge's jit(grad) is tested in tests/rules/creation/test_conversion.py)
    Expect("jit", "jax.numpy.from_dlpack cannot take a tracer (it needs __dlpack__)", kind="skip"),
    kind=_C,
)


# --- examples -------------------------------------------------------------------------------------
def _asarray_examples(rng: Any) -> list[Any]:
    return [
        ((rng.standard_normal((2, 3)),), {}),
        ((rng.standard_normal(()),), {}),
        ((rng.standard_normal(3),), {"copy": True}),
        ((np.zeros((0, 2)),), {}),
        ((rng.standard_normal(3) + 1j * rng.standard_normal(3),), {}),
    ]


def _numpy_array_examples(rng: Any) -> list[Any]:
    return [*_asarray_examples(rng), ((rng.standard_normal(3),), {"ndmin": 3})]


def _from_dlpack_examples(rng: Any) -> list[Any]:
    return [((rng.standard_normal((2, 3)),), {}), ((rng.standard_normal(()),), {})]


# an array from a Python iterable: its elements are host values (no tangent, as for a list);
# the examples are iterables of ints, which the testers pass as they are
numpy_non_differentiable(
    "fromiter",
    examples=fixed_examples(((range(5), np.float64), {}), (((1, 2, 3), "float32"), {"count": 2})),
    expect=Expect(
        "jax",
        "jax.numpy.fromiter refuses every call (NotImplementedError: it may be impure)",
        kind="skip",
    ),
)
