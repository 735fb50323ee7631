"""cross: its errors, and the generated cells."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.elementwise import cross
from chainrules.testing.suite import rule_tests


def test_cross_errors() -> None:
    with pytest.raises(ValueError, match="cross"):
        cr.rrule(np.cross, np.ones(4), np.ones(4))


test_rule = rule_tests(cross)
