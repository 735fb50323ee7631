"""The package of the statistical rules: every reduction of the standard is registered under its
name and NumPy's."""

from __future__ import annotations

import chainrules as cr
from chainrules.rules import statistical
from chainrules.testing.suite import defined_in

NAMES = {r.name for r in cr.registrations() if defined_in(r, statistical.__name__)}


def test_every_reduction_is_registered_under_both_names() -> None:
    for name in (
        "sum",
        "mean",
        "prod",
        "max",
        "min",
        "var",
        "std",
        "cumulative_sum",
        "cumulative_prod",
    ):
        assert name in NAMES
    for name in (
        "sum",
        "mean",
        "prod",
        "max",
        "amax",
        "min",
        "amin",
        "var",
        "std",
        "cumsum",
        "cumprod",
    ):
        assert f"numpy:{name}" in NAMES
