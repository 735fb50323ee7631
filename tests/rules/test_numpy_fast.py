"""NumPy fast paths agree with the generic path they replace."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules.rules import _numpy_fast


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (0,)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm_fast_path_agrees(shape, dtype, keepdims) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    fast = _numpy_fast.vector_norm(x, None, keepdims, 2)
    ref = np.linalg.vector_norm(x, keepdims=keepdims)
    assert fast.dtype == ref.dtype and np.shape(fast) == np.shape(ref)
    np.testing.assert_allclose(fast, ref, rtol=1e-6 if dtype == np.float32 else 1e-14)


def test_vector_norm_fast_path_declines() -> None:
    x = np.ones(3)
    assert _numpy_fast.vector_norm(x, 0, False, 2) is None
    assert _numpy_fast.vector_norm(x, None, False, 1) is None
    assert _numpy_fast.vector_norm(x + 0j, None, False, 2) is None
    assert _numpy_fast.vector_norm([1.0, 2.0], None, False, 2) is None
