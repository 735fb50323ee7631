"""scipy.special's convenience functions (expit, log_expit, logit, entr, rel_entr, kl_div, xlogy,
xlog1py, boxcox, boxcox1p): every registration on every backend, log_expit's second derivative."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special.convenience")

sps = pytest.importorskip("scipy.special")


def test_log_expit_first_and_second_derivatives() -> None:
    # found by tests/external/user_code (scipy.special.log_expit had no rule)
    from chainrules import ad

    x = np.array([-8.0, -1.5, 0.2, 5.0, 40.0])
    _, pb = cr.rrule(sps.log_expit, x)
    np.testing.assert_allclose(pb(np.ones(5))[1], sps.expit(-x), rtol=1e-14)
    h = ad.hessian(lambda v: np.sum(sps.log_expit(v)))(x)
    np.testing.assert_allclose(h, np.diag(-sps.expit(x) * sps.expit(-x)), rtol=1e-12, atol=1e-300)
