"""NumPy's linalg extras: eig, eigvals, lstsq, multi_dot, cond, tensorsolve, tensorinv."""

from __future__ import annotations

from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.linalg.numpy_extras")
