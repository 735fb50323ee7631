"""NumPy's joining functions take an array as their sequence (``np.vstack(x)`` stacks ``x``'s
rows): a traced array there is taken the same way. The rules raise ``SequenceExpectedError``
before any work when given one array, and ``chainrules.ad`` calls them again with the array's
sub-arrays along the first axis (issue 29: what autograd's suite writes as ``np.vstack(x)``).
Values against NumPy's, derivatives against central differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.core.namespaces import SequenceExpectedError
from chainrules.testing.finite_differences import gradient

JOINS = [np.vstack, np.hstack, np.column_stack, np.row_stack, np.concatenate, np.stack, np.dstack]
X2 = np.arange(6.0).reshape(2, 3) / 5 + 0.3
X1 = np.array([0.4, -1.2, 0.9])


def _fd_grad(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar ``f`` at ``x`` (the project's ``gradient``)."""
    return gradient(lambda xs: f(xs[0]), [x], 0, h)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # row_stack
@pytest.mark.parametrize("join", JOINS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [X1, X2], ids=["1-d", "2-d"])
def test_an_array_as_the_sequence(join: Any, x: np.ndarray) -> None:
    if join is np.concatenate and x.ndim == 1:  # NumPy refuses it too: 0-d rows
        with pytest.raises(ValueError, match="rank >= 1"):
            ad.grad(lambda t: np.sum(join(t)))(x)
        return
    w = np.linspace(0.5, 1.5, join(x).size).reshape(join(x).shape)

    def loss(t: Any) -> Any:
        return np.sum(w * np.sin(join(t)))

    y = ad.jacobian(lambda t: join(t), mode="fwd")(x)  # forward mode, a chunk of tangents
    assert y.shape == join(x).shape + x.shape
    np.testing.assert_allclose(ad.grad(loss)(x), _fd_grad(loss, x), rtol=1e-7, atol=1e-9)
    H = ad.hessian(loss)(x)
    fd_h = _fd_grad(lambda t: ad.grad(loss)(t).ravel()[0], x)  # one row of the Hessian
    np.testing.assert_allclose(H.reshape(x.size, x.size)[0].reshape(x.shape), fd_h, atol=1e-6)


def test_the_rule_says_so_before_any_work() -> None:
    with pytest.raises(SequenceExpectedError, match="vstack: expected a tuple or list"):
        cr.rrule(np.vstack, X2)
    with pytest.raises(SequenceExpectedError, match="concatenate: expected a tuple or list"):
        cr.rrule(np.concatenate, X2)
    with pytest.raises(TypeError, match="expected a tuple or list") as info:  # not an array
        cr.rrule(np.vstack, 3.0)
    assert not isinstance(info.value, SequenceExpectedError)
