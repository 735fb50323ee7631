"""The checker's example limits (chainrules.testing.runner): which examples a profile runs."""

from __future__ import annotations

import numpy as np

from chainrules.core.examples import Example
from chainrules.testing import runner


def _ex(cplx: bool) -> Example:
    return Example((np.ones(2),), complex=cplx)


def test_limits_take_the_first_real_examples_and_the_first_complex_one() -> None:
    exs = [_ex(False), _ex(True), _ex(False), _ex(False), _ex(True)]
    assert [i for i, _ in runner._limited(exs, 3)] == [0, 2, 1]
    assert [i for i, _ in runner._limited(exs, 2)] == [0, 1]
    assert [i for i, _ in runner._limited(exs, None)] == [0, 1, 2, 3, 4]


def test_a_limit_of_one_is_the_first_real_example() -> None:
    assert [i for i, _ in runner._limited([_ex(True), _ex(False), _ex(False)], 1)] == [1]
    assert [i for i, _ in runner._limited([_ex(True), _ex(True)], 1)] == [0]  # all complex


def test_a_limit_per_kind_takes_one_real_and_one_complex_example() -> None:
    exs = [_ex(False), _ex(False), _ex(True), _ex(False), _ex(True)]
    assert [i for i, _ in runner._limited(exs, 2, 1)] == [0, 2]
    assert [i for i, _ in runner._limited(exs[:2], 2, 1)] == [0]  # real only: one example
    assert [i for i, _ in runner._limited(exs, None, 2)] == [0, 1, 2, 4]
    assert [i for i, _ in runner._limited([_ex(True)], 2, 1)] == [0]


def test_profiles_set_the_limits() -> None:
    limits_of = (runner.EXAMPLE_LIMITS, runner.DTYPE_LIMITS, runner.KIND_LIMITS)
    before = tuple(dict(d) for d in limits_of)
    try:
        runner.set_profile("thorough")
        assert runner.EXAMPLE_LIMITS == {} and runner.DTYPE_LIMITS == {}
        assert runner.KIND_LIMITS == {}
        runner.set_profile("fast")
        assert runner.EXAMPLE_LIMITS == {"jax": 1, "torch": 3, "jit": 2}
        assert runner.KIND_LIMITS == {"jit": 1}
    finally:  # the session's own profile (tests-thorough runs "thorough")
        for limits, saved in zip(limits_of, before):
            limits.clear()
            limits.update(saved)
