"""sinc and i0: i0's derivative against SciPy's i1, and the generated cells."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules.rules.elementwise import special
from chainrules.testing.suite import rule_tests


def test_i0_derivative_is_i1() -> None:
    from chainrules.rules._util import bessel_i1 as _i1

    x = np.array([-700.0, -30.0, -2.0, -1e-8, 0.0, 0.5, 0.999, 1.0, 7.0, 100.0])
    scipy_special = pytest.importorskip("scipy.special")
    np.testing.assert_allclose(_i1(np, x), scipy_special.i1(x), rtol=2e-14, atol=0)


test_rule = rule_tests(special)
