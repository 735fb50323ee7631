"""Broadcasting (broadcast_to, broadcast_arrays): the tester on every backend, JAX as a
reference, the sums over the copies, and structural cotangents of broadcast_arrays."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.rules.manipulation import broadcasting
from chainrules.testing import examples_for
from chainrules.testing.suite import rule_tests

REGS = [r for r in cr.registrations() if r.module == broadcasting.__name__]

STANDARD = ("broadcast_arrays", "broadcast_to")
NUMPY = ("broadcast_arrays", "broadcast_to")  # NumPy's signatures of the standard's


def test_every_function_is_registered(assert_registered) -> None:  # type: ignore[no-untyped-def]
    assert_registered(REGS, set(STANDARD) | {f"numpy:{n}" for n in NUMPY})


@pytest.mark.parametrize("reg", REGS, ids=lambda r: r.name)
def test_agrees_with_jax(reg: cr.Registration, assert_agrees_with_jax) -> None:  # type: ignore[no-untyped-def]
    assert_agrees_with_jax(reg, examples_for(reg))


def test_broadcast_to_sums_the_copies(pull) -> None:  # type: ignore[no-untyped-def]
    g = pull(np.broadcast_to, np.array([[1.0], [2.0]]), (3, 2, 4))[1]
    assert g.tolist() == [[12.0], [12.0]]
    g = pull(np.broadcast_to, np.array(5.0), (0, 3))[1]
    assert g.shape == () and float(g) == 0.0  # nothing was read: a zero of x's shape


def test_structural_cotangents() -> None:
    # broadcast_arrays takes ZeroTangent() entries for outputs not used
    a = np.array([1.0, 2.0])
    _, pb = cr.rrule(np.broadcast_arrays, a, np.array([[1.0], [2.0]]))
    res = pb((np.ones((2, 2)), cr.ZeroTangent()))
    assert res[1].tolist() == [2.0, 2.0] and res[2] is cr.ZeroTangent()


def test_signatures_and_errors() -> None:
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError, match="subok=True"):
        cr.rrule(np.broadcast_to, x, (2, 2, 3), subok=True)


# the check command's cells (every backend, scalar-free, jit), with the limits the
# registrations declare (expect=): chainrules.testing.suite
test_rule = rule_tests(broadcasting)
