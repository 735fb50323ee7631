"""Every function NumPy dispatches, with a rule in the registry, takes a traced array beside plain
ndarrays (issue 29, item 2): ``np.vstack([x, c])``, ``np.where(m, c, x)``, ``np.append(c, x)``,
``np.insert``, ``np.pad``, ``np.einsum``, ``np.linalg.solve(A, x)``, ...

Generated from the registry, never from a list of names: each NumPy function object that NumPy
dispatches through ``__array_function__`` (an ``_ArrayFunctionDispatcher``, found by type) and
that a registration reaches, at each of its real examples with two or more floating arrays
(top-level or inside a sequence argument); each such array traced in turn, the others plain
ndarrays. The gradient through ``chainrules.ad`` (NumPy's own dispatch of the call) must equal
the rule's own cotangent from ``cr.rrule`` on plain arrays (an exact reference, without the
engine).

Three arguments NumPy does not dispatch on (its dispatcher leaves them out, so NumPy converts a
traced array there with ``numpy.asarray``) are refused with an error naming the call; they are
listed in ``NOT_DISPATCHED`` with NumPy's reason.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.core.table import resolve_name
from chainrules.testing.arrays import place
from chainrules.testing.examples import examples_for

_DISPATCHED = type(np.concatenate)  # NumPy's _ArrayFunctionDispatcher


def _leaves(args: tuple[Any, ...]) -> list[tuple[int, int | None]]:
    """``(argument, element or None)`` of each floating ndarray among ``args`` (the positions
    :func:`chainrules.testing.arrays.place` takes)."""
    out = []
    for i, a in enumerate(args):
        if type(a) in (list, tuple):
            out += [(i, j) for j, e in enumerate(a) if _floating(e)]
        elif _floating(a):
            out.append((i, None))
    return out


def _floating(a: Any) -> bool:
    return type(a) is np.ndarray and a.dtype.kind == "f"


def _get(args: tuple[Any, ...], pos: tuple[int, int | None]) -> Any:
    i, j = pos
    return args[i] if j is None else args[i][j]


def _cases() -> list[Any]:
    cases, seen = [], set()
    for reg in cr.registrations():
        if reg.family not in ("numpy", "array_api"):
            continue
        f = resolve_name(reg.family, str(reg.target), np)
        if not isinstance(f, _DISPATCHED) or f in seen:
            continue
        seen.add(f)
        for k, ex in enumerate(examples_for(reg)):
            if ex.complex or len(_leaves(ex.args)) < 2 or _refused_by_numpy(reg, k, ex):
                continue
            for pos in _leaves(ex.args):
                cases.append(pytest.param(f, ex, pos, id=f"{reg.name}-{k}-{pos[0]}.{pos[1]}"))
    return cases


def _refused_by_numpy(reg: cr.Registration, k: int, ex: Any) -> bool:
    """The registration declares that NumPy's own function refuses the example (``put``'s
    ``inplace=False``, jax.numpy's spelling: NumPy's writes in place)."""
    label = f"#{k} {ex.note}"
    return any(e.kind == "skip" and e.matches("numpy", label, "float64") for e in reg.expectations)


CASES = _cases()

# (function, argument): why NumPy converts a traced array there itself
NOT_DISPATCHED = {
    (np.full_like, 1): "full_like dispatches on a alone; it writes fill_value with np.copyto",
    (np.select, 2): "select's dispatcher yields condlist and choicelist, not default",
    (np.polyint, 2): "polyint's dispatcher yields p, not k",
}


def _weights(y: Any) -> list[Any]:
    ys = y if isinstance(y, tuple | list) else (y,)
    rng = np.random.default_rng(0)
    return [rng.standard_normal(np.shape(e)) if _floating(np.asarray(e)) else None for e in ys]


def _loss(y: Any, ws: list[Any]) -> Any:
    ys = y if isinstance(y, tuple | list) else (y,)
    terms = [np.sum(e * w) for e, w in zip(ys, ws, strict=True) if w is not None]
    return sum(terms[1:], terms[0])


def test_the_registry_reaches_the_functions_named_in_the_issue() -> None:
    found = {c.values[0] for c in CASES}
    named = {np.vstack, np.hstack, np.concatenate, np.stack, np.where, np.column_stack}
    named |= {np.dstack, np.append, np.insert, np.dot, np.linalg.solve, np.einsum}
    assert named <= found, named - found
    assert len(CASES) > 300


@pytest.mark.parametrize(("f", "ex", "pos"), CASES)
def test_a_traced_array_beside_plain_arrays(f: Any, ex: Any, pos: tuple[int, int | None]) -> None:
    args, kwargs = ex.args, ex.kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # examples at a domain's edge
        y = f(*args, **kwargs)
        ws = _weights(y)

        def loss(v: Any) -> Any:
            return _loss(f(*place(list(args), [pos], [v]), **kwargs), ws)

        reason = NOT_DISPATCHED.get((f, pos[0]))
        if reason is not None:
            with pytest.raises(TypeError, match=r"chainrules\.ad: "):
                ad.grad(loss)(_get(args, pos))
            return
        if all(w is None for w in ws):  # a constant (isclose, searchsorted): NumPy's value
            seen: list[Any] = []

            def record(v: Any) -> Any:
                seen.append(f(*place(list(args), [pos], [v]), **kwargs))
                return np.sum(v)

            ad.grad(record)(_get(args, pos))
            ys, got = (y, seen[0]) if isinstance(y, tuple) else ((y,), (seen[0],))
            for a, b in zip(ys, got, strict=True):
                np.testing.assert_array_equal(a, b)
            return
        got = ad.grad(loss)(_get(args, pos))
        _, pullback = cr.rrule(f, *args, **kwargs)
        ys = y if isinstance(y, tuple | list) else (y,)
        seed = [
            np.asarray(w, dtype=np.asarray(e).dtype) if w is not None else None
            for e, w in zip(ys, ws, strict=True)
        ]
        ct = (
            seed[0]
            if not isinstance(y, tuple | list)
            else cr.Tangent(
                *(cr.ZeroTangent() if s is None else s for s in seed), primal_type=type(y)
            )
        )
        want = cr.unthunk(pullback(ct)[1 + pos[0]])
        if pos[1] is not None:
            want = cr.unthunk(want[pos[1]])
    if isinstance(want, cr.ZeroTangent):
        want = np.zeros_like(_get(args, pos))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
