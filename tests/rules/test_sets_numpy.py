"""NumPy's set functions: values differentiable, ties split equally, integer outputs without
a tangent; the generated cells of every registration."""

from __future__ import annotations

from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.sets_numpy")
