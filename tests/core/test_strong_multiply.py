"""``chainrules.core.strong_zero.strong_multiply``: the strong-zero product that every
``strong_zero=True`` rule's pullback and pushforward multiply with, a function with rules of its
own so that Hessians differentiate it (issue 26; the Hessian regression test over every strong
rule is ``test_strong_zero_hessian_where_the_cotangent_is_zero`` in
``tests/rules/elementwise/test_limits.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.core.strong_zero import strong_multiply
from chainrules.testing import test_frule, test_rrule

RNG = np.random.default_rng(7)
CASES = {
    "same shape": (RNG.standard_normal(4), RNG.standard_normal(4)),
    "broadcast d": (RNG.standard_normal((3, 2)), RNG.standard_normal(2)),
    "broadcast v": (RNG.standard_normal(2), RNG.standard_normal((3, 2))),
    "0-d": (np.array(0.7), np.array(-1.3)),
    "complex": (
        RNG.standard_normal(3) + 1j * RNG.standard_normal(3),
        RNG.standard_normal(3) + 1j * RNG.standard_normal(3),
    ),
    "float32": (
        RNG.standard_normal(3).astype(np.float32),
        RNG.standard_normal(3).astype(np.float32),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_strong_multiply_rules(case: str) -> None:
    """Against finite differences, on the guarded device array and under jax.jit."""
    v, d = CASES[case]
    test_rrule(strong_multiply, v, d)
    test_frule(strong_multiply, v, d)


def test_strong_zero_values_and_derivatives() -> None:
    """0 where ``v`` is 0, whatever ``d`` is; the pullback's ``v_bar`` is 0 where the cotangent is
    0 (``d`` may be inf there) and ``d_bar`` is 0 where ``v`` is 0 (``y`` does not depend on
    ``d`` there); the pushforward keeps both zeros."""
    v = np.array([0.0, 2.0, 0.0, 1.0])
    d = np.array([np.inf, 3.0, np.nan, 4.0])
    with np.errstate(invalid="ignore"):
        y, pb = cr.rrule(strong_multiply, v, d)
        np.testing.assert_array_equal(y, [0.0, 6.0, 0.0, 4.0])
        _, v_bar, d_bar = pb(np.array([0.0, 1.0, 0.0, 1.0]))
        np.testing.assert_array_equal(cr.unthunk(v_bar), [0.0, 3.0, 0.0, 4.0])
        np.testing.assert_array_equal(cr.unthunk(d_bar), [0.0, 2.0, 0.0, 1.0])
        _, t = cr.frule(
            (cr.NoTangent(), np.array([0.0, 1.0, 0.0, 1.0]), np.array([5.0, 1.0, 5.0, 0.0])),
            strong_multiply,
            v,
            d,
        )
        # dv d + v dd: dv = 0 where d is non-finite, v = 0 there too
        np.testing.assert_array_equal(t, [0.0, 5.0, 0.0, 4.0])


def test_strong_zero_of_a_broadcast_factor() -> None:
    """``v`` broadcast in the product (the frule's ``v * dd`` with a chunk of tangents): NumPy's
    in-place mask took a mask of ``v``'s shape for the product's (``putmask: mask and data must
    be the same size``, campaign seeds 290, 603, ... in the zero-cotangent relation)."""
    v = np.array([0.0, 1.0])
    d = np.array([[np.inf, 2.0], [3.0, np.nan], [np.nan, 4.0]])
    with np.errstate(invalid="ignore"):
        y = strong_multiply(v, d)
    np.testing.assert_array_equal(y, [[0.0, 2.0], [0.0, np.nan], [0.0, 4.0]])


@pytest.mark.parametrize("way", ["eager", "requires_grad", "vmap"])
def test_torch_strong_zero_method_masks_inf_and_nan(way: str) -> None:
    """torch's own strong_zero (an eager CPU tensor: one sum, then an in-place mask; a tensor in a
    graph or under torch.func: torch.where) gives 0 where v is 0, also against inf and NaN, and
    the product elsewhere -- as the generic mask does."""
    torch = pytest.importorskip("torch")
    from chainrules.core.strong_zero import strong_zero

    v = torch.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]], dtype=torch.float64)
    d = torch.tensor([np.inf, -1.0, np.nan], dtype=torch.float64)
    want = torch.tensor([[0.0, -2.0, 0.0], [np.inf, 0.0, np.nan]], dtype=torch.float64)
    if way == "vmap":
        got = torch.func.vmap(lambda vi: strong_zero(vi * d, vi, torch))(v)
    else:
        vv = v.clone().requires_grad_(way == "requires_grad")
        got = strong_zero(vv * d, vv, torch)
        assert got.requires_grad == (way == "requires_grad")
    torch.testing.assert_close(got.detach(), want, equal_nan=True)


@pytest.mark.parametrize("value", [2.0, 0.0])
def test_numpy_strong_zero_of_a_broadcast_scalar_agrees_with_the_generic_mask(value) -> None:  # type: ignore[no-untyped-def]
    """A cotangent that is one value broadcast (a sum's, at scale) is read in O(1) by NumPy's
    method: a nonzero one leaves inf and NaN in the product (no zero to mask), a zero one masks
    them -- as the generic mask does."""
    from chainrules.core.specialise import generic_only
    from chainrules.core.strong_zero import strong_zero

    d = np.random.default_rng(0).standard_normal(5000)
    d[[3, 70]] = np.inf, np.nan
    v = np.broadcast_to(np.float64(value), d.shape)
    with np.errstate(invalid="ignore"):
        got = strong_zero(v * d, v, np)
        with generic_only():
            want = strong_zero(v * d, v, np)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[70]) if value else not np.isnan(got).any()


@pytest.mark.parametrize("n", [1, 5, 16, 17, 300])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_numpy_strong_zero_agrees_with_the_generic_mask_at_every_size(n: int, dtype: str) -> None:
    """NumPy's method finds a non-finite product by a Python sum (at most 16 entries), a vdot
    or a reduction, then masks it: the generic mask's values at each size, with inf, NaN,
    inf and -inf together, and large finite entries."""
    from chainrules.core.specialise import generic_only
    from chainrules.core.strong_zero import strong_zero

    rng = np.random.default_rng(n)
    cases = [np.array([np.inf]), np.array([np.nan]), np.array([np.inf, -np.inf]), np.array([1e38])]
    for special in cases:
        d = rng.standard_normal(n).astype(dtype)
        v = rng.standard_normal(n).astype(dtype)
        k = min(len(special), n)
        v[: k + 1] = 0.0
        with np.errstate(all="ignore"):
            d[:k] = special[:k].astype(dtype) * (2.0 if special[0] == 1e38 else 1.0)
            got = strong_zero(v * d, v, np)
            with generic_only():
                want = strong_zero(v * d, v, np)
        np.testing.assert_array_equal(got, want)
