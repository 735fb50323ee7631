"""scipy.special's exponential integrals (exp1, expi, expn, sici, spence): every registration on
every backend (the checks that span the package are in test_init.py)."""

from __future__ import annotations

import pytest

from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special.integrals")

sps = pytest.importorskip("scipy.special")
