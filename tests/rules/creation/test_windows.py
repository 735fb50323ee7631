"""NumPy's windows: kaiser (differentiable in beta) through the generated cells; the windows of
a size alone non-differentiable."""

from __future__ import annotations

import numpy as np

import chainrules as cr
from chainrules.testing.suite import rule_tests


def test_size_windows_are_non_differentiable() -> None:
    reg = cr.find_rrule(np.hamming)
    assert reg is not None


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests("chainrules.rules.creation.windows")
