"""scipy.special's error functions (erf, erfc, ..., ndtr, owens_t, fresnel): every registration on
every backend (the checks that span the package are in test_init.py)."""

from __future__ import annotations

import pytest

from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special.error_functions")

sps = pytest.importorskip("scipy.special")
