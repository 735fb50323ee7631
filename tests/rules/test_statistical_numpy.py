"""NumPy's order statistics, NaN reductions, cov/corrcoef, bincount: the generated tests on every
backend, NumPy as the reference for the primal, the tie convention exactly."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.statistical_numpy")
