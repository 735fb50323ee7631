"""scipy.linalg rules: every registration on every backend (finite differences), JAX's own
derivatives as a reference, and targeted checks."""

from __future__ import annotations

from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.linalg")
