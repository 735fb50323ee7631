"""The testers must fail on wrong rules: each contract violation has a rule here that commits it."""

from __future__ import annotations

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import test_frule, test_rrule


@pytest.fixture
def square(clean_registry):  # type: ignore[no-untyped-def]
    """A fresh function with no rule; each test registers a (wrong) rule for it."""

    def square(x, n=None):  # type: ignore[no-untyped-def]
        return x * x

    return square


def _register(f, rrule=None, frule=None) -> None:  # type: ignore[no-untyped-def]
    if rrule is not None:
        cr.register_rrule(f)(rrule)
    if frule is not None:
        cr.register_frule(f)(frule)


X = np.array([0.5, -1.0, 2.0])


def good_rrule(x, n=None):  # type: ignore[no-untyped-def]
    def pb(y_bar):  # type: ignore[no-untyped-def]
        y_bar = cr.unthunk(y_bar)
        if cr.is_zero(y_bar):
            return cr.NoTangent(), cr.ZeroTangent()
        cr.check_cotangent("square", y_bar, x)
        return cr.NoTangent(), cr.ProjectTo(x)(2 * x * y_bar)

    return x * x, pb


def good_frule(tangents, x, n=None):  # type: ignore[no-untyped-def]
    return x * x, 2 * x * tangents[1]


def test_a_correct_rule_passes(square) -> None:  # type: ignore[no-untyped-def]
    _register(square, good_rrule, good_frule)
    test_rrule(square, X)
    test_frule(square, X)
    test_rrule(square, X.astype(np.float32))
    test_rrule(square, np.random.default_rng(0).standard_normal((8, 8)))  # dot-product path


def test_wrong_derivative_fails_naming_function_argument_and_error(square) -> None:  # type: ignore[no-untyped-def]
    def wrong(x):  # type: ignore[no-untyped-def]
        y, pb = good_rrule(x)
        return y, lambda y_bar: (cr.NoTangent(), pb(y_bar)[1] * 1.01)

    _register(square, wrong, lambda t, x: (x * x, 2.02 * x * t[1]))
    with pytest.raises(
        AssertionError,
        match=r"test_rrule\(.*square\): the cotangent of argument 0 \(shape \(3,\), float64\) "
        r"differs from the reference: max error",
    ):
        test_rrule(square, X)
    with pytest.raises(AssertionError, match=r"test_frule\(.*square\): the output tangent differs"):
        test_frule(square, X)
    with pytest.raises(AssertionError, match="dot-product test"):
        test_rrule(square, np.ones((7, 7)))


def test_wrong_primal_fails(square) -> None:  # type: ignore[no-untyped-def]
    _register(square, lambda x: (good_rrule(x)[0] + 1e-3, good_rrule(x)[1]))
    with pytest.raises(AssertionError, match="primal output 0 differs from f"):
        test_rrule(square, X)


def test_wrong_number_of_cotangents_fails(square) -> None:  # type: ignore[no-untyped-def]
    _register(square, lambda x: (x * x, lambda y_bar: (2 * x * y_bar,)))
    with pytest.raises(AssertionError, match="tuple of 2 entries"):
        test_rrule(square, X)


def test_float32_in_float64_out_fails(square) -> None:  # type: ignore[no-untyped-def]
    def leaky(x):  # type: ignore[no-untyped-def]
        y, pb = good_rrule(x)
        return y, lambda y_bar: (cr.NoTangent(), pb(y_bar)[1].astype(np.float64))

    _register(square, leaky)
    with pytest.raises(AssertionError, match="dtype float64, expected float32"):
        test_rrule(square, X.astype(np.float32))


def test_zero_tangent_for_an_integer_argument_fails(square) -> None:  # type: ignore[no-untyped-def]
    def sloppy(x, n):  # type: ignore[no-untyped-def]
        y, pb = good_rrule(x)
        return y, lambda y_bar: (*pb(y_bar), cr.ZeroTangent())

    _register(square, sloppy)
    with pytest.raises(AssertionError, match=r"ZeroTangent\(\) for argument 1 .* return NoTangent"):
        test_rrule(square, X, 3)


def test_mutating_the_input_fails(square) -> None:  # type: ignore[no-untyped-def]
    def mutating(x):  # type: ignore[no-untyped-def]
        y, pb = good_rrule(x)

        def pullback(y_bar):  # type: ignore[no-untyped-def]
            res = pb(y_bar)
            x[...] = x * 1.0  # writes into its (read-only) input
            return res

        return y, pullback

    _register(square, mutating)
    with pytest.raises(AssertionError, match="tried to write into its input"):
        test_rrule(square, X)


def test_mutating_the_cotangent_fails_on_any_library(square) -> None:  # type: ignore[no-untyped-def]
    torch = pytest.importorskip("torch")

    def mutating(x):  # type: ignore[no-untyped-def]
        def pullback(y_bar):  # type: ignore[no-untyped-def]
            y_bar.mul_(2.0)  # in place on the caller's cotangent
            return cr.NoTangent(), x * y_bar

        return x * x, pullback

    _register(square, mutating)
    with pytest.raises(AssertionError, match="mutated the cotangent it was given"):
        test_rrule(square, torch.asarray(X))


def test_silent_broadcast_of_a_wrong_shape_cotangent_fails(square) -> None:  # type: ignore[no-untyped-def]
    _register(square, lambda x: (x * x, lambda y_bar: (cr.NoTangent(), 2 * x * cr.unthunk(y_bar))))
    with pytest.raises(AssertionError, match=r"shape \(2, 3\) for an output of shape \(3,\) was"):
        test_rrule(square, X)


def test_pullback_that_rejects_zero_or_thunk_fails(square) -> None:  # type: ignore[no-untyped-def]
    def no_thunks(x):  # type: ignore[no-untyped-def]
        y, pb = good_rrule(x)

        def pullback(y_bar):  # type: ignore[no-untyped-def]
            if isinstance(y_bar, cr.Thunk):
                return cr.NoTangent(), x * 0
            return pb(y_bar)

        return y, pullback

    _register(square, no_thunks)
    with pytest.raises(AssertionError, match="pulling back a Thunk changed"):
        test_rrule(square, X)


def test_pullback_with_state_fails_the_second_call(square) -> None:  # type: ignore[no-untyped-def]
    def stateful(x):  # type: ignore[no-untyped-def]
        calls = []
        y, pb = good_rrule(x)

        def pullback(y_bar):  # type: ignore[no-untyped-def]
            if not cr.is_zero(y_bar):
                calls.append(1)
            return cr.NoTangent(), pb(y_bar)[1] * len(calls)

        return y, pullback

    _register(square, stateful)
    with pytest.raises(AssertionError, match="calling the pullback twice changed entry"):
        test_rrule(square, X)


def test_frule_that_ignores_chunks_fails(square) -> None:  # type: ignore[no-untyped-def]
    def chunk_blind(tangents, x):  # type: ignore[no-untyped-def]
        t = tangents[1]
        if getattr(t, "ndim", 0) > x.ndim:  # pushes only the first direction
            t = t[0]
        return x * x, 2 * x * t

    _register(square, good_rrule, chunk_blind)
    with pytest.raises(AssertionError, match=r"chunk of 3 tangents gave .* shape \(3,\), expected"):
        test_frule(square, X)


def test_rrule_and_frule_that_disagree_fail(square) -> None:  # type: ignore[no-untyped-def]
    def wrong_rrule(x):  # type: ignore[no-untyped-def]
        y, pb = good_rrule(x)
        return y, lambda y_bar: (cr.NoTangent(), -pb(y_bar)[1])

    _register(square, wrong_rrule, good_frule)
    with pytest.raises(AssertionError, match="rrule and frule disagree"):
        test_frule(square, X)


def test_no_tangent_for_a_float_argument_fails(square) -> None:  # type: ignore[no-untyped-def]
    _register(square, lambda x: (x * x, lambda y_bar: (cr.NoTangent(), cr.NoTangent())))
    with pytest.raises(AssertionError, match=r"NoTangent.*which has a tangent space"):
        test_rrule(square, X)


def test_structural_arguments_and_outputs(clean_registry) -> None:  # type: ignore[no-untyped-def]
    def total(parts):  # type: ignore[no-untyped-def]
        return parts[0] * 2.0 + parts[1]

    @cr.register_rrule(total)
    def _total_rrule(parts):  # type: ignore[no-untyped-def]
        def total_pullback(y_bar):  # type: ignore[no-untyped-def]
            y_bar = cr.unthunk(y_bar)
            if cr.is_zero(y_bar):
                return cr.NoTangent(), y_bar
            cr.check_cotangent("total", y_bar, parts[0])
            return cr.NoTangent(), cr.Tangent(2.0 * y_bar, y_bar)

        return total(parts), total_pullback

    test_rrule(total, (np.ones(3), np.arange(3.0)))


def test_tester_needs_a_registered_rule() -> None:
    with pytest.raises(cr.NoRuleError):
        test_rrule(lambda x: x, X)


def test_fkwargs_reach_f_and_kwargs_are_not_differentiated(square) -> None:  # type: ignore[no-untyped-def]
    _register(square, good_rrule, good_frule)
    test_rrule(square, X, n=3)
    test_frule(square, X, fkwargs={"n": 2})


def test_opaque_callable_arguments_and_returned_thunks(clean_registry) -> None:  # type: ignore[no-untyped-def]
    def apply(g, x, label):  # type: ignore[no-untyped-def]
        return g(x)

    @cr.register_rrule(apply)
    def _apply_rrule(g, x, label):  # type: ignore[no-untyped-def]
        y, pb = cr.rrule(g, x)

        def apply_pullback(y_bar):  # type: ignore[no-untyped-def]
            if cr.is_zero(y_bar):
                return cr.NoTangent(), cr.NoTangent(), cr.ZeroTangent(), cr.NoTangent()
            cr.check_cotangent("apply", cr.unthunk(y_bar), y)
            # a deferred cotangent: the contract allows thunks, the tester forces them
            return cr.NoTangent(), cr.NoTangent(), cr.Thunk(lambda: pb(y_bar)[1]), cr.NoTangent()

        return y, apply_pullback

    test_rrule(apply, np.sin, X, "a label")


def test_zero_derivative_gives_zero_tangents_to_every_floating_argument(clean_registry) -> None:  # type: ignore[no-untyped-def]
    def step(x, y):  # type: ignore[no-untyped-def]
        return np.floor(x) + np.floor(y)

    cr.zero_derivative(step)
    _, pb = cr.rrule(step, X, 2.0)
    assert pb(np.ones(3))[1:] == (cr.ZeroTangent(), cr.ZeroTangent())
    _, pb = cr.rrule(step, X, 2)
    assert pb(np.ones(3))[1:] == (cr.ZeroTangent(), cr.NoTangent())


def test_pullback_that_reuses_its_result_buffer_fails(square) -> None:  # type: ignore[no-untyped-def]
    def reusing(x):  # type: ignore[no-untyped-def]
        buf = np.empty_like(x)

        def pullback(y_bar):  # type: ignore[no-untyped-def]
            y_bar = cr.unthunk(y_bar)
            if cr.is_zero(y_bar):
                return cr.NoTangent(), cr.ZeroTangent()
            cr.check_cotangent("square", y_bar, x)
            np.multiply(2 * x, y_bar, out=buf)  # the same array handed out on every call
            return cr.NoTangent(), buf

        return x * x, pullback

    _register(square, reusing)
    with pytest.raises(AssertionError, match="reuses a buffer across calls"):
        test_rrule(square, X, jit=False, scalar_free=False)  # the contract itself


def test_pullback_that_overwrites_the_output_fails(square) -> None:  # type: ignore[no-untyped-def]
    def overwriting(x):  # type: ignore[no-untyped-def]
        y = x * x
        _, pb = good_rrule(x)

        def pullback(y_bar):  # type: ignore[no-untyped-def]
            res = pb(y_bar)
            y[...] = 0.0  # scratch space: the caller's y is gone
            return res

        return y, pullback

    _register(square, overwriting)
    with pytest.raises(AssertionError, match="the pullback mutated the output y"):
        test_rrule(square, X, jit=False, scalar_free=False)  # the contract itself


def _precision_trimmed(x):  # type: ignore[no-untyped-def]
    """Like NumPy's ``polydiv``, whose remainder's leading entries are trimmed within 1e-8: an
    output whose shape depends on the precision (in float64 the first entry is gone)."""
    return 2 * x if x.dtype == np.float32 else 2 * x[1:]


@pytest.mark.parametrize("tester", [test_rrule, test_frule])
def test_reference_output_of_another_shape_fails(clean_registry, tester) -> None:  # type: ignore[no-untyped-def]
    # issue 26: the float64 reference of polydiv's complex64 example had a shorter remainder
    # than the rule's primal; the loss broadcast one against the other and the rule was blamed
    # for a "differs" that was the reference's (or, for float32, a bare broadcasting ValueError)
    def rrule(x):  # type: ignore[no-untyped-def]
        y = _precision_trimmed(x)

        def pb(y_bar):  # type: ignore[no-untyped-def]
            y_bar = cr.unthunk(y_bar)
            if cr.is_zero(y_bar):
                return cr.NoTangent(), cr.ZeroTangent()
            cr.check_cotangent("trimmed", y_bar, y)
            x_bar = 2 * y_bar if y.shape == x.shape else np.concatenate([[0.0], 2 * y_bar])
            return cr.NoTangent(), cr.ProjectTo(x)(x_bar)

        return y, pb

    def frule(t, x):  # type: ignore[no-untyped-def]
        y, d = _precision_trimmed(x), t[1]
        if cr.is_zero(d):
            return y, cr.ZeroTangent()
        return y, 2 * d if y.shape == x.shape else 2 * d[..., 1:]

    _register(_precision_trimmed, rrule, frule)
    x = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    with pytest.raises(AssertionError, match=r"reference point .* shape \(2,\), but the rule's"):
        tester(_precision_trimmed, x, scalar_free=False, jit=False)
    tester(_precision_trimmed, x.astype(np.float64), scalar_free=False, jit=False)  # same shape


@pytest.mark.parametrize("tester", [test_rrule, test_frule])
def test_wrongly_shaped_primal_fails(square, tester) -> None:  # type: ignore[no-untyped-def]
    def rrule(x):  # type: ignore[no-untyped-def]
        return np.concatenate([x * x, x[:1]]), good_rrule(x)[1]

    _register(square, rrule, lambda t, x: (np.concatenate([x * x, x[:1]]), 2 * x * t[1]))
    with pytest.raises(AssertionError, match=r"primal output 0 has shape \(4,\), f gives \(3,\)"):
        tester(square, X, scalar_free=False, jit=False)


def _reordered(x):  # type: ignore[no-untyped-def]
    """Like NumPy's complex ``unique_values`` (a hash order): the output's order depends on the
    values and changes under any perturbation."""
    return x[np.argsort(np.sin(1e7 * x))]


@pytest.mark.parametrize("tester", [test_rrule, test_frule])
def test_reference_that_moves_with_the_step_cannot_judge(clean_registry, tester) -> None:  # type: ignore[no-untyped-def]
    # issue 26: complex unique_values "disagreed with finite differences" by 1e3 while the rule
    # was right (the elements move with their values); the reference was no derivative at all
    def rrule(x):  # type: ignore[no-untyped-def]
        perm = np.argsort(np.sin(1e7 * x))

        def pb(y_bar):  # type: ignore[no-untyped-def]
            y_bar = cr.unthunk(y_bar)
            if cr.is_zero(y_bar):
                return cr.NoTangent(), cr.ZeroTangent()
            cr.check_cotangent("reordered", y_bar, x)
            x_bar = np.zeros_like(x)
            x_bar[perm] = y_bar
            return cr.NoTangent(), x_bar

        return x[perm], pb

    def frule(t, x):  # type: ignore[no-untyped-def]
        d = t[1]
        return _reordered(x), d if cr.is_zero(d) else d[..., np.argsort(np.sin(1e7 * x))]

    _register(_reordered, rrule, frule)
    x = np.array([0.5, -1.0, 2.0, 0.25])
    with pytest.raises(AssertionError, match=r"finite differences cannot judge .* not smooth"):
        tester(_reordered, x, scalar_free=False, jit=False)


def test_reference_replaces_a_wrong_library_primal(square) -> None:  # type: ignore[no-untyped-def]
    """Where the library's own function is wrong and the rule is right by design (SciPy's
    solve_sylvester with mixed real and complex arguments), ``reference=`` gives the tester the
    right function: the primal and the finite differences are judged against it."""

    def wrong_library(x, n=None):  # type: ignore[no-untyped-def]
        return x * x + 0.5  # what the library gets wrong

    _register(wrong_library, good_rrule, good_frule)
    for tester in (test_rrule, test_frule):
        with pytest.raises(AssertionError, match="primal output 0 differs from f"):
            tester(wrong_library, X, scalar_free=False, jit=False)
        tester(wrong_library, X, reference=lambda x: x * x, scalar_free=False, jit=False)
