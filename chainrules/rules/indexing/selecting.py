"""Rules for NumPy's indexing-like functions beyond the standard (``"numpy:NAME"``): ``choose``,
``compress``, ``extract``, ``diag``, ``diagflat`` and ``select`` (and ``piecewise`` declared for
engines); ``unravel_index`` and ``ravel_multi_index`` are index arithmetic, non-differentiable.

Maths note
----------
Every one is a *gather* (see :mod:`chainrules.rules._util.gather`): an output element is a copy
of one element of the sources, or a constant. The function itself, called on index arrays, gives
the source of each output element; the pullback is one ``scatter_add`` of the cotangent at those
positions, the pushforward one ``take``. Hence:

* ``choose``/``select``: the chosen array's element gets the cotangent (broadcast choices
  accumulate it); ``select``'s ``default`` is a source when it is given positionally;
* ``compress``/``extract``: the output shape depends on the condition: the index array is
  compressed once, and ``y`` gathered from it (one sync, in the primal only);
* ``diag``/``diagflat``: the zeros off the diagonal are constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import allowscalar
from ...core.prelude import *
from .._util import in_dtype
from .._util.gather import as_array, axis_check, namespace, register_gather, simple_plan
from .._util.numpy_like import numpy_non_differentiable
from .._util.shape import ex, rng_arrays

__all__: list[str] = []  # rules only

_M = __name__


# --- choose, compress, extract --------------------------------------------------------------------
def _choose_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((np.array([0, 1, 1, 0]), (r(4), r(4))), note="two choices"),
        ex((np.array([[2, 0], [1, 2]]), [r(2, 2), r(2), r(1)]), note="broadcast choices"),
        ex((np.array([0, 2, 1]), r(3, 3)), note="choices as one array"),
        ex((np.array([3, -1]), (r(2), r(2))), {"mode": "clip"}, note="mode='clip'"),
        ex((np.array([1, 0]), (r(2, c=True), r(2, c=True))), {"mode": "wrap"}, note="complex"),
    ]


_CHOOSE_RAISE = Expect(
    "jit",
    "mode='raise' checks the indices on the host (NumPy, CuPy and jax.numpy alike): not traceable",
    "skip",
    example="choices",
)
_CHOOSE_MODES = {None: "raise", "raise": "raise", "wrap": "wrap", "clip": "clip"}


def _choose_template(a: Any, choices: Any, out: Any = None, mode: Any = "raise") -> None: ...


_CHOOSE = signature("choose", _choose_template)


def _choose(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``choose(a, choices, mode=)`` as one gather along a stacked axis of choices, the same for
    every library (``f``, the library's own ``choose``, is not called): NumPy's dispatcher
    iterates an array of choices in Python, and a GPU stand-in (or any array without NumPy's
    protocols) cannot go through it. Called on the values for ``y`` and on index arrays for
    ``src``, as every gather plan is.

    ``mode='raise'`` reads one boolean on the host, once per call: whether any index is out of
    range. NumPy, CuPy (``(a < n).all()``) and ``jax.numpy`` (``concrete_or_error``) read it as
    well; under ``jax.jit`` it raises, as ``jax.numpy.choose`` does."""
    b = _CHOOSE.bind(args, kwargs)
    a, choices, mode = b["a"], b["choices"], b.get("mode", "raise")
    if mode not in _CHOOSE_MODES:
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    seq = choices if type(choices) in (tuple, list) else ()
    values = [v for v in (*seq, choices) if is_array(v)]
    # the choices' library (``a`` holds integers: never differentiated, converted to it)
    xp, like = namespace("choose", values or [a])
    if not is_array(a) or namespace_of(a) is not xp:
        a = xp.asarray(a, **({} if device_of(like) is None else {"device": device_of(like)}))
    if dtype_kind(a.dtype, xp) not in "biu":
        raise TypeError(f"choose: the index array `a` must hold integers, got dtype {a.dtype}")
    if dtype_kind(a.dtype, xp) == "b":
        a = xp.astype(a, xp.int32)
    if is_array(choices):  # one array: its rows are the choices
        n, shapes, items = choices.shape[0], [tuple(choices.shape[1:])], None
    else:
        items = [as_array(xp, c, like) for c in choices]
        arrays = [c for c in choices if is_array(c)]
        if arrays:  # Python scalars take the arrays' dtype (NumPy's weak scalars)
            dtype = xp.result_type(*arrays)
            items = [in_dtype(xp, c, dtype) for c in items]
        n, shapes = len(items), [tuple(c.shape) for c in items]
    if n == 0:
        raise ValueError("choose: `choices` must hold at least one array")
    shape = tuple(np.broadcast_shapes(tuple(a.shape), *shapes))  # host metadata only
    if items is None:
        k = len(shape) - len(shapes[0])  # the choices' axis first, then `a`'s broadcast axes
        stacked = xp.broadcast_to(xp.reshape(choices, (n, *(1,) * k, *shapes[0])), (n, *shape))
    else:
        stacked = xp.stack([xp.broadcast_to(c, shape) for c in items])
    idx = xp.broadcast_to(a, shape)
    how = _CHOOSE_MODES[mode]
    if how == "wrap":
        idx = xp.remainder(idx, n)
    elif how == "clip":
        idx = xp.clip(idx, 0, n - 1)
    else:
        bad = xp.any((idx < 0) | (idx >= n))
        with allowscalar():  # one read per call (see the docstring), not one per element
            if bool(bad):
                raise ValueError(
                    f"choose: invalid entry in the index array `a` (mode='raise'): every index "
                    f"must lie in [0, {n}), the number of choices; use mode='wrap' or 'clip'"
                )
    y = xp.take_along_axis(stacked, xp.reshape(idx, (1, *shape)), axis=0)
    return xp.reshape(y, shape)


register_gather(
    "choose",
    simple_plan("choose", _choose_template, {"choices": "choices"}, call=_choose),
    _choose_ex,
    _M,
    (_CHOOSE_RAISE,),
    kind="sequence",
)


def _compress_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((np.array([True, False, True]), r(3, 2)), {"axis": 0}, note="rows"),
        ex((np.array([False, True]), r(2, 2)), {"axis": 1}, note="columns"),
        ex((np.array([True, False, True, True]), r(2, 3)), note="flattened, shorter mask"),
        ex((np.array([True, True, False]), r(3, c=True)), note="complex"),
    ]


_DATA_SHAPE = "its output shape depends on the condition's values"

register_gather(
    "compress",
    simple_plan(
        "compress", lambda condition, a, axis=None, out=None, **options: None,
        {"a": "array"}, axis_check("compress", "a"), from_src=True,
    ),
    _compress_ex,
    _M,
    (Expect("jit", f"jax.numpy.compress needs a concrete condition: {_DATA_SHAPE}", "skip"),),
)  # fmt: skip


def _extract_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    m = r(3, 3)
    return [
        ex((m > 0, m), note="mask of itself"),
        ex((np.array([1, 0, 2, 0]), r(4)), note="integer condition"),
        ex((np.array([True, False]), r(2, c=True)), note="complex"),
    ]


register_gather(
    "extract",
    simple_plan("extract", lambda condition, arr, **options: None, {"arr": "array"}, from_src=True),
    _extract_ex,
    _M,
    (Expect("jit", f"jax.numpy.extract needs a concrete condition: {_DATA_SHAPE}", "skip"),),
)


# --- diag, diagflat -------------------------------------------------------------------------------
def _diag_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(3),), note="vector to matrix"),
        ex((r(3), 1), note="k=1"),
        ex((r(3, 4),), note="matrix to vector"),
        ex((r(3, 4),), {"k": -1}, note="k=-1"),
        ex((r(2, c=True),), note="complex"),
    ]


register_gather("diag", simple_plan("diag", lambda v, k=0: None, {"v": "array"}), _diag_ex, _M)


def _diagflat_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    return [
        ex((r(2, 2),), note="matrix"),
        ex((r(3), -1), note="k=-1"),
        ex((r(2, c=True),), note="complex"),
    ]


register_gather(
    "diagflat", simple_plan("diagflat", lambda v, k=0: None, {"v": "array"}), _diagflat_ex, _M
)


# --- select ---------------------------------------------------------------------------------------
def _select_ex(rng: np.random.Generator) -> list[Any]:
    r = rng_arrays(rng)
    x = r(4)
    return [
        ex(([x < 0, x > 0.5], [r(4), r(4)]), note="default 0"),
        ex(([x < 0, x < 1], [r(4), r(1)], r(4)), note="overlapping, default array"),
        ex(([x > 0], [r(4)]), {"default": 2.5}, note="keyword default"),
        ex(([x < 0], [r(4, c=True)], r(4, c=True)), note="complex"),
    ]


register_gather(
    "select",
    simple_plan(
        "select",
        lambda condlist, choicelist, default=None: None,  # None: the library's default
        {"choicelist": "sequence", "default": "array"},
    ),
    _select_ex,
    _M,
    kind="sequence",
)
# piecewise(x, condlist, funclist) has no rule; its lists are lists: declared, for engines
register_kind("numpy:piecewise", kind="sequence")


# integer index arithmetic: no tangent space
numpy_non_differentiable(
    "unravel_index", examples=lambda rng: [((np.array([0, 5, 11]), (3, 4)), {})]
)


def _ravel_multi_index_ex(rng: np.random.Generator) -> list[Any]:
    # the index arrays as the rows of one array (a sequence of them, as NumPy and JAX take
    # it): the device checks guard arrays, not the index tuples the checkers treat as keys
    rows = np.array([[0, 1, 2, 2], [1, 0, 3, 5]])
    return [
        ex((rows, (3, 4)), {"mode": "clip"}, note="clip"),
        ex((rows[:, :3], (3, 4)), {"order": "F"}, note="raise"),
    ]


numpy_non_differentiable(
    "ravel_multi_index",
    examples=_ravel_multi_index_ex,
    expect=(
        Expect(
            "scalar-free",
            "NumPy's own ravel_multi_index iterates over the index sequence in Python (iter of "
            "the array), which the guarded array refuses",
        ),
        Expect(
            "jit",
            "jax.numpy.ravel_multi_index checks mode='raise' bounds on the host",
            kind="skip",
            example="raise",
        ),
    ),
)
