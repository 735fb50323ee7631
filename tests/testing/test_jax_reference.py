"""``check_agrees_with_jax`` (``chainrules/testing/jax_reference.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules.testing import check_agrees_with_jax


def test_x64_is_scoped_to_the_call() -> None:
    """Issue 27 (no process-wide patch is left in place): the check compares in float64 (a
    float32 JAX would miss its 1e-10 tolerance) and leaves JAX's x64 flag as it found it."""
    jax = pytest.importorskip("jax")
    before = jax.config.jax_enable_x64
    with jax.enable_x64(False):
        check_agrees_with_jax(np.sin, np.array([0.1, 1.3, -2.0]))
        assert jax.config.jax_enable_x64 is False
    assert jax.config.jax_enable_x64 == before


def test_a_disagreement_is_reported() -> None:
    """A pullback that disagrees with JAX's is an AssertionError naming the function."""
    pytest.importorskip("jax")
    with pytest.raises((AssertionError, ValueError)):
        check_agrees_with_jax(np.sin, np.array([0.1, 1.3]), f_jax=lambda x: x * 2.0)
