"""Zero-size batches, over the registry (issue 26): every rule of ``chainrules.rules.linalg``,
``chainrules.rules.linear_algebra`` and ``chainrules.rules.scipy.linalg``, at each example whose
matrices take a leading batch axis of length 0 that NumPy's (or SciPy's) own function accepts,
gives f's value (shape and dtype), cotangents of the arguments' shapes and a pushforward --
``cholesky``'s pullback raised SciPy's "``solve_triangular`` does not support zero-size batches"
(then ``core/linalg_fast.py``, now ``solve_lower``'s NumPy method beside the rule), and so did
those of ``scipy.linalg.lu`` and ``sqrtm`` (``solve_sylvester``)."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import examples_for
from chainrules.testing.backends import get_backend

_MODULES = (
    "chainrules.rules.linalg",
    "chainrules.rules.linear_algebra",
    "chainrules.rules.scipy.linalg",
)
# known gaps, strict: a fix shows as XPASS
_GAPS = {
    "scipy:linalg.solve": "not about zero sizes: with a stacked a and a vector b, scipy.linalg."
    "solve broadcasts b as one vector, and the pullback's solve of the (batch, n) cotangent "
    "reads it as a matrix (also at batch 2: 'incompatible shapes')",
    "scipy:linalg.block_diag": "the rule refuses arrays of more than 2 dimensions with a "
    "ValueError naming block_diag (SciPy takes them); no batch axis to speak of",
}


def _zero_batch(a: Any) -> Any:
    """A matrix (or stack) with a leading batch axis of length 0; anything else as is."""
    return np.zeros((0, *a.shape), a.dtype) if isinstance(a, np.ndarray) and a.ndim >= 2 else a


def _leaves(y: Any) -> list[Any]:
    if isinstance(y, (tuple, list)):
        return [v for e in y for v in _leaves(e)]
    return [y]


def _ones(y: Any) -> Any:
    if isinstance(y, (tuple, list)):
        return cr.Tangent(*(_ones(v) for v in y), primal_type=type(y))
    if isinstance(y, (np.ndarray, np.generic)) and np.asarray(y).dtype.kind in "fc":
        return np.ones_like(y)
    return cr.NoTangent()


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _cases() -> list[Any]:
    """(f, [(args, kwargs), ...]) per differentiable registration with at least one example
    that NumPy's function accepts with zero-size batches."""
    backend = get_backend("numpy")
    out = []
    for reg in cr.registrations():
        if not reg.module.startswith(_MODULES) or reg.non_differentiable or reg.rrule is None:
            continue
        f = backend.function(reg)
        if f is None:
            continue
        cases = []
        for ex in examples_for(reg):
            args = tuple(_zero_batch(a) for a in ex.args)
            if all(a is b for a, b in zip(args, ex.args)):
                continue  # no matrix to stack
            try:
                with _quiet():
                    f(*args, **ex.kwargs)
            except Exception:  # noqa: BLE001 -- f itself refuses: nothing to ask of the rule
                continue
            cases.append((args, ex.kwargs))
        if cases:
            gap = _GAPS.get(reg.name)
            marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
            out.append(pytest.param(f, cases, id=reg.name, marks=marks))
    return out


CASES = _cases()


def test_zero_batch_sweep_sees_the_decompositions_and_solvers() -> None:
    ids = {c.id for c in CASES}
    for name in ("linalg.cholesky", "linalg.solve", "linalg.inv", "linalg.qr", "linalg.svd"):
        assert name in ids
    for name in ("linalg.eigh", "linalg.det", "linalg.slogdet", "numpy:linalg.eig"):
        assert name in ids
    for name in ("scipy:linalg.lu", "scipy:linalg.sqrtm", "scipy:linalg.inv"):
        assert name in ids


@pytest.mark.parametrize(("f", "cases"), CASES)
def test_zero_batch_value_pullback_and_pushforward(f: Any, cases: Any) -> None:
    for args, kwargs in cases:
        with _quiet():
            want = f(*args, **kwargs)
            y, pb = cr.rrule(f, *args, **kwargs)
            bars = [cr.unthunk(v) for v in pb(_ones(y))[1:]]
            dots = tuple(
                np.ones_like(a)
                if isinstance(a, np.ndarray) and a.dtype.kind in "fc"
                else cr.NoTangent()
                for a in args
            )
            _, t = cr.frule((cr.NoTangent(), *dots), f, *args, **kwargs)
        for got, w in zip(_leaves(y), _leaves(want), strict=True):
            assert np.shape(got) == np.shape(w)
            assert np.asarray(got).dtype == np.asarray(w).dtype
        for a, bar in zip(args, bars, strict=True):
            if isinstance(a, np.ndarray) and not isinstance(bar, cr.AbstractZero):
                assert np.shape(bar) == a.shape
        for got, w in zip(_leaves(t), _leaves(want)):
            if isinstance(got, np.ndarray):
                assert np.shape(got) == np.shape(w)


def test_the_guarded_solvers_stay_guarded_after_their_first_call() -> None:
    """``_ZeroBatches``'s solvers reach SciPy's through the module lookup, which keeps what it
    finds as attributes: a name the class answers itself must not be kept, or the second call
    of ``solve_triangular`` on a zero-size batch would go to SciPy, which refuses it (the order
    of the test suite's modules once decided that)."""
    import scipy.linalg

    from chainrules.rules._util.scipy_linalg import _ZeroBatches

    mod = _ZeroBatches(scipy.linalg)
    a, b = np.eye(3), np.ones((3, 2))
    empty_a, empty_b = np.zeros((0, 3, 3)), np.zeros((0, 3, 2))
    for _ in range(2):
        np.testing.assert_allclose(mod.solve_triangular(a, b), b)
        assert mod.solve_triangular(empty_a, empty_b).shape == (0, 3, 2)
        q = np.zeros((0, 3, 3))
        assert mod.solve_sylvester(empty_a, empty_a, q).shape == (0, 3, 3)
        np.testing.assert_allclose(mod.solve_sylvester(a, a, np.eye(3)), 0.5 * np.eye(3))
