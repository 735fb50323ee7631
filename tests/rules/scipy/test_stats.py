"""scipy.stats distributions' rules: every registration on every backend, JAX's own
derivatives as a reference, the derivatives with no closed form, SciPy's parameter forms."""

from __future__ import annotations

from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.stats")
