"""The non-differentiable elementwise functions: declarations, unpackbits, and the generated
cells."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.elementwise import logic
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.suite import rule_tests


def test_gcd_is_non_differentiable() -> None:
    _, pb = cr.rrule(np.gcd, np.array([4, 6]), np.array([6, 9]))
    assert pb(cr.NoTangent()) == (cr.NoTangent(),) * 3


def test_unpackbits_on_uint8_arrays() -> None:
    # the generated numpy/jax cells cannot pass uint8 (integer examples become int64)

    x = np.array([[5, 200], [3, 255]], dtype=np.uint8)
    options: list[dict[str, Any]] = [{}, {"axis": 0, "count": -2, "bitorder": "little"}]
    for kwargs in options:
        y, pb = cr.rrule(np.unpackbits, x, **kwargs)
        np.testing.assert_array_equal(y, np.unpackbits(x, **kwargs))
        assert pb(cr.NoTangent()) == (cr.NoTangent(), cr.NoTangent())
        test_rrule(np.unpackbits, x, **kwargs)
        test_frule(np.unpackbits, x, **kwargs)
    jnp = pytest.importorskip("jax.numpy")
    y, _ = cr.rrule(jnp.unpackbits, jnp.asarray(x), axis=1)
    np.testing.assert_array_equal(np.asarray(y), np.unpackbits(x, axis=1))
    with pytest.raises(TypeError, match="unsigned byte"):
        cr.rrule(np.unpackbits, np.array([1, 2]))  # NumPy's own message: uint8 only


test_rule = rule_tests(logic)
