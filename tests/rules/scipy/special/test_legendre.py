"""scipy.special's spherical harmonics (sph_harm_y): every registration on every backend, and the
calls the rule refuses."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special.legendre")

sps = pytest.importorskip("scipy.special")


def test_sph_harm_y_refuses_diff_n() -> None:
    if not hasattr(sps, "sph_harm_y"):
        pytest.skip("SciPy < 1.15")
    with pytest.raises(TypeError, match="diff_n"):
        cr.rrule(sps.sph_harm_y, 1, 0, np.array([0.5]), np.array([0.2]), diff_n=1)
