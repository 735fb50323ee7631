"""The machinery of the scipy.special rules (``chainrules/rules/_util/special.py``): the
partials read the same library's siblings, and a partial with no closed form raises only when its
cotangent is forced."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr

sps = pytest.importorskip("scipy.special")


def test_derivative_from_the_same_library() -> None:
    x = np.array([0.5, 1.5, 4.0])
    _, pb = cr.rrule(sps.gammaln, x)
    np.testing.assert_allclose(pb(np.ones(3))[1], sps.digamma(x))
    torch = pytest.importorskip("torch")
    t = torch.tensor(x)
    _, pb = cr.rrule(torch.special.gammaln, t)
    g = pb(torch.ones(3))[1]
    assert isinstance(g, torch.Tensor)
    np.testing.assert_allclose(g.numpy(), sps.digamma(x))


@pytest.mark.parametrize(
    ("name", "args", "arg"),
    [
        ("gammainc", (np.array([1.5]), np.array([0.5])), "a"),
        ("betainc", (np.array([1.5]), np.array([2.0]), np.array([0.3])), "a"),
        ("zeta", (np.array([2.5]), np.array([0.5])), "x"),
        ("hyp1f1", (np.array([1.5]), np.array([2.0]), np.array([0.3])), "a"),
    ],
)
def test_no_closed_form_raises_only_when_forced(name: str, args: tuple, arg: str) -> None:
    f = getattr(sps, name)
    _, pb = cr.rrule(f, *args)
    res = pb(np.ones(1))
    assert isinstance(res[1], cr.Thunk)  # nothing raised yet: the other cotangents are usable
    assert isinstance(res[-1], np.ndarray)
    with pytest.raises(NotImplementedError, match=rf"{name}.*'{arg}'"):
        cr.unthunk(res[1])
    tangents = (cr.NoTangent(), np.ones(1), *[cr.ZeroTangent()] * (len(args) - 1))
    with pytest.raises(NotImplementedError, match=name):
        cr.frule(tangents, f, *args)
    # an integer order has no tangent space: nothing to force
    _, pb = cr.rrule(f, np.array([2]), *args[1:])
    assert isinstance(pb(np.ones(1))[1], cr.NoTangent)
