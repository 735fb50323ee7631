"""What every scipy.linalg rule gets from its binding (``_register`` in
``chainrules/rules/_util/scipy_linalg.py``): SciPy's reading of a 0-d operand as ``[x]`` or
``[[x]]``, and big-endian input computed on its native copy (issue 26)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import examples_for, test_frule, test_rrule

sl = pytest.importorskip("scipy.linalg")

REGS = {
    r.name: r
    for r in cr.registrations()
    if str(r.meta.get("module")).startswith("chainrules.rules.scipy.linalg.")
}


ZERO_D = [
    ("cholesky", (np.asarray(2.5),)),
    ("cho_factor", (np.asarray(2.5),)),
    ("expm", (np.asarray(0.7),)),
    ("solve", (np.asarray(2.5), np.array([[1.0, -2.0], [0.5, 3.0], [4.0, 1.0]]))),
    ("toeplitz", (np.asarray(1.5), np.array([0.3, -1.0, 2.0]))),
    ("circulant", (np.asarray(1.5),)),
    ("fiedler", (np.asarray(1.5),)),
    ("fiedler_companion", (np.asarray(1.5),)),
]


@pytest.mark.parametrize(("name", "args"), ZERO_D, ids=[n for n, _ in ZERO_D])
def test_a_0d_input_is_scipys_one_element(assert_same, name: str, args: tuple) -> None:  # type: ignore[no-untyped-def]
    # SciPy reads a 0-d operand as [x] (the builders) or [[x]] (the matrix functions)
    f = getattr(sl, name)
    y, _ = cr.rrule(f, *args)
    assert_same(y, f(*args))
    if name != "fiedler_companion":  # empty there: nothing to check
        test_rrule(f, *args, jit=False, scalar_free=False)
        test_frule(f, *args, jit=False, scalar_free=False)


# --- issue 26: big-endian input ------------------------------------------------------------------
def _big_endian(x):  # type: ignore[no-untyped-def]
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return x.astype(x.dtype.newbyteorder(">" if sys.byteorder == "little" else "<"))
    if isinstance(x, (tuple, list)):
        return type(x)(_big_endian(e) for e in x)
    return x


def _tree_leaves(y):  # type: ignore[no-untyped-def]
    y = cr.unthunk(y)
    if isinstance(y, cr.Tangent):
        y = y.elements() if y.is_sequence else tuple(v for _, v in sorted(y.fields().items()))
    if isinstance(y, (tuple, list)):
        return [v for e in y for v in _tree_leaves(e)]
    return [y]


def _ones_cotangent(y):  # type: ignore[no-untyped-def]
    if isinstance(y, (tuple, list)):
        return cr.Tangent(*(_ones_cotangent(e) for e in y), primal_type=type(y))
    if isinstance(y, np.ndarray) and y.dtype.kind in "fc":
        return np.ones_like(y)
    return cr.NoTangent()


def _assert_same(got, want, what) -> None:  # type: ignore[no-untyped-def]
    g, w = _tree_leaves(got), _tree_leaves(want)
    assert len(g) == len(w), what
    for a, b in zip(g, w):
        if isinstance(b, np.ndarray | np.generic):
            assert np.asarray(a).dtype.isnative, f"{what}: dtype {np.asarray(a).dtype}"
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=what)
        else:
            assert type(a) is type(b), what


_SL_CASES = [
    pytest.param(sl.__dict__[r.name.split(".", 1)[1]], r, id=r.name)
    for r in REGS.values()
    if not r.non_differentiable and r.name.split(".", 1)[1] in sl.__dict__ and examples_for(r)
]


@pytest.mark.parametrize(("f", "reg"), _SL_CASES)
def test_big_endian_input_gives_the_native_results(f, reg) -> None:  # type: ignore[no-untyped-def]
    """Every scipy.linalg rule on a big-endian copy of each example gives the native example's
    value, cotangents and tangent (SciPy's own inv, lu and sqrtm read the swapped bytes as
    native and return other values; det and expm raise)."""
    checked = 0
    for ex in examples_for(reg):
        args, kwargs = ex.args, ex.kwargs
        bargs, bkw = _big_endian(args), {k: _big_endian(v) for k, v in kwargs.items()}
        swapped = [
            a
            for a in _tree_leaves([*bargs, *bkw.values()])
            if isinstance(a, np.ndarray) and not a.dtype.isnative
        ]
        if not swapped:  # no floating array in this example
            continue
        checked += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y, pb = cr.rrule(f, *args, **kwargs)
            by, bpb = cr.rrule(f, *bargs, **bkw)
        _assert_same(by, y, f"{reg.name}: value")
        ct = _ones_cotangent(y)
        _assert_same(bpb(ct), pb(ct), f"{reg.name}: cotangents")
        dots = tuple(
            np.ones_like(a)
            if isinstance(a, np.ndarray) and a.dtype.kind in "fc"
            else cr.NoTangent()
            for a in args
        )
        _, t = cr.frule((cr.NoTangent(), *dots), f, *args, **kwargs)
        _, bt = cr.frule((cr.NoTangent(), *_big_endian(dots)), f, *bargs, **bkw)
        _assert_same(bt, t, f"{reg.name}: tangent")
    assert checked, f"{reg.name}: no example with a floating array"
