from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import chainrules as cr


def _run(code: str) -> str:
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def test_named_rules_resolve_lazily_in_libraries_imported_later() -> None:
    pytest.importorskip("jax")
    out = _run(
        """
        import sys
        import chainrules as cr
        assert "jax" not in sys.modules
        import jax.numpy as jnp
        rule = cr.find_rrule(jnp.sin)
        y, pb = cr.rrule(jnp.sin, jnp.asarray([0.0, 1.0]))
        print(rule is not None, type(y).__module__.split(".")[0], cr.function_name(jnp.arccos))
        """
    )
    assert out == "True jaxlib jax.numpy.arccos"


def test_register_for_a_callable_and_call() -> None:
    def cube(x):  # type: ignore[no-untyped-def]
        return x * x * x

    @cr.register_rrule(cube)
    def cube_rrule(x):  # type: ignore[no-untyped-def]
        y = cube(x)

        def cube_pullback(y_bar):  # type: ignore[no-untyped-def]
            return cr.NoTangent(), 3 * x * x * cr.unthunk(y_bar)

        return y, cube_pullback

    @cr.register_frule(cube)
    def cube_frule(tangents, x):  # type: ignore[no-untyped-def]
        return cube(x), 3 * x * x * tangents[1]

    assert cr.find_rrule(cube) is cube_rrule and cr.find_frule(cube) is cube_frule
    y, pb = cr.rrule(cube, np.array([2.0]))
    assert y[0] == 8.0 and pb(np.ones(1))[1][0] == 12.0
    assert cr.frule((cr.NoTangent(), np.ones(1)), cube, np.array([2.0]))[1][0] == 12.0
    names = [r.name for r in cr.registrations()]
    assert any(n.endswith("cube") for n in names)


def test_no_rule_error_names_function_and_how_to_register() -> None:
    def mystery(x):  # type: ignore[no-untyped-def]
        return x

    assert cr.find_rrule(mystery) is None and cr.find_frule(mystery) is None
    with pytest.raises(
        cr.NoRuleError, match=r"no rrule is registered for .*mystery.*register_rrule"
    ):
        cr.rrule(mystery, 1.0)
    with pytest.raises(LookupError, match="no frule"):
        cr.frule((cr.NoTangent(), 1.0), mystery, 1.0)
    # np.piecewise takes Python functions: no rule (see docs/rules/numpy-manipulation.md)
    with pytest.raises(cr.NoRuleError, match=r"numpy\.piecewise"):
        cr.rrule(np.piecewise, np.ones(2), [np.ones(2, dtype=bool)], [1.0])


def test_frule_checks_the_tangent_tuple() -> None:
    with pytest.raises(ValueError, match=r"expected a tuple of 2 tangents .* got 1 tangent\b"):
        cr.frule((np.ones(2),), np.sin, np.ones(2))
    with pytest.raises(ValueError, match="got list"):
        cr.frule([cr.NoTangent(), np.ones(2)], np.sin, np.ones(2))  # type: ignore[arg-type]


def test_unhashable_and_invalid_targets() -> None:
    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

        def __call__(self) -> None: ...

    assert cr.find_rrule(Unhashable()) is None
    with pytest.raises(TypeError, match="hashable"):
        cr.register_rrule(Unhashable())
    with pytest.raises(TypeError, match="callable or a function name"):
        cr.register_rrule(3)
    with pytest.raises(ValueError, match="unknown family"):
        cr.register_rrule("torch:sin")
    with pytest.raises(TypeError, match="at least one target"):
        cr.register_rrule()
    with pytest.raises(TypeError, match="a rule must be callable"):
        cr.register_frule("sin")(3)  # type: ignore[arg-type]


def test_user_can_override_a_library_rule_by_name(clean_registry) -> None:  # type: ignore[no-untyped-def]
    @cr.register_rrule("sin")
    def my_sin_rrule(x):  # type: ignore[no-untyped-def]
        return np.sin(x), lambda y_bar: (cr.NoTangent(), "mine")

    assert cr.find_rrule(np.sin) is my_sin_rrule  # the later registration of a name wins
    assert cr.rrule(np.sin, np.ones(1))[1](np.ones(1))[1] == "mine"


def test_precedence_callable_over_numpy_name_over_standard_name(clean_registry) -> None:  # type: ignore[no-untyped-def]
    def rule_a(x):  # type: ignore[no-untyped-def]
        return x, None

    def rule_b(x):  # type: ignore[no-untyped-def]
        return x, None

    def rule_c(x):  # type: ignore[no-untyped-def]
        return x, None

    # np.acos is np.arccos: the "numpy:" registration beats the standard name
    cr.register_rrule("numpy:arccos")(rule_a)
    cr.register_rrule("acos")(rule_b)
    assert cr.find_rrule(np.arccos) is rule_a
    cr.register_rrule(np.arccos)(rule_c)
    cr.register_rrule("numpy:arccos")(rule_a)
    assert cr.find_rrule(np.arccos) is rule_c  # a callable beats both names


def test_numpy_family_only_reaches_numpy_like_libraries() -> None:
    pytest.importorskip("array_api_strict")
    import array_api_strict as xs

    assert cr.find_rrule(np.arcsin) is not None
    assert not hasattr(xs, "arcsin")
    assert cr.find_rrule(xs.asin) is not None


def test_torch_functions_outside_the_elementwise_set_are_not_claimed() -> None:
    torch = pytest.importorskip("torch")
    assert cr.find_rrule(torch.sin) is not None
    assert cr.find_rrule(torch.equal) is None  # not elementwise: compares whole tensors


def test_counterpart_finds_the_same_function_in_another_library() -> None:
    from chainrules.core.registry import counterpart

    jnp = pytest.importorskip("jax.numpy")
    assert counterpart(np.arccos, jnp) in (jnp.acos, jnp.arccos)
    assert counterpart(np.sin, jnp) is jnp.sin

    def generic(x):  # type: ignore[no-untyped-def]
        return x

    assert counterpart(generic, jnp) is None


def test_counterpart_of_a_directly_registered_function(clean_registry) -> None:  # type: ignore[no-untyped-def]
    from chainrules.core.registry import counterpart

    def generic(x):  # type: ignore[no-untyped-def]
        return x

    cr.register_rrule(generic)(lambda x: (x, None))
    assert counterpart(generic, np) is generic


def test_scipy_family_covers_each_librarys_function(clean_registry):
    """A "scipy:MODULE.NAME" registration covers scipy.MODULE.NAME, jax.scipy.MODULE.NAME and any
    namespace registered for the family (torch.special here), each rule calling the function it
    was found for; an array namespace's counterpart is looked up in its own SciPy."""
    sps = pytest.importorskip("scipy.special")
    import chainrules.core.registry as registry

    cr.scalar_rule("scipy:special.erf", lambda xp, out, x: 2 / np.sqrt(np.pi) * xp.exp(-x * x))
    x = np.array([0.1, 0.5])
    y, pb = cr.rrule(sps.erf, x)
    np.testing.assert_allclose(y, sps.erf(x))
    np.testing.assert_allclose(pb(np.ones(2))[1], 2 / np.sqrt(np.pi) * np.exp(-x * x))
    (reg,) = [r for r in cr.registrations() if r.name == "scipy:special.erf"]
    assert reg.family == "scipy" and reg.target == "special.erf"
    assert registry.counterpart(sps.erf, np) is sps.erf
    jsps = pytest.importorskip("jax.scipy.special")
    jnp = pytest.importorskip("jax.numpy")
    assert registry.counterpart(sps.erf, jnp) is jsps.erf
    _, pb = cr.rrule(jsps.erf, jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(pb(jnp.ones(2))[1]), pb_np := pb(np.ones(2))[1])
    assert isinstance(pb_np, type(jnp.ones(1)))  # the JAX function ran: a JAX result
    assert registry.resolve_name("scipy", "special.erf", np) is sps.erf
    assert registry.resolve_name("scipy", "special.erf", object()) is None


def test_scipy_family_names_restricted_per_namespace(clean_registry):
    """torch.special answers only for the names registered for it (chainrules.rules.scipy.special
    lists those whose signature is SciPy's): logsumexp's is not (torch needs ``dim``)."""
    torch = pytest.importorskip("torch")
    import chainrules.core.registry as registry

    assert cr.find_rrule(torch.special.erf) is not None
    assert cr.find_rrule(torch.special.logsumexp) is None
    assert registry.resolve_name("scipy", "special.logsumexp", torch) is None
    assert registry.resolve_name("scipy", "special.erf", torch) is torch.special.erf


@pytest.mark.parametrize("target", ["scipy:erf", "scipy:", "sympy:sin"])
def test_bad_family_targets_are_refused(target):
    with pytest.raises(ValueError, match=r"rule target|family"):
        cr.register_rrule(target)(lambda x: x)


def test_registration_of_finds_the_winning_registration(clean_registry):
    reg = cr.registration_of(np.arccos)
    assert reg is not None and reg.name == "numpy:arccos"  # "numpy:" beats the standard name
    assert cr.registration_of(lambda x: x) is None
    assert cr.registration_of([]) is None  # unhashable: no rule, no error

    def mine(x):
        return x

    cr.register_rrule(mine)(lambda x: (x, lambda g: (cr.NoTangent(), g)))
    assert cr.registration_of(mine).target is mine
    assert cr.registration_of(np.argmax).non_differentiable


def test_registration_keywords_are_typed_and_checked(clean_registry):
    def f(x):
        return x

    def ex(rng):
        return [((np.ones(2),), {})]

    cr.register_rrule(f, examples=ex, domain=((0.0, 1.0),), hermitian=(0,), generic=True)(
        lambda x: (x, lambda g: (cr.NoTangent(), g))
    )
    reg = cr.registration_of(f)
    assert reg.examples is ex and reg.domain == ((0.0, 1.0),) and reg.hermitian == (0,)
    assert reg.generic and reg.bind is None and reg.arity == 1 and not reg.gauge
    assert reg.module == __name__
    with pytest.raises(TypeError, match=r"unknown registration keyword exmaples; .*examples"):
        cr.register_rrule(f, exmaples=ex)(lambda x: x)
    with pytest.raises(TypeError, match="examples= must be a function"):
        cr.register_frule(f, examples=[1, 2])(lambda t, x: x)
    assert set(cr.core.registry.META_KEYS) >= {"examples", "expect", "bind", "domain"}


def test_scipy_namespace_goes_with_each_array_namespace() -> None:
    import numpy as np

    from chainrules.core.registry import scipy_namespace

    sp = pytest.importorskip("scipy.special")
    import array_api_compat.numpy as cnp

    assert scipy_namespace(np, "special") is sp
    assert scipy_namespace(cnp, "special") is sp
    assert scipy_namespace(np, "linalg").__name__ == "scipy.linalg"
    torch = pytest.importorskip("torch")
    assert scipy_namespace(torch, "special") is torch.special
    assert scipy_namespace(torch, "linalg") is None  # torch.linalg is not SciPy's
    jnp = pytest.importorskip("jax.numpy")
    assert scipy_namespace(jnp, "special").__name__ == "jax.scipy.special"
    xps = pytest.importorskip("array_api_strict")
    assert scipy_namespace(xps, "special") is None
