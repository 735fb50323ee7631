"""scipy.special's rules: the tester on every backend that has each function, JAX's own
derivatives as a reference, the derivatives with no closed form, edge values."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing.suite import rule_tests

test_rule = rule_tests("chainrules.rules.scipy.special")
