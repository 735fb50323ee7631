"""NumPy's indexing-like functions (choose, compress, extract, diag, diagflat, select; and
unravel_index, ravel_multi_index): the generated tests, plus select's first-true choice,
compress's and extract's dtypes, choose's index check on the device, and every NumPy gather of
the indexing family on device arrays."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.indexing.selecting")


def test_select_first_true_and_keyword_default() -> None:
    x = np.array([-1.0, 0.2, 2.0])
    c1, c2 = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    conds = [x < 0.5, x < 1]
    y, pb = cr.rrule(np.select, conds, [c1, c2], default=9.0)
    np.testing.assert_array_equal(y, np.select(conds, [c1, c2], default=9.0))
    bar = pb(np.ones(3))[2]
    np.testing.assert_array_equal(bar[0], [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(bar[1], [0.0, 0.0, 0.0])


def test_compress_agrees_with_numpy() -> None:
    m = np.arange(6.0).reshape(3, 2)
    cond = np.array([True, False, True])
    y, pb = cr.rrule(np.compress, cond, m, axis=0)
    np.testing.assert_array_equal(y, np.compress(cond, m, axis=0))
    np.testing.assert_array_equal(pb(np.ones((2, 2)))[2], [[1, 1], [0, 0], [1, 1]])


@pytest.mark.parametrize("f", [np.compress, np.extract])
def test_compress_and_extract_keep_a_big_endian_dtype(f: object) -> None:
    # NumPy keeps ">f8"; the rule's primal (gathered from a concatenation) must too
    x = np.arange(1.0, 5.0).astype(">f8")
    cond = np.array([True, False, True, True])
    y, pb = cr.rrule(f, cond, x)
    want = f(cond, x)
    assert y.dtype == want.dtype == np.dtype(">f8")
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(pb(np.array([1.0, 2.0, 3.0]))[2], [1, 0, 2, 3])


@pytest.mark.parametrize("kwargs", [{}, {"mode": "wrap"}, {"mode": ("clip", "wrap"), "order": "F"}])
def test_ravel_multi_index_as_numpys(kwargs: dict) -> None:
    idx = (np.array([0, 2, 4]), np.array([1, 3, -1]))
    if not kwargs:
        idx = (idx[0] % 3, idx[1] % 4)  # mode='raise' takes in-bounds indices only
    y, pb = cr.rrule(np.ravel_multi_index, idx, (3, 4), **kwargs)
    np.testing.assert_array_equal(y, np.ravel_multi_index(idx, (3, 4), **kwargs))
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3
    _, y_dot = cr.frule((cr.NoTangent(),) * 3, np.ravel_multi_index, idx, (3, 4), **kwargs)
    assert y_dot == cr.NoTangent()
    with pytest.raises(ValueError, match="invalid entry"):
        cr.rrule(np.ravel_multi_index, (np.array([3]), np.array([0])), (3, 4))


def _device_gather_cases() -> list[object]:
    """Every example of every differentiable gather rule of NumPy's indexing functions, here and
    in ``inserting`` (``choose``'s array of choices among them): none may declare a device
    limit."""
    from chainrules.core.registry import registrations
    from chainrules.testing.examples import examples_for
    from chainrules.testing.suite import defined_in

    cases = []
    for reg in registrations():
        numpys = ("chainrules.rules.indexing.selecting", "chainrules.rules.indexing.inserting")
        if not any(defined_in(reg, m) for m in numpys) or reg.non_differentiable:
            continue
        for k, ex in enumerate(examples_for(reg, 0)):
            cases.append(pytest.param(reg, ex, id=f"{reg.name}-{k}-{ex.note}"))
    return cases


@pytest.mark.parametrize(("reg", "ex"), _device_gather_cases())
def test_gather_of_device_arrays_never_iterates_them(reg: object, ex: object) -> None:
    """Campaign seed 3366: ``choose``'s rule ran NumPy's ``choose`` on device index arrays,
    whose dispatcher iterates an array of choices in Python (refused on the guarded array).
    Each gather rule runs on device arrays without an element access, and its primal is
    NumPy's own value and dtype."""
    from chainrules.testing import check_scalar_free
    from chainrules.testing.backends import BACKENDS

    f = BACKENDS["numpy"].function(reg)  # type: ignore[arg-type]
    check_scalar_free(f, *ex.args, **ex.kwargs)  # type: ignore[attr-defined]
    if "inplace" not in ex.kwargs:  # type: ignore[attr-defined]  # NumPy's own writes in place
        want = f(*ex.args, **ex.kwargs)  # type: ignore[attr-defined]
        y = cr.rrule(f, *ex.args, **ex.kwargs)[0]  # type: ignore[attr-defined]
        assert y.dtype == want.dtype
        np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("choices", ["sequence", "array"])
def test_choose_raise_refuses_an_index_out_of_range_on_the_device(choices: str) -> None:
    from chainrules.testing.device import device_array

    c = np.arange(6.0).reshape(2, 3)
    a = np.array([0, 2, 1])
    with pytest.raises(ValueError, match="invalid entry"):
        np.choose(a, c)
    dc = device_array(c) if choices == "array" else (device_array(c[0]), device_array(c[1]))
    with pytest.raises(ValueError, match=r"choose: invalid entry .* \[0, 2\)"):
        cr.rrule(np.choose, device_array(a), dc)
    y = cr.rrule(np.choose, device_array(a), dc, mode="wrap")[0]
    np.testing.assert_array_equal(cr.testing.to_numpy(y), np.choose(a, c, mode="wrap"))
