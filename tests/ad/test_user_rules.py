"""A user's rule of a plain Python function in ``chainrules.ad`` (``chainrules/ad/_user_rules.py``,
issue 27 item 3): used for the function a transformation is given, in the trace's mode, with no
profile hook and no warning; ``UntracedRuleWarning`` deprecated."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad

X = np.array([0.3, -1.2, 0.7])


def _marked(clean_registry: Any, *, rrule: float | None, frule: float | None) -> Any:
    """A plain ``sum(sin(x))`` whose registered rules answer ``rrule`` / ``frule`` times the
    true derivative (None: no rule of that mode)."""

    def body(x: Any) -> Any:
        return np.sum(np.sin(x))

    if rrule is not None:

        @cr.register_rrule(body)
        def _rrule(x: Any) -> Any:
            return body(x), lambda g: (cr.NoTangent(), rrule * g * np.cos(x))

    if frule is not None:

        @cr.register_frule(body)
        def _frule(tangents: Any, x: Any) -> Any:
            return body(x), frule * np.sum(np.cos(x) * tangents[1], axis=-1)

    return body


def test_reverse_transformations_use_the_rrule(clean_registry: Any) -> None:
    body = _marked(clean_registry, rrule=3.0, frule=None)
    want = 3.0 * np.cos(X)
    np.testing.assert_allclose(ad.grad(body)(X), want, rtol=1e-12)
    np.testing.assert_allclose(ad.value_and_grad(body)(X)[1], want, rtol=1e-12)
    np.testing.assert_allclose(ad.vjp(body, X)[1](np.float64(1.0))[0], want, rtol=1e-12)
    np.testing.assert_allclose(ad.jacobian(body, mode="rev")(X), want, rtol=1e-12)


def test_forward_transformations_use_the_frule(clean_registry: Any) -> None:
    body = _marked(clean_registry, rrule=3.0, frule=5.0)
    t = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(ad.jvp(body, (X,), (t,))[1], 5.0 * np.cos(X) @ t, rtol=1e-12)
    np.testing.assert_allclose(ad.jacobian(body, mode="fwd")(X), 5.0 * np.cos(X), rtol=1e-12)


def test_a_mode_without_a_rule_traces_the_body(clean_registry: Any) -> None:
    """An rrule only: forward mode differentiates the body (as it did before registration)."""
    body = _marked(clean_registry, rrule=3.0, frule=None)
    t = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(ad.jvp(body, (X,), (t,))[1], np.cos(X) @ t, rtol=1e-12)


def test_hessian_uses_the_rrule_at_the_inner_level(clean_registry: Any) -> None:
    """``hessian`` is jacfwd(grad): the inner gradient takes the rule, whose pullback (3 cos x)
    the outer forward pass differentiates: -3 sin x on the diagonal."""
    body = _marked(clean_registry, rrule=3.0, frule=None)
    np.testing.assert_allclose(ad.hessian(body)(X), np.diag(-3.0 * np.sin(X)), atol=1e-12)


def test_a_call_inside_code_runs_the_body_without_a_warning(clean_registry: Any) -> None:
    """What no introspection can see: inside the user's code a plain function's call runs its
    body (the docs say to use ``@cr.traceable``), and nothing is warned."""
    body = _marked(clean_registry, rrule=3.0, frule=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = ad.grad(lambda x: body(x) * 1.0)(X)
    np.testing.assert_allclose(g, np.cos(X), rtol=1e-12)


def test_traceable_makes_every_call_use_the_rule(clean_registry: Any) -> None:
    @cr.traceable
    def body(x: Any) -> Any:
        return np.sum(np.sin(x))

    @cr.register_rrule(body)
    def _rrule(x: Any) -> Any:
        return body(x), lambda g: (cr.NoTangent(), 3.0 * g * np.cos(x))

    np.testing.assert_allclose(ad.grad(lambda x: body(x) * 1.0)(X), 3.0 * np.cos(X), rtol=1e-12)


def test_a_rule_that_differentiates_its_own_body_does_not_recurse(clean_registry: Any) -> None:
    """A rule that takes ``ad.vjp`` of its own function (to scale the body's derivative): inside
    the rule, the transformation of the function traces the body."""

    def body(x: Any) -> Any:
        return np.sum(np.sin(x))

    @cr.register_rrule(body)
    def _rrule(x: Any) -> Any:
        y, pb = ad.vjp(body, x)
        return y, lambda g: (cr.NoTangent(), 2.0 * pb(g)[0])

    np.testing.assert_allclose(ad.grad(body)(X), 2.0 * np.cos(X), rtol=1e-12)


def test_registering_a_rule_changes_nothing_for_other_programs(clean_registry: Any) -> None:
    """A program that never calls the registered function: the same gradient, no profile hook
    (``sys.getprofile()`` stays None inside) and no warning."""
    import sys

    def program(x: Any) -> Any:
        seen.append(sys.getprofile())
        return np.sum(np.tanh(x) * x)

    seen: list[Any] = []
    before = ad.grad(program)(X)
    _marked(clean_registry, rrule=3.0, frule=5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        after = ad.grad(program)(X)
    np.testing.assert_array_equal(after, before)
    assert seen == [None, None]


def test_untraced_rule_warning_is_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match="UntracedRuleWarning is deprecated"):
        cls: Any = ad.UntracedRuleWarning
    assert issubclass(cls, UserWarning)
    with pytest.warns(DeprecationWarning, match="never raised"):
        from chainrules.ad import UntracedRuleWarning  # noqa: F401
    assert "UntracedRuleWarning" not in ad.__all__
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        ad.nothing_here
