"""Exponentials and logarithms: complex log by hypothesis, and the generated cells."""

from __future__ import annotations

import numpy as np
from hypothesis import given

import chainrules as cr
from chainrules.rules.elementwise import exp_log
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.strategies import elementwise_args
from chainrules.testing.suite import rule_tests


def _reg(name: str) -> cr.Registration:
    """The registration of ``name`` in :mod:`chainrules.rules.elementwise.exp_log`."""
    return next(r for r in cr.registrations() if r.module == exp_log.__name__ and r.name == name)


@given(elementwise_args(_reg("log"), np, complex=True))
def test_hypothesis_complex_log(args) -> None:  # type: ignore[no-untyped-def]
    test_rrule(np.log, *args)
    test_frule(np.log, *args)


test_rule = rule_tests(exp_log)
